/*
 * The sequence walk, for sequence-major [C][T] batches of many long
 * sequences (f32 from LINREC_SEQ_MAJOR_WALK_MIN_COUNT sequences,
 * linrec_tuning.h): persistent blocks, each taking a whole sequence from a
 * counter and running its tiles in scan order through three shared-memory
 * stages (bulk copies of a and b, tile_pipeline.cuh), the next tiles'
 * copies in flight while the block scans one. The state after a tile is
 * carried to the next in registers, so no tile waits on another block:
 * there is no look-back.
 *
 * Where sequences are fewer than the blocks that fit, each is walked by
 * `strands` blocks together: strand j of a sequence takes its time tiles
 * j, j + strands, j + 2 strands, ... A block publishes each tile's
 * aggregate as it lands it, and before finishing tile k applies the
 * aggregates of the strands - 1 tiles before k (its peers', landed a step
 * earlier) to the state it carried out of tile k - strands. A strand waits
 * on peers that took later counter indices, so each wait ends only while
 * the whole grid is resident: the launch takes no more strands than blocks
 * fit and launches them cooperatively, which starts the grid only where
 * all its blocks fit at once, whatever runs on other streams.
 *
 * Each step of the block:
 *   take    thread 0 starts the copy of the tile after next (the next tile
 *           of its sequence, or the first of a new one)
 *   land    the next tile's pairs from its stage; the block's row scans
 *           (held in registers for finish) and the tile's aggregate (A, B)
 *   finish  the current tile: each item's h is the scan's running fold
 *           from the prefix (0, s), s the state before the tile (h0 at a
 *           sequence's first tile; with strands, warp 0 applies the
 *           peers' aggregates before land, and land's barrier hands s to
 *           the block); then s := A s + B
 *
 * Tiles, pads, scans and states are those of sequences_lookback with the
 * same Shape (linrec_sequence_tiles.cuh), so the bits are the same at any
 * count of strands: the state before a tile is the same loop over the
 * tiles' aggregates from h0.
 * A sequence's partial tile, and every tile of unaligned inputs, is read
 * from global memory, twice.
 */
#pragma once

#include "linrec_sequence_tiles.cuh"
#include "scan/device/tile_pipeline.cuh"

namespace gp {

/* The block's three stages and the tiles they hold. */
template <typename T, typename Shape, bool REVERSE> struct walk_stages {
  static constexpr int STAGES = 3;
  static constexpr uint32_t TILE_BYTES = Shape::tile_items * sizeof(T);
  static constexpr uint32_t STAGE_BYTES = 2 * TILE_BYTES; /* a, then b */
  static constexpr size_t SHARED_BYTES = size_t(STAGES) * STAGE_BYTES;
  unsigned char *mem;
  stage_barriers<STAGES> &bars;
  uint64_t *seq_of, *k_of; /* shared: each stage's sequence (count: none) and time tile */
  uint32_t parity;         /* bit s: the phase parity stage s's next copy completes */

  __device__ T *stage(int s, int array) const {
    return reinterpret_cast<T *>(mem + s * STAGE_BYTES + array * TILE_BYTES);
  }
  __device__ static sequence_window window(const sequence_tiles_args<T> &p, uint64_t k) {
    return window_of<REVERSE>(p.len, k, Shape::tile_items);
  }
  __device__ static bool by_copy(const sequence_tiles_args<T> &p, const sequence_window &w) {
    return p.vector_ok && w.full(Shape::tile_items);
  }
  /* Thread 0: stage s's copies of time tile k of sequence seq. */
  __device__ void start_copy(const sequence_tiles_args<T> &p, int s, uint64_t seq, uint64_t k) {
    seq_of[s] = seq, k_of[s] = k;
    if (seq >= p.count) return;
    const sequence_window w = window(p, k);
    if (!by_copy(p, w)) return;
    const uint64_t at = seq * p.len + uint64_t(w.start);
    const void *src[2] = {p.a + at, p.b + at};
    bulk_load_parts<2>(mem + s * STAGE_BYTES, src, TILE_BYTES, &bars.bar[s]);
  }
  /* All threads: the pairs of the tile in stage s; wait: the first read,
   * which waits for the copy to land. */
  __device__ void pairs(const sequence_tiles_args<T> &p, int s, bool wait, int warp, int lane,
                        lr_pair<T> (&x)[Shape::rows][Shape::vec]) {
    const uint64_t seq = seq_of[s];
    const sequence_window w = window(p, k_of[s]);
    tile_values<Shape, T> v;
    if (by_copy(p, w)) {
      if (wait) {
        bulk_wait(&bars.bar[s], (parity >> s) & 1u);
        parity ^= 1u << s;
      }
      load_tile<Shape>(stage(s, 0), Shape::tile_items, true, warp, lane, v.a, pad_a<T>());
      load_tile<Shape>(stage(s, 1), Shape::tile_items, true, warp, lane, v.b, pad_b<T>());
    } else {
      load_window<Shape>(p.a + seq * p.len, w, p.vector_ok, warp, lane, pad_a<T>(), v.a);
      load_window<Shape>(p.b + seq * p.len, w, p.vector_ok, warp, lane, pad_b<T>(), v.b);
    }
    values_to_pairs<Shape>(v, x);
  }
};

/* Thread 0's walk: the sequence it is in and its strand's next time tile
 * (without STRANDS a strand is a whole sequence). */
template <bool STRANDS> struct walk_cursor {
  uint64_t seq, k, tiles_per_sequence;
  uint32_t strands; /* at most the tiles a sequence: every strand has one */
  bool exhausted;
  /* The next tile, taking a new strand after the last tile of one. */
  template <typename T> __device__ void advance(const sequence_tiles_args<T> &p) {
    if (exhausted || k < tiles_per_sequence) return;
    const uint64_t taken = atomicAdd(p.counter, 1ull) - p.counter_base;
    if constexpr (STRANDS) {
      seq = uint32_t(taken) / strands; /* taken < 2^31: the launch */
      k = uint32_t(taken) % strands;
    } else {
      seq = taken;
      k = 0;
    }
    exhausted = seq >= p.count;
    if (exhausted) seq = p.count;
  }
  __device__ void step() { k += STRANDS ? strands : 1; }
};

/* The sequence tiles' arguments: here the counter hands out strands
 * (sequence s's strand j: s x strands + j), each block taking one index
 * past the last; `states` holds the tiles' aggregates (stride 1, a
 * sequence's tiles in a row) where STRANDS; `grad` is not read (the
 * forward pass only). Without STRANDS a strand is a whole sequence. */
template <typename Shape, bool REVERSE, bool STRANDS, typename T>
__global__ void __launch_bounds__(Shape::threads, Shape::min_blocks)
    sequences_walk(sequence_tiles_args<T> p, uint32_t strands_given) {
  using P = lr_pair<T>;
  using Op = lr_op<T>;
  using stages_t = walk_stages<T, Shape, REVERSE>;
  static_assert(Shape::hold_scans, "land's row scans are held for finish");
  constexpr int STAGES = stages_t::STAGES;
  extern __shared__ __align__(128) unsigned char stage_mem[];
  __shared__ stage_barriers<STAGES> bars;
  __shared__ uint64_t s_seq[STAGES], s_k[STAGES];
  __shared__ P s_warp_total[Shape::warps];
  __shared__ T s_state;
  const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
  stages_t stages{stage_mem, bars, s_seq, s_k, 0u};
  const uint32_t strands = STRANDS ? strands_given : 1u;
  const uint64_t tiles_per_sequence = (p.len + Shape::tile_items - 1) / Shape::tile_items;
  /* The first take starts a strand. */
  walk_cursor<STRANDS> cursor{0, tiles_per_sequence, tiles_per_sequence, strands, false};
  auto take_into = [&](int s) {
    cursor.advance(p);
    stages.start_copy(p, s, cursor.seq, cursor.k);
    cursor.step();
  };
  auto tile_of = [&](int s) { return s_seq[s] * tiles_per_sequence + s_k[s]; };

  tile_row_scans<P, Shape::rows> landed_scans, held_scans;
  P landed_aggregate{}, held_aggregate{};
  T state = T(0);
  auto land = [&](int s) {
    P x[Shape::rows][Shape::vec];
    stages.pairs(p, s, true, warp, lane, x);
    landed_aggregate = scan_tile_rows<P, Op, Shape, REVERSE>(x, landed_scans, s_warp_total, warp, lane);
    if (STRANDS && threadIdx.x == 0) publish_aggregate(p.states, 1, tile_of(s), 0, landed_aggregate);
  };
  /* Warp 0, with strands: the state before the tile in stage s into
   * s_state, for finish after the next barrier. */
  auto take_state = [&](int s) {
    const uint64_t seq = s_seq[s], k = s_k[s];
    const T carried = k < strands ? (p.h0 ? p.h0[seq] : T(0)) : state; /* h0 at the strand's first tile */
    const uint32_t before = k < strands ? uint32_t(k) : strands - 1;
    const T got = warp_apply_aggregates(p.states, 1, tile_of(s), 0, before, carried, lane);
    if (lane == 0) s_state = got;
  };
  auto finish = [&](int s) {
    P x[Shape::rows][Shape::vec];
    stages.pairs(p, s, false, warp, lane, x);
    const uint64_t seq = s_seq[s], k = s_k[s];
    if (STRANDS) state = s_state;
    else if (k == 0) state = p.h0 ? p.h0[seq] : T(0);
    apply_row_scans<P, Op, Shape, REVERSE>(x, held_scans, P{T(0), state}, false);
    state = lr_step(held_aggregate.a, state, held_aggregate.b);
    T y[Shape::rows][Shape::vec];
#pragma unroll
    for (int r = 0; r < Shape::rows; r++)
#pragma unroll
      for (int j = 0; j < Shape::vec; j++) y[r][j] = x[r][j].b;
    store_window<Shape>(p.h + seq * p.len, stages_t::window(p, k), p.vector_ok, warp, lane, y);
  };

  init_stage_barriers(bars);
  if (threadIdx.x == 0) {
    take_into(0);
    take_into(1);
  }
  __syncthreads();
  if (s_seq[0] < p.count) land(0);
  for (int cur = 0;; cur = (cur + 1) % STAGES) {
    __syncthreads(); /* s_seq[] is current; the stage finished last step is free */
    if (s_seq[cur] >= p.count) break;
    const int next = (cur + 1) % STAGES;
    if (threadIdx.x == 0) take_into((cur + 2) % STAGES);
    held_scans = landed_scans, held_aggregate = landed_aggregate; /* cur landed last step */
    if (STRANDS && warp == 0) take_state(cur); /* its loads in flight while the other warps land */
    if (s_seq[next] < p.count) land(next);
    else if (STRANDS) __syncthreads(); /* s_state */
    finish(cur);
  }
}

}  // namespace gp
