/*
 * The segmented scan's element: a value and a segment-start flag, with the
 * operator (a, fa) . (b, fb) = (fb ? b : a op b, fa | fb), which is
 * associative (Blelloch 1990), so the scan's warp, block and look-back
 * machinery scans segments unchanged, in the same fixed order: floats give
 * the same bits on every run.
 *
 * What the machinery needs beyond scan_op: shuffles of a pair (found by
 * argument-dependent lookup from warp_scan.cuh), tagged look-back words of a
 * pair (one word for the flag, one or two for the value), and folds that
 * keep scan order, since the operator does not commute (op_commutes_v: the
 * look-back's entry folds use warp_reduce_ordered). A head resets the fold
 * (op_resets_v), so a look-back prefix needs only the entries from the
 * nearest one (scan_tile's publish_and_prefix).
 */
#pragma once

#include "scan/device/scan_tile.cuh"

namespace gp {

template <typename T> struct seg_pair {
  T value;
  uint32_t head; /* 0 or 1: a segment starts here (scan order) */
};

template <typename T, gpu_op OP> struct seg_op {
  using Base = scan_op<T, OP>;
  using Pair = seg_pair<T>;
  __device__ static Pair apply(Pair a, Pair b) {
    return Pair{b.head ? b.value : Base::apply(a.value, b.value), a.head | b.head};
  }
  __device__ static Pair identity() { return Pair{Base::identity(), 0u}; }
  __device__ static Pair neutral() { return Pair{Base::neutral(), 0u}; }
  /* A fold that meets a head starts over there (lookback.cuh's op_resets_v). */
  __device__ static bool resets(Pair p) { return p.head != 0; }
};

/* Pairs do not commute: folds must keep scan order (lookback.cuh). */
template <typename T, gpu_op OP> constexpr bool op_commutes_v<seg_op<T, OP>> = false;
/* A look-back prefix needs only the entries from the nearest segment start. */
template <typename T, gpu_op OP> constexpr bool op_resets_v<seg_op<T, OP>> = true;

template <typename T> __device__ inline seg_pair<T> __shfl_up_sync(unsigned mask, seg_pair<T> p, unsigned delta) {
  return seg_pair<T>{::__shfl_up_sync(mask, p.value, delta), ::__shfl_up_sync(mask, p.head, delta)};
}
template <typename T> __device__ inline seg_pair<T> __shfl_down_sync(unsigned mask, seg_pair<T> p, unsigned delta) {
  return seg_pair<T>{::__shfl_down_sync(mask, p.value, delta), ::__shfl_down_sync(mask, p.head, delta)};
}
template <typename T> __device__ inline seg_pair<T> __shfl_sync(unsigned mask, seg_pair<T> p, int lane) {
  return seg_pair<T>{::__shfl_sync(mask, p.value, lane), ::__shfl_sync(mask, p.head, lane)};
}

/* A pair as tagged words: the value's words (as tagged<T> stores them) and
 * the flag's word. Each word carries the epoch, so a reader accepts the
 * entry only when every word is from this launch, as for any entry. */
template <typename T> struct tagged<seg_pair<T>> {
  static constexpr int VALUE_WORDS = tagged<T>::WORDS;
  static constexpr int WORDS = VALUE_WORDS + 1 + (VALUE_WORDS == 2); /* 2 or 4: whole 16-byte pairs of words */

  __device__ static void store(uint64_t *entry, seg_pair<T> v, uint32_t epoch) {
    tagged<T>::store(entry, v.value, epoch);
    tagged<uint32_t>::store(entry + VALUE_WORDS, v.head, epoch);
  }
  __device__ static bool load(const uint64_t *entry, uint32_t epoch, seg_pair<T> *v) {
    T value;
    uint32_t head;
    if (!tagged<T>::load(entry, epoch, &value)) return false;
    if (!tagged<uint32_t>::load(entry + VALUE_WORDS, epoch, &head)) return false;
    *v = seg_pair<T>{value, head};
    return true;
  }
};

}  // namespace gp
