/*
 * Segmented reduce over offsets by warps (gpu_segreduce), in one launch
 * that reads n = offsets[nseg] on the device: no table, no read-back.
 *
 * The elements are cut into one chunk a warp (whole steps of 32 x ITEMS,
 * the same count for every warp of the grid; the warps of the resident
 * grid, a device constant, so the order of every fold depends on n and the
 * device only and floats give the same bits on every run). A warp walks its
 * chunk a step at a time, with no barrier:
 *   - its values, 16 consecutive a lane (64 bytes, 128 for 8-byte types),
 *     come by cp.async two steps ahead into the warp's stages in shared
 *     memory;
 *   - a step before the next "end event" (offset i ends segment i - 1,
 *     whose result is the scan's value at offsets[i] - 1) only folds its
 *     values onto the warp's running value;
 *   - otherwise the step's offsets, 32 at a time from a cursor, give its
 *     segment starts (bits in shared memory) and its events; a scan of
 *     (value, start) pairs (lane folds, one warp scan, the warp's carry
 *     from the step before) puts each item's inclusive value in the stage,
 *     where each event reads its segment's result, and the results leave
 *     in segment order (coalesced).
 * Segments that began before the chunk (its "lead", at most one) are kept
 * as a partial; after one barrier the block folds its warps' aggregates in
 * order, and the block's aggregate goes through the scan's look-back (one
 * entry a block) where a lead reaches back before the block.
 *
 * Why: seg_runs' reduce does a block-wide tile scan a tile (barriers, a
 * transpose), and needs the tile_first[] table (a launch) and n on the
 * host (a read-back); by warps there is no barrier until a chunk's end,
 * no table and no read-back, which is faster at every size, most at small
 * n and with long segments (bench/NOTES.md).
 *
 * Chunk w's window of events: indices [e(c0), e(c1)), where e(c) is the
 * first i >= 1 with offsets[i] beyond c (1 and nseg + 1 at the ends), by
 * the same 32-ary search of the whole warp for both sides
 * (first_beyond_two_reads, tile_first.cuh), so the windows partition
 * [1, nseg] whatever the offsets hold. Each offset of a window is read and
 * checked against the one before it; with offsets[0] checked too, any
 * malformed array sets *bad. Offsets are clamped (to [0, n]; in the search
 * to [0, n_max]) before any use as a position, so no access leaves in, out
 * or offsets.
 *
 * The chain of round trips before a warp's results, at small n (4-byte
 * types): n, offsets[0] and the search's first probes at once (chunks by
 * blockIdx, no ticket; the search assumes one step a warp until n says
 * otherwise); the search's next rounds, with the values' copies; then the
 * step's scan, its first events' offsets from the search's last round and
 * the offset before the window from its probes. No ticket, no wait for n
 * and no load after the search: small calls are set by this chain. 8-byte
 * types keep the ticket and the wait for n (by_index, warps_speculate).
 *
 * The kernel's steps (segreduce_warps_block): the warp's chunk and window
 * (start_chunk_search, settle_chunk_window), its steps (load_step_items,
 * then fold_step or read_step_events, scan_step and write_step_results),
 * and the block's leads (finish_block_leads).
 */
#pragma once

#include "scan/device/tile_pipeline.cuh"
#include "scan/device/warp_scan.cuh"
#include "segmented/device/segscan_blocked.cuh"
#include "segmented/device/tile_first.cuh"
#include "segmented/segmented_tuning.h"

namespace gp {

/* The kernel's block and a lane's step of consecutive items. */
template <typename T> struct warps_reduce_shape {
  static constexpr bool wide = sizeof(T) == 8;
  static constexpr int threads = SEG_WARPS_THREADS, warps = threads / 32;
  using tuning = segreduce_warps_tuning<int(sizeof(T))>;
  static constexpr int min_blocks = tuning::min_blocks;
  static constexpr int vec = 16 / int(sizeof(T));
  static constexpr int items = tuning::lane_bytes / int(sizeof(T));
  static constexpr int step = 32 * items; /* a warp's step */
  static constexpr int ahead = tuning::ahead, stages = ahead + 1;
  /* For 4-byte types block b takes the chunks of warps [8 b, 8 b + 8) by
   * its blockIdx, not by a ticket from the look-back counter (an atomic and
   * a barrier before the search could start). Safe here, unlike in the
   * scans: the grid is at most the resident blocks, and a block waits only
   * (in the look-back, after its chunks) for blocks of lower index, so
   * every block it waits for holds or will get a place. 8-byte types keep
   * the ticket, without which ptxas spills. */
  static constexpr bool by_index = !wide;
  /* Dynamic shared memory: each warp's stages. */
  static constexpr size_t smem = size_t(warps) * stages * step * sizeof(T);
};

/* A lane's ITEMS items from `base`, by plain loads (neutral past `end`). */
template <typename T, typename Base, int ITEMS>
__device__ inline void load_lane_items(const T *in, uint64_t base, uint64_t end, T (&x)[ITEMS]) {
#pragma unroll
  for (int k = 0; k < ITEMS; k++) x[k] = base + k < end ? in[base + k] : Base::neutral();
}

/* Whether a lane's ITEMS items from `base` come by 16-byte copies: all
 * there, and in aligned. */
template <int ITEMS> __device__ inline bool lane_copies(uint64_t base, uint64_t end, bool vector_ok) {
  return vector_ok && base + ITEMS <= end;
}

/* The search before n is known, for 4-byte types: with 8-byte ones (and
 * blocks by index) ptxas spills and f64 runs slower. */
template <typename T> constexpr bool warps_speculate = !warps_reduce_shape<T>::wide;

/* A lane's 16-byte chunks: where each goes in a stage and where it comes
 * from in a step (fixed for the chunk), and where this lane's own items sit
 * in a stage. Kept apart from warp_chunk and chunk_steps: an array indexed
 * in a loop stays in memory until the loop unrolls, and in one struct with
 * scalars it would hold them there too (ptxas then spills). */
template <typename T> struct lane_chunks {
  static constexpr int CHUNKS = warps_reduce_shape<T>::items / warps_reduce_shape<T>::vec;
  uint32_t dst[CHUNKS], src[CHUNKS], own[CHUNKS];
};

/* What a step hands to the next as the warp walks its chunk. Kept apart
 * from warp_chunk, whose fields the search takes by address (they stay in
 * memory until the search is inlined). */
template <typename T> struct chunk_steps {
  int stage;             /* the stage of the next step's values */
  bool malformed;        /* an offset out of order or out of [0, n] */
  seg_pair<T> carry;     /* the chunk's fold so far */
  T lead;                /* the lead segment's fold within the chunk */
  uint64_t lead_segment; /* held by lane 0 */
  uint64_t cur;          /* the next end event to read */
  int64_t prev_raw;      /* the offset before the cursor */
  bool head_at_start;    /* the next step starts a segment */
  /* The position of the window's next event (offsets[cur], clamped), or ~0
   * past the window; 0 until known. A step before it has no event: no
   * starts inside, no results, so its scan is a plain fold. */
  uint64_t next_q;
};

/* A warp's chunk [c0, c1), its window of end events [lo, hi) with what the
 * search read near lo, and its values' copies into the warp's stages. */
template <typename T> struct warp_chunk {
  using Shape = warps_reduce_shape<T>;
  static constexpr int CHUNKS = lane_chunks<T>::CHUNKS;
  T *stages;
  const T *fetch_src;  /* the next step to fetch */
  uint64_t fetch_left; /* its items up to the chunk's end */
  int fetch_stage;
  uint64_t lo, hi, cache_base;
  int64_t below_lo;
  uint64_t c0, c1;
  bool fetched; /* the first steps' copies are under way */

  /* The next step's values into its stage (swizzled as buf reads them), 16
   * bytes a copy. The warp's copies cover whole 512-byte spans (lane l
   * copies chunks l, l + 32, ...: whole sectors a copy instruction), and a
   * lane reads back other lanes' copies after a __syncwarp. Chunks past the
   * end are not copied: their lanes load plainly. One commit group a step,
   * copies or not. */
  __device__ __forceinline__ void fetch(const lane_chunks<T> &chunks, bool vector_ok) {
    constexpr int VEC = Shape::vec, STEP = Shape::step;
    if (vector_ok && fetch_left > 0) {
      T *const dst = stages + fetch_stage * STEP;
      if (fetch_left >= uint64_t(STEP)) {
#pragma unroll
        for (int c = 0; c < CHUNKS; c++)
          copy_async(reinterpret_cast<vec16<T, VEC> *>(dst + chunks.dst[c]),
                     reinterpret_cast<const vec16<T, VEC> *>(fetch_src + chunks.src[c]));
      } else {
#pragma unroll
        for (int c = 0; c < CHUNKS; c++)
          if (chunks.src[c] + VEC <= fetch_left)
            copy_async(reinterpret_cast<vec16<T, VEC> *>(dst + chunks.dst[c]),
                       reinterpret_cast<const vec16<T, VEC> *>(fetch_src + chunks.src[c]));
      }
    }
    copy_async_commit();
    fetch_src += STEP;
    fetch_left = fetch_left > uint64_t(STEP) ? fetch_left - STEP : 0;
    fetch_stage = fetch_stage + 1 == Shape::stages ? 0 : fetch_stage + 1;
  }
  /* The copies of the first Shape::ahead steps. */
  __device__ __forceinline__ void fetch_ahead(const lane_chunks<T> &chunks, bool vector_ok) {
#pragma unroll
    for (int k = 0; k < Shape::ahead; k++) fetch(chunks, vector_ok);
  }
};

/* The warp's stages (its part of the dynamic shared memory) and its
 * lanes' chunk positions. */
template <typename T>
__device__ __forceinline__ void start_chunk_walk(warp_chunk<T> &chunk, chunk_steps<T> &steps, lane_chunks<T> &chunks,
                                                 unsigned char *warp_stages, int warp, int lane) {
  using Shape = warps_reduce_shape<T>;
  constexpr int VEC = Shape::vec, STEP = Shape::step, CHUNKS = lane_chunks<T>::CHUNKS;
  chunk.stages = reinterpret_cast<T *>(warp_stages) + size_t(warp) * Shape::stages * STEP;
#pragma unroll
  for (int c = 0; c < CHUNKS; c++) {
    const int index = c * 32 + lane;
    chunks.src[c] = uint32_t(index * VEC);
    chunks.dst[c] = uint32_t(swizzled<VEC>(index * VEC));
  }
#pragma unroll
  for (int c = 0; c < CHUNKS; c++) chunks.own[c] = uint32_t(swizzled<VEC>(lane * Shape::items + c * VEC));
  chunk.fetch_src = nullptr;
  chunk.fetch_left = 0;
  chunk.fetch_stage = 0;
  steps.stage = 0;
}

/* The chunks of one step a warp, [w STEP, (w + 1) STEP) cut at n_max,
 * while n is on its way. */
template <typename T> __device__ __forceinline__ bool one_step_each(uint64_t n, uint64_t grid_warps) {
  constexpr int STEP = warps_reduce_shape<T>::step;
  return (n + STEP - 1) / STEP <= grid_warps;
}

/*
 * Warp w's chunk and its window of end events [lo, hi) by the search, with
 * what the search read near lo, assuming the chunks of one step a warp (for
 * 4-byte types: warps_speculate) while n = offsets[nseg] is on its way; with the
 * search's first probes on their way, direct(n) is asked, and where n does
 * give each warp one step at most, that chunk's copies start (behind the
 * probes, not in front of them; a warp whose chunk lies past n stops there,
 * copies and searches nothing more). Offsets are compared clamped into [0,
 * n_max], not [0, n], which gives the same answer wherever one is used (for
 * a bound below n; at n the window runs to nseg).
 */
template <typename T, typename Direct>
__device__ __forceinline__ void start_chunk_search(warp_chunk<T> &chunk, const lane_chunks<T> &chunks, const T *in,
                                                   const int64_t *offsets, uint64_t nseg, uint64_t n_max,
                                                   uint64_t grid_warps, bool vector_ok, uint64_t w, int lane,
                                                   int64_t n_raw, int64_t offset0_raw, int64_t *cache,
                                                   Direct &&direct) {
  using Shape = warps_reduce_shape<T>;
  constexpr int STEP = Shape::step;
  chunk.lo = 1, chunk.hi = nseg + 1, chunk.cache_base = ~uint64_t(0);
  chunk.below_lo = offset0_raw;
  chunk.c0 = w * STEP < n_max ? w * STEP : n_max;
  chunk.c1 = chunk.c0 + STEP < n_max ? chunk.c0 + STEP : n_max;
  chunk.fetch_src = in + chunk.c0;
  chunk.fetch_left = chunk.c1 - chunk.c0;
  chunk.fetched = false;
  if (warps_speculate<T> && (chunk.c0 < chunk.c1 || w == 0))
    first_beyond_two_reads(offsets, 1, nseg + 1, nseg, n_max, chunk.c0, chunk.c1, lane, offset0_raw, &chunk.lo,
                           &chunk.hi, &chunk.below_lo, cache, &chunk.cache_base, [&]() {
                             const uint64_t n = clamp_offset(n_raw, n_max);
                             if (direct(n)) return false;
                             if (!one_step_each<T>(n, grid_warps)) return false;
                             /* the chunk cut at n */
                             chunk.fetch_left = chunk.c0 < n ? (chunk.c1 < n ? chunk.c1 : n) - chunk.c0 : 0;
                             chunk.fetch_ahead(chunks, vector_ok);
                             chunk.fetched = true;
                             return chunk.c0 < n || w == 0; /* else no chunk: no window either */
                           });
}

/* Once n is known: warp w's chunk [c0, c1) (chunk 0 also when n = 0: it
 * writes the empty segments) and its window. Where the chunks of one step a
 * warp were right, the search's; else (n larger) the warp starts again with
 * chunks of `per` steps, the copies after the search, whose probes would
 * queue behind every warp's first steps. Then the first steps' copies. */
template <typename T>
__device__ __forceinline__ void settle_chunk_window(warp_chunk<T> &chunk, const lane_chunks<T> &chunks, const T *in,
                                                    const int64_t *offsets, uint64_t nseg, uint64_t n_max, uint64_t n,
                                                    uint64_t grid_warps, bool vector_ok, uint64_t w, int lane,
                                                    int64_t offset0_raw, int64_t *cache) {
  constexpr int STEP = warps_reduce_shape<T>::step;
  if (warps_speculate<T> && one_step_each<T>(n, grid_warps)) {
    chunk.c0 = chunk.c0 < n ? chunk.c0 : n;
    chunk.c1 = chunk.c1 < n ? chunk.c1 : n;
  } else {
    const uint64_t steps = (n + STEP - 1) / STEP;
    const uint64_t per = steps > grid_warps ? (steps + grid_warps - 1) / grid_warps : 1;
    chunk.c0 = w * per < steps ? w * per * STEP : n;
    chunk.c1 = chunk.c0 + per * STEP < n ? chunk.c0 + per * STEP : n;
    chunk.fetch_src = in + chunk.c0;
    chunk.fetch_left = chunk.c1 - chunk.c0;
    chunk.lo = 1, chunk.hi = nseg + 1, chunk.cache_base = ~uint64_t(0), chunk.below_lo = offset0_raw;
    if (chunk.c0 < chunk.c1 || w == 0)
      first_beyond_two_reads(offsets, 1, nseg + 1, nseg, n_max, chunk.c0, chunk.c1, lane, offset0_raw, &chunk.lo,
                             &chunk.hi, &chunk.below_lo, cache, &chunk.cache_base, []() { return true; });
  }
  if (!chunk.fetched) chunk.fetch_ahead(chunks, vector_ok);
  __syncwarp(); /* the cache, seen by every lane */
}

/* The step's values: a lane's items from the stage where its copies came,
 * else by plain loads. */
template <typename T, typename Base>
__device__ __forceinline__ void load_step_items(const warp_chunk<T> &chunk, const lane_chunks<T> &chunks, const T *buf,
                                                const T *in, uint64_t base, bool vector_ok,
                                                T (&x)[warps_reduce_shape<T>::items]) {
  using Shape = warps_reduce_shape<T>;
  constexpr int VEC = Shape::vec;
  if (lane_copies<Shape::items>(base, chunk.c1, vector_ok)) {
#pragma unroll
    for (int c = 0; c < lane_chunks<T>::CHUNKS; c++) {
      const vec16<T, VEC> v = *reinterpret_cast<const vec16<T, VEC> *>(buf + chunks.own[c]);
#pragma unroll
      for (int j = 0; j < VEC; j++) x[c * VEC + j] = v.v[j];
    }
  } else {
    load_lane_items<T, Base, Shape::items>(in, base, chunk.c1, x);
  }
}

/* A step without an event: its fold (a fixed tree) onto the carry, which
 * restarts where the step starts a segment. */
template <typename T, typename Base>
__device__ __forceinline__ void fold_step(chunk_steps<T> &steps, const T (&x)[warps_reduce_shape<T>::items]) {
  using Pair = seg_pair<T>;
  constexpr int ITEMS = warps_reduce_shape<T>::items;
  T pairs[ITEMS];
#pragma unroll
  for (int j = 0; j < ITEMS; j++) pairs[j] = x[j];
#pragma unroll
  for (int gap = 1; gap < ITEMS; gap *= 2)
#pragma unroll
    for (int j = 0; j + gap < ITEMS; j += 2 * gap) pairs[j] = Base::apply(pairs[j], pairs[j + gap]);
  const T total = warp_reduce<Base>(pairs[0]);
  steps.carry = steps.head_at_start ? Pair{total, 1u} : Pair{Base::apply(steps.carry.value, total), steps.carry.head};
  steps.head_at_start = false;
}

/* Where a step's events begin, and the first round's offsets (each lane's
 * and the one before it), kept for the results. */
struct step_events {
  uint64_t first;
  int64_t prev_raw, first_raw, first_before;
};

/* The step [t0, t1)'s events: its starts as bits in heads (the last step
 * takes every event left in the window [cur, end): any beyond c1 is
 * malformed), the cursor past them, each offset checked against the one
 * before it. */
template <typename T>
__device__ __forceinline__ step_events read_step_events(chunk_steps<T> &steps, const warp_chunk<T> &chunk,
                                                        const int64_t *cache, uint32_t *heads, const int64_t *offsets,
                                                        uint64_t end, uint64_t n, uint64_t t0, uint64_t t1, bool last,
                                                        int lane) {
  constexpr int STEP = warps_reduce_shape<T>::step;
  /* The search's last reads (first_beyond_two_reads), for 4-byte types. */
  constexpr bool CACHE = !warps_reduce_shape<T>::wide;
  if (lane < STEP / 32) heads[lane] = lane == 0 && steps.head_at_start ? 1u : 0u;
  __syncwarp();
  step_events ev{steps.cur, steps.prev_raw, 0, 0};
  for (bool round0 = true;; round0 = false) {
    const uint64_t i = steps.cur + lane;
    const bool inside = i < end;
    int64_t raw = 0;
    if (CACHE && steps.cur >= chunk.cache_base &&
        steps.cur - chunk.cache_base <= 32) { /* (never with cache_base NONE) */
      /* The 32 entries from cur, as the search's last round read them. */
      if (inside) raw = cache[steps.cur - chunk.cache_base + lane];
    } else if (inside) {
      raw = int64_t(offsets[i]);
    }
    int64_t before = ::__shfl_up_sync(FULL_MASK, raw, 1);
    if (lane == 0) before = steps.prev_raw;
    if (round0) {
      ev.first_raw = raw;
      ev.first_before = before;
    }
    if (inside && (raw < before || raw < 0 || uint64_t(raw) > n)) steps.malformed = true;
    const uint64_t q = raw < 0 ? 0 : uint64_t(raw) > n ? n : uint64_t(raw);
    const unsigned taken = __ballot_sync(FULL_MASK, inside && (last || q <= t1));
    const int count = taken == FULL_MASK ? 32 : __ffs(~taken) - 1;
    if (lane < count && q > t0 && q < t1) atomicOr(&heads[(q - t0) / 32], 1u << ((q - t0) % 32));
    if (count > 0) steps.prev_raw = ::__shfl_sync(FULL_MASK, raw, count - 1);
    steps.cur += count;
    if (count < 32) {
      const uint64_t q_next = ::__shfl_sync(FULL_MASK, q, count & 31);
      steps.next_q = steps.cur < end ? q_next : ~uint64_t(0);
      break;
    }
  }
  const uint64_t prev_q = steps.prev_raw < 0 ? 0 : uint64_t(steps.prev_raw) > n ? n : uint64_t(steps.prev_raw);
  steps.head_at_start = !last && prev_q == t1;
  __syncwarp();
  return ev;
}

/* The scan of the step's (value, start) pairs, from the carry: each item's
 * inclusive value to buf, the step's fold into the carry. */
template <typename T, gpu_op OP>
__device__ __forceinline__ void scan_step(chunk_steps<T> &steps, const lane_chunks<T> &chunks, T *buf,
                                          const uint32_t *heads, const T (&x)[warps_reduce_shape<T>::items], int lane) {
  using Shape = warps_reduce_shape<T>;
  using Pair = seg_pair<T>;
  using Op = seg_op<T, OP>;
  using Base = scan_op<T, OP>;
  constexpr int ITEMS = Shape::items, VEC = Shape::vec;
  const uint32_t bits = heads[lane * ITEMS / 32] >> (lane * ITEMS % 32);
  T fold = Base::neutral();
  uint32_t any = 0;
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    const bool h = (bits >> k) & 1u;
    fold = h ? x[k] : Base::apply(fold, x[k]);
    any |= h;
  }
  const Pair incl = warp_inclusive_scan<Op, false>(Pair{fold, any}, lane);
  Pair run = Op::apply(steps.carry, warp_exclusive_from_inclusive<Op, false>(incl, lane));
  steps.carry = Op::apply(steps.carry, warp_last<false>(incl));
  T v = run.value;
#pragma unroll
  for (int c = 0; c < lane_chunks<T>::CHUNKS; c++) {
    vec16<T, VEC> y;
#pragma unroll
    for (int k = 0; k < VEC; k++) {
      const int j = c * VEC + k;
      v = (bits >> j) & 1u ? x[j] : Base::apply(v, x[j]);
      y.v[k] = v;
    }
    *reinterpret_cast<vec16<T, VEC> *>(buf + chunks.own[c]) = y;
  }
  __syncwarp();
}

/* Each event's result: segment i - 1 ends before offsets[i], its result
 * the inclusive value in buf there; the lead's (the window's first event,
 * a segment begun before c0) is kept. The first round's offsets from
 * read_step_events; later rounds read them again. */
template <typename T, typename Base, typename Epilogue>
__device__ __forceinline__ void write_step_results(chunk_steps<T> &steps, const warp_chunk<T> &chunk,
                                                   const step_events &ev, const T *buf, const int64_t *offsets,
                                                   uint64_t first, uint64_t n, uint64_t t0, uint64_t t1, int lane,
                                                   Epilogue &epilogue) {
  constexpr int VEC = warps_reduce_shape<T>::vec;
  int64_t round_prev_raw = ev.prev_raw;
  for (uint64_t k = ev.first; k < steps.cur; k += 32) {
    const uint64_t i = k + lane;
    int64_t raw = ev.first_raw, before = ev.first_before;
    if (k != ev.first) {
      raw = i < steps.cur ? int64_t(offsets[i]) : 0;
      before = ::__shfl_up_sync(FULL_MASK, raw, 1);
      if (lane == 0) before = round_prev_raw;
    }
    round_prev_raw = ::__shfl_sync(FULL_MASK, raw, 31);
    if (i < steps.cur) {
      const uint64_t q = raw < 0 ? 0 : uint64_t(raw) > n ? n : uint64_t(raw);
      const uint64_t a = before < 0 ? 0 : uint64_t(before) > n ? n : uint64_t(before);
      if (a >= q || q <= t0 || q > t1) {
        epilogue(i - 1, Base::identity(), true); /* empty (or malformed) */
      } else {
        const T r = buf[swizzled<VEC>(int(q - 1 - t0))];
        if (i == first && a < chunk.c0) {
          steps.lead = r; /* lane 0: its fold before c0 is the other chunks' */
          steps.lead_segment = i - 1;
        } else {
          epilogue(i - 1, r, false);
        }
      }
    }
  }
  __syncwarp(); /* buf and heads are free for the next steps */
}

/* After the block's warps: each lead's fold before its chunk from the
 * warps before it in the block, and where a lead reaches back before the
 * block, the prefix from the look-back. */
template <typename T, gpu_op OP, typename Epilogue>
__device__ __forceinline__ void finish_block_leads(const chunk_steps<T> &steps,
                                                   seg_pair<T> (&s_agg)[warps_reduce_shape<T>::warps],
                                                   const uint64_t (&s_lead_segment)[warps_reduce_shape<T>::warps],
                                                   seg_pair<T> *s_level_fold, const lookback_args &lb, uint32_t block,
                                                   int warp, int lane, Epilogue &epilogue) {
  using Shape = warps_reduce_shape<T>;
  using Pair = seg_pair<T>;
  using Op = seg_op<T, OP>;
  using Base = scan_op<T, OP>;
  constexpr uint64_t NONE = ~uint64_t(0);
  /* The block's warps in order: each lead's fold before its chunk, and
   * whether one reaches back before the block. */
  Pair before = Op::neutral(), total = Op::neutral();
  bool needs_prefix = false;
#pragma unroll
  for (int k = 0; k < Shape::warps; k++) {
    if (k == warp) before = total;
    if (s_lead_segment[k] != NONE && !total.head) needs_prefix = true;
    total = Op::apply(total, s_agg[k]);
  }
  if (lane == 0 && steps.lead_segment != NONE && before.head)
    epilogue(steps.lead_segment, Base::apply(before.value, steps.lead), false);
  /* Published, and the prefix where a lead needs it: from the nearest of
   * the 32 blocks before where a segment starts, waiting only for the
   * blocks from there on (publish_and_prefix; mostly the one block before). */
  const Pair prefix = lb.tiles > 1
                          ? publish_and_prefix<Op, Shape>(lb, block, total, needs_prefix, s_level_fold, warp, lane)
                          : Op::neutral();
  if (lane == 0 && steps.lead_segment != NONE && !before.head)
    epilogue(steps.lead_segment, Base::apply(Op::apply(prefix, before).value, steps.lead), false);
}

/* The kernel's work for block `block` of a grid of grid_warps warps (its
 * chunks and its look-back entry), in a function so that
 * segreduce_direct (segreduce_direct.cuh) runs it too. direct(n), asked once n is known
 * and before anything is written or copied (uniform over the block: it
 * depends on n only): true stops the block there, and the function
 * returns true (segreduce_direct then reduces the block's segments its own
 * way); segreduce_warps asks never. */
template <typename T, gpu_op OP, typename Epilogue, typename Direct>
__device__ __forceinline__ bool segreduce_warps_block(const T *in, const int64_t *offsets, uint64_t nseg,
                                                      uint64_t n_max, uint64_t grid_warps, bool vector_ok,
                                                      const lookback_args &lb, uint32_t block, unsigned *bad,
                                                      Epilogue epilogue, Direct &&direct) {
  using Shape = warps_reduce_shape<T>;
  using Pair = seg_pair<T>;
  using Op = seg_op<T, OP>;
  using Base = scan_op<T, OP>;
  constexpr int WARPS = Shape::warps, STEP = Shape::step;
  __shared__ uint32_t s_heads[WARPS][STEP / 32];
  extern __shared__ __align__(128) unsigned char warp_stages[]; /* [WARPS][stages][STEP] of T */
  __shared__ Pair s_agg[WARPS];
  __shared__ uint64_t s_lead_segment[WARPS];
  __shared__ Pair s_level_fold[LOOKBACK_MAX_LEVELS];
  /* The search's last reads (first_beyond_two_reads), for 4-byte types:
   * for 8-byte ones 4 KiB more a block would shrink L1 (two blocks an SM
   * fill 196 KiB of shared memory to the last 256 bytes). */
  constexpr bool CACHE = !Shape::wide;
  __shared__ int64_t s_offsets_cache[WARPS][CACHE ? 64 : 1];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint64_t w = uint64_t(block) * WARPS + warp;
  /* n = offsets[nseg], and offsets[0] (warp 0's offset before its window,
   * and what the other warps' searches start from), do not depend on the
   * chunk: both are read first. */
  const int64_t n_raw = offsets[nseg];
  const int64_t offset0_raw = offsets[0];
  uint32_t *const heads = s_heads[warp];

  /* 1. The warp's chunk and its window of events, the first copies. */
  lane_chunks<T> chunks;
  warp_chunk<T> chunk;
  chunk_steps<T> steps;
  int64_t *const cache = CACHE ? s_offsets_cache[warp] : nullptr;
  start_chunk_walk<T>(chunk, steps, chunks, warp_stages, warp, lane);
  start_chunk_search<T>(chunk, chunks, in, offsets, nseg, n_max, grid_warps, vector_ok, w, lane, n_raw, offset0_raw,
                        cache, direct);
  const uint64_t n = clamp_offset(n_raw, n_max);
  if (direct(n)) return true;
  steps.malformed = n_raw < 0 || uint64_t(n_raw) > n_max;
  settle_chunk_window<T>(chunk, chunks, in, offsets, nseg, n_max, n, grid_warps, vector_ok, w, lane, offset0_raw,
                         cache);

  /* 2. The chunk, a step at a time: every segment ending in it but its lead. */
  steps.carry = Op::neutral();
  steps.lead = Base::neutral();
  steps.lead_segment = ~uint64_t(0);
  if (chunk.c0 < chunk.c1 || w == 0) {
    /* Its window of events [first, end): from 1 for warp 0, to nseg + 1
     * for the chunk that ends at n. */
    const uint64_t first = w == 0 ? 1 : chunk.lo, end = chunk.c1 >= n ? nseg + 1 : chunk.hi;
    steps.cur = first;
    steps.prev_raw = w == 0 ? offset0_raw : chunk.below_lo;
    if (w == 0 && steps.prev_raw != 0) steps.malformed = true;
    steps.head_at_start = clamp_offset(steps.prev_raw, n) == chunk.c0;
    steps.next_q = 0;
    for (uint64_t t0 = chunk.c0;; t0 += STEP) {
      const uint64_t t1 = t0 + STEP < chunk.c1 ? t0 + STEP : chunk.c1;
      const bool last = t1 == chunk.c1;
      T *const buf = chunk.stages + steps.stage * STEP; /* the values, then the inclusive scan */
      steps.stage = steps.stage + 1 == Shape::stages ? 0 : steps.stage + 1;
      copy_async_wait<Shape::ahead - 1>();
      __syncwarp();                   /* the step's copies, seen by every lane */
      chunk.fetch(chunks, vector_ok); /* into the previous step's stage, free since its last __syncwarp */
      T x[Shape::items];
      load_step_items<T, Base>(chunk, chunks, buf, in, t0 + uint64_t(lane) * Shape::items, vector_ok, x);
      if (!last && steps.next_q > t1) { /* no event in the step */
        fold_step<T, Base>(steps, x);
        continue;
      }
      const step_events ev = read_step_events<T>(steps, chunk, cache, heads, offsets, end, n, t0, t1, last, lane);
      scan_step<T, OP>(steps, chunks, buf, heads, x, lane);
      write_step_results<T, Base>(steps, chunk, ev, buf, offsets, first, n, t0, t1, lane, epilogue);
      if (last) break;
    }
  }
  copy_async_wait<0>(); /* the groups past the chunk: empty, or a step copied for a chunk past n */
  if (__any_sync(FULL_MASK, steps.malformed) && lane == 0) *bad = 1;
  if (lane == 0) {
    s_agg[warp] = steps.carry;
    s_lead_segment[warp] = steps.lead_segment;
  }
  __syncthreads();

  /* 3. The leads, with the fold of the warps and blocks before them. */
  finish_block_leads<T, OP>(steps, s_agg, s_lead_segment, s_level_fold, lb, block, warp, lane, epilogue);
  return false;
}

template <typename T, gpu_op OP, typename Epilogue>
__global__ void __launch_bounds__(warps_reduce_shape<T>::threads, warps_reduce_shape<T>::min_blocks)
    segreduce_warps(const T *in, const int64_t *offsets, uint64_t nseg, uint64_t n_max, uint64_t grid_warps,
                    bool vector_ok, lookback_args lb, unsigned *bad, Epilogue epilogue) {
  using Shape = warps_reduce_shape<T>;
  __shared__ uint32_t s_ticket;
  const uint32_t block = Shape::by_index ? blockIdx.x : take_tile(lb, &s_ticket);
  segreduce_warps_block<T, OP>(in, offsets, nseg, n_max, grid_warps, vector_ok, lb, block, bad, epilogue,
                               [](uint64_t) { return false; });
}

}  // namespace gp
