/*
 * The one-pass path for sequence-major [C][T] batches of long sequences:
 * tiles of Shape::tile_items consecutive steps of one sequence (a tile
 * never holds two), a block each, taken in order from a counter, time tile
 * k of every sequence before time tile k + 1. Per tile:
 *   1. a and b are read (16-byte vectors when aligned) as pairs; a
 *      sequence's partial tile is padded with the neutral pair (1, -0)
 *      after its last step in scan order, where the pad is exact
 *   2. the block scans the pairs (scan_rows and the warp totals, as
 *      scan_tile does), which also gives the tile's aggregate
 *   3. thread 0 publishes the aggregate, takes the incoming state (the
 *      state look-back, linrec_state_lookback.cuh) and publishes the
 *      outgoing one
 *   4. each item's h: the scan's running fold from the prefix (0, state),
 *      so that each step applied is s := a s + b
 * In scan order the tiles of a sequence start at its first step: forward
 * from physical step 0, GPU_REVERSE from its last step, the partial tile
 * at the other end.
 */
#pragma once

#include "linrec_state_lookback.cuh"
#include "linrec_tiles.cuh"

namespace gp {

template <typename T> struct sequence_tiles_args {
  const T *a, *b;
  T *h;
  const T *h0;     /* a state per sequence, or NULL (zero) */
  uint64_t len, count;
  state_lookback states; /* stride: count */
  unsigned long long *counter;
  unsigned long long counter_base;
  bool vector_ok;  /* len a multiple of 16 bytes' items, a, b and h 16-byte aligned */
};

/* Where a tile lies in its sequence: items at offsets [lo, hi) of the
 * window that starts at step `start` (negative for GPU_REVERSE's partial
 * tile). */
struct sequence_window {
  int64_t start;
  uint32_t lo, hi;
  __device__ bool full(uint32_t tile_items) const { return lo == 0 && hi == tile_items; }
};

template <bool REVERSE>
__device__ inline sequence_window window_of(uint64_t len, uint64_t k, uint32_t tile_items) {
  const uint64_t done = k * tile_items; /* steps before this tile in scan order */
  const uint64_t steps = len - done < tile_items ? len - done : tile_items;
  if (!REVERSE) return sequence_window{int64_t(done), 0, uint32_t(steps)};
  return sequence_window{int64_t(len) - int64_t(done) - int64_t(tile_items), uint32_t(tile_items - steps), tile_items};
}

/* The tile's pairs; the neutral pair outside [lo, hi). */
template <typename Shape, typename T>
__device__ __forceinline__ void load_window(const sequence_tiles_args<T> &p, const T *a, const T *b,
                                            const sequence_window &w, int warp, int lane,
                                            lr_pair<T> (&x)[Shape::rows][Shape::vec]) {
  tile_values<Shape, T> v;
  if (p.vector_ok && w.full(Shape::tile_items)) {
    load_values<Shape>(a + w.start, b + w.start, 0, Shape::tile_items, true, warp, lane, v);
  } else {
#pragma unroll
    for (int r = 0; r < Shape::rows; r++)
#pragma unroll
      for (int k = 0; k < Shape::vec; k++) {
        const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r) + k);
        const bool ok = i >= w.lo && i < w.hi;
        v.a[r][k] = ok ? __ldcs(a + (w.start + int64_t(i))) : pad_a<T>();
        v.b[r][k] = ok ? __ldcs(b + (w.start + int64_t(i))) : pad_b<T>();
      }
  }
  values_to_pairs<Shape>(v, x);
}

template <typename Shape, typename T>
__device__ __forceinline__ void store_window(const sequence_tiles_args<T> &p, T *h, const sequence_window &w, int warp,
                                             int lane, const T (&y)[Shape::rows][Shape::vec]) {
  if (p.vector_ok && w.full(Shape::tile_items)) {
    store_tile<Shape>(h + w.start, Shape::tile_items, true, warp, lane, y);
    return;
  }
#pragma unroll
  for (int r = 0; r < Shape::rows; r++)
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) {
      const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r) + k);
      if (i >= w.lo && i < w.hi) h[w.start + int64_t(i)] = y[r][k];
    }
}

template <typename Shape, bool REVERSE, typename T>
__global__ void __launch_bounds__(Shape::threads, Shape::min_blocks) sequences_lookback(sequence_tiles_args<T> p) {
  using P = lr_pair<T>;
  using Op = lr_op<T>;
  constexpr int ROWS = Shape::rows, VEC = Shape::vec, NW = Shape::warps;
  __shared__ P s_warp_total[NW];
  __shared__ T s_state;
  __shared__ uint32_t s_tile;
  const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
  if (threadIdx.x == 0) s_tile = uint32_t(atomicAdd(p.counter, 1ull) - p.counter_base);
  __syncthreads();
  const uint64_t tile = s_tile, c = tile % p.count, k = tile / p.count;
  const sequence_window w = window_of<REVERSE>(p.len, k, Shape::tile_items);
  const uint64_t seq = c * p.len;

  P x[ROWS][VEC];
  load_window<Shape>(p, p.a + seq, p.b + seq, w, warp, lane, x);

  /* The block's scan of the pairs, as scan_tile's steps 3 and 5. */
  const int vwarp = scan_order<REVERSE, NW>(warp);
  P lane_excl[ROWS], row_prefix[ROWS];
  const P warp_total = scan_rows<P, Op, Shape, REVERSE>(x, lane_excl, row_prefix, lane);
  if (lane == 0) s_warp_total[vwarp] = warp_total;
  __syncthreads();
  const P wincl = scan_warp_totals<P, Op, NW>(s_warp_total, lane);
  const P aggregate = __shfl_sync(FULL_MASK, wincl, WARP - 1);
  const P warp_prefix = __shfl_sync(FULL_MASK, warp_exclusive_from_inclusive<Op, false>(wincl, lane), vwarp);

  if (threadIdx.x == 0) {
    const bool last = (k + 1) * Shape::tile_items >= p.len;
    if (!last) publish_aggregate(p.states, 1, tile, 0, aggregate);
    const T initial = p.h0 ? p.h0[c] : T(0);
    const T state = k == 0 ? initial : incoming_state(p.states, 1, tile, k, 0, initial);
    if (!last) publish_state(p.states, 1, tile, 0, lr_step(aggregate.a, state, aggregate.b));
    s_state = state;
  }
  __syncthreads();

  T y[ROWS][VEC];
  const P thread_base = Op::apply(P{T(0), s_state}, warp_prefix);
#pragma unroll
  for (int rr = 0; rr < ROWS; rr++) {
    const int r = scan_order<REVERSE, ROWS>(rr);
    P acc = Op::apply(Op::apply(thread_base, row_prefix[r]), lane_excl[r]);
#pragma unroll
    for (int kk = 0; kk < VEC; kk++) {
      const int j = scan_order<REVERSE, VEC>(kk);
      acc = Op::apply(acc, x[r][j]);
      y[r][j] = acc.b;
    }
  }
  store_window<Shape>(p, p.h + seq, w, warp, lane, y);
}

}  // namespace gp
