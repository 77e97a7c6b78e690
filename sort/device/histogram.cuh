/*
 * The histogram pass: one read of the keys counts every digit position at
 * once; the last block to finish turns the counts into the sort's plan.
 *
 *   counts[d][b]        keys whose digit d is b (64-bit, global atomics of
 *                       per-block shared-memory counts)
 *   bucket_start[d][0]  exclusive scan of counts[d]: where the run of digit
 *                       value b starts after the pass on digit d
 *   plan[d]             sort, skip or copy (onesweep.cuh): a digit position
 *                       where one bucket holds all n keys would move nothing,
 *                       so its pass is skipped. With an odd number of sorting
 *                       passes the first skipped position copies instead, so
 *                       that the keys end in the caller's array. (Key widths
 *                       have an even number of digits, so an odd count of
 *                       sorting passes always leaves a skipped one.)
 *
 * The last block is found the classic way: every block fences its atomics,
 * then counts itself done; the block that sees the count reach the grid
 * size fences again and reads everything. No host round trip: the passes
 * launched after this kernel read the plan on the device, so the whole sort
 * is asynchronous and can be captured in a graph.
 *
 * The kernel also clears the first look-back region (onesweep.cuh).
 */
#pragma once

#include <cstdint>

#include "scan/device/ops.cuh"
#include "scan/device/warp_scan.cuh"
#include "sort/device/onesweep.cuh"
#include "sort/device/radix_key.cuh"
#include "sort/sort_tuning.h"

namespace gp {
namespace radix {

struct histogram_args {
  const void *keys;
  uint64_t n;
  uint32_t flip;                /* 0 ascending, 255 descending */
  unsigned long long *counts;   /* digits x RADIX, zeroed */
  unsigned int *blocks_done;    /* zeroed */
  uint32_t *plan;               /* digits words */
  uint64_t *bucket_start;       /* digit d's portion 0 at d * (portions + 1) * RADIX */
  uint32_t portions;
  uint32_t *lookback;           /* the first region: cleared here */
  uint64_t lookback_words;
};

/* The last block: scans, skip decisions, plan. */
template <int DIGITS>
__device__ __forceinline__ void plan_passes(const histogram_args &a, int t, int warp, int lane) {
  using Add = scan_op<uint64_t, GPU_ADD>;
  __shared__ uint64_t warp_sums[HISTOGRAM_THREADS / WARP];
  __shared__ bool constant_digit[DIGITS];
  for (int d = 0; d < DIGITS; d++) {
    const uint64_t c = t < RADIX ? __ldcg(a.counts + d * RADIX + t) : 0;
    const uint64_t incl = warp_inclusive_scan<Add, false>(c, lane);
    if (lane == WARP - 1) warp_sums[warp] = incl;
    const bool constant = __syncthreads_or(c == a.n);
    if (t < RADIX) {
      uint64_t start = incl - c;
      for (int w = 0; w < warp; w++) start += warp_sums[w];
      a.bucket_start[uint64_t(d) * (a.portions + 1) * RADIX + t] = start;
    }
    if (t == 0) constant_digit[d] = constant;
    __syncthreads(); /* warp_sums is reused */
  }
  if (t == 0) {
    uint32_t sorting = 0;
    for (int d = 0; d < DIGITS; d++) sorting += !constant_digit[d];
    bool copy = sorting % 2 == 1;
    uint32_t moves = 0, sorted = 0;
    for (int d = 0; d < DIGITS; d++) {
      uint32_t w = plan_word(PASS_SKIP, 0, 0);
      if (!constant_digit[d]) {
        w = plan_word(PASS_SORT, moves & 1, sorted);
        moves++;
        sorted++;
      } else if (copy) {
        w = plan_word(PASS_COPY, moves & 1, 0);
        moves++;
        copy = false;
      }
      a.plan[d] = w;
    }
  }
}

template <gpu_dtype T> __global__ void __launch_bounds__(HISTOGRAM_THREADS) histogram_all_digits(const histogram_args a) {
  using Key = radix_key<T>;
  using KeyBits = typename Key::bits;
  constexpr int THREADS = HISTOGRAM_THREADS, DIGITS = Key::digits;
  constexpr int ITEMS = histogram_tuning<Key::bytes>::items, PARTS = histogram_tuning<Key::bytes>::parts;
  constexpr int CHUNK = THREADS * ITEMS;
  __shared__ uint32_t counts[DIGITS][RADIX][PARTS];
  __shared__ bool last_block;
  const int t = threadIdx.x, warp = t / WARP, lane = t % WARP;

  uint32_t *flat = &counts[0][0][0];
  for (int i = t; i < DIGITS * RADIX * PARTS; i += THREADS) flat[i] = 0;
  {
    uint4 *clear = reinterpret_cast<uint4 *>(a.lookback);
    for (uint64_t v = uint64_t(blockIdx.x) * THREADS + t; v < a.lookback_words / 4; v += uint64_t(gridDim.x) * THREADS)
      clear[v] = make_uint4(0, 0, 0, 0);
  }
  __syncthreads();

  const KeyBits *keys = static_cast<const KeyBits *>(a.keys);
  const int part = lane % PARTS;
  auto count_key = [&](KeyBits k) {
    const KeyBits o = Key::ordered(k);
#pragma unroll
    for (int d = 0; d < DIGITS; d++) atomicAdd(&counts[d][Key::digit_of_ordered(o, RADIX_BITS * d, a.flip)][part], 1u);
  };
  /* Per-block counts fit 32 bits: a block counts about n / gridDim.x keys. */
  for (uint64_t first = uint64_t(blockIdx.x) * CHUNK; first < a.n; first += uint64_t(gridDim.x) * CHUNK) {
    if (first + CHUNK <= a.n) {
      KeyBits k[ITEMS];
#pragma unroll
      for (int i = 0; i < ITEMS; i++) k[i] = keys[first + i * THREADS + t];
#pragma unroll
      for (int i = 0; i < ITEMS; i++) count_key(k[i]);
    } else {
      for (int i = 0; i < ITEMS; i++)
        if (first + i * THREADS + t < a.n) count_key(keys[first + i * THREADS + t]);
    }
  }
  __syncthreads();
  for (int i = t; i < DIGITS * RADIX; i += THREADS) {
    uint32_t sum = 0;
#pragma unroll
    for (int p = 0; p < PARTS; p++) sum += flat[i * PARTS + p];
    if (sum) atomicAdd(a.counts + i, (unsigned long long)sum);
  }

  __threadfence(); /* this thread's counts are visible before the block says it is done */
  __syncthreads();
  if (t == 0) last_block = atomicAdd(a.blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last_block) return;
  __threadfence(); /* every other block's counts are visible to this one */
  plan_passes<DIGITS>(a, t, warp, lane);
}

}  // namespace radix
}  // namespace gp
