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
 *
 * SHIFTED runs the backward pass on the same tiles: scanned in the
 * direction opposite to the forward's, over (a one step earlier in that
 * order, 0 at the first step; dh), h being db = g, and da = g * the
 * forward's h one step later (p.grad) stored beside it.
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
  bool vector_ok;  /* len a multiple of 16 bytes' items, every array 16-byte aligned */
  backward_gradients<T> grad; /* SHIFTED only */
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

/* One array's items of the window; `pad` outside [lo, hi). */
template <typename Shape, typename T>
__device__ __forceinline__ void load_window(const T *src, const sequence_window &w, bool vector_ok, int warp, int lane,
                                            T pad, T (&v)[Shape::rows][Shape::vec]) {
  if (vector_ok && w.full(Shape::tile_items)) {
    load_tile<Shape, true>(src + w.start, Shape::tile_items, true, warp, lane, v, pad);
    return;
  }
#pragma unroll
  for (int r = 0; r < Shape::rows; r++)
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) {
      const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r) + k);
      v[r][k] = i >= w.lo && i < w.hi ? __ldcs(src + (w.start + int64_t(i))) : pad;
    }
}

template <typename Shape, typename T>
__device__ __forceinline__ void store_window(T *h, const sequence_window &w, bool vector_ok, int warp, int lane,
                                             const T (&y)[Shape::rows][Shape::vec]) {
  if (vector_ok && w.full(Shape::tile_items)) {
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

template <typename Shape, bool REVERSE, bool SHIFTED, typename Lookback = state_chain_lookback, typename T>
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

  /* SHIFTED: each a becomes its predecessor's in scan order (0 at the
   * first step). Items outside the window then hold an a from inside it
   * beside a padded b; they come after the window's items in scan order,
   * so they change none of its results. */
  tile_values<Shape, T> v;
  load_window<Shape>(p.a + seq, w, p.vector_ok, warp, lane, pad_a<T>(), v.a);
  load_window<Shape>(p.b + seq, w, p.vector_ok, warp, lane, pad_b<T>(), v.b);
  if constexpr (SHIFTED)
    shift_to_neighbour<Shape, REVERSE>(v.a, p.a + seq, w.start, w.lo, w.hi, p.len, T(0), warp, lane);
  P x[ROWS][VEC];
  values_to_pairs<Shape>(v, x);

  /* The block's scan of the pairs, as scan_tile's steps 3 and 5. */
  tile_row_scans<P, ROWS> rs;
  const P aggregate = scan_tile_rows<P, Op, Shape, REVERSE>(x, rs, s_warp_total, warp, lane);

  if (threadIdx.x == 0) {
    const bool last = (k + 1) * Shape::tile_items >= p.len;
    const T initial = p.h0 ? p.h0[c] : T(0);
    s_state = Lookback::tile_state(p.states, 1, tile, k, 0, aggregate, initial, last);
  }
  __syncthreads();

  apply_row_scans<P, Op, Shape, REVERSE>(x, rs, P{T(0), s_state}, false);
  T y[ROWS][VEC];
#pragma unroll
  for (int r = 0; r < ROWS; r++)
#pragma unroll
    for (int j = 0; j < VEC; j++) y[r][j] = x[r][j].b;
  store_window<Shape>(p.h + seq, w, p.vector_ok, warp, lane, y);
  if constexpr (SHIFTED) {
    /* da = g * the forward's h one step later in scan order, h0 past the end. */
    T later[ROWS][VEC];
    const T *h_fwd = p.grad.h_fwd + seq;
    load_window<Shape>(h_fwd, w, p.vector_ok, warp, lane, T(0), later);
    const T edge = p.grad.edge ? p.grad.edge[c] : T(0);
    shift_to_neighbour<Shape, !REVERSE>(later, h_fwd, w.start, w.lo, w.hi, p.len, edge, warp, lane);
#pragma unroll
    for (int r = 0; r < ROWS; r++)
#pragma unroll
      for (int j = 0; j < VEC; j++) later[r][j] = lr_mul(y[r][j], later[r][j]);
    store_window<Shape>(p.grad.da + seq, w, p.vector_ok, warp, lane, later);
  }
}

}  // namespace gp
