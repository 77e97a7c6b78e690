/*
 * The offsets' tile table and their check, for segmented scan and reduce by
 * offsets and for SpMV's row_ptr (Offset: int64_t, or int32_t for row_ptr):
 *
 *   tile_first[t] = the smallest segment s with offsets[s] >= t * tile_items
 *                   (offsets read clamped into [0, n]), for t < tiles;
 *   *bad = 1      unless 0 = offsets[0] <= ... <= offsets[nseg] = n.
 *
 * One launch, threads over max(nseg + 1, tiles): thread i finds tile i's
 * entry by a binary search (i < tiles) and checks offset i against its
 * predecessor (i <= nseg). So each entry is written by exactly one thread
 * (no zeroing beforehand), the table costs tiles searches of O(log nseg)
 * reads whatever the offsets, and the check reads every offset once.
 * (Scans by long runs over long segments build the same entries without
 * this launch, a block its run's: build_run_table, seg_runs.cuh.)
 *
 * The per-thread functions are __host__ __device__ under nvcc (plain C++
 * otherwise), so tools/check_tile_first.cu runs the kernel's own logic on
 * the host.
 *
 * Why the search gives the table the segmented kernels had before (one
 * thread per offset s writing the t with offsets[s-1] < t * tile_items <=
 * offsets[s], after a memset to 0): for well-formed offsets o (clamping
 * changes nothing), t < tiles = ceil(n / tile_items) gives b = t * tile_items
 * < n = o[nseg]. The intervals (-inf, o[0]], (o[0], o[1]], ...,
 * (o[nseg-1], o[nseg]] are disjoint (o is non-decreasing) and cover every
 * b <= n, so exactly one s wrote entry t: the one with o[s-1] < b <= o[s]
 * (or b <= o[0] for s = 0), that is o[s] >= b while o[r] <= o[s-1] < b for
 * every r < s, which is the lower bound of b. Since o[nseg] > b, that lower
 * bound lies in [0, nseg); the search below looks in [0, nseg) and answers
 * nseg when nothing there reaches b, so it finds the same s.
 *
 * Malformed offsets (not monotone, negative, beyond n): the search still
 * halves [lo, hi) each step (ceil(log2(nseg + 1)) steps, reads only
 * offsets[0, nseg)) and answers in [0, nseg]. Its answer is also
 * non-decreasing in b for ANY array: at the first step both b1 < b2 read
 * the same o[mid]; if o[mid] < b1 both go right, if o[mid] >= b2 both go
 * left, otherwise b1 ends in [lo, mid] and b2 in [mid + 1, hi]; induct. So
 * tile_first[] is non-decreasing whatever the offsets, and the scan kernel's
 * per-tile ranges [tile_first[t], tile_first[t + 1]] (tile_segments) add up
 * to at most nseg + tiles segments: malformed offsets cannot make the
 * kernels' total work grow beyond that of well-formed ones (one tile may
 * own up to nseg + 1 segments, as with many empty segments at one place).
 */
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define GP_TILE_FIRST_HD __host__ __device__
#else
#define GP_TILE_FIRST_HD
#endif

namespace gp {

/* An offset as read (raw) clamped into [0, n]. */
GP_TILE_FIRST_HD inline uint64_t clamp_offset(int64_t o, uint64_t n) {
  return o < 0 ? 0 : uint64_t(o) > n ? n : uint64_t(o);
}

/* offsets[s] clamped into [0, n]. */
template <typename Offset>
GP_TILE_FIRST_HD inline uint64_t clamped_offset(const Offset *offsets, uint64_t s, uint64_t n) {
  return clamp_offset(int64_t(offsets[s]), n);
}

/* The smallest s in [0, nseg) with the clamped offsets[s] >= b, or nseg
 * where none is: the lower bound of b for well-formed offsets, and in
 * [0, nseg] after O(log nseg) reads for any (see above). */
template <typename Offset>
GP_TILE_FIRST_HD inline uint64_t first_segment_reaching(const Offset *offsets, uint64_t nseg, uint64_t n, uint64_t b) {
  uint64_t lo = 0, hi = nseg;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (clamped_offset(offsets, mid, n) < b)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Whether offsets[s] keeps 0 = offsets[0] <= ... <= offsets[nseg] = n: in
 * [0, n], not below offsets[s - 1], 0 first and n last. Checking every s
 * catches every malformed array. Offsets: a pointer, or a view indexed by
 * segment (seg_runs' staged window, tile_offsets::raw_view). */
template <typename Offsets>
GP_TILE_FIRST_HD inline bool offset_in_order(const Offsets &offsets, uint64_t s, uint64_t nseg, uint64_t n) {
  const int64_t raw = int64_t(offsets[s]);
  if (raw < 0 || uint64_t(raw) > n) return false;
  if (s == 0 ? raw != 0 : raw < int64_t(offsets[s - 1])) return false;
  return s != nseg || uint64_t(raw) == n;
}

/* Thread i's share of tile_first_segments: tile i's entry and offset i's check. */
template <typename Offset>
GP_TILE_FIRST_HD inline void tile_first_thread(const Offset *offsets, uint64_t nseg, uint64_t n, uint32_t tile_items,
                                               uint64_t tiles, uint64_t i, uint64_t *tile_first, unsigned *bad) {
  if (i < tiles) tile_first[i] = first_segment_reaching(offsets, nseg, n, i * tile_items);
  if (i <= nseg && !offset_in_order(offsets, i, nseg, n)) *bad = 1;
}

/* How many threads tile_first_segments needs. */
GP_TILE_FIRST_HD inline uint64_t tile_first_threads(uint64_t nseg, uint64_t tiles) {
  return nseg + 1 > tiles ? nseg + 1 : tiles;
}

#ifdef __CUDACC__
/* One round of the k-ary searches below (first_beyond, first_beyond_two_reads):
 * probe j at lo + (j + 1) * step - 1 (past hi: beyond), b the probes
 * beyond c; the answer then lies in the new [lo, hi]. */
__device__ __forceinline__ void narrow_first_beyond(unsigned b, uint64_t step, uint64_t &lo, uint64_t &hi) {
  if (b == 0) {
    lo = hi; /* the last probe is hi - 1 and not beyond */
  } else {
    const int f = __ffs(b) - 1;
    const uint64_t top = lo + uint64_t(f + 1) * step - 1;
    lo += uint64_t(f) * step;
    hi = top < hi ? top : hi;
  }
}

/* The first i in [lo, hi) whose offset (clamped into [0, n]) is beyond c,
 * or hi: a 16-ary search by each half-warp (lanes 0-15 and 16-31 search
 * their own c; every lane of a half ends with its answer). Like the
 * binary search above, non-decreasing in c for any offsets (both sides of
 * a probe compare the same entry), so searches for neighbouring bounds
 * never cross. ceil(log16(hi - lo)) rounds of one load a lane. */
template <typename Offset>
__device__ inline uint64_t first_beyond(const Offset *offsets, uint64_t lo, uint64_t hi, uint64_t n, uint64_t c,
                                        int lane) {
  const int j = lane & 15, half = lane >> 4;
  const unsigned mask = 0xffffu << (16 * half);
  while (lo < hi) { /* the answer lies in [lo, hi] */
    const uint64_t step = (hi - lo + 15) / 16;
    const uint64_t p = lo + uint64_t(j + 1) * step - 1;
    const bool beyond = p >= hi || clamped_offset(offsets, p, n) > c;
    narrow_first_beyond((__ballot_sync(mask, beyond) >> (16 * half)) & 0xffffu, step, lo, hi);
  }
  return lo;
}

/* first_beyond for two bounds a <= b at once, by the whole warp: each
 * round every lane probes once for each bound (two loads in flight), a
 * 32-ary search each, ceil(log32(hi - lo)) rounds instead of
 * ceil(log16(hi - lo)). Each bound's answer depends on its own c only
 * (a bound done waits for the other), so it is non-decreasing in c as
 * first_beyond is; but the two need not equal first_beyond's for
 * malformed offsets: a caller uses one of them for both sides of a bound.
 * Call from all 32 lanes; every lane ends with both answers. It also
 * keeps what bound a's reads tell about the entries around its answer, so
 * the caller need not read them again:
 *   *below_a: the raw offset just below a's answer (below_lo, the caller's
 *             offsets[lo_a - 1], where no probe below it was read);
 *   cache[0, 64): where a's last round probed one entry a lane (step 1,
 *             which every search of more than one entry ends with), the
 *             raw offsets from *cache_base on (those up to `last`); each
 *             lane also reads the entry 32 past its probe, and those past
 *             hi, so cache_base <= a <= cache_base + 32 and the cache holds
 *             the 32 entries from a. *cache_base = ~0 where no such round
 *             ran. cache: the warp's 64 words of shared memory (visible to
 *             every lane after a __syncwarp), or NULL: no cache.
 * go_on() runs once, after the first round's loads are issued and before
 * their values are used: for work that should queue behind them (a
 * caller's copies of its values), and to give up (false: the answers are
 * not set) where the caller learns meanwhile that it searched for the
 * wrong bounds. Each bound has its own interval, [lo_a, hi_a] for ca and
 * [lo_b, hi_b] for cb, where its answer is known to lie (the overload below:
 * both [lo, hi]); below_lo is then offsets[lo_a - 1]. */
template <typename Offset, typename GoOn>
__device__ inline void first_beyond_two_reads(const Offset *offsets, uint64_t lo_a, uint64_t hi_a, uint64_t lo_b,
                                              uint64_t hi_b, uint64_t last, uint64_t n, uint64_t ca, uint64_t cb,
                                              int lane, int64_t below_lo, uint64_t *ra, uint64_t *rb, int64_t *below_a,
                                              int64_t *cache, uint64_t *cache_base, GoOn &&go_on) {
  int64_t below = below_lo;
  uint64_t base = ~uint64_t(0);
  for (bool first_round = true; lo_a < hi_a || lo_b < hi_b; first_round = false) { /* answers in [lo, hi] */
    const bool active_a = lo_a < hi_a;
    const uint64_t step_a = (hi_a - lo_a + 31) / 32, step_b = (hi_b - lo_b + 31) / 32;
    const uint64_t pa = lo_a + uint64_t(lane + 1) * step_a - 1, pb = lo_b + uint64_t(lane + 1) * step_b - 1;
    const bool fill = cache && active_a && step_a == 1; /* a's last round: pa = lo_a + lane */
    int64_t raw_a = 0, raw_more = 0, raw_b = 0;
    if (active_a && (pa < hi_a || (fill && pa <= last))) raw_a = int64_t(offsets[pa]);
    if (fill && pa + 32 <= last) raw_more = int64_t(offsets[pa + 32]);
    if (lo_b < hi_b && pb < hi_b) raw_b = int64_t(offsets[pb]);
    if (first_round && !go_on()) return; /* (while the first probes are on their way) */
    if (fill) {
      cache[lane] = raw_a;
      cache[32 + lane] = raw_more;
      base = lo_a;
    }
    const bool beyond_a = !active_a || pa >= hi_a || clamp_offset(raw_a, n) > ca;
    const bool beyond_b = lo_b >= hi_b || pb >= hi_b || clamp_offset(raw_b, n) > cb;
    const unsigned bal_a = __ballot_sync(0xffffffffu, beyond_a), bal_b = __ballot_sync(0xffffffffu, beyond_b);
    if (active_a) {
      /* The last probe not beyond (lane f - 1, below the first beyond f,
       * or lane 31 where none is) sits just below a's new lo. */
      const int f = bal_a == 0 ? 32 : __ffs(bal_a) - 1;
      const int64_t b = ::__shfl_sync(0xffffffffu, raw_a, (f + 31) & 31);
      if (f > 0) below = b;
      narrow_first_beyond(bal_a, step_a, lo_a, hi_a);
    }
    if (lo_b < hi_b) narrow_first_beyond(bal_b, step_b, lo_b, hi_b);
  }
  *ra = lo_a;
  *rb = lo_b;
  *below_a = below;
  *cache_base = base;
}
template <typename Offset, typename GoOn>
__device__ inline void first_beyond_two_reads(const Offset *offsets, uint64_t lo, uint64_t hi, uint64_t last, uint64_t n,
                                              uint64_t ca, uint64_t cb, int lane, int64_t below_lo, uint64_t *ra,
                                              uint64_t *rb, int64_t *below_a, int64_t *cache, uint64_t *cache_base,
                                              GoOn &&go_on) {
  first_beyond_two_reads(offsets, lo, hi, lo, hi, last, n, ca, cb, lane, below_lo, ra, rb, below_a, cache, cache_base,
                         go_on);
}

/* The table and the check in one launch (grid-stride over
 * tile_first_threads). *bad is only ever set, never cleared: the caller
 * zeroes it (or accumulates into a deferred-error word). bad NULL: the
 * table alone (threads over the tiles), for a kernel that checks every
 * offset as it reads them (seg_runs' scans). */
template <typename Offset>
__global__ void tile_first_segments(const Offset *offsets, uint64_t nseg, uint64_t n, uint32_t tile_items,
                                    uint64_t tiles, uint64_t *tile_first, unsigned *bad) {
  if (!bad) {
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < tiles; i += uint64_t(gridDim.x) * blockDim.x)
      tile_first[i] = first_segment_reaching(offsets, nseg, n, i * tile_items);
    return;
  }
  const uint64_t count = tile_first_threads(nseg, tiles);
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x)
    tile_first_thread(offsets, nseg, n, tile_items, tiles, i, tile_first, bad);
}
#endif

}  // namespace gp
