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
 * look-back's entry folds use warp_reduce_ordered).
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
  using P = seg_pair<T>;
  __device__ static P apply(P a, P b) { return P{b.head ? b.value : Base::apply(a.value, b.value), a.head | b.head}; }
  __device__ static P identity() { return P{Base::identity(), 0u}; }
  __device__ static P neutral() { return P{Base::neutral(), 0u}; }
};

/* Pairs do not commute: folds must keep scan order (lookback.cuh). */
template <typename T, gpu_op OP> constexpr bool op_commutes_v<seg_op<T, OP>> = false;

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

/*
 * Warp-wide: the exclusive prefix of look-back entry `tile` (a block's in
 * segreduce_warps, a run's in seg_runs) under seg_op, where one of the 32
 * entries before it starts a segment: the level-0 entries from the nearest
 * such one h to tile - 1 (published by publish_and_close_groups), folded in
 * order by a fixed tree of the warp (lane l holds entry tile - 32 + l;
 * lanes before h add Op::neutral(); entries before the first count as a
 * start). Nothing before h matters: h starts a segment, which seg_op's
 * fold keeps whole. Waits only for entries h .. tile - 1: where h is the
 * nearest start among the entries already published, with all entries
 * after it published, no later entry can be a nearer start. False, with
 * nothing set, where none of the 32 starts a segment (the caller takes the
 * levels' prefix, fold_prefix_levels, which waits for every earlier entry).
 * Which of the two, and h, depend on the entries only, not on timing, so
 * the prefix has the same bits on every run.
 */
template <typename Op, typename P>
__device__ inline bool nearest_start_prefix(const lookback_args &a, uint32_t tile, int lane, P *prefix) {
  const int64_t idx = int64_t(tile) - 32 + lane;
  P v = Op::neutral();
  bool ready = idx < 0, start = idx < 0;
  for (;;) {
    if (!ready) {
      ready = tagged<P>::load(entry_ptr<P>(a, 0, uint64_t(idx)), a.epoch, &v);
      start = ready && v.head;
    }
    const unsigned missing = __ballot_sync(FULL_MASK, !ready), starts = __ballot_sync(FULL_MASK, start);
    /* Starts above the highest lane not yet published: the nearest of them is h. */
    const unsigned usable = missing ? starts & ~((2u << (31 - __clz(missing))) - 1u) : starts;
    if (usable) {
      const int h = 31 - __clz(usable);
      *prefix = warp_reduce_ordered<Op, false>(lane >= h ? v : Op::neutral());
      return true;
    }
    if (!missing) return false;
  }
}

/* Block-wide, where lb.tiles > 1 (contains barriers): warp 0 publishes
 * entry `tile`'s aggregate; where `needs` (uniform) the entry's exclusive
 * prefix comes back to every thread, from the nearest entry before that
 * starts a segment (NEAREST: nearest_start_prefix, by warp 1), else, or
 * where none of the 32 does, from the levels (fold_prefix_levels, into
 * level_fold, which Shape's warps fill). Op::neutral() where not needs. */
template <typename Op, typename Shape, bool NEAREST, typename P>
__device__ inline P publish_and_prefix(const lookback_args &lb, uint32_t tile, P aggregate, bool needs, P *level_fold,
                                       int warp, int lane) {
  __shared__ P s_nearest;
  __shared__ bool s_levels;
  if (warp == 0) {
    publish_and_close_groups<Op>(lb, tile, aggregate, lane);
  } else if (needs) {
    if (!NEAREST) {
      fold_prefix_levels<Op, Shape>(lb, tile, level_fold, warp, lane);
    } else if (warp == 1) {
      P p;
      const bool found = nearest_start_prefix<Op>(lb, tile, lane, &p);
      if (lane == 0) {
        s_nearest = p;
        s_levels = !found;
      }
    }
  }
  __syncthreads();
  if (!needs) return Op::neutral();
  if (NEAREST && !s_levels) return s_nearest;
  if (NEAREST) { /* uniform: none of the 32 entries before starts a segment */
    fold_prefix_levels<Op, Shape>(lb, tile, level_fold, warp, lane);
    __syncthreads();
  }
  return combine_prefix_levels<Op>(lb, level_fold);
}

}  // namespace gp
