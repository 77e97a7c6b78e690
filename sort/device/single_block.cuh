/*
 * Small n: the whole sort in one block, one launch, no extra memory.
 *
 * The keys (and values) stay in registers for all passes. Each pass ranks
 * them by one digit (block_rank.cuh) and moves them through shared memory
 * into rank order, which is the next pass's tile order; a pass whose digit
 * is the same for every key is skipped (the rank would be the identity).
 * Slots past n take digit RADIX-1, so they rank after every real key and
 * stay in the slots >= n, pass after pass. The caller's array is read
 * completely before it is written, so sorting in place is safe.
 */
#pragma once

#include <cstdint>

#include "sort/device/block_rank.cuh"
#include "sort/device/radix_key.cuh"
#include "sort/sort_tuning.h"

namespace gp {
namespace radix {

template <gpu_dtype T, int VALUE_BYTES, typename Shape> struct single_block_storage {
  using KeyBits = typename radix_key<T>::bits;
  using Value = typename radix_value<VALUE_BYTES>::type;
  union {
    typename block_rank<Shape>::storage rank;
    KeyBits keys[Shape::tile_items];
    Value values[VALUE_BYTES ? Shape::tile_items : 1];
  } x;
};

template <gpu_dtype T, int VALUE_BYTES, typename Shape>
__global__ void __launch_bounds__(Shape::threads, 1)
    sort_single_block(void *keys_, void *values_, uint32_t n, uint32_t flip) {
  using Key = radix_key<T>;
  using KeyBits = typename Key::bits;
  using Value = typename radix_value<VALUE_BYTES>::type;
  using Rank = block_rank<Shape>;
  constexpr int ITEMS = Shape::items, TILE = Shape::tile_items;
  extern __shared__ __align__(16) unsigned char smem[];
  auto &s = *reinterpret_cast<single_block_storage<T, VALUE_BYTES, Shape> *>(smem);
  const int t = threadIdx.x, warp = t / WARP, lane = t % WARP;
  KeyBits *const keys_io = static_cast<KeyBits *>(keys_);
  Value *const values_io = static_cast<Value *>(values_);

  KeyBits keys[ITEMS];
  Value values[VALUE_BYTES ? ITEMS : 1];
#pragma unroll
  for (int i = 0; i < ITEMS; i++) {
    const uint32_t at = Rank::item_index(warp, lane, i);
    keys[i] = at < n ? keys_io[at] : KeyBits(0);
    if constexpr (VALUE_BYTES != 0) values[i] = at < n ? values_io[at] : Value(0);
  }

  for (int d = 0; d < Key::digits; d++) {
    typename Rank::Digits digit;
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
      digit.set(i, uint32_t(Rank::item_index(warp, lane, i)) < n ? Key::digit(keys[i], RADIX_BITS * d, flip) : RADIX - 1);
    Rank::count(s.x.rank, digit, warp, lane);
    __syncthreads();
    uint32_t total = 0, incl = 0;
    bool constant = false;
    if (t < RADIX) {
      total = Rank::bucket_total(s.x.rank, t);
      const uint32_t padding = t == RADIX - 1 ? TILE - n : 0; /* slots past n, all in the last bucket */
      constant = total - padding == n;
      incl = Rank::scan_totals_begin(s.x.rank, total, warp, lane);
    }
    /* Every key has this digit: nothing moves. (Also the barrier that the
     * scan needs; the next pass's counting starts after it.) */
    if (__syncthreads_or(constant)) continue;
    if (t < RADIX) Rank::scan_totals_end(s.x.rank, t, total, incl, warp);
    __syncthreads();
    typename Rank::Ranks rank;
    Rank::rank(s.x.rank, digit, rank, warp, lane);
    __syncthreads(); /* the histograms' memory becomes the exchange buffer */
#pragma unroll
    for (int i = 0; i < ITEMS; i++) s.x.keys[rank.get(i)] = keys[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ITEMS; i++) keys[i] = s.x.keys[Rank::item_index(warp, lane, i)];
    if constexpr (VALUE_BYTES != 0) {
      __syncthreads();
#pragma unroll
      for (int i = 0; i < ITEMS; i++) s.x.values[rank.get(i)] = values[i];
      __syncthreads();
#pragma unroll
      for (int i = 0; i < ITEMS; i++) values[i] = s.x.values[Rank::item_index(warp, lane, i)];
    }
    __syncthreads(); /* the exchange buffer becomes the next pass's histograms */
  }

#pragma unroll
  for (int i = 0; i < ITEMS; i++) {
    const uint32_t at = Rank::item_index(warp, lane, i);
    if (at < n) {
      keys_io[at] = keys[i];
      if constexpr (VALUE_BYTES != 0) values_io[at] = values[i];
    }
  }
}

}  // namespace radix
}  // namespace gp
