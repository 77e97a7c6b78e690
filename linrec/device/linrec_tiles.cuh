/*
 * The look-back path: one tile per block, the tile's pairs scanned by the
 * scan's tile scan and fixed-tree look-back (scan/device/scan_tile.cuh), so
 * every tile's prefix is the same fold of the same entries on every run.
 *
 * Per tile:
 *   1. take the next tile index (launch order; REVERSE takes the last
 *      physical tile first)
 *   2. the Source loads a and b (16-byte vectors when aligned) into pairs,
 *      h0 folded into the first element of each sequence (b := a h0 + b)
 *      and, for several sequences, their start flags set
 *   3. scan_tile: the inclusive scan of the pairs, look-back included
 *   4. the Sink stores each pair's b: h (or, backward, db and da)
 *
 * Sources and sinks:
 *   single_source    one sequence: a, b (the forward pass)
 *   shifted_source   the backward pass: a one step later in the forward's
 *                    order (0 past the end), dh
 *   segments_source  several sequences, contiguous (a sequence-major batch
 *                    or offsets), as lr_seg pairs with start flags
 *   store_h          h = b of each pair
 *   store_gradients  db = g, da = g * the forward's h one step earlier
 */
#pragma once

#include "linrec_pair.cuh"

namespace gp {

/* An element of each of this thread's items, by physical offset in the
 * tile: fn(r, k, i) for item k of row r at offset i < valid. */
template <typename Shape, typename Fn>
__device__ __forceinline__ void for_each_item(uint32_t valid, int warp, int lane, Fn fn) {
#pragma unroll
  for (int r = 0; r < Shape::rows; r++)
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) {
      const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r) + k);
      if (i < valid) fn(r, k, i);
    }
}

/* a and b of the tile into pairs (padding: the neutral (1, -0)). */
template <typename Shape, typename T>
__device__ __forceinline__ void load_pairs(const T *a, const T *b, uint32_t valid, bool vector_ok, int warp, int lane,
                                           lr_pair<T> (&x)[Shape::rows][Shape::vec]) {
  T av[Shape::rows][Shape::vec], bv[Shape::rows][Shape::vec];
  load_tile<Shape, true>(a, valid, vector_ok, warp, lane, av, T(1));
  load_tile<Shape, true>(b, valid, vector_ok, warp, lane, bv, -T(0));
#pragma unroll
  for (int r = 0; r < Shape::rows; r++)
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) x[r][k] = lr_pair<T>{av[r][k], bv[r][k]};
}

/* The initial state: *h0_dev when given, else h0_value. */
template <typename T> struct initial_state {
  const T *h0_dev;
  T h0_value;
  __device__ T get() const { return h0_dev ? *h0_dev : h0_value; }
};

/* Folds h0 into the element at physical index `first` if the tile holds it. */
template <typename Shape, typename T>
__device__ __forceinline__ void fold_initial(uint64_t base, uint32_t valid, uint64_t first, initial_state<T> h0,
                                             int warp, int lane, lr_pair<T> (&x)[Shape::rows][Shape::vec]) {
  if (first < base || first >= base + valid) return;
  for_each_item<Shape>(valid, warp, lane, [&](int r, int k, uint32_t i) {
    if (base + i == first) x[r][k].b = lr_step(x[r][k].a, h0.get(), x[r][k].b);
  });
}

template <typename T> struct single_source {
  using pair = lr_pair<T>;
  const T *a, *b;
  initial_state<T> h0;
  uint64_t n;
  bool vector_ok;
  template <typename Shape, bool REVERSE>
  __device__ void load(uint64_t base, uint32_t valid, int warp, int lane, pair (&x)[Shape::rows][Shape::vec]) const {
    load_pairs<Shape>(a + base, b + base, valid, vector_ok, warp, lane, x);
    fold_initial<Shape>(base, valid, REVERSE ? n - 1 : 0, h0, warp, lane, x);
  }
};

/* The backward pass's recurrence g = dh + a' g, scanned in the direction
 * opposite to the forward's (REVERSE here is the backward's direction):
 * a'[t] = a[t + 1] for a reverse scan (a forward pass that ran forward),
 * a[t - 1] for a forward one, 0 where that is outside [0, n). */
template <typename T> struct shifted_source {
  using pair = lr_pair<T>;
  const T *a, *dh;
  uint64_t n;
  bool vector_ok;
  template <typename Shape, bool REVERSE>
  __device__ void load(uint64_t base, uint32_t valid, int warp, int lane, pair (&x)[Shape::rows][Shape::vec]) const {
    load_pairs<Shape>(a + base, dh + base, valid, vector_ok, warp, lane, x);
    /* The neighbour of each item: the next item of the thread's vector, or
     * the next thread's first (lane + 1; lane 0 of the next row), else a
     * load. REVERSE (the neighbour is at t + 1) and forward (t - 1) mirror. */
    T first[Shape::rows], last[Shape::rows];
#pragma unroll
    for (int r = 0; r < Shape::rows; r++) {
      first[r] = x[r][0].a;
      last[r] = x[r][Shape::vec - 1].a;
    }
#pragma unroll
    for (int r = 0; r < Shape::rows; r++) {
      const T from_next_lane = ::__shfl_down_sync(FULL_MASK, first[r], 1);
      const T from_prev_lane = ::__shfl_up_sync(FULL_MASK, last[r], 1);
      if constexpr (REVERSE) {
#pragma unroll
        for (int k = 0; k + 1 < Shape::vec; k++) x[r][k].a = x[r][k + 1].a;
        x[r][Shape::vec - 1].a = from_next_lane;
      } else {
#pragma unroll
        for (int k = Shape::vec - 1; k > 0; k--) x[r][k].a = x[r][k - 1].a;
        x[r][0].a = from_prev_lane;
      }
    }
    /* Items whose neighbour lies in another lane's row or another tile: a load. */
    const int edge_k = REVERSE ? Shape::vec - 1 : 0;
    const bool edge_lane = REVERSE ? lane == WARP - 1 : lane == 0;
#pragma unroll
    for (int r = 0; r < Shape::rows; r++) {
      const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r) + edge_k);
      if (edge_lane && i < valid) {
        const uint64_t g = base + i;
        const bool outside = REVERSE ? g + 1 >= n : g == 0;
        x[r][edge_k].a = outside ? T(0) : a[REVERSE ? g + 1 : g - 1];
      }
    }
    /* The pair at the end of the sequence in the forward's order has none:
     * a' = 0 there (the vector loads may have put a[n] padding in). */
    const uint64_t start = REVERSE ? n - 1 : 0;
    if (start >= base && start < base + valid)
      for_each_item<Shape>(valid, warp, lane, [&](int r, int k, uint32_t i) {
        if (base + i == start) x[r][k].a = T(0);
      });
  }
};

/* Contiguous sequences: Segments gives the sequence of a physical index
 * (find), its first index and its end (first_of, end_of). */
struct batch_segments {
  uint64_t len;
  __device__ uint64_t find(uint64_t g) const { return g / len; }
  __device__ uint64_t first_of(uint64_t s) const { return s * len; }
  __device__ uint64_t end_of(uint64_t s) const { return (s + 1) * len; }
};
struct offset_segments {
  const int64_t *offsets; /* checked on the host: well formed */
  uint64_t nseg;
  /* The last s with offsets[s] <= g (the non-empty segment holding g). */
  __device__ uint64_t find(uint64_t g) const {
    uint64_t lo = 0, hi = nseg; /* offsets[lo] <= g < offsets[hi] */
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (uint64_t(offsets[mid]) <= g) lo = mid;
      else hi = mid;
    }
    return lo;
  }
  __device__ uint64_t first_of(uint64_t s) const { return uint64_t(offsets[s]); }
  __device__ uint64_t end_of(uint64_t s) const { return uint64_t(offsets[s + 1]); }
};

template <typename T, typename Segments> struct segments_source {
  using pair = lr_seg<T>;
  const T *a, *b;
  const T *h0; /* one per sequence, or NULL (all 0) */
  Segments segs;
  bool vector_ok;
  template <typename Shape, bool REVERSE>
  __device__ void load(uint64_t base, uint32_t valid, int warp, int lane, pair (&x)[Shape::rows][Shape::vec]) const {
    lr_pair<T> p[Shape::rows][Shape::vec];
    load_pairs<Shape>(a + base, b + base, valid, vector_ok, warp, lane, p);
#pragma unroll
    for (int r = 0; r < Shape::rows; r++) {
      const uint32_t i0 = uint32_t(item_offset<Shape>(warp, lane, r));
      uint64_t s = i0 < valid ? segs.find(base + i0) : 0, end = i0 < valid ? segs.end_of(s) : 0;
#pragma unroll
      for (int k = 0; k < Shape::vec; k++) {
        x[r][k] = pair{p[r][k].a, p[r][k].b, 0u};
        const uint64_t g = base + i0 + k;
        if (i0 + k >= valid) continue;
        while (g >= end) end = segs.end_of(++s); /* the vector crosses into later sequences */
        const bool starts = REVERSE ? g + 1 == end : g == segs.first_of(s);
        if (starts) {
          x[r][k].start = 1u;
          if (h0) x[r][k].b = lr_step(x[r][k].a, h0[s], x[r][k].b);
        }
      }
    }
  }
};

/* h = the b of each scanned pair. */
template <typename T> struct store_h {
  T *h;
  bool vector_ok;
  template <typename Shape, typename P>
  __device__ void store(uint64_t base, uint32_t valid, int warp, int lane, const P (&x)[Shape::rows][Shape::vec]) const {
    T v[Shape::rows][Shape::vec];
#pragma unroll
    for (int r = 0; r < Shape::rows; r++)
#pragma unroll
      for (int k = 0; k < Shape::vec; k++) v[r][k] = x[r][k].b;
    store_tile<Shape>(h + base, valid, vector_ok, warp, lane, v);
  }
};

/* db = g; da = g * h one step earlier in the forward's order (h0 before
 * the first). FORWARD_REVERSE: the forward pass ran with GPU_REVERSE. */
template <typename T, bool FORWARD_REVERSE> struct store_gradients {
  T *da, *db;
  const T *h;
  T h0;
  uint64_t n;
  bool vector_ok;
  template <typename Shape, typename P>
  __device__ void store(uint64_t base, uint32_t valid, int warp, int lane, const P (&x)[Shape::rows][Shape::vec]) const {
    T g[Shape::rows][Shape::vec], d[Shape::rows][Shape::vec];
#pragma unroll
    for (int r = 0; r < Shape::rows; r++)
#pragma unroll
      for (int k = 0; k < Shape::vec; k++) g[r][k] = x[r][k].b;
    for_each_item<Shape>(valid, warp, lane, [&](int r, int k, uint32_t i) {
      const uint64_t t = base + i;
      const bool first = FORWARD_REVERSE ? t + 1 == n : t == 0;
      d[r][k] = lr_mul(g[r][k], first ? h0 : h[FORWARD_REVERSE ? t + 1 : t - 1]);
    });
    store_tile<Shape>(db + base, valid, vector_ok, warp, lane, g);
    store_tile<Shape>(da + base, valid, vector_ok, warp, lane, d);
  }
};

/* The kernel: one tile per block; Source::pair is the scanned element. */
template <typename Op, typename Shape, bool REVERSE, typename Source, typename Sink>
__global__ void __launch_bounds__(Shape::threads, Shape::min_blocks)
    linrec_tiles(Source src, Sink sink, uint64_t n, lookback_args lb) {
  using P = typename Source::pair;
  __shared__ uint32_t s_tile;
  __shared__ tile_scan_shared<P, Shape::warps> sh;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint32_t tile = take_tile(lb, &s_tile);
  const tile_place<Shape, REVERSE> at(tile, lb.tiles, n);
  P x[Shape::rows][Shape::vec];
  src.template load<Shape, REVERSE>(at.base, at.valid, warp, lane, x);
  scan_tile<P, Op, Shape, REVERSE>(x, tile, at.valid, false, lb, prefix_source::lookback, sh, warp, lane);
  sink.template store<Shape>(at.base, at.valid, warp, lane, x);
}

}  // namespace gp
