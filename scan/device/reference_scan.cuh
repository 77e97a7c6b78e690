/*
 * The reference grid scan, reduce-then-scan in three kernels, as the seeds
 * teach it: simple, 64-bit offsets throughout, and a check on the fast path.
 *
 *   1. reference_reduce_tiles: each block folds its tile -> tile_totals[b]
 *   2. the tile totals are scanned (exclusive) by this same three-kernel scan,
 *      recursively, until they fit one tile
 *   3. reference_scan_tiles: each block scans its tile from its prefix
 *
 * Each thread owns ITEMS consecutive items of the tile; the block combines
 * the threads' folds with Blelloch's scan. Logical item j is physical item
 * n-1-j when REVERSE.
 */
#pragma once

#include "scan/device/block_scan_blelloch.cuh"

namespace gp {

template <bool REVERSE> __device__ inline uint64_t physical(uint64_t j, uint64_t n) { return REVERSE ? n - 1 - j : j; }

template <typename T, typename Op, int NT, int ITEMS, bool REVERSE>
__global__ void __launch_bounds__(NT) reference_reduce_tiles(const T *in, uint64_t n, T *tile_totals) {
  __shared__ T s[blelloch_smem_slots<NT>()];
  const uint64_t first = uint64_t(blockIdx.x) * NT * ITEMS + uint64_t(threadIdx.x) * ITEMS;
  T acc = Op::neutral();
#pragma unroll
  for (int i = 0; i < ITEMS; i++)
    if (first + i < n) acc = Op::apply(acc, in[physical<REVERSE>(first + i, n)]);
  T total;
  block_exclusive_scan_blelloch<Op, NT>(acc, s, &total);
  if (threadIdx.x == 0) tile_totals[blockIdx.x] = total;
}

template <typename T, typename Op, int NT, int ITEMS, bool REVERSE>
__global__ void __launch_bounds__(NT)
    reference_scan_tiles(const T *in, T *out, uint64_t n, const T *tile_prefix, bool exclusive) {
  __shared__ T s[blelloch_smem_slots<NT>()];
  const uint64_t first = uint64_t(blockIdx.x) * NT * ITEMS + uint64_t(threadIdx.x) * ITEMS;
  T x[ITEMS];
  T fold = Op::neutral();
#pragma unroll
  for (int i = 0; i < ITEMS; i++) {
    x[i] = first + i < n ? in[physical<REVERSE>(first + i, n)] : Op::neutral();
    fold = Op::apply(fold, x[i]);
  }
  T total;
  T acc = block_exclusive_scan_blelloch<Op, NT>(fold, s, &total);
  if (tile_prefix) acc = Op::apply(tile_prefix[blockIdx.x], acc);
#pragma unroll
  for (int i = 0; i < ITEMS; i++) {
    if (first + i >= n) break;
    T next = Op::apply(acc, x[i]);
    out[physical<REVERSE>(first + i, n)] = exclusive ? (first + i == 0 ? Op::identity() : acc) : next;
    acc = next;
  }
}

}  // namespace gp
