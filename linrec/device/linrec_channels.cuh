/*
 * The channel path: many independent sequences ("channels"), each walked
 * step by step by one thread, the way a linear RNN's time loop runs, with
 * adjacent threads on adjacent channels so that each step's loads of a warp
 * are coalesced in a time-major [T][C] layout. Each thread issues UNROLL
 * steps' loads before it computes them (several loads in flight: a loop
 * with one load in flight is latency-bound).
 *
 * Where there are too few channels to fill the GPU, time is cut into
 * `chunks` chunks of `chunk_steps` steps, a thread per (channel, chunk):
 *   1. channels_fold:  each (channel, chunk) but the last folds its steps
 *                      into one pair (A, B), in order
 *   2. channels_carry: each chunk's incoming state, carry[0] = h0 and
 *                      carry[k + 1] = A[k] carry[k] + B[k], as a scan of
 *                      the pairs by a group of warps per channel
 *   3. channels_run:   each (channel, chunk) runs h = a h + b from its
 *                      incoming state and stores h
 * With one chunk only step 3 runs, from h0. The chunking depends on the
 * shape only (linrec_plan), so results are the same bits on every run.
 *
 * Element (c, t) of the layout sits at c * channel_stride + t * step_stride:
 * time-major (1, count) or sequence-major (len, 1).
 *
 * The backward pass runs the same passes SHIFTED: in the backward's scan
 * order (the forward's reversed), over (a one step earlier in that order,
 * dh), the run storing db = g and da = g * the forward's h one step later.
 */
#pragma once

#include "linrec_pair.cuh"

namespace gp {

template <typename T> struct channel_layout {
  const T *a, *b;
  uint64_t len, count;
  uint64_t channel_stride, step_stride;
  uint64_t chunk_steps, chunks;
  bool reverse;
  /* Physical index of step i (scan order) of channel c. */
  __device__ uint64_t at(uint64_t c, uint64_t i) const {
    return c * channel_stride + (reverse ? len - 1 - i : i) * step_stride;
  }
};

/* Walks steps [lo, hi) of channel c in scan order, UNROLL loads of a and b
 * in flight before fn(i, a, b) runs on each step in order. */
template <int UNROLL, typename T, typename Fn>
__device__ __forceinline__ void walk_steps(const channel_layout<T> &l, uint64_t c, uint64_t lo, uint64_t hi, Fn fn) {
  uint64_t i = lo;
  for (; i + UNROLL <= hi; i += UNROLL) {
    T av[UNROLL], bv[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      const uint64_t p = l.at(c, i + u);
      av[u] = __ldcs(l.a + p);
      bv[u] = __ldcs(l.b + p);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; u++) fn(i + u, av[u], bv[u]);
  }
  for (; i < hi; i++) {
    const uint64_t p = l.at(c, i);
    fn(i, __ldcs(l.a + p), __ldcs(l.b + p));
  }
}

/* This thread's (channel, chunk), adjacent threads on adjacent channels;
 * false past the last. */
template <typename T>
__device__ __forceinline__ bool channel_item(const channel_layout<T> &l, uint64_t chunks, uint64_t *c, uint64_t *k) {
  const uint64_t idx = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= l.count * chunks) return false;
  *c = idx % l.count;
  *k = idx / l.count;
  return true;
}

/* The coefficient of step lo's predecessor in scan order for a SHIFTED
 * walk (the backward pass: step i's coefficient is a at step i - 1, 0 at
 * step 0); unused otherwise. */
template <bool SHIFTED, typename T>
__device__ __forceinline__ T coefficient_before(const channel_layout<T> &l, uint64_t c, uint64_t lo) {
  return SHIFTED && lo > 0 ? l.a[l.at(c, lo - 1)] : T(0);
}

/* Step 1: pair k * count + c folds chunk k of channel c (all chunks but the
 * last). SHIFTED: each step's coefficient is the previous step's a. */
template <int UNROLL, bool SHIFTED, typename T>
__global__ void channels_fold(channel_layout<T> l, T *pair_a, T *pair_b) {
  uint64_t c, k;
  if (!channel_item(l, l.chunks - 1, &c, &k)) return;
  const uint64_t lo = k * l.chunk_steps;
  T A = T(1), B = -T(0), previous = coefficient_before<SHIFTED>(l, c, lo);
  bool first = true;
  walk_steps<UNROLL>(l, c, lo, lo + l.chunk_steps, [&](uint64_t, T a_step, T b) {
    const T a = SHIFTED ? previous : a_step;
    previous = a_step;
    B = first ? b : lr_step(a, B, b);
    A = first ? a : lr_coef_mul(A, a);
    first = false;
  });
  pair_a[k * l.count + c] = A;
  pair_b[k * l.count + c] = B;
}

/* Warps and threads of a channels_carry block. */
constexpr int CARRY_WARPS = 8, CARRY_THREADS = CARRY_WARPS * WARP;

/* Pairs [lo, hi) of channel c folded onto `fold` in order, UNROLL loads in
 * flight; with `store`, also carry[(k + 1) * count + c], the state after
 * pair k (fold.b, where fold.a is 0: the state before them folded in). */
template <int UNROLL, bool STORE, typename T>
__device__ __forceinline__ lr_pair<T> fold_pairs(lr_pair<T> fold, uint64_t count, uint64_t c, uint64_t lo,
                                                 uint64_t hi, const T *pair_a, const T *pair_b, T *carry) {
  for (uint64_t k = lo; k < hi; k += UNROLL) {
    T av[UNROLL], bv[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; u++)
      if (k + u < hi) av[u] = pair_a[(k + u) * count + c], bv[u] = pair_b[(k + u) * count + c];
#pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      if (k + u >= hi) break;
      fold = lr_op<T>::apply(fold, lr_pair<T>{av[u], bv[u]});
      if (STORE) carry[(k + u + 1) * count + c] = fold.b;
    }
  }
  return fold;
}

/*
 * Step 2: carry[k * count + c], the state before chunk k of channel c.
 * `group_warps` warps (1, 2, 4 or 8) scan a channel's chunks - 1 pairs:
 * thread r of the group takes a run of consecutive pairs, the first thread
 * starting from (0, h0) so that each fold's b is a state; the group scans
 * the runs' folds in order (warp_inclusive_scan, then the earlier warps'
 * totals in order), and each thread walks its run again from the state
 * before it, storing the states. The order depends on the shape only.
 */
template <int UNROLL, typename T>
__global__ void __launch_bounds__(CARRY_THREADS)
    channels_carry(uint64_t count, uint64_t chunks, int group_warps, const T *pair_a, const T *pair_b, const T *h0,
                   T *carry) {
  using P = lr_pair<T>;
  __shared__ P s_total[CARRY_WARPS];
  const int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP, rank = warp % group_warps;
  const uint64_t c = (uint64_t(blockIdx.x) * CARRY_WARPS + warp) / group_warps;
  const bool live = c < count;
  const uint64_t pairs = chunks - 1, per = (pairs + group_warps * WARP - 1) / (group_warps * WARP);
  const uint64_t r = uint64_t(rank) * WARP + lane;
  const uint64_t lo = r * per < pairs ? r * per : pairs, hi = lo + per < pairs ? lo + per : pairs;
  const T start = live && h0 ? h0[c] : T(0);
  /* A run's fold starts from its first pair (the neutral pair is exact
   * only on the right); empty runs, at the end, hold the neutral pair. */
  P fold = lr_op<T>::neutral();
  if (live && r == 0) fold = fold_pairs<UNROLL, false>(P{T(0), start}, count, c, lo, hi, pair_a, pair_b, carry);
  else if (live && lo < hi)
    fold = fold_pairs<UNROLL, false>(P{pair_a[lo * count + c], pair_b[lo * count + c]}, count, c, lo + 1, hi, pair_a,
                                     pair_b, carry);
  const P incl = warp_inclusive_scan<lr_op<T>, false>(fold, lane);
  P before = __shfl_up_sync(FULL_MASK, incl, 1); /* the previous lane's inclusive fold */
  if (lane == WARP - 1) s_total[warp] = incl;
  __syncthreads();
  if (!live || lo >= hi) return;
  if (rank > 0) {
    P earlier = s_total[warp - rank];
    for (int w = warp - rank + 1; w < warp; w++) earlier = lr_op<T>::apply(earlier, s_total[w]);
    before = lane > 0 ? lr_op<T>::apply(earlier, before) : earlier;
  }
  if (r == 0) carry[c] = start;
  fold_pairs<UNROLL, true>(P{T(0), r == 0 ? start : before.b}, count, c, lo, hi, pair_a, pair_b, carry);
}

/* Step 3: h along chunk k of channel c from its incoming state (carry, or
 * h0 / 0 when there is one chunk: carry NULL). SHIFTED (the backward
 * pass): h is db = g, and da is stored too. */
template <int UNROLL, bool SHIFTED, typename T>
__global__ void channels_run(channel_layout<T> l, const T *carry, const T *h0, T *h, backward_gradients<T> grad) {
  uint64_t c, k;
  if (!channel_item(l, l.chunks, &c, &k)) return;
  const uint64_t lo = k * l.chunk_steps, hi = lo + l.chunk_steps < l.len ? lo + l.chunk_steps : l.len;
  T state = carry ? carry[k * l.count + c] : h0 ? h0[c] : T(0), previous = coefficient_before<SHIFTED>(l, c, lo);
  walk_steps<UNROLL>(l, c, lo, hi, [&](uint64_t i, T a_step, T b) {
    const T a = SHIFTED ? previous : a_step;
    previous = a_step;
    state = lr_step(a, state, b);
    const uint64_t p = l.at(c, i);
    h[p] = state;
    if (SHIFTED) {
      const T later = i + 1 < l.len ? grad.h_fwd[l.at(c, i + 1)] : grad.edge ? grad.edge[c] : T(0);
      grad.da[p] = lr_mul(state, later);
    }
  });
}

}  // namespace gp
