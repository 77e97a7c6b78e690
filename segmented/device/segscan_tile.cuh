/*
 * Segmented scan and segmented reduce: scan_pipelined (scan_tile.cuh) over
 * (value, segment-start) pairs (seg_pair.cuh). Values come by bulk copy as
 * in the scan; each tile's start flags come from the head-flag array, or
 * from the offsets of the segments that start in the tile (found through
 * tile_first[], one entry per tile, built by a first kernel), set as bits in
 * shared memory: offsets are never turned into a flags array in memory.
 *
 * Flags are in scan order: a forward scan restarts at each segment's first
 * element, a REVERSE one at each segment's last. Exclusive scans write the
 * identity where a segment (re)starts.
 *
 * Segmented reduce (REDUCE) writes no scan: the tile's inclusive results go
 * to its shared-memory stage, and each segment ending in the tile takes its
 * last element's result; an empty segment gets the identity from the tile
 * holding its start.
 *
 * Offsets are read clamped to [0, n] and segment indices to [0, nseg], so
 * malformed offsets cannot lead outside in, out or offsets;
 * tile_first_segments() reports them through *bad.
 */
#pragma once

#include "segmented/device/seg_pair.cuh"

namespace gp {

/* Heads from a byte array: heads[i] != 0 starts a segment at i. */
struct heads_from_flags {
  const uint8_t *heads;
};

/* Heads from nseg + 1 offsets (int64_t; sparse's row_ptr: int32_t too);
 * tile_first[t]: the first segment starting at or after tile t's first
 * element. */
template <typename Offset> struct heads_from_offsets {
  const Offset *offsets;
  uint64_t nseg;
  const uint64_t *tile_first;
};

/* Where the scanned values come from: `in` as it is... */
struct plain_values {
  static constexpr bool transforms = false;
  template <typename Shape, typename T>
  __device__ void operator()(T (&)[Shape::rows][Shape::vec], uint64_t, uint32_t, int, int) const {}
};

/* Segmented reduce's result for segment j: out[j] (identity when empty). */
template <typename T, typename Base> struct store_results {
  T *out;
  __device__ void operator()(uint64_t j, T v, bool empty) const { out[j] = empty ? Base::identity() : v; }
};

template <typename Offset> __device__ inline uint64_t clamped_offset(const Offset *offsets, uint64_t s, uint64_t n) {
  const int64_t o = int64_t(offsets[s]);
  return o < 0 ? 0 : uint64_t(o) > n ? n : uint64_t(o);
}

/* One thread per offset: tile_first[t] = the smallest s with offsets[s] >=
 * t * tile_items (tile_first zeroed before), and *bad = 1 if the offsets are
 * not 0 = offsets[0] <= ... <= offsets[nseg] = n. */
template <typename Offset>
__global__ void tile_first_segments(const Offset *offsets, uint64_t nseg, uint64_t n, uint32_t tile_items,
                                    uint64_t tiles, uint64_t *tile_first, unsigned *bad) {
  for (uint64_t s = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; s <= nseg; s += uint64_t(gridDim.x) * blockDim.x) {
    const int64_t raw = int64_t(offsets[s]);
    const int64_t raw_prev = s ? int64_t(offsets[s - 1]) : 0;
    if (raw < 0 || uint64_t(raw) > n || raw < raw_prev || (s == 0 && raw != 0) || (s == nseg && uint64_t(raw) != n))
      *bad = 1;
    const uint64_t cur = clamped_offset(offsets, s, n);
    /* Boundaries b = t * tile_items with prev < b <= cur have s as their lower bound. */
    uint64_t t = s ? (clamped_offset(offsets, s - 1, n) / tile_items) + 1 : 0;
    for (; t < tiles && t * tile_items <= cur; t++) tile_first[t] = s;
  }
}

/* out[0, count) = v: segmented reduce of n = 0 elements (every segment empty). */
template <typename T> __global__ void fill_value(T *out, uint64_t count, T v) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x)
    out[i] = v;
}

/* Shared memory of one stage beyond its values: the tile's start flags. */
template <typename Shape> struct stage_heads {
  uint32_t bits[Shape::tile_items / 32]; /* offsets: set by position */
  uint32_t mine[Shape::threads];         /* each thread's flags, bit r * VEC + k */
};

/* The segments whose offsets may fall in tile t: [first, last]. */
template <typename Offset>
__device__ inline void tile_segments(const heads_from_offsets<Offset> &src, uint32_t tile, uint32_t tiles, uint64_t *first,
                                     uint64_t *last) {
  const uint64_t a = src.tile_first[tile], b = tile + 1 < tiles ? src.tile_first[tile + 1] : src.nseg;
  *first = a < src.nseg ? a : src.nseg;
  *last = b < src.nseg ? b : src.nseg;
  if (*last < *first) *last = *first; /* only with malformed offsets */
}

/* This thread's start flags (scan order) for the tile at `base` with `valid` items. */
template <typename Shape, bool REVERSE>
__device__ inline uint32_t thread_heads(const heads_from_flags &src, stage_heads<Shape> &, uint32_t, uint32_t,
                                        uint64_t base, uint32_t valid, uint64_t n, int warp, int lane) {
  uint32_t bits = 0;
#pragma unroll
  for (int r = 0; r < Shape::rows; r++)
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) {
      const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r) + k);
      if (i >= valid) continue;
      const uint64_t g = base + i;
      /* Forward: a start at g; reverse: the last element before a start (or n - 1). */
      const bool head = REVERSE ? (g + 1 == n || src.heads[g + 1] != 0) : (g == 0 || src.heads[g] != 0);
      bits |= uint32_t(head) << (r * Shape::vec + k);
    }
  return bits;
}

template <typename Shape, bool REVERSE, typename Offset>
__device__ inline uint32_t thread_heads(const heads_from_offsets<Offset> &src, stage_heads<Shape> &sh, uint32_t tile,
                                        uint32_t tiles, uint64_t base, uint32_t valid, uint64_t n, int warp,
                                        int lane) {
  for (int w = threadIdx.x; w < Shape::tile_items / 32; w += Shape::threads) sh.bits[w] = 0;
  __syncthreads();
  uint64_t first, last;
  tile_segments(src, tile, tiles, &first, &last);
  for (uint64_t s = first + threadIdx.x; s <= last; s += Shape::threads) {
    const uint64_t o = clamped_offset(src.offsets, s, n);
    const uint64_t at = REVERSE ? o - 1 : o; /* reverse: the segment before ends at o - 1 */
    if (REVERSE && o == 0) continue;
    if (at >= base && at < base + valid) atomicOr(&sh.bits[(at - base) >> 5], 1u << ((at - base) & 31));
  }
  __syncthreads();
  uint32_t bits = 0;
#pragma unroll
  for (int r = 0; r < Shape::rows; r++)
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) {
      const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r) + k);
      if (i >= valid) continue;
      const uint64_t g = base + i;
      const bool head = ((sh.bits[i >> 5] >> (i & 31)) & 1u) || (REVERSE ? g + 1 == n : g == 0);
      bits |= uint32_t(head) << (r * Shape::vec + k);
    }
  return bits;
}

/* Segmented reduce, after the tile's inclusive results are in `results`:
 * the result of each segment j ending in the tile, and of each empty
 * segment starting in it (or, in the last tile, at n), to epilogue(j, v, empty). */
template <typename T, typename Shape, typename Offset, typename Epilogue>
__device__ inline void gather_segment_results(const heads_from_offsets<Offset> &src, const T *results, uint32_t tile,
                                              uint32_t tiles, uint64_t base, uint32_t valid, uint64_t n,
                                              const Epilogue &epilogue) {
  uint64_t first, last;
  tile_segments(src, tile, tiles, &first, &last);
  const bool last_tile = tile + 1 == tiles;
  for (uint64_t s = (first ? first : 1) + threadIdx.x; s <= last; s += Shape::threads) {
    const uint64_t end = clamped_offset(src.offsets, s, n), start = clamped_offset(src.offsets, s - 1, n);
    if (end > start) {
      if (end - 1 >= base && end - 1 < base + valid) epilogue(s - 1, results[end - 1 - base], false);
    } else if ((start >= base && start < base + valid) || (last_tile && start >= n)) {
      epilogue(s - 1, T(0), true);
    }
  }
}

/* A tile's aggregate in scan order: items within each thread's row, lanes,
 * rows, then warps (scan_tile.cuh's block_fold combines them in an order
 * only a commuting operator allows). */
template <typename Op, typename Shape, bool REVERSE, typename P>
__device__ inline P block_fold_ordered(const P (&x)[Shape::rows][Shape::vec], P *s_warp_sum, int warp, int lane) {
  constexpr int ROWS = Shape::rows, VEC = Shape::vec, NW = Shape::warps;
  P warp_total = Op::neutral();
#pragma unroll
  for (int rr = 0; rr < ROWS; rr++) {
    const int r = scan_order<REVERSE, ROWS>(rr);
    P t = x[r][scan_order<REVERSE, VEC>(0)];
#pragma unroll
    for (int kk = 1; kk < VEC; kk++) t = Op::apply(t, x[r][scan_order<REVERSE, VEC>(kk)]);
    warp_total = Op::apply(warp_total, warp_reduce_ordered<Op, REVERSE>(t));
  }
  if (lane == 0) s_warp_sum[scan_order<REVERSE, NW>(warp)] = warp_total;
  __syncthreads();
  return warp_reduce_ordered<Op, false>(lane < NW ? s_warp_sum[lane] : Op::neutral());
}

/*
 * The kernel: scan_pipelined's three stages and step structure, with pairs.
 * REDUCE: segmented reduce (offsets only): each segment's result goes to
 * the epilogue (out is not used). Values: how a tile's loaded elements
 * become the scanned values (sparse: products with x), computed once when
 * the tile lands and kept in its stage.
 */
template <typename T, gpu_op OP, typename Shape, bool REVERSE, typename Source, bool REDUCE,
          typename Values = plain_values, typename Epilogue = store_results<T, scan_op<T, OP>>>
__global__ void __launch_bounds__(Shape::threads, 1)
    segscan_pipelined(const T *in, T *out, uint64_t n, bool exclusive, bool vector_ok, lookback_args lb, Source src,
                      Values values, Epilogue epilogue) {
  using P = seg_pair<T>;
  using Op = seg_op<T, OP>;
  using Base = scan_op<T, OP>;
  constexpr int STAGES = 3, ROWS = Shape::rows, VEC = Shape::vec;
  static_assert(ROWS * VEC <= 32, "a thread's flags fit a word");
  constexpr uint32_t TILE_BYTES = Shape::tile_items * sizeof(T);
  extern __shared__ __align__(128) unsigned char stage_mem[]; /* STAGES * TILE_BYTES */
  __shared__ stage_barriers<STAGES> bars;
  __shared__ uint32_t s_tile[STAGES];
  __shared__ P s_warp_sum[Shape::warps];
  __shared__ tile_scan_shared<P, Shape::warps> sh;
  __shared__ stage_heads<Shape> s_heads[STAGES];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  auto stage_ptr = [&](int stage) { return reinterpret_cast<T *>(stage_mem + stage * TILE_BYTES); };
  auto by_copy = [&](uint32_t tile) {
    return vector_ok && tile_place<Shape, REVERSE>(tile, lb.tiles, n).valid == uint32_t(Shape::tile_items);
  };

  bool exhausted = false;
  auto take_into = [&](int stage) {
    uint32_t t = lb.tiles;
    if (!exhausted) {
      t = lb.tiles == 1 ? 0u : uint32_t(min(uint64_t(atomicAdd(lb.counter, 1ull) - lb.counter_base), uint64_t(lb.tiles)));
      exhausted = t >= lb.tiles || lb.tiles == 1;
    }
    s_tile[stage] = t;
    if (t < lb.tiles && by_copy(t))
      bulk_load(stage_mem + stage * TILE_BYTES, in + tile_place<Shape, REVERSE>(t, lb.tiles, n).base, TILE_BYTES,
                &bars.bar[stage]);
  };
  uint32_t parity = 0;
  /* The tile's pairs: values from the stage (or memory), flags from s_heads. */
  auto fetch = [&](int stage, uint32_t tile, bool first_time, P (&x)[ROWS][VEC]) {
    const tile_place<Shape, REVERSE> at(tile, lb.tiles, n);
    T v[ROWS][VEC];
    if (by_copy(tile)) {
      if (first_time) {
        bulk_wait(&bars.bar[stage], (parity >> stage) & 1u);
        parity ^= 1u << stage;
      }
      load_tile<Shape>(stage_ptr(stage), at.valid, true, warp, lane, v, Base::neutral());
    } else if (Values::transforms && !first_time) {
      load_tile<Shape>(stage_ptr(stage), at.valid, true, warp, lane, v, Base::neutral()); /* kept at landing */
    } else {
      load_tile<Shape>(in + at.base, at.valid, vector_ok, warp, lane, v, Base::neutral());
    }
    if (Values::transforms && first_time) {
      values.template operator()<Shape>(v, at.base, at.valid, warp, lane);
      store_tile<Shape>(stage_ptr(stage), at.valid, true, warp, lane, v); /* each thread its own items */
      stage_written_by_threads();
    }
    const uint32_t heads = s_heads[stage].mine[threadIdx.x];
#pragma unroll
    for (int r = 0; r < ROWS; r++)
#pragma unroll
      for (int k = 0; k < VEC; k++) x[r][k] = P{v[r][k], (heads >> (r * VEC + k)) & 1u};
  };
  auto publish = [&](int stage, uint32_t tile) {
    const tile_place<Shape, REVERSE> at(tile, lb.tiles, n);
    const uint32_t heads =
        thread_heads<Shape, REVERSE>(src, s_heads[stage], REVERSE ? lb.tiles - 1 - tile : tile, lb.tiles, at.base,
                                     at.valid, n, warp, lane);
    s_heads[stage].mine[threadIdx.x] = heads; /* read back by this thread only */
    P x[ROWS][VEC];
    fetch(stage, tile, true, x);
    const P aggregate = block_fold_ordered<Op, Shape, REVERSE>(x, s_warp_sum, warp, lane);
    if (lb.tiles > 1 && warp == 0) publish_and_close_groups<Op>(lb, tile, aggregate, lane);
  };

  init_stage_barriers(bars);
  if (threadIdx.x == 0) {
    take_into(0);
    take_into(1);
  }
  __syncthreads();
  if (s_tile[0] < lb.tiles) publish(0, s_tile[0]);
  for (int cur = 0;; cur = (cur + 1) % STAGES) {
    __syncthreads();
    const uint32_t tile = s_tile[cur];
    if (tile >= lb.tiles) break;
    const int next = (cur + 1) % STAGES;
    if (threadIdx.x == 0) take_into((cur + 2) % STAGES);
    if (lb.tiles > 1) fold_prefix_levels<Op, Shape>(lb, tile, sh.level_fold, warp, lane);
    if (s_tile[next] < lb.tiles) publish(next, s_tile[next]);
    P x[ROWS][VEC];
    fetch(cur, tile, false, x);
    const tile_place<Shape, REVERSE> at(tile, lb.tiles, n);
    scan_tile<P, Op, Shape, REVERSE>(x, tile, at.valid, exclusive && !REDUCE, lb, prefix_source::prefolded, sh, warp,
                                     lane);
    T y[ROWS][VEC];
#pragma unroll
    for (int r = 0; r < ROWS; r++)
#pragma unroll
      for (int k = 0; k < VEC; k++) {
        /* Exclusive: where a segment starts (scan order), the identity. */
        const bool restart = (s_heads[cur].mine[threadIdx.x] >> (r * VEC + k)) & 1u;
        y[r][k] = exclusive && !REDUCE && restart ? Base::identity() : x[r][k].value;
      }
    if constexpr (!REDUCE) {
      store_tile<Shape>(out + at.base, at.valid, vector_ok, warp, lane, y); /* vector_ok: in and out aligned */
    } else {
      __syncthreads(); /* everyone has read the stage */
      store_tile<Shape>(stage_ptr(cur), at.valid, true, warp, lane, y);
      stage_written_by_threads();
      __syncthreads();
      gather_segment_results<T, Shape>(src, stage_ptr(cur), tile, lb.tiles, at.base, at.valid, n, epilogue);
    }
  }
}

}  // namespace gp
