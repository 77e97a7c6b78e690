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
 * transpose), 0.40-0.59 of a copy at 2^28 on the H200, and needs the
 * tile_first[] table (a launch) and n on the host (a read-back): 27-32 us a
 * call at 2^16-2^20. By warps (bench/NOTES.md): 0.44 / 0.58 / 0.96 of a
 * copy with segments of 4 / 64 / 4096 (f32; f64 0.55 / 0.83 / 0.98), 12-19
 * us a call at 2^16-2^20.
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
 * the offset before the window from its probes. Session 22 took the
 * ticket, the wait for n and two loads after the search off it: 3-10%
 * faster at 2^16-2^18, 1-3% at 2^20 (queued; h200_segreduce_warps_ab.txt).
 * 8-byte types keep the ticket and the wait for n (by_index, SPECULATE).
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
  using S = warps_reduce_shape<T>;
  using P = seg_pair<T>;
  using Op = seg_op<T, OP>;
  using Base = scan_op<T, OP>;
  constexpr int ITEMS = S::items, VEC = S::vec, WARPS = S::warps, STEP = S::step;
  constexpr uint64_t NONE = ~uint64_t(0);
  constexpr int AHEAD = S::ahead, STAGES = S::stages;
  __shared__ uint32_t s_heads[WARPS][STEP / 32];
  extern __shared__ __align__(128) unsigned char warp_stages[]; /* [WARPS][STAGES][STEP] of T */
  __shared__ P s_agg[WARPS];
  __shared__ uint64_t s_lead_segment[WARPS];
  __shared__ P s_level_fold[LOOKBACK_MAX_LEVELS];
  /* The search's last reads (first_beyond_two_reads), for 4-byte types:
   * for 8-byte ones 4 KiB more a block would shrink L1 (two blocks an SM
   * fill 196 KiB of shared memory to the last 256 bytes). */
  constexpr bool CACHE = !S::wide;
  /* The search before n is known, for 4-byte types: with 8-byte ones (and
   * blocks by index) ptxas spills and f64 runs slower. */
  constexpr bool SPECULATE = !S::wide;
  __shared__ int64_t s_offsets_cache[WARPS][CACHE ? 64 : 1];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint64_t w = uint64_t(block) * WARPS + warp;
  /* n = offsets[nseg], and offsets[0] (warp 0's offset before its window,
   * and what the other warps' searches start from), do not depend on the
   * chunk: both are read first. */
  const int64_t n_raw = offsets[nseg];
  const int64_t offset0_raw = offsets[0];

  uint32_t *heads = s_heads[warp];
  T *const stages = reinterpret_cast<T *>(warp_stages) + size_t(warp) * STAGES * STEP;
  constexpr int CHUNKS = ITEMS / VEC; /* 16-byte chunks a lane */
  /* A lane's chunks: where each goes in a stage, and where it comes
   * from in a step (fixed for the chunk). */
  uint32_t chunk_dst[CHUNKS], chunk_src[CHUNKS];
#pragma unroll
  for (int c = 0; c < CHUNKS; c++) {
    const int chunk = c * 32 + lane;
    chunk_src[c] = uint32_t(chunk * VEC);
    chunk_dst[c] = uint32_t(swizzled<VEC>(chunk * VEC));
  }
  uint32_t own_items[CHUNKS]; /* where this lane's items sit in a stage */
#pragma unroll
  for (int c = 0; c < CHUNKS; c++) own_items[c] = uint32_t(swizzled<VEC>(lane * ITEMS + c * VEC));
  const T *fetch_src = nullptr; /* the next step to fetch */
  uint64_t fetch_left = 0;      /* its items up to the chunk's end */
  int fetch_stage = 0, stage = 0;
  /* The next step's values into its stage (swizzled as buf reads them),
   * 16 bytes a copy. The warp's copies cover whole 512-byte spans (lane
   * l copies chunks l, l + 32, ...: whole sectors a copy instruction), and
   * a lane reads back other lanes' copies after a __syncwarp. Chunks past
   * the end are not copied: their lanes load plainly. One commit group a step, copies or not. */
  auto fetch = [&]() {
    if (vector_ok && fetch_left > 0) {
      T *const dst = stages + fetch_stage * STEP;
      if (fetch_left >= uint64_t(STEP)) {
#pragma unroll
        for (int c = 0; c < CHUNKS; c++)
          copy_async(reinterpret_cast<vec16<T, VEC> *>(dst + chunk_dst[c]),
                     reinterpret_cast<const vec16<T, VEC> *>(fetch_src + chunk_src[c]));
      } else {
#pragma unroll
        for (int c = 0; c < CHUNKS; c++)
          if (chunk_src[c] + VEC <= fetch_left)
            copy_async(reinterpret_cast<vec16<T, VEC> *>(dst + chunk_dst[c]),
                       reinterpret_cast<const vec16<T, VEC> *>(fetch_src + chunk_src[c]));
      }
    }
    copy_async_commit();
    fetch_src += STEP;
    fetch_left = fetch_left > uint64_t(STEP) ? fetch_left - STEP : 0;
    fetch_stage = fetch_stage + 1 == STAGES ? 0 : fetch_stage + 1;
  };
  /* This warp's chunk [c0, c1) (chunk 0 also when n = 0: it writes the
   * empty segments), and its window of end events [lo, hi) by the search,
   * with what the search read near lo. Where n gives each warp one step at
   * most (steps <= grid_warps), the chunks are [w STEP, (w + 1) STEP) cut
   * at n: the warp assumes so and starts searching for that chunk's bounds
   * cut at n_max while n is on its way, then its copies (behind the
   * search's first probes, not in front of them; a warp whose chunk lies
   * past n stops there, copies and searches nothing more); offsets are compared
   * clamped into [0, n_max], not [0, n], which gives the same answer
   * wherever one is used (for a bound below n; at n the window runs to
   * nseg). Where n is larger it gives up after the first round and starts
   * again with chunks of `per` steps, the copies after the search, whose
   * probes would queue behind every warp's first steps. */
  uint64_t lo = 1, hi = nseg + 1, cache_base = NONE;
  int64_t below_lo = offset0_raw;
  int64_t *const cache = CACHE ? s_offsets_cache[warp] : nullptr;
  auto fetch_ahead = [&]() {
#pragma unroll
    for (int k = 0; k < AHEAD; k++) fetch();
  };
  auto one_step_each = [&](uint64_t n) { return (n + STEP - 1) / STEP <= grid_warps; };
  uint64_t c0 = w * STEP < n_max ? w * STEP : n_max;
  uint64_t c1 = c0 + STEP < n_max ? c0 + STEP : n_max;
  fetch_src = in + c0;
  fetch_left = c1 - c0;
  bool fetched = false;
  if (SPECULATE && (c0 < c1 || w == 0))
    first_beyond_two_reads(offsets, 1, nseg + 1, nseg, n_max, c0, c1, lane, offset0_raw, &lo, &hi, &below_lo, cache,
                           &cache_base, [&]() {
                             const uint64_t n = clamp_offset(n_raw, n_max);
                             if (direct(n)) return false;
                             if (!one_step_each(n)) return false;
                             fetch_left = c0 < n ? (c1 < n ? c1 : n) - c0 : 0; /* the chunk cut at n */
                             fetch_ahead();
                             fetched = true;
                             return c0 < n || w == 0; /* else no chunk: no window either */
                           });
  const uint64_t n = clamp_offset(n_raw, n_max);
  if (direct(n)) return true;
  bool malformed = n_raw < 0 || uint64_t(n_raw) > n_max;
  if (SPECULATE && one_step_each(n)) {
    c0 = c0 < n ? c0 : n;
    c1 = c1 < n ? c1 : n;
  } else {
    const uint64_t steps = (n + STEP - 1) / STEP;
    const uint64_t per = steps > grid_warps ? (steps + grid_warps - 1) / grid_warps : 1;
    c0 = w * per < steps ? w * per * STEP : n;
    c1 = c0 + per * STEP < n ? c0 + per * STEP : n;
    fetch_src = in + c0;
    fetch_left = c1 - c0;
    lo = 1, hi = nseg + 1, cache_base = NONE, below_lo = offset0_raw;
    if (c0 < c1 || w == 0)
      first_beyond_two_reads(offsets, 1, nseg + 1, nseg, n_max, c0, c1, lane, offset0_raw, &lo, &hi, &below_lo, cache,
                             &cache_base, []() { return true; });
  }
  if (!fetched) fetch_ahead();
  __syncwarp(); /* the cache, seen by every lane */

  P carry = Op::neutral(); /* the chunk's fold so far */
  T lead = Base::neutral();
  uint64_t lead_segment = NONE; /* held by lane 0 */
  if (c0 < c1 || w == 0) {
    const uint64_t first = w == 0 ? 1 : lo, end = c1 >= n ? nseg + 1 : hi;
    uint64_t cur = first;
    int64_t prev_raw = w == 0 ? offset0_raw : below_lo; /* the offset before the cursor */
    if (w == 0 && prev_raw != 0) malformed = true;
    bool head_at_start = clamp_offset(prev_raw, n) == c0;
    /* The position of the window's next event (offsets[cur], clamped), or
     * ~0 past the window; 0 until known. A step before it has no event:
     * no starts inside, no results, so its scan is a plain fold. */
    uint64_t next_q = 0;
    for (uint64_t t0 = c0;; t0 += STEP) {
      const uint64_t t1 = t0 + STEP < c1 ? t0 + STEP : c1;
      const bool last = t1 == c1;
      T *const buf = stages + stage * STEP; /* the values, then the inclusive scan */
      stage = stage + 1 == STAGES ? 0 : stage + 1;
      copy_async_wait<AHEAD - 1>();
      __syncwarp(); /* the step's copies, seen by every lane */
      fetch(); /* into the previous step's stage, free since its last __syncwarp */
      T x[ITEMS];
      const uint64_t base = t0 + uint64_t(lane) * ITEMS;
      if (lane_copies<ITEMS>(base, c1, vector_ok)) {
#pragma unroll
        for (int c = 0; c < CHUNKS; c++) {
          const vec16<T, VEC> v = *reinterpret_cast<const vec16<T, VEC> *>(buf + own_items[c]);
#pragma unroll
          for (int j = 0; j < VEC; j++) x[c * VEC + j] = v.v[j];
        }
      } else {
        load_lane_items<T, Base, ITEMS>(in, base, c1, x);
      }

      if (!last && next_q > t1) {
        /* No event: the step's fold (a fixed tree) onto the carry, which
         * restarts where the step starts a segment. */
        T pairs[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; j++) pairs[j] = x[j];
#pragma unroll
        for (int gap = 1; gap < ITEMS; gap *= 2)
#pragma unroll
          for (int j = 0; j + gap < ITEMS; j += 2 * gap) pairs[j] = Base::apply(pairs[j], pairs[j + gap]);
        const T total = warp_reduce<Base>(pairs[0]);
        carry = head_at_start ? P{total, 1u} : P{Base::apply(carry.value, total), carry.head};
        head_at_start = false;
        continue;
      }

      /* The step's events: its starts as bits (the last step takes every
       * event left in the window: any beyond c1 is malformed). The first
       * round's offsets are kept for the results below. */
      if (lane < STEP / 32) heads[lane] = lane == 0 && head_at_start ? 1u : 0u;
      __syncwarp();
      const uint64_t step_first = cur;
      const int64_t step_prev_raw = prev_raw;
      int64_t first_raw = 0, first_before = 0;
      for (bool round0 = true;; round0 = false) {
        const uint64_t i = cur + lane;
        const bool inside = i < end;
        int64_t raw = 0;
        if (CACHE && cur >= cache_base && cur - cache_base <= 32) { /* (never with cache_base NONE) */
          /* The 32 entries from cur, as the search's last round read them. */
          if (inside) raw = cache[cur - cache_base + lane];
        } else if (inside) {
          raw = int64_t(offsets[i]);
        }
        int64_t before = ::__shfl_up_sync(FULL_MASK, raw, 1);
        if (lane == 0) before = prev_raw;
        if (round0) {
          first_raw = raw;
          first_before = before;
        }
        if (inside && (raw < before || raw < 0 || uint64_t(raw) > n)) malformed = true;
        const uint64_t q = raw < 0 ? 0 : uint64_t(raw) > n ? n : uint64_t(raw);
        const unsigned taken = __ballot_sync(FULL_MASK, inside && (last || q <= t1));
        const int count = taken == FULL_MASK ? 32 : __ffs(~taken) - 1;
        if (lane < count && q > t0 && q < t1) atomicOr(&heads[(q - t0) / 32], 1u << ((q - t0) % 32));
        if (count > 0) prev_raw = ::__shfl_sync(FULL_MASK, raw, count - 1);
        cur += count;
        if (count < 32) {
          const uint64_t q_next = ::__shfl_sync(FULL_MASK, q, count & 31);
          next_q = cur < end ? q_next : ~uint64_t(0);
          break;
        }
      }
      const uint64_t prev_q = prev_raw < 0 ? 0 : uint64_t(prev_raw) > n ? n : uint64_t(prev_raw);
      head_at_start = !last && prev_q == t1;
      __syncwarp();

      /* The scan of (value, start) pairs, each item's inclusive value to buf. */
      const uint32_t bits = heads[lane * ITEMS / 32] >> (lane * ITEMS % 32);
      T fold = Base::neutral();
      uint32_t any = 0;
#pragma unroll
      for (int k = 0; k < ITEMS; k++) {
        const bool h = (bits >> k) & 1u;
        fold = h ? x[k] : Base::apply(fold, x[k]);
        any |= h;
      }
      const P incl = warp_inclusive_scan<Op, false>(P{fold, any}, lane);
      P run = Op::apply(carry, warp_exclusive_from_inclusive<Op, false>(incl, lane));
      carry = Op::apply(carry, warp_last<false>(incl));
      T v = run.value;
#pragma unroll
      for (int c = 0; c < CHUNKS; c++) {
        vec16<T, VEC> y;
#pragma unroll
        for (int k = 0; k < VEC; k++) {
          const int j = c * VEC + k;
          v = (bits >> j) & 1u ? x[j] : Base::apply(v, x[j]);
          y.v[k] = v;
        }
        *reinterpret_cast<vec16<T, VEC> *>(buf + own_items[c]) = y;
      }
      __syncwarp();

      /* Each event's result: segment i - 1 ends before offsets[i]. The
       * first round's offsets from above; later rounds read them again. */
      int64_t round_prev_raw = step_prev_raw;
      for (uint64_t k = step_first; k < cur; k += 32) {
        const uint64_t i = k + lane;
        int64_t raw = first_raw, before = first_before;
        if (k != step_first) {
          raw = i < cur ? int64_t(offsets[i]) : 0;
          before = ::__shfl_up_sync(FULL_MASK, raw, 1);
          if (lane == 0) before = round_prev_raw;
        }
        round_prev_raw = ::__shfl_sync(FULL_MASK, raw, 31);
        if (i < cur) {
          const uint64_t q = raw < 0 ? 0 : uint64_t(raw) > n ? n : uint64_t(raw);
          const uint64_t a = before < 0 ? 0 : uint64_t(before) > n ? n : uint64_t(before);
          if (a >= q || q <= t0 || q > t1) {
            epilogue(i - 1, Base::identity(), true); /* empty (or malformed) */
          } else {
            const T r = buf[swizzled<VEC>(int(q - 1 - t0))];
            if (i == first && a < c0) {
              lead = r; /* lane 0: its fold before c0 is the other chunks' */
              lead_segment = i - 1;
            } else {
              epilogue(i - 1, r, false);
            }
          }
        }
      }
      __syncwarp(); /* buf and heads are free for the next steps */
      if (last) break;
    }
  }
  copy_async_wait<0>(); /* the groups past the chunk: empty, or a step copied for a chunk past n */
  if (__any_sync(FULL_MASK, malformed) && lane == 0) *bad = 1;
  if (lane == 0) {
    s_agg[warp] = carry;
    s_lead_segment[warp] = lead_segment;
  }
  __syncthreads();

  /* The block's warps in order: each lead's fold before its chunk, and
   * whether one reaches back before the block. */
  P before = Op::neutral(), total = Op::neutral();
  bool needs_prefix = false;
#pragma unroll
  for (int k = 0; k < WARPS; k++) {
    if (k == warp) before = total;
    if (s_lead_segment[k] != NONE && !total.head) needs_prefix = true;
    total = Op::apply(total, s_agg[k]);
  }
  if (lane == 0 && lead_segment != NONE && before.head) epilogue(lead_segment, Base::apply(before.value, lead), false);
  /* Published, and the prefix where a lead needs it: from the nearest of
   * the 32 blocks before where a segment starts, waiting only for the
   * blocks from there on (publish_and_prefix; mostly the one block before). */
  const P prefix = lb.tiles > 1 ? publish_and_prefix<Op, S>(lb, block, total, needs_prefix, s_level_fold, warp, lane)
                                : Op::neutral();
  if (lane == 0 && lead_segment != NONE && !before.head)
    epilogue(lead_segment, Base::apply(Op::apply(prefix, before).value, lead), false);
  return false;
}

template <typename T, gpu_op OP, typename Epilogue>
__global__ void __launch_bounds__(warps_reduce_shape<T>::threads, warps_reduce_shape<T>::min_blocks)
    segreduce_warps(const T *in, const int64_t *offsets, uint64_t nseg, uint64_t n_max, uint64_t grid_warps,
                    bool vector_ok, lookback_args lb, unsigned *bad, Epilogue epilogue) {
  using S = warps_reduce_shape<T>;
  __shared__ uint32_t s_ticket;
  const uint32_t block = S::by_index ? blockIdx.x : take_tile(lb, &s_ticket);
  segreduce_warps_block<T, OP>(in, offsets, nseg, n_max, grid_warps, vector_ok, lb, block, bad, epilogue,
                               [](uint64_t) { return false; });
}

}  // namespace gp
