/*
 * Segmented reduce over offsets for SpMV (through Values and Epilogue;
 * gpu_segreduce itself runs segreduce_warps.cuh), and forward segmented
 * scans over offsets or head flags, by runs of tiles: the
 * block with ticket b of a grid of G blocks takes the tiles
 * [b T / G, (b + 1) T / G) one after another, carrying the open segment's
 * fold from tile to tile in shared memory, so no tile waits for another
 * block. Only the segment that reaches into a run from before (its "lead":
 * the run's elements before its first segment start) needs anything from
 * other blocks: each block publishes its run's fold once, at its end,
 * through the scan's look-back (one entry a block, not a tile), and then
 * finishes that one segment with its prefix:
 *   - reduce: the lead segment's fold within the run is kept, and its
 *     result written once the prefix is known;
 *   - scan by head flags: the run's pass skips the lead's outputs; after
 *     the look-back the lead's tiles are scanned again from the input with
 *     the prefix, and the lead written (one more read of those tiles);
 *   - scan over offsets: the lead's outputs are written without the
 *     prefix, then read back and completed (a segment longer than a run is
 *     written twice: runs_grid, segscan_launch.cuh, sends long mean
 *     segments to segscan_blocked).
 *
 * Why: segscan_blocked's per-tile costs (a ticket, a published aggregate, a
 * look-back wait, and for offsets two dependent loads, tile_first[] then
 * the offsets) set its time. By runs no tile waits for another block:
 * faster for reduce, for SpMV on large matrices and for scans over offsets
 * and by flags wherever a block's run holds two tiles or more
 * (bench/NOTES.md).
 *
 * Per tile, as segscan_blocked: load (and for SpMV the columns, then the
 * products; plain values come by cp.async one or two tiles ahead, see
 * runs_prefetch, and in scans the offsets too, runs_stage_offsets), the
 * start bits, transpose to blocked; scan_in_run scans the tile alone
 * with the run's fold as its prefix (scan_tile's steps, the start flags as
 * a bit mask a thread).
 * Reduce: the results go to shared memory and each segment ending in the
 * tile takes its last element's (gather_segment_results), except the lead
 * one. Scan: transposed back and stored.
 *
 * Results: the same fixed order on every run for a given grid (the
 * device's resident blocks, fixed for a device), so floats give the same
 * bits run to run.
 *
 * The kernel (at the end) is a short sequence of steps, seg_run's member
 * functions: the run's state (start_shared_state), its first copies
 * (start_copies), each tile (run_tile: tile_heads, fetch_ahead_of,
 * scan_in_run, write_tile), then the look-back and the lead (finish_lead).
 */
#pragma once

#include "segmented/device/segscan_blocked.cuh"
#include "segmented/segmented_tuning.h"

namespace gp {

/* store_tile's items [from, valid) only (scalar stores): a scan's run
 * pass around its lead. */
template <typename Shape, typename T>
__device__ inline void store_tile_range(T *tile, uint32_t from, uint32_t valid, int warp, int lane,
                                        const T (&x)[Shape::rows][Shape::vec]) {
#pragma unroll
  for (int r = 0; r < Shape::rows; r++)
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) {
      const uint32_t i = item_offset<Shape>(warp, lane, r) + k;
      if (i >= from && i < valid) tile[i] = x[r][k];
    }
}

/* Step 5 of scan_in_run: each item from its thread's prefix acc, restarting
 * at its starts; v becomes the outputs (exclusive: the identity where a
 * segment starts). Returns the last item's inclusive value, and with CHECK
 * item `last`'s into *last_value (a tile's last valid item, if here). */
template <bool CHECK, bool EXCL, typename Base, typename T, int ITEMS>
__device__ inline T scan_from_prefix(T (&v)[ITEMS], uint32_t bits, T acc, uint32_t last, T *last_value) {
#pragma unroll
  for (int j = 0; j < ITEMS; j++) {
    const bool h = (bits >> j) & 1u;
    const T next = h ? v[j] : Base::apply(acc, v[j]);
    if (CHECK && uint32_t(j) == last) *last_value = next;
    v[j] = EXCL ? (h ? Base::identity() : acc) : next;
    acc = next;
  }
  return acc;
}

/*
 * A tile of a run scanned alone, with the run's fold before it
 * (sh.level_fold[0]) as its prefix: v holds this thread's ITEMS
 * consecutive items from o and becomes their outputs; bit j of `bits` says
 * item j starts a segment. Also the run's fold through the tile to *carry,
 * from the thread holding its last valid item: that item's inclusive pair.
 *
 * These are scan_tile's steps for pairs (one row of ITEMS pairs a thread;
 * a look-back of "two tiles" whose one level is already folded), the same
 * folds of values in the same order, so the same bits; only the flags are
 * kept as the thread's bit mask, not one flag a pair. Why: with a flag in
 * every pair (and the exclusive choice, the carry's search and the
 * restarts item by item) about half of a warp's instructions a tile went
 * here (bench/NOTES.md). Uniform across the block; one barrier.
 */
template <typename T, gpu_op OP, typename Blocked>
__device__ inline void scan_in_run(T (&v)[Blocked::items], uint32_t bits, uint32_t tile, uint32_t valid, bool excl,
                                   uint32_t o, tile_scan_shared<seg_pair<T>, Blocked::warps> &sh, seg_pair<T> *carry,
                                   int warp, int lane) {
  using Pair = seg_pair<T>;
  using Op = seg_op<T, OP>;
  using Base = scan_op<T, OP>;
  constexpr int ITEMS = Blocked::items, NW = Blocked::warps;
  static_assert(ITEMS <= 32, "a thread's start bits fit a word");
  constexpr uint32_t ITEM_BITS = ITEMS == 32 ? ~0u : (1u << ITEMS) - 1;
  bits &= ITEM_BITS;
  /* 3. The thread's fold, the warp's scan of the folds, and each warp's
   * scan of the warps' totals. */
  T fold = v[0];
#pragma unroll
  for (int j = 1; j < ITEMS; j++) fold = (bits >> j) & 1u ? v[j] : Base::apply(fold, v[j]);
  const Pair incl = warp_inclusive_scan<Op, false>(Pair{fold, bits != 0}, lane);
  const Pair lane_excl = warp_exclusive_from_inclusive<Op, false>(incl, lane);
  const Pair warp_total = Op::apply(Op::neutral(), warp_last<false>(incl)); /* a shuffle: every lane */
  if (lane == 0) sh.warp_total[warp] = warp_total;
  __syncthreads();
  const Pair wincl = warp_inclusive_scan<Op, false>(lane < NW ? sh.warp_total[lane] : Op::neutral(), lane);
  const Pair warp_prefix = __shfl_sync(FULL_MASK, warp_exclusive_from_inclusive<Op, false>(wincl, lane), warp);
  /* 4. The prefix: the run's fold, as combine_prefix_levels folds one level. */
  const Pair prefix = Op::apply(Op::neutral(), sh.level_fold[0]);
  /* 5. The thread's prefix (scan_tile's thread base, row prefix and lane
   * prefix), then its items. */
  const Pair acc = Op::apply(Op::apply(Op::apply(prefix, warp_prefix), Op::neutral()), lane_excl);
  const uint32_t last = valid - 1 - o; /* the tile's last valid item, where it is this thread's */
  /* The bits again, as a value the compiler cannot see is `bits`: else it
   * keeps step 3's tests of them, 16 predicates, packed bit by bit into a
   * register (two instructions an item) to test them again here. */
  asm("mov.b32 %0, %0;" : "+r"(bits));
  if (valid == uint32_t(Blocked::tile_items)) { /* uniform: the last thread holds the last item */
    const T end = excl ? scan_from_prefix<false, true, Base>(v, bits, acc.value, 0, (T *)nullptr)
                       : scan_from_prefix<false, false, Base>(v, bits, acc.value, 0, (T *)nullptr);
    if (threadIdx.x == Blocked::threads - 1) *carry = Pair{end, acc.head | (bits != 0)};
  } else {
    T at_last = acc.value;
    if (excl) scan_from_prefix<true, true, Base>(v, bits, acc.value, last, &at_last);
    else scan_from_prefix<true, false, Base>(v, bits, acc.value, last, &at_last);
    if (last < uint32_t(ITEMS)) *carry = Pair{at_last, acc.head | ((bits & ((2u << last) - 1)) != 0)};
  }
  /* An exclusive scan's first output is the identity, not the padding's neutral. */
  if (excl && tile == 0 && threadIdx.x == 0) v[0] = Base::identity();
}

/* Whether the offsets of a tile's window [first, last] keep 0 =
 * offsets[0] <= ... <= offsets[nseg] = n (offset_in_order, on the window's
 * copy: the offset before first is in it too); *bad = 1 where not. */
template <typename Offset>
__device__ inline void check_window(const tile_offsets<Offset> &off, uint64_t nseg, unsigned *bad) {
  const auto raw = off.raw();
  for (uint64_t s = off.first + threadIdx.x; s <= off.last; s += blockDim.x)
    if (!offset_in_order(raw, s, nseg, off.n)) *bad = 1;
}

/* The run of tiles of block b among g: [first, end). */
__host__ __device__ inline uint32_t run_start(uint32_t tiles, uint32_t b, uint32_t g) {
  return uint32_t(uint64_t(tiles) * b / g);
}

/* The epilogue of a run: every segment goes to the caller's epilogue except
 * `span`, the one that reaches into the run from before, whose fold within
 * the run is kept in *kept until the run's prefix is known. */
template <typename T, typename Epilogue> struct run_results {
  Epilogue inner;
  uint64_t span; /* ~0: none */
  T *kept;
  unsigned *kept_set;
  __device__ void operator()(uint64_t j, T v, bool empty) const {
    if (j == span) {
      *kept = v;
      *kept_set = 1;
    } else {
      inner(j, v, empty);
    }
  }
};

/* Plain values (segmented reduce; not SpMV's products, whose columns lead
 * to x) come by cp.async into shared stages, ahead of the tile being
 * reduced or scanned. */
template <typename Values> constexpr bool runs_prefetch = !Values::transforms;
/* In scans of 4-byte elements, each tile's offsets (those of its segments
 * and the one before, up to RUNS_OFFSETS of them) come by cp.async with
 * its values, ahead of the tile being scanned, and tile_first[] is read a
 * tile before that, so no global load is left on a tile's path (else
 * tile_first[], then the offsets it leads to: two round trips a tile). A
 * tile with more offsets reads them from global memory. Reduce and SpMV
 * keep plain loads of the offsets: they gain nothing from the stages. */
template <typename T, bool REDUCE>
constexpr bool runs_stage_offsets = !REDUCE && sizeof(T) <= seg_runs_tuning::offset_stage_element_bytes;
/* How many tiles ahead the copies run (stages: one more), and how many
 * offsets a tile's stage holds. Scans: one tile ahead, which leaves room
 * for SEG_RUNS_OFFSETS offsets (segments of 4 elements: about 2048 a
 * tile, 16 KiB). Reduce: two ahead (three value stages). */
template <bool REDUCE>
constexpr int runs_ahead = REDUCE ? seg_runs_tuning::reduce_ahead : seg_runs_tuning::scan_ahead;
template <bool REDUCE> constexpr int runs_stages = runs_ahead<REDUCE> + 1;
constexpr int RUNS_OFFSETS = SEG_RUNS_OFFSETS;
/* Dynamic shared memory of seg_runs: the value stages, then the offset stages. */
template <typename T, typename Shape, typename Values, bool REDUCE> constexpr size_t runs_value_stages_bytes() {
  return runs_prefetch<Values> ? runs_stages<REDUCE> * Shape::tile_items * sizeof(T) : 0;
}
/* Scans by head flags write the lead once: the run's pass skips its items,
 * which are scanned again from the input after the look-back (one more
 * read of them, against a read and a write for the fix-up). A segment
 * longer than a run then costs one more read, not two passes. Over offsets
 * the same costs spills in the 4-byte instances, and long mean segments go
 * to segscan_blocked anyway (the plan): they keep the fix-up. */
template <typename Source> constexpr bool runs_lead_once = !offsets_source<Source>;
template <typename T, typename Source, bool REDUCE>
constexpr bool runs_offset_stages =
    offsets_source<Source> && (runs_stage_offsets<T, REDUCE> || (!REDUCE && source_offsets<Source>::staged));
template <typename T, typename Shape, typename Values, typename Source, bool REDUCE> constexpr size_t runs_smem() {
  return runs_value_stages_bytes<T, Shape, Values, REDUCE>() +
         (runs_offset_stages<T, Source, REDUCE>
              ? runs_stages<REDUCE> * RUNS_OFFSETS * sizeof(offset_type<Source>)
              : 0);
}

/* Scans by runs of 8-byte elements with short segments (the instance with
 * offset stages, heads_from_offsets_staged) need no table and no launch
 * for it: each block finds its run's first and end entries,
 * tile_first[first] and tile_first[end], by the search every block makes
 * the same way (table_entries_by_warp), and walks the rest. Each tile
 * stages src.walk_window offsets from the one before its first segment
 * (or up to the run's end entry), and its last segment, the next tile's
 * first, is the first staged offset at or past the tile's end, found as
 * its start bits are set (walk_heads). A tile whose segments do not fit
 * its window finds that entry by a search in global memory and sets its
 * bits from there. The windows of a run's tiles still run from its first
 * entry to its end one, and neighbouring runs agree on the entry between
 * them, so the windows of all tiles cover [0, nseg] for any offsets and
 * the scan checks every offset (check_window). 4-byte scans walk (a second
 * instance of theirs) only where a run holds at most SEG_RUNS_WALK_RUNS_4
 * tiles, and in runs of two tiles where the resident grid cannot take two
 * a block (the plan): longer runs lose more to the walk's spills than the
 * table costs. */
template <typename T> constexpr bool runs_walk_4 = sizeof(T) == 4;

/* WALK's search past a window that overflowed (rare): the first s in
 * [lo, hi) whose offset reaches c, or hi, into *found by warp 0 (call from
 * all its lanes). Not inlined: its registers stay out of the tile's loop. */
template <typename Offset>
__device__ __noinline__ void walk_search_far(const Offset *offsets, uint64_t lo, uint64_t hi, uint64_t n, uint64_t c,
                                             uint64_t *found) {
  const uint64_t f = first_beyond(offsets, lo, hi, n, c - 1, int(threadIdx.x & 31));
  if ((threadIdx.x & 31) == 0) *found = f;
}

/* A walking tile's start bits (stage_offset_heads over every staged
 * offset: those past the tile's end set none) and the next tile's first
 * segment: the least staged s >= first whose offset reaches tile_end while
 * the one before does not (s = first where its own does), by atomicMin
 * into *s_next (~0: none staged). For well-formed offsets that is
 * tile_first[tile + 1] whenever the stage holds it. Uniform across the
 * block; contains barriers. */
template <typename Shape, typename Offset>
__device__ inline void walk_heads(const tile_offsets<Offset> &staged, stage_heads<Shape> &sh, uint64_t base,
                                  uint32_t valid, uint64_t tile_end, unsigned long long *s_next) {
  for (int w = threadIdx.x; w < Shape::tile_items / 32; w += Shape::threads) sh.bits[w] = 0;
  if (threadIdx.x == 0) *s_next = ~0ull;
  __syncthreads();
  for (uint64_t s = staged.first + threadIdx.x; s <= staged.last; s += Shape::threads) {
    const uint64_t o = staged[s];
    if (o >= base && o < base + valid) atomicOr(&sh.bits[(o - base) >> 5], 1u << ((o - base) & 31));
    if (o >= tile_end && (s == staged.first || staged[s - 1] < tile_end)) atomicMin(s_next, s);
  }
  __syncthreads();
}

/* 4-byte scans over offsets by runs whose segments are long (a mean above
 * SEG_RUNS_CHECK_MEAN: the table's launch would check their offsets) and
 * whose runs are too long to walk (more than SEG_RUNS_WALK_RUNS_4 tiles,
 * at most RUNS_TABLE_MAX) need no launch for the table: each block builds
 * its run's entries in shared memory (build_run_table) from the offsets
 * its run spans, checks those offsets, and writes the entries into the
 * table's memory, where its tile loop reads them as it reads the launch's.
 * Why: the launch's searches are chains of about 20 dependent loads; a
 * block's entries take two searches by half-warps and one pass over its
 * offsets, while its first tile's values load. Entries read from shared
 * memory in the loop instead spill in the 4-byte instances. */
constexpr uint32_t RUNS_TABLE_MAX = SEG_RUNS_TABLE_MAX; /* tiles a run */
template <typename T> constexpr bool runs_own_table = runs_stage_offsets<T, false>;

/* Offsets s - 1 and s as one thread read them, indexed by segment as
 * offset_in_order reads them. */
struct offset_pair_view {
  int64_t prev, cur;
  uint64_t s;
  __device__ int64_t operator[](uint64_t i) const { return i == s ? cur : prev; }
};

/*
 * A run's table, table[t - first] = tile_first[t] for t in [first, end],
 * from e0 = tile_first[first] and e1 = tile_first[end] (table_entries_by_warp;
 * nseg past the last tile), and the check of offsets [e0, e1]. For
 * well-formed offsets o, tile t's entry is the s with o[s - 1] < t * TILE
 * <= o[s] (tile_first.cuh), and first < t < end puts it in [e0, e1], so
 * each thread takes segments s of that window and writes the tiles whose
 * start lies in (o[s - 1], o[s]]: every entry once, the one the table's
 * launch would write. Neighbouring runs agree on the entry between them
 * (the same search), so the windows of all runs cover [0, nseg] and every
 * offset is checked, as the table's launch does.
 *
 * Malformed offsets may leave an entry unwritten or written twice; the
 * running maximum afterwards, clamped to e1, keeps the entries in [e0, e1]
 * and non-decreasing, so the tiles' ranges add up to at most e1 - e0 +
 * end - first a run, as with the table (tile_first.cuh). A window holds
 * e1 - e0 + 1 offsets whatever the offsets; the windows of all runs, nseg
 * + runs. Uniform across the block; contains barriers.
 */
template <typename Shape, typename Offset>
__device__ inline void build_run_table(const heads_from_offsets<Offset> &src, uint32_t first, uint32_t end, uint64_t n,
                                       uint64_t e0, uint64_t e1, uint64_t *table) {
  constexpr uint64_t TILE = Shape::tile_items;
  constexpr int IN_FLIGHT = 4; /* a thread's offsets in flight at once */
  const uint32_t r = end - first;
  for (uint32_t i = threadIdx.x; i <= r; i += Shape::threads) table[i] = i == 0 ? e0 : i == r ? e1 : 0;
  __syncthreads();
  const uint64_t last = e1 < src.nseg ? e1 : src.nseg;
  for (uint64_t s0 = e0 + threadIdx.x; s0 <= last; s0 += uint64_t(IN_FLIGHT) * Shape::threads) {
    int64_t prev[IN_FLIGHT], cur[IN_FLIGHT];
#pragma unroll
    for (int k = 0; k < IN_FLIGHT; k++) {
      const uint64_t s = s0 + uint64_t(k) * Shape::threads;
      cur[k] = s <= last ? int64_t(src.offsets[s]) : 0;
      prev[k] = s <= last && s > 0 ? int64_t(src.offsets[s - 1]) : 0;
    }
#pragma unroll
    for (int k = 0; k < IN_FLIGHT; k++) {
      const uint64_t s = s0 + uint64_t(k) * Shape::threads;
      if (s > last) continue;
      if (!offset_in_order(offset_pair_view{prev[k], cur[k], s}, s, src.nseg, n)) *src.bad = 1;
      /* Tiles t with o[s - 1] < t * TILE <= o[s], within (first, end). */
      uint64_t t = s == 0 ? 0 : clamp_offset(prev[k], n) / TILE + 1;
      if (t <= first) t = first + 1;
      const uint64_t top = clamp_offset(cur[k], n) / TILE;
      for (; t <= top && t < end; t++)
        atomicMax(reinterpret_cast<unsigned long long *>(&table[t - first]), static_cast<unsigned long long>(s));
    }
  }
  __syncthreads();
  if (threadIdx.x < 32) { /* the running maximum, clamped to e1: a warp over the r + 1 entries */
    const uint32_t lane = threadIdx.x, per = (r + 1 + 31) / 32;
    uint64_t m = 0;
    for (uint32_t k = 0; k < per; k++) {
      const uint32_t i = lane * per + k;
      if (i <= r && table[i] > m) m = table[i];
    }
    for (int d = 1; d < 32; d <<= 1) {
      const uint64_t o = ::__shfl_up_sync(0xffffffffu, static_cast<unsigned long long>(m), d);
      if (lane >= uint32_t(d) && o > m) m = o;
    }
    uint64_t run = ::__shfl_up_sync(0xffffffffu, static_cast<unsigned long long>(m), 1);
    if (lane == 0) run = 0;
    for (uint32_t k = 0; k < per; k++) {
      const uint32_t i = lane * per + k;
      if (i > r) break;
      if (table[i] > run) run = table[i];
      table[i] = run < e1 ? run : e1;
    }
  }
  __syncthreads();
}

/*
 * A block's run, as the kernel below walks it: the launch's arguments, the
 * run's tiles [first, end), the block's shared memory, and what its steps
 * hand over. The steps are the member functions, each inlined into the
 * kernel. Every field refers to the kernel's own argument, local or shared
 * variable, as a lambda's captures would: copies into the struct were
 * promoted to registers in another order and compiled to other code
 * (registers and spills change with it in the 4-byte instances).
 * REDUCE: each segment's result to the epilogue (out, exclusive unused);
 * otherwise the inclusive or exclusive scan to out (plain values; in == out
 * allowed: a block reads only its own run, ahead of its writes).
 */
template <typename T, gpu_op OP, typename Shape, typename Source, bool REDUCE, typename Values, typename Epilogue>
struct seg_run {
  using Offset = offset_type<Source>;
  using Pair = seg_pair<T>;
  using Op = seg_op<T, OP>;
  using Base = scan_op<T, OP>;
  using Blocked = blocked_shape<Shape>;
  static constexpr bool OFFSETS = offsets_source<Source>;
  static constexpr int ITEMS = Shape::items;
  static constexpr bool PREFETCH = runs_prefetch<Values>;
  static constexpr bool STAGE_OFFSETS = runs_offset_stages<T, Source, REDUCE>;
  static constexpr bool FETCH = PREFETCH || STAGE_OFFSETS;
  /* Offsets staged without a table (the walk): the next tile's first
   * segment comes from this tile's stage, so copies run one tile ahead. */
  static constexpr bool WALK = STAGE_OFFSETS && !REDUCE && source_offsets<Source>::staged;
  /* Whether the block may write its run's entries of src.tile_first itself
   * (runs_own_table), no launch before it having done so. */
  static constexpr bool OWN_TABLE = runs_own_table<T> && OFFSETS && !REDUCE && !source_offsets<Source>::staged;
  /* Scans: how the lead's outputs get the earlier runs' part (top). */
  static constexpr bool LEAD_ONCE = !REDUCE && runs_lead_once<Source>;
  static constexpr int RUNS_AHEAD = runs_ahead<REDUCE>, RUNS_STAGES = runs_stages<REDUCE>;
  static_assert(OFFSETS || !REDUCE, "reduce by offsets");
  static_assert(blocked_tile_fits<T, Shape>());
  static_assert(REDUCE || !Values::transforms, "scans take plain values");
  static_assert(!WALK || runs_ahead<REDUCE> == 1, "the walk stages one tile ahead");

  const T *const &in;
  T *const &out;
  const uint64_t &n;
  const uint32_t &tiles;
  const bool &exclusive, &vector_ok;
  const lookback_args &lb;
  const Source &src;
  const Values &values;
  const Epilogue &epilogue;
  tile_scan_shared<Pair, Shape::warps> &sh;
  stage_heads<Blocked> &s_heads;
  unsigned char *run_stages; /* value stages, then offset stages */
  Offset *offset_stages;
  T *s_buf;                     /* the transpose, then the tile's results (no value stages) */
  uint64_t (*s_segments)[2];    /* STAGE_OFFSETS: each staged tile's [first, last] segments */
  Pair &s_carry;                /* the run's fold so far */
  T &s_kept;                    /* reduce: the lead segment's fold within the run */
  unsigned &s_kept_set;         /* ... once it ended in the run */
  uint64_t &s_lead_segment;     /* the lead's segment (~0: the run has no lead) */
  uint64_t &s_lead_end;         /* the run's first segment start (or n; flags: ~0 until found) */
  uint64_t (&s_run_entries)[2]; /* WALK, own table: tile_first[first], tile_first[end] */
  unsigned long long &s_next;   /* WALK: the next tile's first segment (walk_heads) */
  uint64_t &s_next_far;         /* WALK: the same, searched past a window that overflowed */
  const int &lane, &warp;
  const uint32_t &run, &first, &end;
  const uint64_t &run_base;
  /* Whether this launch walks (no table: src.tile_first NULL) or reads the
   * table (segments too dense for a window: segscan_launch.cuh). */
  const bool &walking;
  /* Whether the block writes its run's entries of src.tile_first itself. */
  const bool &own_table;
  uint64_t &lead_segment; /* s_lead_segment, read by every thread at the first tile */
  /* STAGE_OFFSETS: the table entries of the next tile to fetch (next_a) and
   * of the one after (next_b), each loaded an iteration before its use. */
  uint64_t &next_a, &next_b;

  /* Offsets: the first segment starting at or after the run's first
   * element, s = tile_first[first]; the one before it reaches into the run
   * (the lead) if it starts earlier. Thread 0. */
  __device__ __forceinline__ void set_lead(uint64_t first_entry) {
    if constexpr (OFFSETS) {
      const uint64_t s = first_entry < src.nseg ? first_entry : src.nseg;
      const uint64_t start = s < src.nseg ? clamped_offset(src.offsets, s, n) : n;
      s_lead_segment = s > 0 && start > run_base ? s - 1 : ~uint64_t(0);
      s_lead_end = start;
    }
  }
  /* The shared buffer of a tile: its stage, or the one transpose buffer. */
  __device__ __forceinline__ T *buffer_of(uint32_t tile) {
    return PREFETCH ? reinterpret_cast<T *>(run_stages) + (tile - first) % RUNS_STAGES * Shape::tile_items : s_buf;
  }
  /* tile_first[t], or nseg past the table (as tile_segments reads it). */
  __device__ __forceinline__ uint64_t table(uint32_t t) {
    if constexpr (OFFSETS)
      return t < tiles ? src.tile_first[t] : src.nseg;
    else
      return 0;
  }
  /* The tile's segments [first, last] (tile_segments, from its two table
   * entries) and where its offsets are: its stage, or global memory. */
  __device__ __forceinline__ tile_offsets<Offset> offsets_of(uint32_t tile) {
    if constexpr (STAGE_OFFSETS) {
      const uint32_t k = (tile - first) % RUNS_STAGES;
      const uint64_t a = s_segments[k][0], l = s_segments[k][1], lo = a - (a > 0);
      if (l - lo + 1 <= uint64_t(RUNS_OFFSETS)) return {offset_stages + k * RUNS_OFFSETS, lo, a, l, n};
      return {src.offsets, 0, a, l, n};
    } else if constexpr (OFFSETS) {
      return global_tile_offsets(src, tile, tiles, n);
    } else {
      return {};
    }
  }
  /* Starts bringing tile `tile` of the run (if any) into its stages.
   * PREFETCH: its values, each 16-byte chunk where put_striped would put it
   * (so a warp reads back only its own lanes' copies); partial tiles and
   * unaligned input by plain loads. STAGE_OFFSETS (fetch): offsets[lo,
   * last] of its segments [first, last], from its table entries ta =
   * tile_first[tile] and tb = tile_first[tile + 1], read a tile earlier.
   * One commit group a tile, copies or not. */
  __device__ __forceinline__ void fetch_values(uint32_t tile) {
    if (tile < end) {
      const uint64_t base = uint64_t(tile) * Shape::tile_items;
      if constexpr (PREFETCH) {
        const uint32_t valid = uint32_t(min(n - base, uint64_t(Shape::tile_items)));
        T *buf = buffer_of(tile);
        if (vector_ok && valid == uint32_t(Shape::tile_items)) {
          using Chunk = vec16<T, Shape::vec>;
#pragma unroll
          for (int r = 0; r < Shape::rows; r++) {
            const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r));
            copy_async(chunk_at<Shape>(buf, i), reinterpret_cast<const Chunk *>(in + base + i));
          }
        } else {
          T v[Shape::rows][Shape::vec];
          load_tile<Shape>(in + base, valid, false, warp, lane, v, Base::neutral());
          put_striped<Shape>(buf, v, warp, lane);
        }
      }
    }
  }
  __device__ __forceinline__ void fetch(uint32_t tile, uint64_t ta, uint64_t tb, bool with_values = true) {
    if (with_values) fetch_values(tile);
    if (tile < end) {
      if constexpr (STAGE_OFFSETS) {
        /* tile_segments' clamping, on the entries read ahead. */
        const uint64_t a = ta < src.nseg ? ta : src.nseg;
        uint64_t l = tb < src.nseg ? tb : src.nseg;
        if (l < a) l = a;
        const uint64_t lo = a - (a > 0), count = l - lo + 1;
        const uint32_t k = (tile - first) % RUNS_STAGES;
        if (threadIdx.x == 0) {
          s_segments[k][0] = a;
          s_segments[k][1] = l;
        }
        if (count <= uint64_t(RUNS_OFFSETS))
          for (uint32_t i = threadIdx.x; i < count; i += Shape::threads)
            copy_async(offset_stages + k * RUNS_OFFSETS + i, src.offsets + lo + i);
      }
    }
    copy_async_commit();
  }
  /* WALK: tile's offsets from the one before its first segment a, at most
   * src.walk_window of them and none past the run's end entry; its stage
   * keeps [a, the last staged one] in s_segments. */
  __device__ __forceinline__ void fetch_offsets_walk(uint32_t tile, uint64_t a, uint64_t run_end_entry) {
    if constexpr (WALK) {
      if (tile >= end) return;
      /* The window: 2 to RUNS_OFFSETS offsets, whatever the launch asked. */
      const uint64_t window = src.walk_window < 2 ? 2 : src.walk_window > RUNS_OFFSETS ? RUNS_OFFSETS : src.walk_window;
      const uint64_t lo = a - (a > 0), left = run_end_entry - lo + 1;
      const uint64_t count = left < window ? left : window;
      const uint32_t k = (tile - first) % RUNS_STAGES;
      if (threadIdx.x == 0) {
        s_segments[k][0] = a;
        s_segments[k][1] = lo + count - 1;
      }
      for (uint32_t i = threadIdx.x; i < count; i += Shape::threads)
        copy_async(offset_stages + k * RUNS_OFFSETS + i, src.offsets + lo + i);
    }
  }

  /* Step 1, thread 0: the run's lead where the table gives it now, and its
   * fold so far (none). */
  __device__ __forceinline__ void start_shared_state() {
    if (threadIdx.x == 0) {
      if constexpr (OFFSETS) {
        if (!walking && !own_table) set_lead(src.tile_first[first]); /* else once its search is done */
      } else {
        s_lead_segment = ~uint64_t(0);
        s_lead_end = ~uint64_t(0); /* lowered to the first head the run's tiles find */
      }
      s_carry = Op::neutral();
      s_kept_set = 0;
    }
  }

  /* Step 2 where the block builds its own entries of the table: the first
   * tile's values are on their way while the block builds its entries, in
   * the offset stages (free until the first tile's copies), then writes
   * them where the table's launch would have: the tile loop reads them as
   * it reads the table. Entry `end` is also the next run's first, the same
   * value from its block. */
  __device__ __forceinline__ void build_own_table() {
    static_assert(RUNS_TABLE_MAX + 1 <= RUNS_STAGES * RUNS_OFFSETS, "a run's entries fit the offset stages");
    fetch_values(first);
    if (warp == 0) table_entries_by_warp<false>(src, first, end, tiles, Shape::tile_items, n, lane, s_run_entries);
    __syncthreads();
    uint64_t *const built = reinterpret_cast<uint64_t *>(offset_stages);
    build_run_table<Shape>(src, first, end, n, s_run_entries[0], s_run_entries[1], built);
    if (threadIdx.x == 0) set_lead(built[0]);
    uint64_t *const entries = const_cast<uint64_t *>(src.tile_first);
    for (uint32_t i = threadIdx.x; i <= end - first && first + i < tiles; i += Shape::threads)
      entries[first + i] = built[i];
    __syncthreads(); /* the entries, for this block's reads below; the stages, before their copies */
  }

  /* Step 2: the first tiles' copies under way. Walking, the run's first
   * and end entries by warp 0's search while the first tile's values load;
   * else (with the block's own table built first, where it builds one) the
   * first RUNS_AHEAD tiles' copies from their table entries. */
  __device__ __forceinline__ void start_copies() {
    next_a = 0, next_b = 0;
    if (walking) {
      if constexpr (WALK) {
        /* The first tile's values are on their way while warp 0 searches. */
        fetch_values(first);
        if (warp == 0) table_entries_by_warp<false>(src, first, end, tiles, Shape::tile_items, n, lane, s_run_entries);
        __syncthreads();
        next_a = s_run_entries[0];
        if (threadIdx.x == 0) set_lead(next_a);
        fetch_offsets_walk(first, next_a, s_run_entries[1]);
        copy_async_commit();
      }
    } else if constexpr (FETCH) {
      if constexpr (OWN_TABLE)
        if (own_table) build_own_table();
      uint64_t entries[RUNS_AHEAD + 2]; /* all loads in flight at once */
#pragma unroll
      for (int i = 0; i < RUNS_AHEAD + 2; i++) entries[i] = STAGE_OFFSETS ? table(first + i) : 0;
#pragma unroll
      for (int i = 0; i < RUNS_AHEAD; i++) fetch(first + i, entries[i], entries[i + 1], !(own_table && i == 0));
      next_a = entries[RUNS_AHEAD];
      next_b = entries[RUNS_AHEAD + 1];
    }
    /* Thread 0's run state above and s_segments of the first tiles: read
     * (flags: s_lead_end) before any other barrier. */
    __syncthreads();
  }

  /* A walking tile's start bits: off holds the staged offsets [a, last
   * staged]; the tile's window ends at the next tile's first segment (the
   * run's end entry for its last), which becomes next_a. */
  __device__ __forceinline__ uint32_t walk_tile_heads(uint32_t tile, uint64_t base, uint32_t valid,
                                                      tile_offsets<Offset> &off) {
    const uint64_t &run_end_entry = s_run_entries[1];
    uint32_t heads;
    const uint64_t tile_end = base + Shape::tile_items;
    walk_heads<Blocked>(off, s_heads, base, valid, tile_end, &s_next);
    uint64_t next = tile + 1 == end             ? run_end_entry
                    : s_next != ~0ull           ? uint64_t(s_next)
                    : off.last == run_end_entry ? run_end_entry
                                                : ~uint64_t(0);
    if (next <= off.last) {
      off.last = next;
      heads = staged_heads<Shape, false>(s_heads, base, valid, n, warp, lane);
    } else {
      /* The window did not fit its stage (uniform): the next tile's first
       * segment lies past it, by a search up to the run's end entry, and
       * the bits come from global memory. */
      if (next == ~uint64_t(0)) {
        if (warp == 0) walk_search_far(src.offsets, off.last + 1, run_end_entry, n, tile_end, &s_next_far);
        __syncthreads();
        next = s_next_far;
      }
      off = {src.offsets, 0, off.first, next, n};
      heads = blocked_heads<Shape, false>(off, s_heads, base, valid, warp, lane);
    }
    next_a = next;
    return heads;
  }

  /* Step 3a: the tile's start bits, a mask a thread (its items from o);
   * off becomes the tile's segments and where their offsets are. */
  __device__ __forceinline__ uint32_t tile_heads(uint32_t tile, uint64_t base, uint32_t valid, uint32_t o,
                                                 tile_offsets<Offset> &off) {
    uint32_t heads;
    if (walking) {
      if constexpr (WALK) heads = walk_tile_heads(tile, base, valid, off);
    } else if constexpr (OFFSETS) {
      heads = blocked_heads<Shape, false>(off, s_heads, base, valid, warp, lane);
    } else {
      /* Flags: the run's first head, while not found; read before the
       * barrier, after which this tile's atomicMin may change it (the
       * barriers in scan_tile order the last tile's before this read). */
      const bool lead_open = s_lead_end == ~uint64_t(0);
      __syncthreads(); /* what stage_offset_heads' barriers do for offsets */
      heads = blocked_heads<Shape, false>(src, s_heads, tile, tiles, base, valid, n, warp, lane);
      if (lead_open && heads)
        atomicMin(reinterpret_cast<unsigned long long *>(&s_lead_end), base + o + __ffs(heads) - 1);
    }
    return heads;
  }

  /* Step 3b: the copies of the tile RUNS_AHEAD after this one. The barriers
   * of tile_heads mean every warp is done with tile - 1's stages, which
   * tile + RUNS_AHEAD takes. */
  __device__ __forceinline__ void fetch_ahead_of(uint32_t tile) {
    if (walking) {
      fetch_values(tile + 1); /* (walking: WALK instances only) */
      fetch_offsets_walk(tile + 1, next_a, s_run_entries[1]);
      copy_async_commit();
    } else if constexpr (FETCH) {
      fetch(tile + RUNS_AHEAD, next_a, next_b);
      if constexpr (STAGE_OFFSETS) {
        next_a = next_b;
        next_b = table(tile + RUNS_AHEAD + 2);
      }
    }
  }

  /* Step 3c: the tile's outputs. Reduce: the results to shared memory, and
   * each segment ending in the tile takes its last element's
   * (gather_segment_results), except the lead one. Scan: transposed back
   * and stored, without the lead's items where LEAD_ONCE (they lack the
   * earlier runs' part and are written after the look-back). scan_tile's
   * barriers lie between the transpose's reads and these writes. */
  __device__ __forceinline__ void write_tile(uint32_t tile, uint64_t base, uint32_t valid, T *buf, T (&y)[1][ITEMS],
                                             const tile_offsets<Offset> &off) {
    if constexpr (REDUCE) {
      put_blocked<Shape>(buf, y, warp, lane);
      __syncthreads();
      gather_segment_results<T, Shape>(off, swizzled_results<T, Shape::vec>{buf}, tile + 1 == tiles, base, valid,
                                       run_results<T, Epilogue>{epilogue, lead_segment, &s_kept, &s_kept_set});
    } else {
      T w[Shape::rows][Shape::vec];
      blocked_to_striped<Shape>(buf, y, w, warp, lane);
      /* s_lead_end is final for this tile here (scan_tile's barriers follow
       * this tile's atomicMin). */
      if constexpr (LEAD_ONCE) {
        const uint64_t lead_end = s_lead_end;
        const uint32_t from = lead_end <= base ? 0 : lead_end - base >= valid ? valid : uint32_t(lead_end - base);
        if (from == 0)
          store_tile<Shape>(out + base, valid, vector_ok, warp, lane, w); /* vector_ok: in, out aligned */
        else if (from < valid)
          store_tile_range<Shape>(out + base, from, valid, warp, lane, w);
      } else {
        store_tile<Shape>(out + base, valid, vector_ok, warp, lane, w);
      }
    }
  }

  /* Step 3, a tile of the run: load (and for SpMV the columns, then the
   * products), the start bits, transpose to blocked; scan_in_run scans the
   * tile alone with the run's fold as its prefix; the outputs. */
  __device__ __forceinline__ void run_tile(uint32_t tile) {
    const uint64_t base = uint64_t(tile) * Shape::tile_items;
    const uint32_t valid = uint32_t(min(n - base, uint64_t(Shape::tile_items)));
    T *buf = buffer_of(tile);
    T v[Shape::rows][Shape::vec];
    if constexpr (!PREFETCH)
      load_tile<Shape, Values::stream_loads>(in + base, valid, vector_ok, warp, lane, v, Base::neutral());
    const auto loaded = values.template load<Shape>(base, valid, warp, lane);
    /* This tile's copies are done (the next tile's may be in flight); the
     * barriers in stage_offset_heads show them to the whole block. */
    if constexpr (FETCH) copy_async_wait<RUNS_AHEAD - 1>();
    tile_offsets<Offset> off = offsets_of(tile);
    const uint32_t o = item_offset<Blocked>(warp, lane, 0);
    const uint32_t heads = tile_heads(tile, base, valid, o, off);
    if (tile == first) lead_segment = s_lead_segment; /* after the barriers above */
    /* The run's fold so far, as the tile's prefix (s_carry: final after
     * those barriers; read by scan_tile after its first). */
    if (threadIdx.x == 0) sh.level_fold[0] = s_carry;
    fetch_ahead_of(tile);
    /* After the next tile's copies are under way; this tile's stage (shown
     * by blocked_heads' barriers) is not the one they fill. */
    if constexpr (OFFSETS && !REDUCE)
      if (src.check_windows) check_window(off, src.nseg, src.bad);
    /* SpMV's gathers of x after the start bits: before them, their round
     * trip would overlap the offsets' but SpMV ran slower (bench/NOTES.md). */
    if constexpr (Values::transforms) values.template operator()<Shape>(v, loaded, valid, warp, lane);
    T y[1][ITEMS]; /* the tile's items in blocked order, then their outputs */
    if constexpr (PREFETCH) {
      get_blocked<Shape>(buf, y, warp, lane);
    } else {
      striped_to_blocked<Shape>(buf, v, y, warp, lane);
    }
    scan_in_run<T, OP, Blocked>(y[0], heads, tile, valid, !REDUCE && exclusive, o, sh, &s_carry, warp, lane);
    write_tile(tile, base, valid, buf, y, off);
  }

  /* Step 5, scans by head flags (LEAD_ONCE): the lead, scanned again from
   * the input with the earlier runs' fold as its prefix (it holds no
   * segment start), and written. In place, the run's pass has written the
   * items after the lead: only later items read them. */
  __device__ __forceinline__ void rescan_lead(const Pair &prefix) {
    const uint64_t run_end = min(uint64_t(end) * Shape::tile_items, n);
    const uint64_t lead_end = s_lead_end < run_end ? s_lead_end : run_end;
    T *buf = buffer_of(first);
    if (threadIdx.x == 0) s_carry = prefix;
    for (uint32_t tile = first; uint64_t(tile) * Shape::tile_items < lead_end; tile++) {
      const uint64_t base = uint64_t(tile) * Shape::tile_items;
      const uint32_t valid = uint32_t(min(n - base, uint64_t(Shape::tile_items)));
      __syncthreads(); /* s_carry is final; every warp is done with sh and buf */
      if (threadIdx.x == 0) sh.level_fold[0] = s_carry;
      T v[Shape::rows][Shape::vec];
      load_tile<Shape>(in + base, valid, vector_ok, warp, lane, v, Base::neutral());
      T y[1][ITEMS];
      striped_to_blocked<Shape>(buf, v, y, warp, lane);
      scan_in_run<T, OP, Blocked>(y[0], 0u, tile, valid, exclusive, item_offset<Blocked>(warp, lane, 0), sh, &s_carry,
                                  warp, lane);
      T w[Shape::rows][Shape::vec];
      blocked_to_striped<Shape>(buf, y, w, warp, lane);
      const uint64_t count = lead_end - base < valid ? lead_end - base : valid;
      store_tile<Shape>(out + base, uint32_t(count), vector_ok, warp, lane, w);
    }
  }

  /* Step 4, the runs' look-back: publish this run's fold; fold the earlier
   * runs' only where the lead needs them (reduce: where its segment ended
   * in this run; uniform after the kernel's last barrier). Step 5: the
   * lead's results or outputs with that prefix. */
  __device__ __forceinline__ void finish_lead() {
    const bool lead_needs_prefix = REDUCE ? lead_segment != ~uint64_t(0) && s_kept_set : s_lead_end > run_base;
    /* Published, and the prefix where the lead needs it: from the nearest of
     * the 32 runs before that starts a segment, waiting only for the runs
     * from there on (publish_and_prefix). */
    const Pair prefix =
        lb.tiles > 1 ? publish_and_prefix<Op, Blocked>(lb, run, s_carry, lead_needs_prefix, sh.level_fold, warp, lane)
                     : Op::neutral();
    if (!lead_needs_prefix) return;
    if constexpr (REDUCE) {
      if (threadIdx.x == 0) epilogue(lead_segment, Base::apply(prefix.value, s_kept), false);
    } else if constexpr (!LEAD_ONCE) {
      if (lb.tiles > 1) { /* the lead's outputs, written without the earlier runs' part: now with it */
        const uint64_t run_end = min(uint64_t(end) * Shape::tile_items, n);
        const uint64_t lead_end = s_lead_end < run_end ? s_lead_end : run_end;
        for (uint64_t i = run_base + threadIdx.x; i < lead_end; i += Shape::threads)
          out[i] = Base::apply(prefix.value, out[i]);
      }
    } else {
      rescan_lead(prefix);
    }
  }
};

/* The kernel: the block's run by ticket, its tiles one after another, then
 * its lead (seg_run's steps). */
template <typename T, gpu_op OP, typename Shape, typename Source, bool REDUCE, typename Values, typename Epilogue>
__global__ void __launch_bounds__(Shape::threads, Shape::min_blocks)
    seg_runs(const T *in, T *out, uint64_t n, uint32_t tiles, bool exclusive, bool vector_ok, lookback_args lb,
             Source src, Values values, Epilogue epilogue) {
  using Run = seg_run<T, OP, Shape, Source, REDUCE, Values, Epilogue>;
  using Offset = typename Run::Offset;
  using Pair = seg_pair<T>;
  /* Whether this launch walks, and whether the block builds its entries of
   * the table (seg_run's walking and own_table). */
  bool walking = false;
  if constexpr (Run::WALK) walking = src.tile_first == nullptr;
  bool own_table = false;
  if constexpr (Run::OWN_TABLE) own_table = src.own_table;
  __shared__ tile_scan_shared<Pair, Shape::warps> sh;
  __shared__ stage_heads<typename Run::Blocked> s_heads;
  extern __shared__ __align__(128) unsigned char run_stages[]; /* value stages, then offset stages */
  __shared__ __align__(16) T s_buf[Run::PREFETCH ? 1 : Shape::tile_items];
  __shared__ uint64_t s_segments[Run::RUNS_STAGES][2];
  __shared__ Pair s_carry;
  __shared__ T s_kept;
  __shared__ unsigned s_kept_set;
  __shared__ uint64_t s_lead_segment;
  __shared__ uint64_t s_lead_end;
  __shared__ uint32_t s_run;
  __shared__ uint64_t s_run_entries[2];
  __shared__ unsigned long long s_next;
  __shared__ uint64_t s_next_far;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  /* The block's run by ticket, not blockIdx: a run waits in its look-back
   * only for runs taken before it, by blocks already running. */
  const uint32_t run = take_tile(lb, &s_run);
  const uint32_t first = run_start(tiles, run, gridDim.x), end = run_start(tiles, run + 1, gridDim.x);
  const uint64_t run_base = uint64_t(first) * Shape::tile_items;
  uint64_t lead_segment = ~uint64_t(0); /* none until the first tile */
  uint64_t next_a, next_b; /* (start_copies) */
  Offset *const offset_stages =
      reinterpret_cast<Offset *>(run_stages + runs_value_stages_bytes<T, Shape, Values, REDUCE>());
  Run r{in, out, n, tiles, exclusive, vector_ok, lb, src, values, epilogue,                  /* the launch */
        sh, s_heads, run_stages, offset_stages, s_buf, s_segments, s_carry, s_kept, s_kept_set, /* shared */
        s_lead_segment, s_lead_end, s_run_entries, s_next, s_next_far,                        /* memory */
        lane, warp, run, first, end, run_base, walking, own_table, lead_segment, next_a, next_b}; /* the run */

  r.start_shared_state(); /* 1. the run's lead (offsets, where known) and fold */
  r.start_copies();       /* 2. the first tiles' copies (and the run's table entries) */
  for (uint32_t tile = first; tile < end; tile++) r.run_tile(tile); /* 3. the run's tiles */
  if constexpr (Run::FETCH) copy_async_wait<0>(); /* the groups past the run's end are empty */
  __syncthreads(); /* s_carry and s_kept are final; scans: the run's outputs are visible to the block */
  r.finish_lead(); /* 4, 5. the look-back, and the lead */
}

}  // namespace gp
