/*
 * The single-pass kernels: scan (scan_pipelined) and reduce
 * (reduce_single_pass).
 *
 * Per tile:
 *   1. take the next tile index from the counter (launch order)
 *   2. load the tile into registers (16-byte vectors when aligned)
 *   3. scan it: each thread folds its vector of each row, warps scan rows
 *      with shuffles (Hillis-Steele), rows chain within the warp, and warp
 *      totals are scanned through shared memory
 *   4. publish the tile's aggregate and get the tile's prefix from the
 *      fixed-tree look-back (lookback.cuh), or, for an operator that
 *      resets (the segmented scan's pairs), from the nearest earlier tile
 *      that resets it (publish_and_prefix); one tile alone skips this
 *   5. add the prefix and store
 *
 * REVERSE scans the tile from its last item to its first: physical tile
 * tiles-1-t is taken t-th, rows, lanes, warps and vector items are visited
 * backwards. Every combination happens in a fixed order, so results are the
 * same bits on every run.
 */
#pragma once

#include "scan/device/lookback.cuh"
#include "scan/device/tile_pipeline.cuh"
#include "scan/device/tile_io.cuh"
#include "scan/device/warp_scan.cuh"

namespace gp {

/* Index in scan order -> physical index, for rows, vector items and warps. */
template <bool REVERSE, int COUNT> __device__ constexpr int scan_order(int i) { return REVERSE ? COUNT - 1 - i : i; }

template <typename Op, typename T> __device__ inline bool identity_differs_from_neutral() {
  return to_bits(Op::identity()) != to_bits(Op::neutral());
}

/* Step 4, first half: warps 1.. fold the look-back levels of a tile that is
 * not alone into s_level_fold (one level each; the waiting happens here). */
template <typename Op, typename Shape, typename T>
__device__ inline void fold_prefix_levels(const lookback_args &lb, uint32_t tile, T *s_level_fold, int warp, int lane) {
  if (warp == 0) return;
  for (uint32_t level = warp - 1; level < lb.levels; level += Shape::warps - 1) {
    T f = fold_level<Op, T>(lb, tile, level, lane);
    if (lane == 0) s_level_fold[level] = f;
  }
}

/* Step 4, second half, after a barrier: the tile's exclusive prefix, the
 * levels combined top first (Op::neutral() for the first tile). */
template <typename Op, typename T> __device__ inline T combine_prefix_levels(const lookback_args &lb, const T *s_level_fold) {
  T prefix = Op::neutral();
  for (int level = int(lb.levels) - 1; level >= 0; level--) prefix = Op::apply(prefix, s_level_fold[level]);
  return prefix;
}

/* Block-wide, where lb.tiles > 1 (contains barriers): warp 0 publishes
 * entry `tile`'s aggregate; where `needs` (uniform) the entry's exclusive
 * prefix comes back to every thread, for an operator that resets from the
 * nearest entry before that resets the fold (nearest_reset_prefix, by warp
 * 1), else, or where none of the 32 does, from the levels
 * (fold_prefix_levels into level_fold, which Shape's warps fill).
 * Op::neutral() where not needs. Why the nearest reset: the levels wait
 * for every earlier entry, a reset only for those from it on (the scans,
 * reduce and SpMV of segmented/ all come through here; bench/NOTES.md has
 * the measurements). */
template <typename Op, typename Shape, typename T>
__device__ inline T publish_and_prefix(const lookback_args &lb, uint32_t tile, T aggregate, bool needs, T *level_fold,
                                       int warp, int lane) {
  constexpr bool NEAREST = op_resets_v<Op>;
  __shared__ T s_nearest;
  __shared__ bool s_levels;
  if (warp == 0) {
    publish_and_close_groups<Op>(lb, tile, aggregate, lane);
  } else if (needs) {
    if constexpr (!NEAREST) {
      fold_prefix_levels<Op, Shape>(lb, tile, level_fold, warp, lane);
    } else if (warp == 1) {
      T p;
      const bool found = nearest_reset_prefix<Op>(lb, tile, lane, &p);
      if (lane == 0) {
        s_nearest = p;
        s_levels = !found;
      }
    }
  }
  __syncthreads();
  if (!needs) return Op::neutral();
  if constexpr (NEAREST) {
    if (!s_levels) return s_nearest;
    /* uniform: none of the 32 entries before resets */
    fold_prefix_levels<Op, Shape>(lb, tile, level_fold, warp, lane);
    __syncthreads();
  }
  return combine_prefix_levels<Op>(lb, level_fold);
}

/* How scan_tile gets a tile's prefix. */
enum class prefix_source {
  lookback,     /* publish the aggregate, then the prefix (publish_and_prefix) */
  prefolded     /* fold_prefix_levels already ran for this tile */
};

/* Shared memory of the per-tile scan. */
template <typename T, int WARPS> struct tile_scan_shared {
  T warp_total[WARPS];
  T level_fold[LOOKBACK_MAX_LEVELS];
};

/* Step 3's rows: thread fold, warp scan; rows chained in scan order. Each
 * row's lane-exclusive fold and the warp's fold before the row; returns the
 * warp's total. */
template <typename T, typename Op, typename Shape, bool REVERSE>
__device__ __forceinline__ T scan_rows(const T (&x)[Shape::rows][Shape::vec], T (&lane_excl)[Shape::rows],
                                       T (&row_prefix)[Shape::rows], int lane) {
  constexpr int ROWS = Shape::rows, VEC = Shape::vec;
  T warp_total = Op::neutral();
#pragma unroll
  for (int rr = 0; rr < ROWS; rr++) {
    const int r = scan_order<REVERSE, ROWS>(rr);
    T t = x[r][scan_order<REVERSE, VEC>(0)];
#pragma unroll
    for (int kk = 1; kk < VEC; kk++) t = Op::apply(t, x[r][scan_order<REVERSE, VEC>(kk)]);
    T incl = warp_inclusive_scan<Op, REVERSE>(t, lane);
    lane_excl[r] = warp_exclusive_from_inclusive<Op, REVERSE>(incl, lane);
    row_prefix[r] = warp_total;
    warp_total = Op::apply(warp_total, warp_last<REVERSE>(incl));
  }
  return warp_total;
}

/* Every warp scans the warp totals (in scan order in s_warp_total) itself,
 * with the same bits in each: no second barrier. */
template <typename T, typename Op, int NW>
__device__ __forceinline__ T scan_warp_totals(const T *s_warp_total, int lane) {
  return warp_inclusive_scan<Op, false>(lane < NW ? s_warp_total[lane] : Op::neutral(), lane);
}

/* The aggregate scan_tile publishes for a tile, folded in the same tree
 * (so the same bits), without the scan: for a pipeline that publishes a
 * tile's aggregate before it scans the tile. Block-wide; one barrier
 * (s_warp_total: scratch of Shape::warps, apart from scan_tile's). */
template <typename T, typename Op, typename Shape, bool REVERSE>
__device__ inline T tile_aggregate(const T (&x)[Shape::rows][Shape::vec], T *s_warp_total, int warp, int lane) {
  T lane_excl[Shape::rows], row_prefix[Shape::rows];
  const T warp_total = scan_rows<T, Op, Shape, REVERSE>(x, lane_excl, row_prefix, lane);
  if (lane == 0) s_warp_total[scan_order<REVERSE, Shape::warps>(warp)] = warp_total;
  __syncthreads();
  return __shfl_sync(FULL_MASK, scan_warp_totals<T, Op, Shape::warps>(s_warp_total, lane), WARP - 1);
}

/* Step 3's results for one thread: its lane-exclusive fold of each row,
 * each row's prefix within the warp, and the warp's prefix within the
 * tile. With the tile's prefix they give every item's output
 * (apply_row_scans). */
template <typename T, int ROWS> struct tile_row_scans {
  T lane_excl[ROWS], row_prefix[ROWS], warp_prefix;
};

/* Step 3 for one tile held in registers: fills `rs` and returns the tile's
 * aggregate (the same fold tree as tile_aggregate). Block-wide; one barrier
 * (s_warp_total: Shape::warps of scratch). */
template <typename T, typename Op, typename Shape, bool REVERSE>
__device__ __forceinline__ T scan_tile_rows(const T (&x)[Shape::rows][Shape::vec], tile_row_scans<T, Shape::rows> &rs,
                                            T *s_warp_total, int warp, int lane) {
  constexpr int NW = Shape::warps;
  const int vwarp = scan_order<REVERSE, NW>(warp); /* this warp's place in scan order */
  const T warp_total = scan_rows<T, Op, Shape, REVERSE>(x, rs.lane_excl, rs.row_prefix, lane);
  if (lane == 0) s_warp_total[vwarp] = warp_total;
  __syncthreads();
  const T wincl = scan_warp_totals<T, Op, NW>(s_warp_total, lane);
  rs.warp_prefix = __shfl_sync(FULL_MASK, warp_exclusive_from_inclusive<Op, false>(wincl, lane), vwarp);
  return __shfl_sync(FULL_MASK, wincl, WARP - 1);
}

/* Step 5: each item becomes the running fold from its thread's prefix
 * (prefix: the tile's exclusive prefix); exclusive: the fold before it. */
template <typename T, typename Op, typename Shape, bool REVERSE>
__device__ __forceinline__ void apply_row_scans(T (&x)[Shape::rows][Shape::vec],
                                                const tile_row_scans<T, Shape::rows> &rs, T prefix, bool exclusive) {
  const T thread_base = Op::apply(prefix, rs.warp_prefix);
#pragma unroll
  for (int rr = 0; rr < Shape::rows; rr++) {
    const int r = scan_order<REVERSE, Shape::rows>(rr);
    T acc = Op::apply(Op::apply(thread_base, rs.row_prefix[r]), rs.lane_excl[r]);
#pragma unroll
    for (int kk = 0; kk < Shape::vec; kk++) {
      const int k = scan_order<REVERSE, Shape::vec>(kk);
      T next = Op::apply(acc, x[r][k]);
      x[r][k] = exclusive ? acc : next;
      acc = next;
    }
  }
}

/* Steps 3 to 5 for one tile held in registers: x becomes the tile's output.
 * Uniform across the block; contains barriers. */
template <typename T, typename Op, typename Shape, bool REVERSE>
__device__ inline void scan_tile(T (&x)[Shape::rows][Shape::vec], uint32_t tile, uint32_t valid, bool exclusive,
                                 const lookback_args &lb, prefix_source source, tile_scan_shared<T, Shape::warps> &sh,
                                 int warp, int lane) {
  static_assert(Shape::warps >= 2, "one warp publishes while the others fold levels");

  /* 3. Rows: thread fold, warp scan; rows chained in scan order. */
  tile_row_scans<T, Shape::rows> rs;
  const T aggregate = scan_tile_rows<T, Op, Shape, REVERSE>(x, rs, sh.warp_total, warp, lane);

  /* 4. Look-back: for an operator that resets (the segmented scan's pairs)
   * from the nearest earlier tile that resets it, so a tile waits only for
   * the tiles from there on, not for every earlier tile. */
  T prefix = Op::neutral();
  if (lb.tiles > 1) {
    if (source == prefix_source::prefolded)
      prefix = combine_prefix_levels<Op>(lb, sh.level_fold);
    else
      prefix = publish_and_prefix<Op, Shape>(lb, tile, aggregate, true, sh.level_fold, warp, lane);
  }

  /* 5. Each item: the running fold from its thread's prefix. */
  apply_row_scans<T, Op, Shape, REVERSE>(x, rs, prefix, exclusive);
  /* An exclusive scan's first output is the identity, not the padding's neutral. */
  if (exclusive && tile == 0 && identity_differs_from_neutral<Op, T>()) {
    const uint32_t first = REVERSE ? valid - 1 : 0;
#pragma unroll
    for (int r = 0; r < Shape::rows; r++)
#pragma unroll
      for (int k = 0; k < Shape::vec; k++)
        if (uint32_t(item_offset<Shape>(warp, lane, r) + k) == first) x[r][k] = Op::identity();
  }
}

/* Block-wide fold of a tile in registers, in a fixed order; every thread gets it. */
template <typename Op, typename Shape, typename T>
__device__ inline T block_fold(const T (&x)[Shape::rows][Shape::vec], T *s_warp_sum, int warp, int lane) {
  T t = Op::neutral();
#pragma unroll
  for (int r = 0; r < Shape::rows; r++)
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) t = Op::apply(t, x[r][k]);
  t = warp_reduce<Op>(t);
  if (lane == 0) s_warp_sum[warp] = t;
  __syncthreads();
  return warp_reduce<Op>(lane < Shape::warps ? s_warp_sum[lane] : Op::neutral());
}

/*
 * The fast path: persistent blocks in the three-stage pipeline
 * (tile_pipeline.cuh), which publish each tile's aggregate as soon as its
 * data lands and resolve its prefix one step later:
 *
 *   begin   fold the look-back levels for `cur` (the waiting happens here)
 *   land    fold the tile and publish its aggregate
 *   finish  the prefix from the folded levels; scan, store
 *
 * The partial tile and unaligned inputs are read from global memory twice.
 */
/* (The 1 in the launch bounds: without it ptxas holds the 8-byte ADD
 * instances to 64 registers and spills ~280 bytes a thread.) */
template <typename T, typename Op, typename Shape, bool REVERSE>
__global__ void __launch_bounds__(Shape::threads, 1)
    scan_pipelined(const T *in, T *out, uint64_t n, bool exclusive, bool vector_ok, lookback_args lb) {
  using stages_t = tile_stages<T, Shape, REVERSE>;
  __shared__ T s_warp_sum[Shape::warps];
  __shared__ tile_scan_shared<T, Shape::warps> sh;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  auto begin = [&](uint32_t tile) {
    if (lb.tiles > 1) fold_prefix_levels<Op, Shape>(lb, tile, sh.level_fold, warp, lane);
  };
  auto land = [&](stages_t &stages, int stage, uint32_t tile) {
    T x[Shape::rows][Shape::vec];
    stages.load_landed(stage, tile, x, Op::neutral());
    const T aggregate = block_fold<Op, Shape>(x, s_warp_sum, warp, lane);
    if (lb.tiles > 1 && warp == 0) publish_and_close_groups<Op>(lb, tile, aggregate, lane);
  };
  auto finish = [&](const stages_t &stages, int stage, uint32_t tile, bool) {
    T x[Shape::rows][Shape::vec];
    stages.load_again(stage, tile, x, Op::neutral());
    const tile_place<Shape, REVERSE> at = stages.place(tile);
    /* scan_tile's first barrier orders begin's folds before it reads them. */
    scan_tile<T, Op, Shape, REVERSE>(x, tile, at.valid, exclusive, lb, prefix_source::prefolded, sh, warp, lane);
    store_tile<Shape>(out + at.base, at.valid, vector_ok, warp, lane, x);
  };
  run_tile_stages<T, Shape, REVERSE>(in, n, vector_ok, tile_counter{lb.counter, lb.counter_base, lb.tiles}, warp, lane,
                                     begin, land, finish);
}

/* Reduce: the same tiles and look-back; only the last tile needs its prefix,
 * and it writes prefix op aggregate to *result. */
template <typename T, typename Op, typename Shape>
__global__ void __launch_bounds__(Shape::threads, 1)
    reduce_single_pass(const T *in, uint64_t n, bool vector_ok, lookback_args lb, T *result) {
  constexpr int ROWS = Shape::rows, VEC = Shape::vec, NW = Shape::warps;
  __shared__ uint32_t s_tile;
  __shared__ T s_warp_total[NW];
  __shared__ T s_level_fold[LOOKBACK_MAX_LEVELS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  const uint32_t tile = take_tile(lb, &s_tile);
  const uint64_t base = uint64_t(tile) * Shape::tile_items;
  const uint32_t valid = uint32_t(min(n - base, uint64_t(Shape::tile_items)));
  T x[ROWS][VEC];
  load_tile<Shape>(in + base, valid, vector_ok, warp, lane, x, Op::neutral());

  T t = Op::neutral();
#pragma unroll
  for (int r = 0; r < ROWS; r++)
#pragma unroll
    for (int k = 0; k < VEC; k++) t = Op::apply(t, x[r][k]);
  t = warp_reduce<Op>(t);
  if (lane == 0) s_warp_total[warp] = t;
  __syncthreads();
  const T aggregate = warp_reduce<Op>(lane < NW ? s_warp_total[lane] : Op::neutral());

  const bool last = tile == lb.tiles - 1;
  T prefix = Op::neutral();
  if (lb.tiles > 1) {
    if (warp == 0) publish_and_close_groups<Op>(lb, tile, aggregate, lane);
    else if (last) fold_prefix_levels<Op, Shape>(lb, tile, s_level_fold, warp, lane);
    __syncthreads();
    if (last) prefix = combine_prefix_levels<Op>(lb, s_level_fold);
  }
  if (last && threadIdx.x == 0) *result = Op::apply(prefix, aggregate);
}

}  // namespace gp
