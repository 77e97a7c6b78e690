/*
 * Stream compaction and partition in one pass over the input: per tile,
 * evaluate the predicate, rank the kept items within the tile, publish the
 * tile's count, get the count of all earlier tiles by look-back, and write.
 *
 * It is the scan's fast path (scan_tile.cuh: persistent blocks, three
 * shared-memory stages filled by bulk copies, aggregates published as soon
 * as a tile's data lands) with the element scan replaced by a count of kept
 * items: the look-back runs over 64-bit counts (scan_op<uint64_t, ADD>), so
 * n may exceed 2^32 and the result does not depend on timing.
 *
 * Per tile, in two steps as in scan_pipelined:
 *   rank   (when the tile's data lands) predicate bits; each warp ranks its
 *          items with one ballot per (row, item); warp counts are scanned
 *          through shared memory; the tile's count is published; kept items
 *          are packed, in order, into the tile's own stage (partition: the
 *          rejected ones after them, in order)
 *   write  (one step later) the prefix from the look-back; the packed stage
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

template <typename T, typename Pred, typename Shape, bool PARTITION>
__device__ __forceinline__ void compact_tiles(const compact_args &a, const Pred &pred) {
  constexpr int STAGES = 3, ROWS = Shape::rows, VEC = Shape::vec, NW = Shape::warps;
  constexpr uint32_t TILE_BYTES = Shape::tile_items * sizeof(T);
  static_assert(VEC <= 32, "a row's keep bits fit a word");
  extern __shared__ __align__(128) unsigned char stage_mem[]; /* STAGES * TILE_BYTES */
  __shared__ stage_barriers<STAGES> bars;
  __shared__ uint32_t s_tile[STAGES], s_count[STAGES];
  __shared__ uint32_t s_warp_count[NW];
  __shared__ uint64_t s_level_fold[LOOKBACK_MAX_LEVELS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const T *in = static_cast<const T *>(a.in);
  T *out = static_cast<T *>(a.out);
  const lookback_args &lb = a.lb;
  const uint64_t n = a.n;
  const uint64_t total_kept = PARTITION ? *a.total_kept : 0; /* where the rejected ones start */
  auto stage_ptr = [&](int stage) { return reinterpret_cast<T *>(stage_mem + stage * TILE_BYTES); };
  auto by_copy = [&](uint32_t tile) {
    return a.vector_ok && tile_place<Shape, false>(tile, lb.tiles, n).valid == uint32_t(Shape::tile_items);
  };

  /* Thread 0 takes tiles, as in scan_pipelined: one index past the last per block. */
  bool exhausted = false;
  auto take_into = [&](int stage) {
    uint32_t t = lb.tiles;
    if (!exhausted) {
      t = lb.tiles == 1 ? 0u
                        : uint32_t(min(uint64_t(atomicAdd(lb.counter, 1ull) - lb.counter_base), uint64_t(lb.tiles)));
      exhausted = t >= lb.tiles || lb.tiles == 1;
    }
    s_tile[stage] = t;
    if (t < lb.tiles && by_copy(t))
      bulk_load(stage_mem + stage * TILE_BYTES, in + tile_place<Shape, false>(t, lb.tiles, n).base, TILE_BYTES,
                &bars.bar[stage]);
  };
  uint32_t parity = 0; /* bit s: the phase parity stage s's next copy completes */

  /* The rank step for the tile in `stage` (its data landing or in memory). */
  auto rank = [&](int stage, uint32_t tile) {
    const tile_place<Shape, false> at(tile, lb.tiles, n);
    T x[ROWS][VEC];
    if (by_copy(tile)) {
      bulk_wait(&bars.bar[stage], (parity >> stage) & 1u);
      parity ^= 1u << stage;
      load_tile<Shape>(stage_ptr(stage), at.valid, true, warp, lane, x, T(0));
    } else {
      load_tile<Shape>(in + at.base, at.valid, a.vector_ok, warp, lane, x, T(0));
    }
    uint32_t keep[ROWS];
    pred.template operator()<Shape>(x, tile_items_at{at.base, at.valid, warp, lane}, keep);
    if (at.valid < uint32_t(Shape::tile_items)) {
#pragma unroll
      for (int r = 0; r < ROWS; r++) {
        const int first = item_offset<Shape>(warp, lane, r);
#pragma unroll
        for (int k = 0; k < VEC; k++)
          if (uint32_t(first + k) >= at.valid) keep[r] &= ~(1u << k);
      }
    }

    /* Kept items of this warp before each row's first item of this lane
     * (tile order: warp, row, lane, item). */
    uint32_t before[ROWS], warp_count = 0;
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      uint32_t lane_prefix = 0, row_total = 0;
#pragma unroll
      for (int k = 0; k < VEC; k++) {
        const uint32_t m = __ballot_sync(FULL_MASK, (keep[r] >> k) & 1u);
        lane_prefix += __popc(m & lanes_before(lane));
        row_total += __popc(m);
      }
      before[r] = warp_count + lane_prefix;
      warp_count += row_total;
    }
    if (lane == 0) s_warp_count[warp] = warp_count;
    __syncthreads(); /* also: every thread has read the stage; it can be overwritten */
    const uint32_t wc = lane < NW ? s_warp_count[lane] : 0u;
    const uint32_t wincl = warp_inclusive_scan<scan_op<uint32_t, GPU_ADD>, false>(wc, lane);
    const uint32_t tile_count = __shfl_sync(FULL_MASK, wincl, WARP - 1);
    const uint32_t warp_base = __shfl_sync(FULL_MASK, wincl - wc, warp);
    if (lb.tiles > 1 && warp == 0) publish_and_close_groups<count_op>(lb, tile, uint64_t(tile_count), lane);

    /* Pack into the stage: kept items at their rank, rejected ones after all kept. */
    T *packed = stage_ptr(stage);
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
      uint32_t pos = warp_base + before[r]; /* kept items before item (r, k) */
      const uint32_t first = uint32_t(item_offset<Shape>(warp, lane, r));
#pragma unroll
      for (int k = 0; k < VEC; k++) {
        if ((keep[r] >> k) & 1u) {
          packed[pos++] = x[r][k];
        } else if (PARTITION) {
          const uint32_t item = first + k;
          if (item < at.valid) packed[tile_count + (item - pos)] = x[r][k];
        }
      }
    }
    stage_written_by_threads(); /* a later bulk copy overwrites the packed stage */
    if (threadIdx.x == 0) s_count[stage] = tile_count;
  };

  init_stage_barriers(bars);
  if (threadIdx.x == 0) {
    take_into(0);
    take_into(1);
  }
  __syncthreads();
  if (s_tile[0] < lb.tiles) rank(0, s_tile[0]);
  for (int cur = 0;; cur = (cur + 1) % STAGES) {
    __syncthreads(); /* s_tile[], s_count[] and the packed stage are current */
    const uint32_t tile = s_tile[cur];
    if (tile >= lb.tiles) break;
    const int next = (cur + 1) % STAGES;
    if (threadIdx.x == 0) take_into((cur + 2) % STAGES);
    if (lb.tiles > 1) fold_prefix_levels<count_op, Shape>(lb, tile, s_level_fold, warp, lane);
    if (s_tile[next] < lb.tiles) rank(next, s_tile[next]); /* its barrier orders the folds */
    else __syncthreads();

    /* The write step for `cur`. */
    const uint64_t prefix = lb.tiles > 1 ? combine_prefix_levels<count_op>(lb, s_level_fold) : 0;
    const uint32_t count = s_count[cur];
    const tile_place<Shape, false> at(tile, lb.tiles, n);
    const T *packed = stage_ptr(cur);
    if (!PARTITION) {
#pragma unroll 4
      for (uint32_t j = threadIdx.x; j < count; j += Shape::threads) out[prefix + j] = packed[j];
    } else {
      const uint64_t rejected_at = total_kept + (at.base - prefix) - count; /* + j for j >= count */
#pragma unroll 4
      for (uint32_t j = threadIdx.x; j < at.valid; j += Shape::threads)
        out[j < count ? prefix + j : rejected_at + j] = packed[j];
    }
    if (tile == lb.tiles - 1 && threadIdx.x == 0) {
      *a.kept = prefix + count;
      if (a.kept_host) *a.kept_host = prefix + count;
    }
  }
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
