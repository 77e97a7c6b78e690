/*
 * The recurrence's element: a pair (a, b) standing for the map h -> a h + b,
 * with the operator "x then y":
 *
 *   (a1, b1) then (a2, b2) = (a1 a2, a2 b1 + b2)
 *
 * which is associative but does not commute, so the scan's warp, block and
 * look-back machinery (scan/device) scans it unchanged as long as every
 * fold keeps scan order (op_commutes_v = false: the look-back's entry folds
 * use warp_reduce_ordered). A scan's inclusive pair at t has b = h[t] when
 * h[-1] was folded into the first element (b0 := a0 h0 + b0).
 *
 * Products and sums are rounded separately (__fmul_rn and __fadd_rn, never
 * contracted into a fused multiply-add), as the host backend's loop rounds
 * them.
 *
 * Several sequences in one scan (a sequence-major batch, offsets) use
 * lr_seg: a pair and a start flag, with y's pair replacing the fold where y
 * starts a sequence (its b already holds a h0 + b). A start resets the
 * fold (op_resets_v), so a look-back prefix needs only the entries from the
 * nearest start (scan_tile.cuh's publish_and_prefix).
 *
 * Neutral: (1, -0), exact on the right; on the left it turns a b of -0 after
 * a negative a into +0, and an infinite a into NaN (a * -0), the same NaN
 * the loop gives from h[-1] = 0 (docs/linrec.md).
 */
#pragma once

#include "scan/device/scan_tile.cuh"

namespace gp {

__device__ __forceinline__ float lr_mul(float x, float y) { return __fmul_rn(x, y); }
__device__ __forceinline__ double lr_mul(double x, double y) { return __dmul_rn(x, y); }
__device__ __forceinline__ float lr_add(float x, float y) { return __fadd_rn(x, y); }
__device__ __forceinline__ double lr_add(double x, double y) { return __dadd_rn(x, y); }
/* One step of the loop: a h + b. */
template <typename T> __device__ __forceinline__ T lr_step(T a, T h, T b) { return lr_add(lr_mul(a, h), b); }

/* The backward pass's second output, beside db = g: da = g * the forward's
 * h one step later in the backward's scan order (h_fwd), edge[s] (0
 * without it: the forward's h0) past sequence s's last step. */
template <typename T> struct backward_gradients {
  const T *h_fwd;
  const T *edge;
  T *da;
};

/*
 * The product of two coefficients of a fold. Where nonzero coefficients
 * multiply to zero (an underflow), it keeps the smallest subnormal of the
 * product's sign: the loop never forms that product, and an infinite h
 * times a tiny a stays infinite there, where 0 * inf would be NaN. A zero
 * coefficient (a reset) still gives zero, as in the loop.
 */
template <typename T> __device__ __forceinline__ T lr_coef_mul(T x, T y) {
  const T p = lr_mul(x, y);
  if (p != T(0) || x == T(0) || y == T(0)) return p;
  const T least = sizeof(T) == 4 ? T(1.40129846e-45f) : T(4.9406564584124654e-324);
  return signbit(p) ? -least : least;
}

template <typename T> struct lr_pair {
  T a, b;
};

template <typename T> struct lr_op {
  using P = lr_pair<T>;
  __device__ static P apply(P x, P y) { return P{lr_coef_mul(x.a, y.a), lr_step(y.a, x.b, y.b)}; }
  __device__ static P neutral() { return P{T(1), -T(0)}; }
  __device__ static P identity() { return neutral(); }
};
template <typename T> constexpr bool op_commutes_v<lr_op<T>> = false;

template <typename T> struct lr_seg {
  T a, b;
  uint32_t start; /* 0 or 1: a sequence starts here (scan order) */
};

template <typename T> struct lr_seg_op {
  using P = lr_seg<T>;
  __device__ static P apply(P x, P y) {
    if (y.start) return y;
    return P{lr_coef_mul(x.a, y.a), lr_step(y.a, x.b, y.b), x.start};
  }
  __device__ static P neutral() { return P{T(1), -T(0), 0u}; }
  __device__ static P identity() { return neutral(); }
  __device__ static bool resets(P p) { return p.start != 0; }
};
template <typename T> constexpr bool op_commutes_v<lr_seg_op<T>> = false;
template <typename T> constexpr bool op_resets_v<lr_seg_op<T>> = true;

/* Shuffles (found by argument-dependent lookup from warp_scan.cuh). */
template <typename T> __device__ inline lr_pair<T> __shfl_up_sync(unsigned mask, lr_pair<T> p, unsigned d) {
  return lr_pair<T>{::__shfl_up_sync(mask, p.a, d), ::__shfl_up_sync(mask, p.b, d)};
}
template <typename T> __device__ inline lr_pair<T> __shfl_down_sync(unsigned mask, lr_pair<T> p, unsigned d) {
  return lr_pair<T>{::__shfl_down_sync(mask, p.a, d), ::__shfl_down_sync(mask, p.b, d)};
}
template <typename T> __device__ inline lr_pair<T> __shfl_sync(unsigned mask, lr_pair<T> p, int lane) {
  return lr_pair<T>{::__shfl_sync(mask, p.a, lane), ::__shfl_sync(mask, p.b, lane)};
}
template <typename T> __device__ inline lr_seg<T> __shfl_up_sync(unsigned mask, lr_seg<T> p, unsigned d) {
  return lr_seg<T>{::__shfl_up_sync(mask, p.a, d), ::__shfl_up_sync(mask, p.b, d), ::__shfl_up_sync(mask, p.start, d)};
}
template <typename T> __device__ inline lr_seg<T> __shfl_down_sync(unsigned mask, lr_seg<T> p, unsigned d) {
  return lr_seg<T>{::__shfl_down_sync(mask, p.a, d), ::__shfl_down_sync(mask, p.b, d),
                   ::__shfl_down_sync(mask, p.start, d)};
}
template <typename T> __device__ inline lr_seg<T> __shfl_sync(unsigned mask, lr_seg<T> p, int lane) {
  return lr_seg<T>{::__shfl_sync(mask, p.a, lane), ::__shfl_sync(mask, p.b, lane), ::__shfl_sync(mask, p.start, lane)};
}

/* Pairs as tagged look-back words: a's words, then b's (then the start
 * flag's word, and a pad word so that 8-byte values keep their 16-byte
 * alignment). Every word carries the epoch, so an entry is ready when all
 * its words are from this launch. */
template <typename T> struct tagged<lr_pair<T>> {
  static constexpr int VALUE_WORDS = tagged<T>::WORDS;
  static constexpr int WORDS = 2 * VALUE_WORDS;
  __device__ static void store(uint64_t *entry, lr_pair<T> v, uint32_t epoch) {
    tagged<T>::store(entry, v.a, epoch);
    tagged<T>::store(entry + VALUE_WORDS, v.b, epoch);
  }
  __device__ static bool load(const uint64_t *entry, uint32_t epoch, lr_pair<T> *v) {
    T a, b;
    if (!tagged<T>::load(entry, epoch, &a) || !tagged<T>::load(entry + VALUE_WORDS, epoch, &b)) return false;
    *v = lr_pair<T>{a, b};
    return true;
  }
};
template <typename T> struct tagged<lr_seg<T>> {
  static constexpr int VALUE_WORDS = tagged<T>::WORDS;
  static constexpr int WORDS = 2 * VALUE_WORDS + 1 + (VALUE_WORDS == 2);
  __device__ static void store(uint64_t *entry, lr_seg<T> v, uint32_t epoch) {
    tagged<lr_pair<T>>::store(entry, lr_pair<T>{v.a, v.b}, epoch);
    tagged<uint32_t>::store(entry + 2 * VALUE_WORDS, v.start, epoch);
  }
  __device__ static bool load(const uint64_t *entry, uint32_t epoch, lr_seg<T> *v) {
    lr_pair<T> p;
    uint32_t start;
    if (!tagged<lr_pair<T>>::load(entry, epoch, &p) || !tagged<uint32_t>::load(entry + 2 * VALUE_WORDS, epoch, &start))
      return false;
    *v = lr_seg<T>{p.a, p.b, start};
    return true;
  }
};

}  // namespace gp
