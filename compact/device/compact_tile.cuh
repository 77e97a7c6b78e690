/*
 * Stream compaction and partition in one pass over the input: per tile,
 * evaluate the predicate, rank the kept items within the tile, publish the
 * tile's count, get the count of all earlier tiles by look-back, and write.
 *
 * It runs in the scan's pipeline (tile_pipeline.cuh: persistent blocks,
 * three shared-memory stages filled by bulk copies, aggregates published as
 * soon as a tile's data lands) with the element scan replaced by a count of kept
 * items: the look-back runs over 64-bit counts (scan_op<uint64_t, ADD>), so
 * n may exceed 2^32 and the result does not depend on timing.
 *
 * Per tile, in two steps as in scan_pipelined:
 *   rank   (land: the tile's data is landing) predicate bits; each warp ranks its
 *          items with one ballot per (row, item); warp counts are scanned
 *          through shared memory; the tile's count is published; kept items
 *          are packed, in order, into the tile's own stage (partition: the
 *          rejected ones after them, in order)
 *   write  (finish: one step later) the prefix from the look-back; the packed stage
 *          is written out with coalesced stores
 *
 * Partition needs the total kept count before any rejected item can be
 * placed (they go after all kept ones, in order), so count_kept() reads the
 * input once first: measured against writing them backwards from the end
 * and reversing that part afterwards (2 x rejected bytes), the count costs
 * less from 50% rejected up and the same below (bench/NOTES.md).
 */
#pragma once

#include "compact/device/predicates.cuh"
#include "scan/device/scan_tile.cuh"
#include "scan/scan_tuning.h"

namespace gp {

/* The kernel's arguments besides the predicate (by value). */
struct compact_args {
  const void *in;
  void *out;
  uint64_t n;
  lookback_args lb;
  unsigned long long *kept;        /* the kept count, written by the last tile */
  unsigned long long *kept_host;   /* and here too (mapped host memory), unless null */
  unsigned long long *total_kept;  /* partition: count_kept()'s count, read first */
  bool vector_ok;                  /* in is 16-byte aligned: full tiles come by bulk copy */
};

using count_op = scan_op<uint64_t, GPU_ADD>;

/* Tile shapes: the scan's (scan_tuning.h): 64 KiB tiles, one block per SM. */
template <typename T> using compact_shape = typename scan_tuning<sizeof(T)>::shape;
template <typename T> constexpr size_t compact_smem_bytes() { return 3 * compact_shape<T>::tile_items * sizeof(T); }

/* Lanes before this one. */
__device__ inline uint32_t lanes_before(int lane) { return (1u << lane) - 1u; }

/* Keep bits of a tile's items, those past the end of a partial tile cleared. */
template <typename T, typename Pred, typename Shape>
__device__ __forceinline__ void keep_bits(const Pred &pred, const T (&x)[Shape::rows][Shape::vec],
                                          const tile_items_at &at, uint32_t (&keep)[Shape::rows]) {
  pred.template operator()<Shape>(x, at, keep);
  if (at.valid < uint32_t(Shape::tile_items)) {
#pragma unroll
    for (int r = 0; r < Shape::rows; r++) {
      const int first = item_offset<Shape>(at.warp, at.lane, r);
#pragma unroll
      for (int k = 0; k < Shape::vec; k++)
        if (uint32_t(first + k) >= at.valid) keep[r] &= ~(1u << k);
    }
  }
}

/* Kept items of this warp before each row's first item of this lane (tile
 * order: warp, row, lane, item), and the warp's count. */
template <typename Shape>
__device__ __forceinline__ uint32_t rank_in_warp(const uint32_t (&keep)[Shape::rows], int lane,
                                                 uint32_t (&before)[Shape::rows]) {
  uint32_t warp_count = 0;
#pragma unroll
  for (int r = 0; r < Shape::rows; r++) {
    uint32_t lane_prefix = 0, row_total = 0;
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) {
      const uint32_t m = __ballot_sync(FULL_MASK, (keep[r] >> k) & 1u);
      lane_prefix += __popc(m & lanes_before(lane));
      row_total += __popc(m);
    }
    before[r] = warp_count + lane_prefix;
    warp_count += row_total;
  }
  return warp_count;
}

/* The tile's items packed into `packed`: kept ones at their rank (warp_base
 * + before[r] for row r's first), partition's rejected ones after all kept. */
template <typename T, typename Shape, bool PARTITION>
__device__ __forceinline__ void pack_tile(const T (&x)[Shape::rows][Shape::vec], const uint32_t (&keep)[Shape::rows],
                                          const uint32_t (&before)[Shape::rows], uint32_t warp_base,
                                          uint32_t tile_count, uint32_t valid, int warp, int lane, T *packed) {
#pragma unroll
  for (int r = 0; r < Shape::rows; r++) {
    uint32_t pos = warp_base + before[r]; /* kept items before item (r, k) */
    const uint32_t first = uint32_t(item_offset<Shape>(warp, lane, r));
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) {
      if ((keep[r] >> k) & 1u) {
        packed[pos++] = x[r][k];
      } else if (PARTITION) {
        const uint32_t item = first + k;
        if (item < valid) packed[tile_count + (item - pos)] = x[r][k];
      }
    }
  }
}

/* The write step: a tile's packed stage to the output, `prefix` kept items
 * (all tiles before it) ahead of it. */
template <typename T, typename Shape, bool PARTITION>
__device__ __forceinline__ void write_packed(const T *packed, uint32_t count, uint64_t prefix, uint64_t base,
                                             uint32_t valid, uint64_t total_kept, T *out) {
  if (!PARTITION) {
#pragma unroll 4
    for (uint32_t j = threadIdx.x; j < count; j += Shape::threads) out[prefix + j] = packed[j];
  } else {
    const uint64_t rejected_at = total_kept + (base - prefix) - count; /* + j for j >= count */
#pragma unroll 4
    for (uint32_t j = threadIdx.x; j < valid; j += Shape::threads) out[j < count ? prefix + j : rejected_at + j] = packed[j];
  }
}

/* The pipeline's steps (tile_pipeline.cuh): begin folds the look-back
 * levels for the tile that finishes in this step, land ranks a tile,
 * publishes its count and packs it into its own stage, finish writes it. */
template <typename T, typename Pred, typename Shape, bool PARTITION>
__device__ __forceinline__ void compact_tiles(const compact_args &a, const Pred &pred) {
  using stages_t = tile_stages<T, Shape, false>;
  constexpr int NW = Shape::warps;
  static_assert(Shape::vec <= 32, "a row's keep bits fit a word");
  __shared__ uint32_t s_count[stages_t::STAGES];
  __shared__ uint32_t s_warp_count[NW];
  __shared__ uint64_t s_level_fold[LOOKBACK_MAX_LEVELS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const lookback_args &lb = a.lb;
  const uint64_t total_kept = PARTITION ? *a.total_kept : 0; /* where the rejected ones start */

  auto begin = [&](uint32_t tile) {
    if (lb.tiles > 1) fold_prefix_levels<count_op, Shape>(lb, tile, s_level_fold, warp, lane);
  };
  auto land = [&](stages_t &stages, int stage, uint32_t tile) {
    const tile_place<Shape, false> at = stages.place(tile);
    T x[Shape::rows][Shape::vec];
    stages.load_landed(stage, tile, x, T(0));
    uint32_t keep[Shape::rows], before[Shape::rows];
    keep_bits<T, Pred, Shape>(pred, x, tile_items_at{at.base, at.valid, warp, lane}, keep);
    const uint32_t warp_count = rank_in_warp<Shape>(keep, lane, before);
    if (lane == 0) s_warp_count[warp] = warp_count;
    __syncthreads(); /* also: every thread has read the stage; it can be overwritten */
    const uint32_t wc = lane < NW ? s_warp_count[lane] : 0u;
    const uint32_t wincl = warp_inclusive_scan<scan_op<uint32_t, GPU_ADD>, false>(wc, lane);
    const uint32_t tile_count = __shfl_sync(FULL_MASK, wincl, WARP - 1);
    const uint32_t warp_base = __shfl_sync(FULL_MASK, wincl - wc, warp);
    if (lb.tiles > 1 && warp == 0) publish_and_close_groups<count_op>(lb, tile, uint64_t(tile_count), lane);
    pack_tile<T, Shape, PARTITION>(x, keep, before, warp_base, tile_count, at.valid, warp, lane, stages.stage(stage));
    stage_written_by_threads(); /* a later bulk copy overwrites the packed stage */
    if (threadIdx.x == 0) s_count[stage] = tile_count;
  };
  auto finish = [&](const stages_t &stages, int stage, uint32_t tile, bool landed) {
    if (!landed) __syncthreads(); /* orders begin's folds and the last land's count */
    const uint64_t prefix = lb.tiles > 1 ? combine_prefix_levels<count_op>(lb, s_level_fold) : 0;
    const uint32_t count = s_count[stage];
    const tile_place<Shape, false> at = stages.place(tile);
    write_packed<T, Shape, PARTITION>(stages.stage(stage), count, prefix, at.base, at.valid, total_kept,
                                      static_cast<T *>(a.out));
    if (tile == lb.tiles - 1 && threadIdx.x == 0) {
      *a.kept = prefix + count;
      if (a.kept_host) *a.kept_host = prefix + count;
    }
  };
  run_tile_stages<T, Shape, false>(static_cast<const T *>(a.in), a.n, a.vector_ok,
                                   tile_counter{lb.counter, lb.counter_base, lb.tiles}, warp, lane, begin, land,
                                   finish);
}

/* The kernel for build-time predicates; run-time compiled formulas get an
 * extern "C" one of the same body (compact_nvrtc.cu). */
template <typename T, typename Pred, bool PARTITION>
__global__ void __launch_bounds__(compact_shape<T>::threads, 1) compact_kernel(compact_args a, Pred pred) {
  compact_tiles<T, Pred, compact_shape<T>, PARTITION>(a, pred);
}

/* Partition's first step: the kept count of the whole input, into
 * *a.total_kept (zeroed before). A plain grid-stride read: the tiles are
 * independent, and integer atomics make the sum exact in any order. */
template <typename T> using count_shape = tile_shape<256, 4, 16 / sizeof(T)>;

template <typename T, typename Pred> __device__ __forceinline__ void count_kept(const compact_args &a, const Pred &pred) {
  using Shape = count_shape<T>;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const T *in = static_cast<const T *>(a.in);
  const uint64_t tiles = (a.n + Shape::tile_items - 1) / Shape::tile_items;
  uint64_t kept = 0;
  for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const uint64_t base = tile * Shape::tile_items;
    const uint32_t valid = uint32_t(min(a.n - base, uint64_t(Shape::tile_items)));
    T x[Shape::rows][Shape::vec] = {};
    if constexpr (reads_values_v<Pred>) load_tile<Shape>(in + base, valid, a.vector_ok, warp, lane, x, T(0));
    uint32_t keep[Shape::rows];
    pred.template operator()<Shape>(x, tile_items_at{base, valid, warp, lane}, keep);
#pragma unroll
    for (int r = 0; r < Shape::rows; r++) {
      const int first = item_offset<Shape>(warp, lane, r);
#pragma unroll
      for (int k = 0; k < Shape::vec; k++)
        if (uint32_t(first + k) < valid) kept += (keep[r] >> k) & 1u;
    }
  }
  kept = warp_reduce<count_op>(kept);
  if (lane == 0 && kept) atomicAdd(a.total_kept, (unsigned long long)kept);
}

template <typename T, typename Pred>
__global__ void __launch_bounds__(count_shape<T>::threads) count_kernel(compact_args a, Pred pred) {
  count_kept<T>(a, pred);
}

}  // namespace gp
