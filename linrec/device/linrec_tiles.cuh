/*
 * The look-back path: the tiles' pairs scanned by the scan's tile scan and
 * fixed-tree look-back (scan/device/scan_tile.cuh), so every tile's prefix
 * is the same fold of the same entries on every run. Two kernels of the
 * same tiles and the same folds: linrec_tiles (one tile per block) and
 * linrec_pipelined (persistent blocks, three stages; at the end).
 *
 * Per tile (linrec_tiles):
 *   1. take the next tile index (launch order; REVERSE takes the last
 *      physical tile first)
 *   2. a and b are read (16-byte vectors when aligned) and the Source
 *      makes them pairs, h0 folded into the first element of each sequence
 *      (b := a h0 + b) and, for several sequences, their start flags set
 *   3. scan_tile: the inclusive scan of the pairs, look-back included
 *   4. the Sink stores each pair's b: h (or, backward, db and da)
 *
 * Sources and sinks:
 *   single_source    one sequence: a, b (the forward pass)
 *   shifted_source   the backward pass: a one step later in the forward's
 *                    order (0 past the end), dh
 *   segments_source  several sequences, contiguous (a sequence-major batch
 *                    or offsets), as lr_seg pairs with start flags
 *   batch_shifted_source  a sequence-major batch's backward pass: the
 *                    shifted pairs with start flags
 *   store_h          h = b of each pair
 *   store_gradients  db = g, da = g * the forward's h one step earlier
 *   store_gradients_batch  the same over a sequence-major batch, h0 per
 *                    sequence
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

/* A tile's items of the two arrays a Source reads, as values. */
template <typename Shape, typename T> struct tile_values {
  T a[Shape::rows][Shape::vec], b[Shape::rows][Shape::vec];
};

/* The padding of a and b past the end: the neutral pair (1, -0). */
template <typename T> __device__ __forceinline__ T pad_a() { return T(1); }
template <typename T> __device__ __forceinline__ T pad_b() { return -T(0); }

/* The tile's a and b at base, read once from global memory. */
template <typename Shape, typename T>
__device__ __forceinline__ void load_values(const T *a, const T *b, uint64_t base, uint32_t valid, bool vector_ok,
                                            int warp, int lane, tile_values<Shape, T> &v) {
  load_tile<Shape, true>(a + base, valid, vector_ok, warp, lane, v.a, pad_a<T>());
  load_tile<Shape, true>(b + base, valid, vector_ok, warp, lane, v.b, pad_b<T>());
}

/* Values into pairs, item by item. */
template <typename Shape, typename T>
__device__ __forceinline__ void values_to_pairs(const tile_values<Shape, T> &v,
                                                lr_pair<T> (&x)[Shape::rows][Shape::vec]) {
#pragma unroll
  for (int r = 0; r < Shape::rows; r++)
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) x[r][k] = lr_pair<T>{v.a[r][k], v.b[r][k]};
}

/* Every Source: pairs_from makes a tile's scanned pairs from its values,
 * wherever they were read (global memory, a pipeline's stage); load reads
 * them from global memory first. inputs: its two arrays, for a pipeline. */
template <typename Source, typename Shape, bool REVERSE>
__device__ __forceinline__ void load_source(const Source &src, uint64_t base, uint32_t valid, int warp, int lane,
                                            typename Source::pair (&x)[Shape::rows][Shape::vec]) {
  using T = typename Source::value;
  tile_values<Shape, T> v;
  const tile_inputs<T, 2> in = src.inputs();
  load_values<Shape>(in.array[0], in.array[1], base, valid, src.vector_ok, warp, lane, v);
  src.template pairs_from<Shape, REVERSE>(base, valid, warp, lane, v, x);
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
  using value = T;
  using pair = lr_pair<T>;
  const T *a, *b;
  initial_state<T> h0;
  uint64_t n;
  bool vector_ok;
  __device__ tile_inputs<T, 2> inputs() const { return {{a, b}}; }
  template <typename Shape, bool REVERSE>
  __device__ void pairs_from(uint64_t base, uint32_t valid, int warp, int lane, const tile_values<Shape, T> &v,
                             pair (&x)[Shape::rows][Shape::vec]) const {
    values_to_pairs<Shape>(v, x);
    fold_initial<Shape>(base, valid, REVERSE ? n - 1 : 0, h0, warp, lane, x);
  }
};

/*
 * Each item's value replaced by its neighbour's in physical order: the
 * item at t takes src[t + 1] (UP) or src[t - 1], from the thread's own
 * vector, else the next lane's first item (UP; the previous lane's last
 * otherwise), else a load; `edge` where the neighbour lies outside [0, n).
 * v holds src at base + i for the items i in [lo, hi), the only ones this
 * sets; the others take their neighbour's value (the caller's padding).
 * base is negative for a window that starts before its sequence.
 */
template <typename Shape, bool UP, typename T>
__device__ __forceinline__ void shift_to_neighbour(T (&v)[Shape::rows][Shape::vec], const T *src, int64_t base,
                                                   uint32_t lo, uint32_t hi, uint64_t n, T edge, int warp,
                                                   int lane) {
#pragma unroll
  for (int r = 0; r < Shape::rows; r++) {
    const T from_next_lane = ::__shfl_down_sync(FULL_MASK, v[r][0], 1);
    const T from_prev_lane = ::__shfl_up_sync(FULL_MASK, v[r][Shape::vec - 1], 1);
    if constexpr (UP) {
#pragma unroll
      for (int k = 0; k + 1 < Shape::vec; k++) v[r][k] = v[r][k + 1];
      v[r][Shape::vec - 1] = from_next_lane;
    } else {
#pragma unroll
      for (int k = Shape::vec - 1; k > 0; k--) v[r][k] = v[r][k - 1];
      v[r][0] = from_prev_lane;
    }
  }
  /* Items whose neighbour lies in another lane's row or another tile: a load. */
  const int edge_k = UP ? Shape::vec - 1 : 0;
  const bool edge_lane = UP ? lane == WARP - 1 : lane == 0;
#pragma unroll
  for (int r = 0; r < Shape::rows; r++) {
    const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r) + edge_k);
    const int64_t neighbour = base + int64_t(i) + (UP ? 1 : -1);
    if (edge_lane && i >= lo && i < hi && neighbour >= 0 && neighbour < int64_t(n)) v[r][edge_k] = src[neighbour];
  }
  /* The one item whose neighbour lies outside the sequence. */
  const int64_t at = (UP ? int64_t(n) - 1 : 0) - base;
  if (at >= int64_t(lo) && at < int64_t(hi))
#pragma unroll
    for (int r = 0; r < Shape::rows; r++)
#pragma unroll
      for (int k = 0; k < Shape::vec; k++)
        if (int64_t(item_offset<Shape>(warp, lane, r) + k) == at) v[r][k] = edge;
}

/* The backward pass's recurrence g = dh + a' g, scanned in the direction
 * opposite to the forward's (REVERSE here is the backward's direction):
 * a'[t] = a[t + 1] for a reverse scan (a forward pass that ran forward),
 * a[t - 1] for a forward one, 0 where that is outside [0, n). */
template <typename T> struct shifted_source {
  using value = T;
  using pair = lr_pair<T>;
  const T *a, *dh;
  uint64_t n;
  bool vector_ok;
  __device__ tile_inputs<T, 2> inputs() const { return {{a, dh}}; }
  template <typename Shape, bool REVERSE>
  __device__ void pairs_from(uint64_t base, uint32_t valid, int warp, int lane, const tile_values<Shape, T> &v,
                             pair (&x)[Shape::rows][Shape::vec]) const {
    tile_values<Shape, T> w = v;
    shift_to_neighbour<Shape, REVERSE>(w.a, a, int64_t(base), 0, valid, n, T(0), warp, lane);
    values_to_pairs<Shape>(w, x);
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
  using value = T;
  using pair = lr_seg<T>;
  const T *a, *b;
  const T *h0; /* one per sequence, or NULL (all 0) */
  Segments segs;
  bool vector_ok;
  __device__ tile_inputs<T, 2> inputs() const { return {{a, b}}; }
  template <typename Shape, bool REVERSE>
  __device__ void pairs_from(uint64_t base, uint32_t valid, int warp, int lane, const tile_values<Shape, T> &v,
                             pair (&x)[Shape::rows][Shape::vec]) const {
#pragma unroll
    for (int r = 0; r < Shape::rows; r++) {
      const uint32_t i0 = uint32_t(item_offset<Shape>(warp, lane, r));
      uint64_t s = i0 < valid ? segs.find(base + i0) : 0, end = i0 < valid ? segs.end_of(s) : 0;
#pragma unroll
      for (int k = 0; k < Shape::vec; k++) {
        x[r][k] = pair{v.a[r][k], v.b[r][k], 0u};
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

/* A sequence-major batch's backward pass: shifted_source's pairs over the
 * whole batch, with a start flag (lr_seg_op) at each sequence's first step
 * in the backward's order, so that no gradient flows from one sequence
 * into another (the reset drops the shifted coefficient there, which comes
 * from the next sequence). A thread finds its rows' places in their
 * sequences by a division, then counts along. */
template <typename T> struct batch_shifted_source {
  using value = T;
  using pair = lr_seg<T>;
  shifted_source<T> shifted;
  uint64_t len;
  bool vector_ok;
  __device__ tile_inputs<T, 2> inputs() const { return shifted.inputs(); }
  template <typename Shape, bool REVERSE>
  __device__ void pairs_from(uint64_t base, uint32_t valid, int warp, int lane, const tile_values<Shape, T> &v,
                             pair (&x)[Shape::rows][Shape::vec]) const {
    lr_pair<T> p[Shape::rows][Shape::vec];
    shifted.template pairs_from<Shape, REVERSE>(base, valid, warp, lane, v, p);
#pragma unroll
    for (int r = 0; r < Shape::rows; r++) {
      const uint32_t i0 = uint32_t(item_offset<Shape>(warp, lane, r));
      uint64_t pos = (base + i0) % len;
#pragma unroll
      for (int k = 0; k < Shape::vec; k++) {
        const bool starts = (REVERSE ? pos == len - 1 : pos == 0) && i0 + k < valid;
        x[r][k] = pair{p[r][k].a, p[r][k].b, starts ? 1u : 0u};
        if (++pos == len) pos = 0;
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

/* A sequence-major batch's gradients: db = g; da = g * the forward's h one
 * step earlier in its order, h0[s] (0 without h0) at sequence s's first. */
template <typename T, bool FORWARD_REVERSE> struct store_gradients_batch {
  T *da, *db;
  const T *h;
  const T *h0; /* count states in device memory, or NULL */
  uint64_t len;
  bool vector_ok;
  template <typename Shape, typename P>
  __device__ void store(uint64_t base, uint32_t valid, int warp, int lane, const P (&x)[Shape::rows][Shape::vec]) const {
    T g[Shape::rows][Shape::vec], d[Shape::rows][Shape::vec];
#pragma unroll
    for (int r = 0; r < Shape::rows; r++) {
      const uint32_t i0 = uint32_t(item_offset<Shape>(warp, lane, r));
      uint64_t seq = (base + i0) / len, pos = base + i0 - seq * len;
#pragma unroll
      for (int k = 0; k < Shape::vec; k++) {
        const uint64_t t = base + i0 + k;
        g[r][k] = x[r][k].b;
        d[r][k] = T(0);
        if (i0 + k < valid) {
          const bool first = FORWARD_REVERSE ? pos == len - 1 : pos == 0;
          d[r][k] = lr_mul(g[r][k], first ? (h0 ? h0[seq] : T(0)) : h[FORWARD_REVERSE ? t + 1 : t - 1]);
        }
        if (++pos == len) pos = 0, seq++;
      }
    }
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
  load_source<Source, Shape, REVERSE>(src, at.base, at.valid, warp, lane, x);
  scan_tile<P, Op, Shape, REVERSE>(x, tile, at.valid, false, lb, prefix_source::lookback, sh, warp, lane);
  sink.template store<Shape>(at.base, at.valid, warp, lane, x);
}

/*
 * The pipelined kernel: persistent blocks in the three-stage pipeline of
 * tile_pipeline.cuh (as scan_pipelined), each stage holding the tile's
 * values of both of the Source's arrays (two bulk copies, one barrier):
 *
 *   begin   fold the look-back levels for `cur` (the waiting happens here)
 *   land    the tile's pairs; publish their aggregate (scan_tile's fold
 *           tree)
 *   finish  the pairs again from the stage; scan_tile with the folded
 *           levels; the Sink stores
 *
 * Where Shape::hold_scans, land keeps its row scans (tile_row_scans) in
 * registers until the next step, and finish only applies the tile's
 * prefix to them: one scan of the rows and one barrier a tile instead of
 * two, for about 10 more registers a thread (f32: none spilled at 1024
 * threads; f64 spills, so there land only folds and finish scans again).
 *
 * Same tiles, aggregates and look-back folds as linrec_tiles with the same
 * Shape, so the same bits. The prefix is always the levels' fold, so an
 * operator that resets (lr_seg_op, whose linrec_tiles prefix comes from the
 * nearest reset) runs on linrec_tiles. The partial tile and unaligned
 * inputs are read from global memory, twice.
 */
template <typename Op, typename Shape, bool REVERSE, typename Source, typename Sink>
__global__ void __launch_bounds__(Shape::threads, Shape::min_blocks)
    linrec_pipelined(Source src, Sink sink, uint64_t n, lookback_args lb) {
  static_assert(!op_resets_v<Op>, "the prefix of an operator that resets comes from linrec_tiles");
  using T = typename Source::value;
  using P = typename Source::pair;
  using stages_t = tile_stages<T, Shape, REVERSE, 2>;
  __shared__ P s_warp_total[Shape::warps];
  __shared__ tile_scan_shared<P, Shape::warps> sh;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  tile_row_scans<P, Shape::rows> landed_scans, held_scans; /* hold_scans: of the tile landed, finished this step */
  /* The pairs of a tile that landed in a stage (or lies in global memory). */
  auto staged_pairs = [&](const stages_t &stages, int stage, uint32_t tile, P (&x)[Shape::rows][Shape::vec]) {
    const tile_place<Shape, REVERSE> at = stages.place(tile);
    tile_values<Shape, T> v;
    stages.load_input(stage, tile, 0, v.a, pad_a<T>());
    stages.load_input(stage, tile, 1, v.b, pad_b<T>());
    src.template pairs_from<Shape, REVERSE>(at.base, at.valid, warp, lane, v, x);
  };
  auto begin = [&](uint32_t tile) {
    if constexpr (Shape::hold_scans) held_scans = landed_scans; /* the tile this step finishes landed last step */
    if (lb.tiles > 1) fold_prefix_levels<Op, Shape>(lb, tile, sh.level_fold, warp, lane);
  };
  auto land = [&](stages_t &stages, int stage, uint32_t tile) {
    stages.wait_landed(stage, tile);
    P x[Shape::rows][Shape::vec];
    staged_pairs(stages, stage, tile, x);
    P aggregate;
    if constexpr (Shape::hold_scans)
      aggregate = scan_tile_rows<P, Op, Shape, REVERSE>(x, landed_scans, s_warp_total, warp, lane);
    else
      aggregate = tile_aggregate<P, Op, Shape, REVERSE>(x, s_warp_total, warp, lane);
    if (lb.tiles > 1 && warp == 0) publish_and_close_groups<Op>(lb, tile, aggregate, lane);
  };
  auto finish = [&](const stages_t &stages, int stage, uint32_t tile, bool landed) {
    P x[Shape::rows][Shape::vec];
    staged_pairs(stages, stage, tile, x);
    const tile_place<Shape, REVERSE> at = stages.place(tile);
    if constexpr (Shape::hold_scans) {
      if (!landed) __syncthreads(); /* else land's barrier orders begin's folds before these reads */
      const P prefix = lb.tiles > 1 ? combine_prefix_levels<Op>(lb, sh.level_fold) : Op::neutral();
      apply_row_scans<P, Op, Shape, REVERSE>(x, held_scans, prefix, false);
    } else {
      /* scan_tile's first barrier orders begin's folds before it reads them. */
      scan_tile<P, Op, Shape, REVERSE>(x, tile, at.valid, false, lb, prefix_source::prefolded, sh, warp, lane);
    }
    sink.template store<Shape>(at.base, at.valid, warp, lane, x);
  };
  run_tile_stages<T, Shape, REVERSE, 2>(src.inputs(), n, src.vector_ok,
                                        tile_counter{lb.counter, lb.counter_base, lb.tiles}, warp, lane, begin, land,
                                        finish);
}

}  // namespace gp
