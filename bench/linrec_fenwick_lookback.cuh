/*
 * A bench-only look-back policy (bench_linrec's fenwick, fen4k and fen2k
 * columns, linrec_probe's fenwick rows): a binary Fenwick tree over each
 * sequence's or channel's time tiles. The library's tiles take
 * linrec_radix_lookback.cuh's tree of radix 4 or the chain of states.
 *
 * Time tile u owns one node: the fold of tiles u + 1 - 2^j .. u, j being
 * the number of trailing one bits of u (so even tiles' nodes are their own
 * aggregates). The state before time tile k is the fold of the nodes that
 * cover tiles 0 .. k - 1, one per set bit of k (Fenwick's prefix query),
 * applied to h0. Tile k's own node is the fold of the first j of those
 * nodes, then its aggregate: it publishes it as soon as they are in, and
 * at once where j = 0.
 *
 * Why: with the chain of states a tile finds the nearest published state
 * and applies every aggregate after it, so where one channel group's tiles
 * are in flight together (few groups) each tile walks back through all of
 * them, a load round per 8. Here a tile loads popcount(k) nodes at most
 * (14 at 2^14 tiles a channel), all in flight together, and a node waits
 * on no state, only on nodes of earlier tiles at halving distances.
 *
 * Every fold is fixed by the tile indices, so h has the same bits on every
 * run. Nodes sit in the aggregate slot of linrec_state_lookback.cuh's
 * entries, so both policies share the launch and its words.
 */
#pragma once

#include "linrec/device/linrec_state_lookback.cuh"

namespace gp {

struct fenwick_lookback {
  template <typename T>
  __device__ static T tile_state(const state_lookback &l, int width, uint64_t tile, uint64_t k, int sequence,
                                 lr_pair<T> aggregate, T initial, bool last) {
    using P = lr_pair<T>;
    constexpr int LOOK = 32 / int(sizeof(T)); /* 8 in f32, 4 in f64: what fits unspilled */
    /* The node of time tile u <= k of this sequence. */
    auto node = [&](uint64_t u) {
      return state_entry<T>(l, width, tile - (k - u) * l.stride, sequence) + tagged<T>::WORDS;
    };
    const int own = __ffsll(static_cast<long long>(~k)) - 1; /* trailing ones of k */
    if (own == 0 && !last) tagged<P>::store(node(k), aggregate, l.epoch);
    P prefix = lr_op<T>::neutral(); /* replaced by the first node folded */
    int folded = 0;
    /* Tiles 0 .. i - 1 are not folded yet; the node of tile i - 1 covers
     * the last lowbit(i) of them. A round loads LOOK nodes, then folds them
     * in the same order (the indices recomputed: registers are scarce). */
    for (uint64_t i = k; i > 0;) {
      P got[LOOK];
      bool ok[LOOK];
      uint64_t next = i;
#pragma unroll
      for (int j = 0; j < LOOK; j++) {
        ok[j] = next == 0 || tagged<P>::load(node(next - 1), l.epoch, &got[j]);
        next &= next - 1; /* the next node's end: lowbit dropped */
      }
#pragma unroll
      for (int j = 0; j < LOOK; j++) {
        if (i == 0) break;
        while (!ok[j]) ok[j] = tagged<P>::load(node(i - 1), l.epoch, &got[j]);
        prefix = folded == 0 ? got[j] : lr_op<T>::apply(got[j], prefix);
        if (++folded == own && !last) tagged<P>::store(node(k), lr_op<T>::apply(prefix, aggregate), l.epoch);
        i &= i - 1;
      }
    }
    return folded == 0 ? initial : lr_step(prefix.a, initial, prefix.b);
  }
};

}  // namespace gp
