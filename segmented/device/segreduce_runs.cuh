/*
 * Segmented reduce (and SpMV, through Values and Epilogue) by runs of
 * tiles: the block with ticket b of a grid of G blocks reduces the tiles
 * [b T / G, (b + 1) T / G) one after another, carrying the open segment's fold from tile to
 * tile in shared memory, so no tile waits for another block. Only the
 * segment that reaches into a run from before needs anything from other
 * blocks: each block publishes its run's fold once, at its end, through
 * the scan's look-back (one entry a block, not a tile), and finishes that
 * one segment with its prefix.
 *
 * Why: a reduce writes almost nothing, so segscan_blocked's per-tile costs
 * (a ticket, a published aggregate, a look-back wait) set its time: 0.33
 * of a copy of its input at 2^28 on the H200, where its scans, moving twice
 * the bytes per tile, reach 0.64 of a copy. By runs, A/B on the H200
 * (bench/NOTES.md): reduce at 2^28 0.38-0.50 of a copy (i32), 0.44-0.69
 * (f64), SpMV on large matrices 1.1-1.25x faster; the same below 2^24.
 *
 * Per tile, as segscan_blocked: load (and for SpMV the columns, then the
 * products; plain values come by cp.async two tiles ahead, see
 * GP_RUNS_PREFETCH), the offsets' start bits, transpose to blocked, pairs; then
 * the run's carry goes into the tile's first pair and scan_tile scans the
 * tile alone (a look-back of one tile: none); the results go to shared
 * memory and each segment ending in the tile takes its last element's
 * (gather_segment_results), except the spanning one, kept for the end.
 *
 * Results: per segment, the same fixed order on every run for a given grid
 * (the device's resident blocks, fixed for a device), so floats give the
 * same bits run to run.
 */
#pragma once

#include "segmented/device/segscan_blocked.cuh"

namespace gp {

/* The run of tiles of block b among g: [first, end). */
__host__ __device__ inline uint32_t run_start(uint32_t tiles, uint32_t b, uint32_t g) {
  return uint32_t(uint64_t(tiles) * b / g);
}

/* The epilogue of a run: every segment goes to the caller's epilogue except
 * `span`, the one that reaches into the run from before, whose fold within
 * the run is kept in *kept until the run's prefix is known. */
template <typename T, typename Epilogue> struct run_results {
  Epilogue inner;
  uint64_t span; /* ~0: none */
  T *kept;
  unsigned *kept_set;
  __device__ void operator()(uint64_t j, T v, bool empty) const {
    if (j == span) {
      *kept = v;
      *kept_set = 1;
    } else {
      inner(j, v, empty);
    }
  }
};

/* 1 (default): plain values (segmented reduce; not SpMV's products, whose
 * columns lead to x) come by cp.async into three shared stages, two tiles
 * ahead of the one being reduced: at 2^28 on the H200 0.47-0.51 -> 0.53-0.56
 * of a copy (i32, L 64-4096), f64 0.62-0.70 -> 0.67-0.75, the same below
 * 2^24 (bench/results/h200_seg_runs_ab.txt). 0: plain loads, for A/B
 * library builds. */
#ifndef GP_RUNS_PREFETCH
#define GP_RUNS_PREFETCH 1
#endif
template <typename Values> constexpr bool runs_prefetch = GP_RUNS_PREFETCH != 0 && !Values::transforms;
constexpr int RUNS_STAGES = 3;
/* Dynamic shared memory of segreduce_runs. */
template <typename T, typename Shape, typename Values> constexpr size_t runs_smem() {
  return runs_prefetch<Values> ? RUNS_STAGES * Shape::tile_items * sizeof(T) : 0;
}

template <typename T, gpu_op OP, typename Shape, typename Offset, typename Values, typename Epilogue>
__global__ void __launch_bounds__(Shape::threads, Shape::min_blocks)
    segreduce_runs(const T *in, uint64_t n, uint32_t tiles, bool vector_ok, lookback_args lb,
                   heads_from_offsets<Offset> src, Values values, Epilogue epilogue) {
  using P = seg_pair<T>;
  using Op = seg_op<T, OP>;
  using Base = scan_op<T, OP>;
  using B = blocked_shape<Shape>;
  constexpr int ITEMS = Shape::items;
  static_assert(blocked_tile_fits<T, Shape>());
  __shared__ tile_scan_shared<P, Shape::warps> sh;
  __shared__ stage_heads<B> s_heads;
  constexpr bool PREFETCH = runs_prefetch<Values>;
  extern __shared__ __align__(128) unsigned char run_stages[]; /* PREFETCH: RUNS_STAGES tiles */
  __shared__ __align__(16) T s_buf[PREFETCH ? 1 : Shape::tile_items]; /* the transpose, then the tile's results */
  __shared__ P s_carry;                                /* the run's fold so far */
  __shared__ T s_kept;                                 /* the spanning segment's fold within the run */
  __shared__ unsigned s_kept_set;                      /* ... once it ended in the run */
  __shared__ uint64_t s_span;
  __shared__ uint32_t s_run;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  /* The block's run by ticket, not blockIdx: a run waits in its look-back
   * only for runs taken before it, by blocks already running. */
  const uint32_t run = take_tile(lb, &s_run);
  const uint32_t first = run_start(tiles, run, gridDim.x), end = run_start(tiles, run + 1, gridDim.x);
  /* A tile scanned alone: scan_tile's look-back of one tile is none. */
  lookback_args alone{};
  alone.tiles = 1;
  alone.levels = 1;

  if (threadIdx.x == 0) {
    /* The segment before the first one starting at or after the run's first
     * element reaches into the run if it ends past that element. */
    const uint64_t run_base = uint64_t(first) * Shape::tile_items;
    const uint64_t s = src.tile_first[first] < src.nseg ? src.tile_first[first] : src.nseg;
    s_span = ~uint64_t(0);
    if (s > 0 && clamped_offset(src.offsets, s, n) > run_base) s_span = s - 1;
    s_carry = Op::neutral();
    s_kept_set = 0;
  }
  /* (stage_offset_heads' first barrier orders these before their reads.) */
  uint64_t span = ~uint64_t(0);
  /* The shared buffer of a tile: its stage, or the one transpose buffer. */
  auto buffer_of = [&](uint32_t tile) {
    return PREFETCH ? reinterpret_cast<T *>(run_stages) + (tile - first) % RUNS_STAGES * Shape::tile_items : s_buf;
  };
  /* PREFETCH: starts bringing tile `tile` of the run (if any) into its
   * stage, each 16-byte chunk where put_striped would put it (so a warp
   * reads back only its own lanes' copies); partial tiles and unaligned
   * input by plain loads. One commit group a tile, copies or not. */
  auto fetch = [&](uint32_t tile) {
    if (tile < end) {
      const uint64_t base = uint64_t(tile) * Shape::tile_items;
      const uint32_t valid = uint32_t(min(n - base, uint64_t(Shape::tile_items)));
      T *buf = buffer_of(tile);
      if (vector_ok && valid == uint32_t(Shape::tile_items)) {
        using C = vec16<T, Shape::vec>;
#pragma unroll
        for (int r = 0; r < Shape::rows; r++) {
          const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r));
          copy_async(chunk_at<Shape>(buf, i), reinterpret_cast<const C *>(in + base + i));
        }
      } else {
        T v[Shape::rows][Shape::vec];
        load_tile<Shape>(in + base, valid, false, warp, lane, v, Base::neutral());
        put_striped<Shape>(buf, v, warp, lane);
      }
    }
    copy_async_commit();
  };
  if constexpr (PREFETCH) {
    fetch(first);
    fetch(first + 1);
  }

  for (uint32_t tile = first; tile < end; tile++) {
    const uint64_t base = uint64_t(tile) * Shape::tile_items;
    const uint32_t valid = uint32_t(min(n - base, uint64_t(Shape::tile_items)));
    T *buf = buffer_of(tile);
    T v[Shape::rows][Shape::vec];
    if constexpr (!PREFETCH) load_tile<Shape>(in + base, valid, vector_ok, warp, lane, v, Base::neutral());
    const auto loaded = values.template load<Shape>(base, valid, warp, lane);
    const uint32_t heads = blocked_heads<Shape, false>(src, s_heads, tile, tiles, base, valid, n, warp, lane);
    if (tile == first) span = s_span; /* after stage_offset_heads' barriers */
    /* SpMV's gathers of x after the start bits: before them, their round
     * trip would overlap the offsets' but SpMV ran 3-11% slower (NOTES). */
    if constexpr (Values::transforms) values.template operator()<Shape>(v, loaded, valid, warp, lane);
    P x[1][ITEMS];
    {
      T b[1][ITEMS];
      if constexpr (PREFETCH) {
        /* stage_offset_heads' barriers: every warp is done with tile - 1's
         * results, whose stage tile + 2 takes. Then this tile's copies (the
         * two newest groups may stay in flight) and the warp's others'. */
        fetch(tile + 2);
        copy_async_wait<2>();
        __syncwarp();
        get_blocked<Shape>(buf, b, warp, lane);
      } else {
        striped_to_blocked<Shape>(buf, v, b, warp, lane);
      }
#pragma unroll
      for (int j = 0; j < ITEMS; j++) x[0][j] = P{b[0][j], (heads >> j) & 1u};
    }
    if (threadIdx.x == 0) x[0][0] = Op::apply(s_carry, x[0][0]); /* the run so far comes first */
    scan_tile<P, Op, B, false>(x, tile, valid, false, alone, prefix_source::lookback, sh, warp, lane);
    /* The run's fold through this tile: its last valid item's pair. */
    const uint32_t o = item_offset<B>(warp, lane, 0);
    if (valid - 1 >= o && valid - 1 < o + ITEMS) {
#pragma unroll
      for (int j = 0; j < ITEMS; j++)
        if (o + j == valid - 1) s_carry = x[0][j];
    }
    T y[1][ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) y[0][j] = x[0][j].value;
    /* scan_tile's barriers lie between the transpose's reads and these writes. */
    put_blocked<Shape>(buf, y, warp, lane);
    __syncthreads();
    gather_segment_results<T, Shape>(src, swizzled_results<T, Shape::vec>{buf}, tile, tiles, base, valid, n,
                                     run_results<T, Epilogue>{epilogue, span, &s_kept, &s_kept_set});
  }
  if constexpr (PREFETCH) copy_async_wait<0>(); /* the groups past the run's end are empty */
  __syncthreads(); /* s_carry and s_kept are final */

  /* The runs' look-back: publish this run's fold; fold the earlier runs'
   * only where a segment from before ended in this run (s_kept_set is
   * uniform after the barrier above). */
  if (lb.tiles > 1) {
    if (warp == 0) publish_and_close_groups<Op>(lb, run, s_carry, lane);
    else if (s_kept_set) fold_prefix_levels<Op, B>(lb, run, sh.level_fold, warp, lane);
    __syncthreads();
  }
  /* The spanning segment, if it ended in this run: the earlier runs' part first. */
  if (threadIdx.x == 0 && s_kept_set) {
    const P prefix = lb.tiles > 1 ? combine_prefix_levels<Op>(lb, sh.level_fold) : Op::neutral();
    epilogue(span, Base::apply(prefix.value, s_kept), false);
  }
}

}  // namespace gp
