/*
 * Warp-level scan and reduce with shuffles: the bottom level of every scan.
 *
 * Hillis-Steele inclusive scan over the 32 lanes: at step d = 1, 2, 4, 8, 16
 * each lane adds in the value d lanes before it. Five steps, every lane busy:
 *
 *   lane:    0   1    2    3    4 ...
 *   d=1:    x0 x0:1 x1:2 x2:3 x3:4        (xa:b = xa op ... op xb)
 *   d=2:    x0 x0:1 x0:2 x0:3 x1:4
 *   d=4:    x0 x0:1 x0:2 x0:3 x0:4 ...
 *
 * REVERSE runs the same scan from lane 31 down to lane 0 (a suffix scan), so
 * a reversed tile is scanned by the same code with lanes read backwards.
 * The combination order is fixed, so float results are the same every run.
 */
#pragma once

#include "scan/device/ops.cuh"

namespace gp {

constexpr int WARP = 32;
constexpr unsigned FULL_MASK = 0xffffffffu;

/* This lane's position in scan order. */
template <bool REVERSE> __device__ inline int scan_lane(int lane) { return REVERSE ? WARP - 1 - lane : lane; }

/* The value from `delta` lanes earlier in scan order (own value at the edge). */
template <bool REVERSE, typename T> __device__ inline T shfl_earlier(T v, int delta) {
  return REVERSE ? __shfl_down_sync(FULL_MASK, v, delta) : __shfl_up_sync(FULL_MASK, v, delta);
}

/* Inclusive scan of one value per lane, in scan order. */
template <typename Op, bool REVERSE, typename T> __device__ inline T warp_inclusive_scan(T x, int lane) {
  const int sl = scan_lane<REVERSE>(lane);
#pragma unroll
  for (int d = 1; d < WARP; d *= 2) {
    T y = shfl_earlier<REVERSE>(x, d);
    if (sl >= d) x = Op::apply(y, x);
  }
  return x;
}

/* The value of the last lane in scan order (the warp's total after a scan). */
template <bool REVERSE, typename T> __device__ inline T warp_last(T v) {
  return __shfl_sync(FULL_MASK, v, REVERSE ? 0 : WARP - 1);
}

/* Exclusive from inclusive: the previous lane's value in scan order, and
 * Op::neutral() for the first lane. */
template <typename Op, bool REVERSE, typename T> __device__ inline T warp_exclusive_from_inclusive(T incl, int lane) {
  T y = shfl_earlier<REVERSE>(incl, 1);
  return scan_lane<REVERSE>(lane) == 0 ? Op::neutral() : y;
}

/* Fold of one value per lane in a fixed tree (lane 0 + lane 16, ...), the
 * result broadcast to every lane. Lanes with nothing to add pass Op::neutral(). */
template <typename Op, typename T> __device__ inline T warp_reduce(T x) {
#pragma unroll
  for (int d = WARP / 2; d > 0; d /= 2) x = Op::apply(x, __shfl_down_sync(FULL_MASK, x, d));
  return __shfl_sync(FULL_MASK, x, 0);
}

/* The same fold for an operator that does not commute (the segmented
 * scan's pairs): lane l combines with lane l + d, so lane 0 ends with the
 * lanes' values folded in scan order (REVERSE: lane 31 first). Lanes with
 * nothing to add pass Op::neutral(); the result is broadcast. */
template <typename Op, bool REVERSE, typename T> __device__ inline T warp_reduce_ordered(T x) {
#pragma unroll
  for (int d = 1; d < WARP; d *= 2) {
    const T y = __shfl_down_sync(FULL_MASK, x, d);
    x = REVERSE ? Op::apply(y, x) : Op::apply(x, y);
  }
  return __shfl_sync(FULL_MASK, x, 0);
}

}  // namespace gp
