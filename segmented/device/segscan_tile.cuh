/*
 * Segmented scan and segmented reduce, the tile-level pieces: the tile
 * shapes, where a tile's start flags and values come from, and how a
 * reduce's results leave the tile. The kernel (segscan_blocked.cuh) runs
 * the scan's tile scan and look-back (scan_tile.cuh) over (value,
 * segment-start) pairs (seg_pair.cuh), one tile per block. Each tile's start
 * flags come from the head-flag array, or from the offsets of the segments
 * that start in the tile (found through tile_first[], one entry per tile,
 * built by a first kernel in tile_first.cuh), set as bits in shared memory:
 * offsets are never turned into a flags array in memory.
 *
 * Flags are in scan order: a forward scan restarts at each segment's first
 * element, a REVERSE one at each segment's last. Exclusive scans write the
 * identity where a segment (re)starts.
 *
 * Segmented reduce (REDUCE) writes no scan: the tile's inclusive results go
 * to shared memory, and each segment ending in the tile takes its
 * last element's result; an empty segment gets the identity from the tile
 * holding its start.
 *
 * Offsets are read clamped to [0, n] and segment indices to [0, nseg], so
 * malformed offsets cannot lead outside in, out or offsets;
 * tile_first_segments() reports them through *bad.
 */
#pragma once

#include "segmented/device/seg_pair.cuh"
#include "segmented/device/tile_first.cuh"
#include "segmented/segmented_tuning.h"

namespace gp {

/* A segmented kernel's tile shape and the blocks per SM its launch bounds
 * ask for. */
template <int THREADS, int ROWS, int VEC, int MIN_BLOCKS> struct seg_tile_shape : tile_shape<THREADS, ROWS, VEC> {
  static constexpr int min_blocks = MIN_BLOCKS;
};

/* The shapes (segmented_tuning.h; their sweeps: bench/NOTES.md), by
 * element size B, 16 items a thread unless said:
 *  - large, 4-byte: 512 threads at 2 blocks an SM (64 registers): more
 *    warps to run while a tile waits at its barriers;
 *  - large, 8-byte: 256 threads at 2 (8 items at 4 blocks doubles the
 *    tiles, past the table-free search's reach at 2^20; 256 x 16 at 3
 *    spills; 512 x 16 needs more than 48 KB of static shared memory).
 *    SpMV's f64 tiles differ: spmv_tuning.h;
 *  - small (small scans, SpMV below 2^21 nonzeros): 256 threads of 8
 *    items at 4 blocks (4-byte) or 3.
 * Each is 2 to 8 rows of one 16-byte vector a thread, as the blocked
 * kernel's transposes require. */
template <int B>
using seg_small_shape = seg_tile_shape<SEG_SMALL_THREADS, SEG_SMALL_ITEMS * B / 16, 16 / B, B == 8 ? 3 : 4>;
template <int B>
using seg_large_shape = seg_tile_shape<B == 8 ? SEG_LARGE_8_THREADS : SEG_LARGE_4_THREADS,
                                       B == 8 ? SEG_LARGE_8_ROWS : SEG_LARGE_4_ROWS, 16 / B,
                                       B == 8 ? SEG_LARGE_8_BLOCKS : SEG_LARGE_4_BLOCKS>;

/* Heads from a byte array: heads[i] != 0 starts a segment at i. */
struct heads_from_flags {
  const uint8_t *heads;
};

/* Heads from nseg + 1 offsets (int64_t; sparse's row_ptr: int32_t too);
 * tile_first[t]: the first segment starting at or after tile t's first
 * element. Without the table (tile_first NULL; segscan_blocked only), each
 * tile finds its two entries itself and checks a share of the offsets
 * into *bad (search_tile_offsets). check_windows (seg_runs' scans): each
 * tile checks the offsets it reads into *bad, the table's launch did not. */
template <typename Offset> struct heads_from_offsets {
  const Offset *offsets;
  uint64_t nseg;
  const uint64_t *tile_first;
  unsigned *bad = nullptr;
  bool check_windows = false;
  uint32_t walk_window = 0; /* seg_runs' walk: the offsets a tile stages (0: no walk) */
  bool own_table = false;   /* seg_runs' blocks write their runs' entries of tile_first */
};
/* The same, for seg_runs' scans of 8-byte elements with short segments:
 * their offsets come by cp.async into shared stages as 4-byte scans' do
 * (seg_runs.cuh, runs_offset_stages). A type of its own, so the kernel
 * with those stages is a second instance beside the one without. */
template <typename Offset> struct heads_from_offsets_staged : heads_from_offsets<Offset> {};
/* Whether a Source is offsets, and their type (int64_t for flags: unused);
 * staged: heads_from_offsets_staged. */
template <typename Source> struct source_offsets {
  static constexpr bool offsets = false, staged = false;
  using type = int64_t;
};
template <typename Offset> struct source_offsets<heads_from_offsets<Offset>> {
  static constexpr bool offsets = true, staged = false;
  using type = Offset;
};
template <typename Offset> struct source_offsets<heads_from_offsets_staged<Offset>> {
  static constexpr bool offsets = true, staged = true;
  using type = Offset;
};
template <typename Source> constexpr bool offsets_source = source_offsets<Source>::offsets;
template <typename Source> using offset_type = typename source_offsets<Source>::type;

/* Where the scanned values come from: `in` as it is (a transform, such as
 * sparse's products, loads what it needs first, so that those loads are in
 * flight with the tile's, then applies it). Both run on the tile as loaded,
 * in load_tile's warp-striped layout (tile_io.cuh) of Shape, before the
 * kernel's transpose. */
struct plain_values {
  static constexpr bool transforms = false;
  static constexpr bool stream_loads = false; /* load_tile's STREAM for the values */
  struct loaded {};
  template <typename Shape> __device__ loaded load(uint64_t, uint32_t, int, int) const { return {}; }
  template <typename Shape, typename T>
  __device__ void operator()(T (&)[Shape::rows][Shape::vec], const loaded &, uint32_t, int, int) const {}
};

/* Segmented reduce's result for segment j: out[j] (identity when empty). */
template <typename T, typename Base> struct store_results {
  T *out;
  __device__ void operator()(uint64_t j, T v, bool empty) const { out[j] = empty ? Base::identity() : v; }
};

/* out[0, count) = v: segmented reduce of n = 0 elements (every segment empty). */
template <typename T> __global__ void fill_value(T *out, uint64_t count, T v) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x)
    out[i] = v;
}

/* Shared memory for a tile's start flags (offsets: set by position). */
template <typename Shape> struct stage_heads {
  uint32_t bits[Shape::tile_items / 32];
};

/* The segments whose offsets may fall in tile t: [first, last]. Clamped, so
 * any table values keep the accesses in bounds; tile_first[] is
 * non-decreasing even for malformed offsets (tile_first.cuh), so the ranges
 * of all tiles add up to at most nseg + tiles. */
template <typename Offset>
__device__ inline void tile_segments(const heads_from_offsets<Offset> &src, uint32_t tile, uint32_t tiles, uint64_t *first,
                                     uint64_t *last) {
  const uint64_t a = src.tile_first[tile], b = tile + 1 < tiles ? src.tile_first[tile + 1] : src.nseg;
  *first = a < src.nseg ? a : src.nseg;
  *last = b < src.nseg ? b : src.nseg;
  if (*last < *first) *last = *first; /* a guard: tile_first[] never decreases */
}

/* This thread's start flags (scan order) for the tile at `base` with
 * `valid` items, byte by byte: bit r * VEC + k for its item k of row r (on
 * a blocked shape, bit j for its j-th consecutive item). The kernel's
 * fallback for partial tiles and unaligned flags (blocked_heads). */
template <typename Shape, bool REVERSE>
__device__ inline uint32_t thread_heads(const heads_from_flags &src, uint64_t base, uint32_t valid, uint64_t n,
                                        int warp, int lane) {
  uint32_t bits = 0;
#pragma unroll
  for (int r = 0; r < Shape::rows; r++)
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) {
      const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r) + k);
      if (i >= valid) continue;
      const uint64_t g = base + i;
      /* Forward: a start at g; reverse: the last element before a start (or n - 1). */
      const bool head = REVERSE ? (g + 1 == n || src.heads[g + 1] != 0) : (g == 0 || src.heads[g] != 0);
      bits |= uint32_t(head) << (r * Shape::vec + k);
    }
  return bits;
}

/* A tile's segments [first, last] (tile_segments) and their offsets, read
 * clamped into [0, n]: from the offsets in global memory, or from a copy of
 * offsets[lo, last] in shared memory (seg_runs' offset stages). */
template <typename Offset> struct tile_offsets {
  const Offset *offsets; /* offsets[s] is at offsets[s - lo] */
  uint64_t lo, first, last, n;
  __device__ uint64_t operator[](uint64_t s) const { return clamped_offset(offsets, s - lo, n); }
  /* The offsets as they are (not clamped), indexed by segment. */
  struct raw_view {
    const Offset *offsets;
    uint64_t lo;
    __device__ int64_t operator[](uint64_t s) const { return int64_t(offsets[s - lo]); }
  };
  __device__ raw_view raw() const { return {offsets, lo}; }
};
template <typename Offset>
__device__ inline tile_offsets<Offset> global_tile_offsets(const heads_from_offsets<Offset> &src, uint32_t tile,
                                                          uint32_t tiles, uint64_t n) {
  tile_offsets<Offset> t{src.offsets, 0, 0, 0, n};
  tile_segments(src, tile, tiles, &t.first, &t.last);
  return t;
}

/*
 * A first round of a search for the first i in [lo, hi) whose offset is
 * beyond c (first_beyond_two_reads' answer) that probes where the offsets'
 * mean puts it: around g = (c + 1) nseg / n, 32 probes `step` apart, step
 * about sqrt(g) / 8, so that the window spans about four standard
 * deviations of g where the segments' lengths spread about as much as
 * their mean (geometric ones; evener lengths land nearer). Where the
 * answer lies in the window, the next rounds search one gap of `step`
 * entries: from 2^16 to 2^20 4-byte elements in segments of 4, one or two
 * rounds fewer, of three or four. Where it does not, [lo, hi] shrinks by
 * the window's width and the search goes on from there (one round lost at
 * most). Only for intervals of more than 1024 entries (two rounds
 * without). The window depends on c, nseg and n only, so every block
 * searching for the same bound reads the same entries and finds the same
 * answer, malformed offsets or not.
 */
struct guided_window {
  uint64_t first = 0, step = 0; /* step 0: no window (the interval is small) */
  __device__ guided_window(uint64_t n, uint64_t c, uint64_t lo, uint64_t hi) {
    const uint64_t span = hi - lo;
    if (span <= 1024 || n == 0) return;
    const double g = (double(c) + 1.0) / double(n) * double(span); /* from lo */
    step = uint64_t(sqrt(g + 1.0) / 8.0);
    step = step < 1 ? 1 : step > span / 32 ? span / 32 : step;
    const double w = g - 16.0 * double(step);
    first = lo + (w <= 0.0 ? 0 : uint64_t(w));
    if (first > hi - 32 * step) first = hi - 32 * step;
  }
  /* Lane's probe, below hi. */
  __device__ uint64_t probe(int lane) const { return first + uint64_t(lane + 1) * step - 1; }
  /* [lo, hi] narrowed by the probes beyond c (ballot b). */
  __device__ void narrow(unsigned b, uint64_t &lo, uint64_t &hi) const {
    if (b == 0) {
      lo = first + 32 * step; /* past the window; hi stays */
    } else {
      const int f = __ffs(b) - 1;
      hi = probe(f);
      if (f > 0) lo = first + uint64_t(f) * step;
    }
  }
};

/* guided_window's round for two bounds at once (both loads in flight). */
template <typename Offset>
__device__ inline void guided_rounds(const Offset *offsets, uint64_t n, uint64_t c0, uint64_t c1, int lane,
                                     uint64_t &lo0, uint64_t &hi0, uint64_t &lo1, uint64_t &hi1) {
  const guided_window w0(n, c0, lo0, hi0), w1(n, c1, lo1, hi1);
  const int64_t r0 = w0.step ? int64_t(offsets[w0.probe(lane)]) : 0;
  const int64_t r1 = w1.step ? int64_t(offsets[w1.probe(lane)]) : 0;
  const unsigned b0 = __ballot_sync(0xffffffffu, clamp_offset(r0, n) > c0);
  const unsigned b1 = __ballot_sync(0xffffffffu, clamp_offset(r1, n) > c1);
  if (w0.step) w0.narrow(b0, lo0, hi0);
  if (w1.step) w1.narrow(b1, lo1, hi1);
}

/* Two table entries found by one warp (call from all its lanes):
 * tile_first[t0] and tile_first[t1] (nseg past the last tile), into
 * s_entries[0] and [1], by 32-ary searches of the whole warp
 * (first_beyond_two_reads over [0, nseg), no cache): one round trip fewer
 * than 16-ary ones of each half-warp where nseg lies between 16^k and
 * 32^k; GUIDED: after a first round where the mean puts them
 * (guided_rounds). Every caller of an instance searches the same way, so
 * two blocks that both find an entry find the same value, malformed
 * offsets or not. seg_runs' prologue searches without GUIDED: there the
 * guided round made walking runs slower (bench/NOTES.md). */
template <bool GUIDED, typename Offset>
__device__ inline void table_entries_by_warp(const heads_from_offsets<Offset> &src, uint64_t t0, uint64_t t1,
                                             uint32_t tiles, uint32_t tile_items, uint64_t n, int lane,
                                             uint64_t (&s_entries)[2]) {
  /* The first s with offsets[s] >= b: 0 for b = 0, else the first beyond b - 1. */
  const uint64_t b0 = t0 * tile_items, b1 = t1 * tile_items;
  const uint64_t c0 = b0 ? b0 - 1 : 0, c1 = b1 ? b1 - 1 : 0;
  uint64_t lo0 = 0, hi0 = src.nseg, lo1 = 0, hi1 = src.nseg;
  if constexpr (GUIDED) guided_rounds(src.offsets, n, c0, c1, lane, lo0, hi0, lo1, hi1);
  uint64_t e0, e1, unused_base;
  int64_t unused_below;
  first_beyond_two_reads(src.offsets, lo0, hi0, lo1, hi1, src.nseg, n, c0, c1, lane, 0, &e0, &e1, &unused_below,
                         nullptr, &unused_base, []() { return true; });
  if (lane == 0) {
    s_entries[0] = t0 >= tiles ? src.nseg : b0 == 0 ? 0 : e0;
    s_entries[1] = t1 >= tiles ? src.nseg : b1 == 0 ? 0 : e1;
  }
}

/* global_tile_offsets without the table: warp 0 finds tile t's entries
 * (tile_first[t] and [t + 1], or nseg past the last tile) by
 * table_entries_by_warp, the table's values for well-formed offsets; the
 * block also checks its share of the offsets, as tile_first_segments does
 * for all (any malformed array fails some tile's share). Saves the table's
 * launch where there are few tiles. Uniform across the block; contains a
 * barrier. */
template <typename Offset>
__device__ inline tile_offsets<Offset> search_tile_offsets(const heads_from_offsets<Offset> &src, uint32_t tile,
                                                           uint32_t tiles, uint32_t tile_items, uint64_t n,
                                                           uint64_t (&s_entries)[2]) {
  if (threadIdx.x < 32)
    table_entries_by_warp<true>(src, tile, tile + uint64_t(1), tiles, tile_items, n, threadIdx.x,
                                                 s_entries);
  const uint64_t share = (src.nseg + tiles) / tiles; /* ceil((nseg + 1) / tiles) */
  for (uint64_t s = tile * share + threadIdx.x; s <= src.nseg && s < (tile + uint64_t(1)) * share;
       s += blockDim.x)
    if (!offset_in_order(src.offsets, s, src.nseg, n)) *src.bad = 1;
  __syncthreads();
  tile_offsets<Offset> off{src.offsets, 0, s_entries[0], s_entries[1], n};
  if (off.first > src.nseg) off.first = src.nseg;
  if (off.last > src.nseg) off.last = src.nseg;
  if (off.last < off.first) off.last = off.first;
  return off;
}

/* The tile's start flags from its offsets, as bits in sh (tile positions;
 * the first and last elements of the input not included). Uniform across
 * the block; contains barriers. */
template <typename Shape, bool REVERSE, typename Offset>
__device__ inline void stage_offset_heads(const tile_offsets<Offset> &off, stage_heads<Shape> &sh, uint64_t base,
                                          uint32_t valid) {
  for (int w = threadIdx.x; w < Shape::tile_items / 32; w += Shape::threads) sh.bits[w] = 0;
  __syncthreads();
  for (uint64_t s = off.first + threadIdx.x; s <= off.last; s += Shape::threads) {
    const uint64_t o = off[s];
    const uint64_t at = REVERSE ? o - 1 : o; /* reverse: the segment before ends at o - 1 */
    if (REVERSE && o == 0) continue;
    if (at >= base && at < base + valid) atomicOr(&sh.bits[(at - base) >> 5], 1u << ((at - base) & 31));
  }
  __syncthreads();
}

/* Segmented reduce, after the tile's inclusive results are in `results`
 * (results[i]: item i of the tile; a pointer, or an accessor of a permuted
 * buffer): the result of each segment j ending in the tile, and of each
 * empty segment starting in it (or, in the last tile, at n), to
 * epilogue(j, v, empty). */
template <typename T, typename Shape, typename Offset, typename Results, typename Epilogue>
__device__ inline void gather_segment_results(const tile_offsets<Offset> &off, const Results &results, bool last_tile,
                                              uint64_t base, uint32_t valid, const Epilogue &epilogue) {
  for (uint64_t s = (off.first ? off.first : 1) + threadIdx.x; s <= off.last; s += Shape::threads) {
    const uint64_t end = off[s], start = off[s - 1];
    if (end > start) {
      if (end - 1 >= base && end - 1 < base + valid) epilogue(s - 1, results[end - 1 - base], false);
    } else if ((start >= base && start < base + valid) || (last_tile && start >= off.n)) {
      epilogue(s - 1, T(0), true);
    }
  }
}
template <typename T, typename Shape, typename Offset, typename Results, typename Epilogue>
__device__ inline void gather_segment_results(const heads_from_offsets<Offset> &src, const Results &results, uint32_t tile,
                                              uint32_t tiles, uint64_t base, uint32_t valid, uint64_t n,
                                              const Epilogue &epilogue) {
  gather_segment_results<T, Shape>(global_tile_offsets(src, tile, tiles, n), results, tile + 1 == tiles, base, valid,
                                   epilogue);
}

}  // namespace gp
