/*
 * gpu_segreduce at small n: a block for a group of consecutive segments,
 * CUB's way, with segreduce_warps as the fallback in the same launch.
 *
 * Why: segreduce_warps balances elements over warps, which needs n (read on
 * the device), a search for each warp's window and the look-back for
 * segments that cross chunks: four or five round trips before the last
 * result, where CUB's block a segment needs two (its offsets, then its
 * values). A block a group is unbalanced
 * where segments are long or skewed; this kernel takes it only where that
 * cannot cost much, and otherwise leaves every block to segreduce_warps.
 *
 * The grid is the resident grid, so all its blocks run at once and take
 * their places by blockIdx for every type (a block waits only for blocks
 * that hold a place: helpers for the group blocks, segreduce_warps_block's
 * look-back for blocks of lower index). `groups`
 * blocks own a group of `per` segments each (block g: segments
 * [g per, g per + per)), the rest are helpers. Every block reads n, its
 * group's per + 1 offsets (one a thread, at once) and starts
 * segreduce_warps_block's search. Once n is known, uniformly:
 *   - n > n_direct or a mean segment above 512 (direct_shape::mean):
 *     every block runs segreduce_warps_block as segreduce_warps would, for
 *     this grid's warps; the group offsets were read for nothing.
 *   - else "direct": a group block whose elements number at most cap
 *     (eight windows of 16 a thread; "light") brings them into shared
 *     memory by cp.async a window at a time, the next window's copies in
 *     flight while it scans one (reduce_group: a warp a segment where the
 *     group is one window of at most 8 segments and 1024 elements, else a
 *     block scan of (value, start) pairs a window, carried from window to
 *     window; fixed trees, so the bits depend on the segments' values and
 *     the group's start only) and writes their results. n_direct keeps
 *     the mean group at four windows or fewer (a round trip each). One
 *     whose group holds more ("heavy": long or skewed segments) marks the
 *     launch heavy (a word tagged with the launch's epoch) and writes
 *     nothing. Each group block then counts itself on the launch's counter.
 *     The helpers wait until every group block is counted: if none was
 *     heavy they leave; else they run segreduce_warps_block among
 *     themselves (chunks for the helpers' warps, their own look-back
 *     entries) and write the results of the heavy groups' segments only.
 * The choice and the heavy groups depend on the offsets, n, and the
 * device's resident grid only: every run gives the same bits. Every offset
 * is checked (each group block checks its own, the ends shared with its
 * neighbours) and clamped into [0, n] before use.
 *
 * Where the launch is not direct, segreduce_warps' code runs slower in
 * this kernel than alone with few long segments, so the plan takes this
 * kernel from SEG_DIRECT_MIN_SEGMENTS segments only (bench/NOTES.md).
 */
#pragma once

#include "segmented/device/segreduce_warps.cuh"

namespace gp {

/* A light group's elements: at most cap, so that with the 16-byte
 * rounding before them they fit `windows` windows of `span` = 16 a
 * thread; and the mean segment length above which no launch goes direct. */
template <typename T> struct direct_shape {
  using WarpsShape = warps_reduce_shape<T>;
  static constexpr int items = SEG_DIRECT_ITEMS; /* a thread's, in a window's scan */
  static constexpr uint64_t span = uint64_t(WarpsShape::threads) * items;
  static constexpr uint64_t windows = segreduce_direct_tuning::windows;
  static constexpr uint64_t buffers = windows > 1 ? 2 : 1;
  static constexpr uint64_t cap = windows * span - WarpsShape::vec;
  static constexpr uint64_t max_group = WarpsShape::threads - 1; /* per + 1 offsets, one a thread */
  static constexpr uint64_t mean = segreduce_direct_tuning::max_mean;
  static constexpr uint64_t group_mean_cap = uint64_t(segreduce_direct_tuning::group_windows) * span - WarpsShape::vec;
  static constexpr uint64_t n_direct_per_group = (group_mean_cap < cap ? group_mean_cap : cap) / 2;
  /* The stages' bytes in a direct launch (nothing is copied there then):
   * the buffers of values (swizzled), a window's start bits, the warps'
   * aggregates, and the group's offsets at the end. */
  static constexpr size_t bits_at = buffers * span * sizeof(T);
  static constexpr size_t aggs_at = bits_at + span / 8;
  static constexpr size_t raw_at = WarpsShape::smem - (max_group + 1) * sizeof(int64_t);
  static_assert(windows >= 1, "a group takes one window at least");
  static_assert(aggs_at + WarpsShape::warps * sizeof(seg_pair<T>) <= raw_at, "the stages are too small for a group");
};

/* What the host decides for a direct launch. */
struct direct_args {
  uint32_t groups;   /* blocks that own a group; the grid's others help */
  uint64_t per;      /* segments a group */
  uint64_t n_direct; /* the largest n that goes direct */
  uint64_t *heavy;   /* a tagged word: == epoch where a group was heavy */
};

/* A group's elements, its offsets clamped into [0, n]: [*a, *a + count). */
__device__ inline uint64_t group_elements(int64_t first_raw, int64_t last_raw, uint64_t n, uint64_t *a) {
  *a = clamp_offset(first_raw, n);
  const uint64_t b = clamp_offset(last_raw, n);
  return b > *a ? b - *a : 0;
}

/* The helpers' results: those of the heavy groups' segments only (the
 * light groups' blocks write the others). */
template <typename T, typename Epilogue> struct heavy_group_results {
  Epilogue inner;
  const int64_t *offsets;
  uint64_t nseg, n, per;
  __device__ void operator()(uint64_t seg, T v, bool empty) const {
    const uint64_t first = seg / per * per, last = first + per < nseg ? first + per : nseg;
    uint64_t a = 0;
    if (group_elements(offsets[first], offsets[last], n, &a) > direct_shape<T>::cap) inner(seg, v, empty);
  }
};

/* The helpers' second pass, out of line: the kernel's registers are its
 * first pass's, as in segreduce_warps. */
template <typename T, gpu_op OP, typename Epilogue>
__device__ __noinline__ void helpers_reduce(const T *in, const int64_t *offsets, uint64_t nseg, uint64_t n_max,
                                            bool vector_ok, lookback_args lb, uint32_t groups, uint64_t per,
                                            unsigned *bad, Epilogue epilogue) {
  using WarpsShape = warps_reduce_shape<T>;
  lb.tiles = gridDim.x - groups;
  lb.levels = lookback_plan(lb.tiles).levels; /* the helpers' entries: fewer than the grid's */
  const heavy_group_results<T, Epilogue> results{epilogue, offsets, nseg, clamp_offset(offsets[nseg], n_max), per};
  segreduce_warps_block<T, OP>(in, offsets, nseg, n_max, uint64_t(lb.tiles) * WarpsShape::warps, vector_ok, lb,
                               blockIdx.x - groups, bad, results, [](uint64_t) { return false; });
}

/* A light group's window [wb, wb + wl) of its elements (wb - a0 a
 * multiple of span) into buf, swizzled, by cp.async: 16-byte chunks where
 * in is aligned (a0, and so wb, is then a multiple of VEC), single
 * elements for the rest. One commit group a window. */
template <typename T>
__device__ inline void stage_window(T *buf, const T *in, uint64_t wb, uint64_t wl, bool vector_ok) {
  using WarpsShape = warps_reduce_shape<T>;
  constexpr int VEC = WarpsShape::vec;
  const uint32_t chunks = vector_ok ? uint32_t(wl / VEC) : 0;
  for (uint32_t c = threadIdx.x; c < chunks; c += WarpsShape::threads)
    copy_async(reinterpret_cast<vec16<T, VEC> *>(buf + swizzled<VEC>(c * VEC)),
               reinterpret_cast<const vec16<T, VEC> *>(in + wb + c * VEC));
  for (uint32_t i = chunks * VEC + threadIdx.x; i < wl; i += WarpsShape::threads)
    copy_async(buf + swizzled<VEC>(i), in + wb + i);
  copy_async_commit();
}

/* Segment j of a group, its offsets (raw) clamped into [0, n], then into
 * the group's [a, end]: [*s, *e). */
__device__ inline void group_segment(const int64_t *raw, uint64_t j, uint64_t n, uint64_t a, uint64_t end,
                                     uint64_t *s, uint64_t *e) {
  uint64_t x = clamp_offset(raw[j], n), y = clamp_offset(raw[j + 1], n);
  x = x < a ? a : x > end ? end : x;
  *s = x;
  *e = y < x ? x : y > end ? end : y;
}

/* A light group of few short segments in one window (buf, from a0): a
 * warp a segment. */
template <typename T, gpu_op OP, typename Epilogue>
__device__ inline void reduce_group_by_warps(const T *buf, const int64_t *raw, uint64_t count, uint64_t n, uint64_t a,
                                             uint64_t end, uint64_t a0, uint64_t g0, Epilogue &epilogue) {
  using Base = scan_op<T, OP>;
  constexpr int VEC = warps_reduce_shape<T>::vec;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (uint64_t(warp) >= count) return;
  uint64_t s, e;
  group_segment(raw, warp, n, a, end, &s, &e);
  T v = Base::neutral();
  for (uint64_t i = s + lane; i < e; i += 32) v = Base::apply(v, buf[swizzled<VEC>(uint32_t(i - a0))]);
  v = warp_reduce<Base>(v);
  if (lane == 0) epilogue(g0 + warp, v, s >= e);
}

/* One window [wb, wb + wl) of a light group in the stages (buf, swizzled):
 * one scan of (value, start) pairs over the block, 16 consecutive items a
 * thread, after `carry` (the group's fold before wb, uniform; the fold
 * through the window on return), and the results of the segments whose
 * last element lies in the window (the empty ones' with the first
 * window). Barriers inside; buf holds the inclusive scan after. */
template <typename T, gpu_op OP, typename Epilogue>
__device__ inline void scan_window(T *buf, unsigned char *stages, const int64_t *raw, uint64_t count, uint64_t n,
                                   uint64_t a, uint64_t end, uint64_t wb, uint64_t wl, uint64_t g0,
                                   bool first, seg_pair<T> &carry, Epilogue &epilogue) {
  using WarpsShape = warps_reduce_shape<T>;
  using DirectShape = direct_shape<T>;
  using Base = scan_op<T, OP>;
  using Pair = seg_pair<T>;
  using Op = seg_op<T, OP>;
  constexpr int VEC = WarpsShape::vec, WARPS = WarpsShape::warps, ITEMS = DirectShape::items;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  uint32_t *const bits = reinterpret_cast<uint32_t *>(stages + DirectShape::bits_at);
  Pair *const aggs = reinterpret_cast<Pair *>(stages + DirectShape::aggs_at);
  for (uint32_t k = t; k < DirectShape::span / 32; k += WarpsShape::threads) bits[k] = 0;
  __syncthreads();
  for (uint64_t j = t; j < count; j += WarpsShape::threads) {
    uint64_t s, e;
    group_segment(raw, j, n, a, end, &s, &e);
    if (s < e && s >= wb && s - wb < wl) atomicOr(&bits[(s - wb) / 32], 1u << ((s - wb) % 32));
  }
  __syncthreads();
  T x[ITEMS];
#pragma unroll
  for (int c = 0; c < ITEMS / VEC; c++) {
    const vec16<T, VEC> v = *reinterpret_cast<const vec16<T, VEC> *>(buf + swizzled<VEC>(t * ITEMS + c * VEC));
#pragma unroll
    for (int k = 0; k < VEC; k++) x[c * VEC + k] = v.v[k];
  }
  const uint32_t heads = bits[t * ITEMS / 32] >> (t * ITEMS % 32);
  T fold = Base::neutral();
  uint32_t any = 0;
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    const bool h = (heads >> k) & 1u;
    fold = h ? x[k] : Base::apply(fold, x[k]);
    any |= h;
  }
  const Pair incl = warp_inclusive_scan<Op, false>(Pair{fold, any}, lane);
  const Pair warp_total = warp_last<false>(incl);
  if (lane == 0) aggs[warp] = warp_total;
  __syncthreads();
  Pair before = carry;
  for (int k = 0; k < warp; k++) before = Op::apply(before, aggs[k]);
  for (int k = 0; k < WARPS; k++) carry = Op::apply(carry, aggs[k]);
  T v = Op::apply(before, warp_exclusive_from_inclusive<Op, false>(incl, lane)).value;
#pragma unroll
  for (int c = 0; c < ITEMS / VEC; c++) {
    vec16<T, VEC> y;
#pragma unroll
    for (int k = 0; k < VEC; k++) {
      const int j = c * VEC + k;
      v = (heads >> j) & 1u ? x[j] : Base::apply(v, x[j]);
      y.v[k] = v;
    }
    *reinterpret_cast<vec16<T, VEC> *>(buf + swizzled<VEC>(t * ITEMS + c * VEC)) = y;
  }
  __syncthreads();
  for (uint64_t j = t; j < count; j += WarpsShape::threads) {
    uint64_t s, e;
    group_segment(raw, j, n, a, end, &s, &e);
    if (s >= e) {
      if (first) epilogue(g0 + j, Base::identity(), true);
    } else if (e - 1 >= wb && e - 1 - wb < wl) {
      epilogue(g0 + j, buf[swizzled<VEC>(uint32_t(e - 1 - wb))], false);
    }
  }
}

/* A light group's results: its elements [a, end) in windows of span from
 * a0 (a rounded down to whole 16-byte chunks where in is aligned), two
 * buffers, the next window's copies in flight while one is scanned; a
 * warp a segment instead where the group is one window of at most 8
 * segments and 1024 elements. */
template <typename T, gpu_op OP, typename Epilogue>
__device__ inline void reduce_group(unsigned char *stages, const T *in, bool vector_ok, const int64_t *raw,
                                    uint64_t count, uint64_t n, uint64_t a, uint64_t end, uint64_t g0,
                                    Epilogue &epilogue) {
  using WarpsShape = warps_reduce_shape<T>;
  using DirectShape = direct_shape<T>;
  using Pair = seg_pair<T>;
  using Op = seg_op<T, OP>;
  constexpr int VEC = WarpsShape::vec;
  const uint64_t a0 = vector_ok ? a / VEC * VEC : a;
  const uint64_t windows =
      end > a0 ? (end - a0 + DirectShape::span - 1) / DirectShape::span : 1; /* (one for empty segments) */
  auto window = [&](uint64_t k, uint64_t *wb) {
    *wb = a0 + k * DirectShape::span;
    return end - *wb < DirectShape::span ? end - *wb : DirectShape::span;
  };
  auto buffer = [&](uint64_t k) {
    return reinterpret_cast<T *>(stages) + (k % DirectShape::buffers) * DirectShape::span;
  };
  for (uint64_t k = 0; k < windows && k < DirectShape::buffers; k++) {
    uint64_t wb;
    const uint64_t wl = window(k, &wb);
    stage_window(buffer(k), in, wb, wl, vector_ok);
  }
  if (windows == 1 && count <= uint64_t(WarpsShape::warps) && end - a <= 1024) {
    copy_async_wait<0>();
    __syncthreads();
    reduce_group_by_warps<T, OP>(buffer(0), raw, count, n, a, end, a0, g0, epilogue);
    return;
  }
  Pair carry = Op::neutral();
  for (uint64_t k = 0; k < windows; k++) {
    if (k + 1 < windows) copy_async_wait<1>(); /* (never with one buffer: one window then) */
    else copy_async_wait<0>();
    /* (scan_window's first barrier makes the window's copies visible) */
    uint64_t wb;
    const uint64_t wl = window(k, &wb);
    scan_window<T, OP>(buffer(k), stages, raw, count, n, a, end, wb, wl, g0, k == 0, carry, epilogue);
    if (k + DirectShape::buffers < windows) {
      __syncthreads(); /* every thread's reads of the results from this buffer */
      uint64_t nb;
      const uint64_t nl = window(k + DirectShape::buffers, &nb);
      stage_window(buffer(k + DirectShape::buffers), in, nb, nl, vector_ok);
    }
  }
}

template <typename T, gpu_op OP, typename Epilogue>
__global__ void __launch_bounds__(warps_reduce_shape<T>::threads, warps_reduce_shape<T>::min_blocks)
    segreduce_direct(const T *in, const int64_t *offsets, uint64_t nseg, uint64_t n_max, uint64_t grid_warps,
                     bool vector_ok, lookback_args lb, unsigned *bad, Epilogue epilogue, direct_args da) {
  using WarpsShape = warps_reduce_shape<T>;
  using DirectShape = direct_shape<T>;
  extern __shared__ __align__(128) unsigned char warp_stages[];
  const int t = threadIdx.x;
  const bool owner = blockIdx.x < da.groups;
  const uint64_t g0 = uint64_t(blockIdx.x) * da.per;
  const uint64_t count = owner && g0 < nseg ? (nseg - g0 < da.per ? nseg - g0 : da.per) : 0; /* its segments */
  int64_t *const raw = reinterpret_cast<int64_t *>(warp_stages + DirectShape::raw_at);
  const bool mine = count > 0 && uint64_t(t) <= count; /* thread t holds offsets[g0 + t] */
  int64_t my_raw = 0; /* read first; to raw[t] once the launch goes direct */
  if (mine) my_raw = offsets[g0 + t];
  const uint64_t mean_limit = nseg * DirectShape::mean;
  uint64_t n = 0;
  auto direct = [&](uint64_t n_seen) {
    n = n_seen;
    const bool go = n_seen <= da.n_direct && n_seen <= mean_limit;
    if (go && mine) raw[t] = my_raw; /* (no copies into the stages then) */
    return go;
  };
  if (!segreduce_warps_block<T, OP>(in, offsets, nseg, n_max, grid_warps, vector_ok, lb, blockIdx.x, bad, epilogue,
                                    direct)) {
    if (owner && t == 0) atomicAdd(lb.counter, 1ull); /* every launch counts each group block once */
    return;
  }
  __syncthreads(); /* raw[] */

  if (owner) {
    const int64_t n_raw = offsets[nseg]; /* (in L1: segreduce_warps_block read it) */
    bool malformed = false;
    if (mine) {
      if (my_raw < 0 || uint64_t(my_raw) > n) malformed = true;
      if (t > 0 && my_raw < raw[t - 1]) malformed = true;
      if (g0 + t == 0 && my_raw != 0) malformed = true;
    }
    if (t == 0 && (n_raw < 0 || uint64_t(n_raw) > n_max)) malformed = true;
    if (__syncthreads_or(malformed) && t == 0) *bad = 1;
    uint64_t a = 0;
    const uint64_t elements = count > 0 ? group_elements(raw[0], raw[count], n, &a) : 0;
    const bool heavy = elements > DirectShape::cap;
    if (t == 0) {
      if (heavy) {
        *da.heavy = lb.epoch;
        __threadfence(); /* before the count that lets the helpers read it */
      }
      atomicAdd(lb.counter, 1ull);
    }
    if (heavy || count == 0) return;
    reduce_group<T, OP>(warp_stages, in, vector_ok, raw, count, n, a, elements + a, g0, epilogue);
    return;
  }

  /* A helper: wait for every group block's count; for a heavy launch
   * reduce again among the helpers, keeping the heavy groups' results. */
  __shared__ bool s_heavy;
  if (t == 0) {
    const unsigned long long all = lb.counter_base + da.groups;
    while (*reinterpret_cast<volatile unsigned long long *>(lb.counter) < all) __nanosleep(64);
    __threadfence();
    s_heavy = *reinterpret_cast<volatile uint64_t *>(da.heavy) == uint64_t(lb.epoch);
  }
  __syncthreads();
  if (s_heavy) helpers_reduce<T, OP>(in, offsets, nseg, n_max, vector_ok, lb, da.groups, da.per, bad, epilogue);
}

}  // namespace gp
