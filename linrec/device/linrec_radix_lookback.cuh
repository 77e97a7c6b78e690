/*
 * A look-back along time for the time-major channel tiles
 * (channels_lookback, where channel groups are few: linrec_tuning.h): a
 * tree of radix R = 2^BITS over each channel's time tiles (the library's:
 * radix 4). The other policy is linrec_state_lookback.cuh's chain of
 * states.
 *
 * Level j holds a node per aligned block of R^j time tiles: the fold of
 * its R children at level j - 1 (level 0: a tile's aggregate). The node of
 * block q at level j is published by the block's last tile, which has R - 1
 * as its j lowest base-R digits: it folds the nodes of the R - 1 blocks
 * before its own at each level below, as it loads them for its own state,
 * then its aggregate. The state before tile k is h0 under the fold of, at
 * each level j, the digit_j(k) nodes before k's block in its parent block.
 *
 * Why: with the chain of states a tile finds the nearest published state
 * and applies every aggregate after it, so where one channel group's tiles
 * are in flight together (few groups) each tile walks back through all of
 * them. Here a tile loads at most R - 1 nodes a level, in flight together,
 * and a node waits only on nodes of earlier tiles. A binary tree (a
 * Fenwick tree, bench/linrec_fenwick_lookback.cuh) needs fewer loads, but
 * its nodes are deeper: one published by a tile with j trailing one bits
 * waits on j levels of nodes, each a round trip after the one below, about
 * 7 where 132 tiles of a channel group are in flight; radix 4 halves that
 * depth for 3 loads a level, radix 8 (7 loads a level) lost to both
 * (bench/NOTES.md).
 *
 * Every fold is fixed by the tile indices, so h has the same bits on every
 * run. Nodes are pairs in the words the launch sizes for the chain of
 * states (3 tagged words of T a tile and channel hold the 1 + 1/R + ...
 * pairs a tile needs for R >= 4): level j from pair
 * group_count x width x sum_{i<j} ceil(chain / R^i), block by block.
 */
#pragma once

#include "linrec_state_lookback.cuh"

namespace gp {

template <int BITS> struct radix_lookback_of {
  template <typename T>
  __device__ static T tile_state(const state_lookback &l, int width, uint64_t tile, uint64_t k, int sequence,
                                 lr_pair<T> aggregate, T initial, bool last) {
    using P = lr_pair<T>;
    constexpr int R = 1 << BITS;
    const uint64_t group = tile - k * l.stride;
    /* Node of block q at the level whose first block is `base`. */
    auto node = [&](uint64_t base, uint64_t q) {
      return l.words + (((base + q) * l.stride + group) * uint64_t(width) + uint64_t(sequence)) * tagged<P>::WORDS;
    };
    if (!last) tagged<P>::store(node(0, k), aggregate, l.epoch);
    P prefix = lr_op<T>::neutral(); /* replaced by the first node folded */
    bool any = false, own = !last;  /* own: k ends its block at the next level up */
    uint64_t base = 0, pos = k;
    for (int j = 0; pos > 0; j++) {
      const int d = int(pos & (R - 1));
      P got[R - 1];
      bool ok[R - 1];
#pragma unroll
      for (int i = 0; i < R - 1; i++)
        ok[i] = i >= d || tagged<P>::load(node(base, pos - 1 - uint64_t(i)), l.epoch, &got[i]);
#pragma unroll
      for (int i = 0; i < R - 1; i++) {
        if (i >= d) break;
        while (!ok[i]) ok[i] = tagged<P>::load(node(base, pos - 1 - uint64_t(i)), l.epoch, &got[i]);
        prefix = any ? lr_op<T>::apply(got[i], prefix) : got[i];
        any = true;
      }
      const uint64_t next_base = base + ((l.chain + (uint64_t(1) << (BITS * j)) - 1) >> (BITS * j));
      own = own && d == R - 1;
      if (own) tagged<P>::store(node(next_base, pos >> BITS), lr_op<T>::apply(prefix, aggregate), l.epoch);
      base = next_base;
      pos >>= BITS;
    }
    return any ? lr_step(prefix.a, initial, prefix.b) : initial;
  }
};

/* The library's: radix 4. */
using radix_lookback = radix_lookback_of<2>;

}  // namespace gp
