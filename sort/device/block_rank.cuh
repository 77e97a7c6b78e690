/*
 * Ranking one tile's keys by digit, stably: a key's rank is its position in
 * the tile once the tile is ordered by digit, ties kept in tile order.
 * Used by the onesweep pass and the single-block sort alike.
 *
 * Layout ("warp-striped"): warp w holds a contiguous run of 32 x ITEMS keys;
 * item i of lane l is key w*32*ITEMS + i*32 + l of the tile. So for a fixed
 * warp, the order (item, lane) is the tile order, which is what makes the
 * ranking stable.
 *
 * Steps (Onesweep, Adinets & Merrill 2022, "match" ranking with early counts):
 *   count          each warp counts its digits in a histogram of its own
 *                  (shared-memory atomics)
 *   bucket_total   thread b sums bucket b over the warps (the tile's count,
 *                  which the onesweep pass publishes at once) and turns the
 *                  warps' counts into starts: warp w's start in bucket b is
 *                  the count of b in warps before w
 *   scan_totals    an exclusive scan over the 256 buckets gives each bucket's
 *                  start in the tile; added to every warp's starts
 *   rank           warp by warp, item by item: the lanes holding the same
 *                  digit find each other (ballots, match.any or atomicOr into
 *                  a mask word), the last of them bumps the warp's start of
 *                  that digit by the group's size (load and store, or one
 *                  atomicAdd: Shape::rank, sort_tuning.h), and each lane's
 *                  rank is the old start plus its place in the group
 * The caller puts __syncthreads() between steps; only threads < RADIX call
 * bucket_total and scan_totals_*, all threads call count and rank.
 */
#pragma once

#include <cstdint>

#include "scan/device/ops.cuh"
#include "scan/device/warp_scan.cuh"
#include "sort/device/radix_key.cuh"
#include "sort/sort_tuning.h"

namespace gp {
namespace radix {

/* The lanes whose d equals this lane's (this lane included). */
template <bool BALLOTS> __device__ __forceinline__ uint32_t lanes_with_same_digit(uint32_t d) {
  if constexpr (BALLOTS) {
    uint32_t peers = FULL_MASK;
#pragma unroll
    for (int b = 0; b < RADIX_BITS; b++) {
      const bool set = (d >> b) & 1;
      const uint32_t with_bit = __ballot_sync(FULL_MASK, set);
      peers &= set ? with_bit : ~with_bit;
    }
    return peers;
  } else {
    return __match_any_sync(FULL_MASK, d);
  }
}

template <typename Shape> struct block_rank {
  static constexpr int WARPS = Shape::warps;
  static constexpr int ITEMS = Shape::items;
  static_assert(Shape::tile_items <= 65536, "ranks are packed in 16 bits");
  using Digits = digit_array<ITEMS>;
  using Ranks = slot_array<ITEMS>;
  using Add = scan_op<uint32_t, GPU_ADD>;

  static constexpr rank_method METHOD = Shape::rank;
  static constexpr int MASK_WARPS = METHOD == RANK_ATOMIC_OR ? WARPS : 1;

  struct storage {
    uint32_t warp_hist[WARPS][RADIX]; /* counts, then the warps' running starts */
    uint32_t scan_warp_totals[RADIX / WARP];
    uint32_t match_mask[MASK_WARPS][METHOD == RANK_ATOMIC_OR ? RADIX : 1]; /* RANK_ATOMIC_OR: lanes per digit */
  };

  /* Position in the tile of this thread's item i. */
  __device__ __forceinline__ static int item_index(int warp, int lane, int i) {
    return warp * (WARP * ITEMS) + i * WARP + lane;
  }

  __device__ __forceinline__ static void count(storage &s, const Digits &digit, int warp, int lane) {
    uint32_t *hist = s.warp_hist[warp];
#pragma unroll
    for (int b = lane; b < RADIX; b += WARP) hist[b] = 0;
    if constexpr (METHOD == RANK_ATOMIC_OR) {
#pragma unroll
      for (int b = lane; b < RADIX; b += WARP) s.match_mask[warp][b] = 0;
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < ITEMS; i++) atomicAdd(&hist[digit.get(i)], 1u);
  }

  /* Thread b: the tile's count of digit b; warp_hist[w][b] becomes the count
   * of b in warps before w. */
  __device__ __forceinline__ static uint32_t bucket_total(storage &s, int b) {
    uint32_t run = 0;
#pragma unroll
    for (int w = 0; w < WARPS; w++) {
      const uint32_t c = s.warp_hist[w][b];
      s.warp_hist[w][b] = run;
      run += c;
    }
    return run;
  }

  /* Threads b < RADIX, first half of the scan over buckets: returns the
   * inclusive scan within this warp's 32 buckets. */
  __device__ __forceinline__ static uint32_t scan_totals_begin(storage &s, uint32_t total, int warp, int lane) {
    const uint32_t incl = warp_inclusive_scan<Add, false>(total, lane);
    if (lane == WARP - 1) s.scan_warp_totals[warp] = incl;
    return incl;
  }

  /* Second half, after a barrier: returns where bucket b starts in the tile,
   * and adds it to every warp's start in b. */
  __device__ __forceinline__ static uint32_t scan_totals_end(storage &s, int b, uint32_t total, uint32_t incl,
                                                             int warp) {
    uint32_t start = incl - total;
    for (int w = 0; w < warp; w++) start += s.scan_warp_totals[w];
#pragma unroll
    for (int w = 0; w < WARPS; w++) s.warp_hist[w][b] += start;
    return start;
  }

  __device__ __forceinline__ static void rank(storage &s, const Digits &digit, Ranks &rank, int warp, int lane) {
    uint32_t *start = s.warp_hist[warp];
    const uint32_t le = lanemask_le();
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
      const uint32_t d = digit.get(i);
      uint32_t peers;
      if constexpr (METHOD == RANK_ATOMIC_OR) {
        uint32_t *mask = &s.match_mask[warp][d];
        atomicOr(mask, 1u << lane);
        __syncwarp();
        peers = *mask;
      } else {
        peers = lanes_with_same_digit<Shape::match_with_ballots>(d);
      }
      const int last = WARP - 1 - __clz(peers);       /* knows the group's size */
      const uint32_t place = __popc(peers & le);      /* 1 for the group's first lane */
      uint32_t old = 0;
      if constexpr (METHOD == RANK_STORE) {
        if (lane == last) {
          old = start[d];
          start[d] = old + place;
        }
      } else {
        /* The atomic returns before the shuffle below can complete, and the
         * next item's atomics come after the shuffle: in order without a
         * __syncwarp. */
        if (lane == last) old = atomicAdd(&start[d], place);
      }
      old = __shfl_sync(FULL_MASK, old, last);
      rank.set(i, old + place - 1);
      if constexpr (METHOD == RANK_ATOMIC_OR) {
        if (lane == last) s.match_mask[warp][d] = 0;
        __syncwarp(); /* the word is clear before the next item's ORs */
      } else if constexpr (METHOD == RANK_STORE) {
        __syncwarp(); /* the next item's group leaders read what this one wrote */
      }
    }
  }
};

}  // namespace radix
}  // namespace gp
