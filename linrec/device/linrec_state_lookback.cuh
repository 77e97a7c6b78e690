/*
 * The look-back along time of the one-pass batch kernels (channels_lookback
 * for time-major batches, sequences_lookback for sequence-major ones): a
 * tile is a time chunk of one or more sequences, and tiles are taken in
 * order from a counter, so that the tile before a tile in time (`stride`
 * tiles earlier) is running or done. The entries and their words are
 * shared by both policies the kernels take: this file's chain of states
 * (sequences_lookback's, and channels_lookback's where channel groups are
 * many) and linrec_radix_lookback.cuh's tree (channels_lookback's where
 * they are few).
 *
 * The chain of states: each tile publishes, per sequence, its aggregate
 * (A, B) as soon as its data is folded, and its outgoing state once it has
 * its incoming one. A tile's incoming state: the nearest earlier tile in
 * time whose outgoing state is published (h0 where none is), then the
 * aggregates of the tiles after it, oldest first, each applied as s := A s
 * + B. The state before time tile k is then always the same loop over the
 * aggregates of tiles 0 .. k-1 from h0, whichever tile's state was found:
 * aggregates are never folded with each other across tiles, so timing
 * changes no bits. A tile waits only on aggregates of tiles that took
 * their index earlier, and those wait on nothing.
 *
 * Entries are tagged words (scan/device/lookback.cuh), per tile and
 * sequence: the outgoing state, then A, then B.
 */
#pragma once

#include "linrec_pair.cuh"

namespace gp {

struct state_lookback {
  uint64_t *words;
  uint32_t epoch;
  uint64_t stride; /* tiles from one tile to the next in time */
  uint64_t chain;  /* tiles along time in one sequence or channel group (the tree's levels) */
};

/* Tagged words a launch of `tiles` tiles of `width` sequences needs. */
template <typename T> constexpr uint64_t state_lookback_words(uint64_t tiles, int width) {
  return tiles * uint64_t(width) * 3 * tagged<T>::WORDS;
}

template <typename T>
__device__ inline uint64_t *state_entry(const state_lookback &l, int width, uint64_t tile, int sequence) {
  return l.words + (tile * uint64_t(width) + uint64_t(sequence)) * 3 * tagged<T>::WORDS;
}

template <typename T>
__device__ inline void publish_aggregate(const state_lookback &l, int width, uint64_t tile, int sequence,
                                         lr_pair<T> aggregate) {
  tagged<lr_pair<T>>::store(state_entry<T>(l, width, tile, sequence) + tagged<T>::WORDS, aggregate, l.epoch);
}

template <typename T>
__device__ inline void publish_state(const state_lookback &l, int width, uint64_t tile, int sequence, T state) {
  tagged<T>::store(state_entry<T>(l, width, tile, sequence), state, l.epoch);
}

/*
 * The state before time tile k >= 1 of `sequence` of tile `tile`: the
 * nearest earlier published state, LOOK tiles at a time (their loads in
 * flight together), then the aggregates after it, oldest first (LOOK
 * loads in flight, each waited for). LOOK is 8 in f32, 6 in f64, sized
 * when the channel tiles held their values in registers at two blocks an
 * SM; the staged channel tiles at three take it within 46-80 registers, no
 * spill.
 */
template <typename T>
__device__ inline T incoming_state(const state_lookback &l, int width, uint64_t tile, uint64_t k, int sequence,
                                   T initial) {
  using P = lr_pair<T>;
  constexpr int LOOK = 16 / int(sizeof(T)) + 4;
  auto entry = [&](uint64_t back) { return state_entry<T>(l, width, tile - back * l.stride, sequence); };
  uint64_t back = k + 1; /* distance to the tile whose state is known; k + 1: h0, before tile 0 */
  T state = initial;
  for (uint64_t d = 1; d <= k && back == k + 1; d += LOOK) {
    T found[LOOK];
    bool ok[LOOK];
#pragma unroll
    for (int j = 0; j < LOOK; j++) ok[j] = d + j <= k && tagged<T>::load(entry(d + j), l.epoch, &found[j]);
#pragma unroll
    for (int j = LOOK - 1; j >= 0; j--)
      if (ok[j]) back = d + j, state = found[j];
  }
  for (uint64_t d = back - 1; d >= 1;) {
    const int take = d < uint64_t(LOOK) ? int(d) : LOOK;
    P agg[LOOK];
    bool ok[LOOK];
#pragma unroll
    for (int j = 0; j < LOOK; j++)
      ok[j] = j >= take || tagged<P>::load(entry(d - j) + tagged<T>::WORDS, l.epoch, &agg[j]);
#pragma unroll
    for (int j = 0; j < LOOK; j++)
      while (!ok[j]) ok[j] = tagged<P>::load(entry(d - j) + tagged<T>::WORDS, l.epoch, &agg[j]);
#pragma unroll
    for (int j = 0; j < LOOK; j++)
      if (j < take) state = lr_step(agg[j].a, state, agg[j].b);
    d -= uint64_t(take);
  }
  return state;
}

/* The aggregates of the `before` <= 32 tiles just before tile `tile` in
 * time applied to `state` by one warp: lane j loads the j-th oldest (all
 * in flight together), then every lane applies them oldest first, the same
 * loop as incoming_state's. Returns the state in every lane. */
template <typename T>
__device__ inline T warp_apply_aggregates(const state_lookback &l, int width, uint64_t tile, int sequence,
                                          uint32_t before, T state, int lane) {
  lr_pair<T> agg{};
  if (uint32_t(lane) < before) {
    const uint64_t *at = state_entry<T>(l, width, tile - (before - uint32_t(lane)) * l.stride, sequence);
    while (!tagged<lr_pair<T>>::load(at + tagged<T>::WORDS, l.epoch, &agg)) {
    }
  }
  for (uint32_t j = 0; j < before; j++)
    state = lr_step(::__shfl_sync(FULL_MASK, agg.a, int(j)), state, ::__shfl_sync(FULL_MASK, agg.b, int(j)));
  return state;
}

/*
 * The look-back as the one-pass batch kernels call it: one call per tile
 * and sequence, by one thread, with the tile's aggregate; publishes what
 * later tiles need (nothing from the last tile in time: no tile follows it)
 * and returns the state before the tile. Kernels take the look-back as a
 * policy of this shape (linrec_radix_lookback.cuh has the other).
 */
struct state_chain_lookback {
  template <typename T>
  __device__ static T tile_state(const state_lookback &l, int width, uint64_t tile, uint64_t k, int sequence,
                                 lr_pair<T> aggregate, T initial, bool last) {
    if (!last) publish_aggregate(l, width, tile, sequence, aggregate);
    const T state = k == 0 ? initial : incoming_state(l, width, tile, k, sequence, initial);
    if (!last) publish_state(l, width, tile, sequence, lr_step(aggregate.a, state, aggregate.b));
    return state;
  }
};

}  // namespace gp
