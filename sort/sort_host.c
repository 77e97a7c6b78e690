/*
 * Host radix sort: LSD, 8-bit digits, stable, OpenMP.
 *
 *   0. allocate the second buffer first, so that running out of memory leaves
 *      the caller's arrays as they were
 *   1. histogram: one read of the keys counts every digit position at once
 *      (one histogram per thread over its block, then summed). The sums give
 *      where each bucket starts in every pass, and a position where one bucket
 *      holds all n keys would move nothing: its pass is skipped
 *   2. per remaining digit, a stable scatter from one buffer to the other:
 *      each thread counts the digit over its contiguous block (the first
 *      pass takes step 1's counts, made over the same blocks); its start in
 *      bucket d is (keys in buckets below d, from step 1) + (keys in bucket d
 *      in the blocks before it); then it scatters its block in order. Blocks
 *      in order, and order within a block, make the pass stable
 *   3. after an odd number of passes the result lies in the library's buffer:
 *      copy it back
 *
 * Digits come from gp_sortkey() (sort_keys.h) computed afresh at each read;
 * the arrays only ever hold the caller's bits (the map is not invertible for
 * NaNs). The thread count changes who does what, never the result.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/host_parallel.h"
#include "sort_host.h"
#include "sort_keys.h"

enum {
  RADIX = 256,
  /* Fewer keys per thread than this and a thread costs more than it saves. */
  MIN_KEYS_PER_THREAD = 1 << 16,
  MAX_DIGITS = 8
};

/* The per-key loops are written once with the key type and value width as
 * parameters, and stamped out per (type, width) by always-inlined calls with
 * constant arguments, so each copy has its own key map and moves with no
 * branch on the type. (OpenMP regions stay outside them: GCC outlines a
 * region before inlining, which would lose the constants.) */
#if defined(__GNUC__)
#  define GP_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#  define GP_ALWAYS_INLINE static inline
#endif

GP_ALWAYS_INLINE uint64_t load_bits(const void *a, size_t i, size_t width) {
  return width == 4 ? ((const uint32_t *)a)[i] : ((const uint64_t *)a)[i];
}

GP_ALWAYS_INLINE void move_element(void *dst, size_t j, const void *src, size_t i, size_t width) {
  if (width == 4) ((uint32_t *)dst)[j] = ((const uint32_t *)src)[i];
  else if (width == 8) ((uint64_t *)dst)[j] = ((const uint64_t *)src)[i];
}

/* hist[d * RADIX + b] += keys in [lo, hi) whose digit d is b, for every d. */
GP_ALWAYS_INLINE void histogram_impl(gpu_dtype t, const void *keys, size_t lo, size_t hi,
                                     uint64_t direction, size_t *hist) {
  const size_t width = gp_sortkey_width(t);
  for (size_t i = lo; i < hi; i++) {
    uint64_t k = gp_sortkey(t, load_bits(keys, i, width)) ^ direction;
    for (size_t d = 0; d < width; d++) hist[d * RADIX + ((k >> (8 * d)) & (RADIX - 1))]++;
  }
}

/* count[b] += keys in [lo, hi) whose digit at shift is b. */
GP_ALWAYS_INLINE void count_impl(gpu_dtype t, const void *keys, size_t lo, size_t hi,
                                 unsigned shift, uint64_t direction, size_t *count) {
  const size_t width = gp_sortkey_width(t);
  for (size_t i = lo; i < hi; i++)
    count[((gp_sortkey(t, load_bits(keys, i, width)) ^ direction) >> shift) & (RADIX - 1)]++;
}

typedef struct {
  const void *keys_in, *values_in;
  void *keys_out, *values_out;
} sort_arrays;

/* Moves keys (and values) [lo, hi) to where next[digit] says, in order. */
GP_ALWAYS_INLINE void scatter_impl(gpu_dtype t, size_t value_bytes, const sort_arrays *a,
                                   size_t lo, size_t hi, unsigned shift, uint64_t direction,
                                   size_t *next) {
  const size_t width = gp_sortkey_width(t);
  for (size_t i = lo; i < hi; i++) {
    uint64_t bits = load_bits(a->keys_in, i, width);
    size_t j = next[((gp_sortkey(t, bits) ^ direction) >> shift) & (RADIX - 1)]++;
    move_element(a->keys_out, j, a->keys_in, i, width);
    move_element(a->values_out, j, a->values_in, i, value_bytes);
  }
}

typedef void (*histogram_fn)(const void *, size_t, size_t, uint64_t, size_t *);
typedef void (*count_fn)(const void *, size_t, size_t, unsigned, uint64_t, size_t *);
typedef void (*scatter_fn)(const sort_arrays *, size_t, size_t, unsigned, uint64_t, size_t *);

#define GP_SORT_HOST_LOOPS(T)                                                                 \
  static void histogram_##T(const void *k, size_t lo, size_t hi, uint64_t dir, size_t *h) {  \
    histogram_impl(T, k, lo, hi, dir, h);                                                     \
  }                                                                                           \
  static void count_##T(const void *k, size_t lo, size_t hi, unsigned s, uint64_t dir,       \
                        size_t *c) {                                                          \
    count_impl(T, k, lo, hi, s, dir, c);                                                      \
  }                                                                                           \
  static void scatter_##T##_0(const sort_arrays *a, size_t lo, size_t hi, unsigned s,        \
                              uint64_t dir, size_t *n) {                                      \
    scatter_impl(T, 0, a, lo, hi, s, dir, n);                                                 \
  }                                                                                           \
  static void scatter_##T##_4(const sort_arrays *a, size_t lo, size_t hi, unsigned s,        \
                              uint64_t dir, size_t *n) {                                      \
    scatter_impl(T, 4, a, lo, hi, s, dir, n);                                                 \
  }                                                                                           \
  static void scatter_##T##_8(const sort_arrays *a, size_t lo, size_t hi, unsigned s,        \
                              uint64_t dir, size_t *n) {                                      \
    scatter_impl(T, 8, a, lo, hi, s, dir, n);                                                 \
  }
GP_SORT_HOST_LOOPS(GPU_I32)
GP_SORT_HOST_LOOPS(GPU_U32)
GP_SORT_HOST_LOOPS(GPU_I64)
GP_SORT_HOST_LOOPS(GPU_U64)
GP_SORT_HOST_LOOPS(GPU_F32)
GP_SORT_HOST_LOOPS(GPU_F64)
#undef GP_SORT_HOST_LOOPS

typedef struct {
  histogram_fn histogram;
  count_fn count;
  scatter_fn scatter[3]; /* keys only, 4-byte values, 8-byte values */
} sort_loops;

#define GP_SORT_LOOPS_ENTRY(T) \
  [T] = {histogram_##T, count_##T, {scatter_##T##_0, scatter_##T##_4, scatter_##T##_8}}
static const sort_loops loops_table[GPU_F64 + 1] = {
    GP_SORT_LOOPS_ENTRY(GPU_I32), GP_SORT_LOOPS_ENTRY(GPU_U32), GP_SORT_LOOPS_ENTRY(GPU_I64),
    GP_SORT_LOOPS_ENTRY(GPU_U64), GP_SORT_LOOPS_ENTRY(GPU_F32), GP_SORT_LOOPS_ENTRY(GPU_F64)};
#undef GP_SORT_LOOPS_ENTRY

/* What the threads of one sort share. */
typedef struct {
  const sort_loops *loops;
  size_t n, key_bytes, value_bytes;
  uint64_t direction;
  void *keys, *values, *key_buffer, *value_buffer;
  size_t *thread_hist;              /* threads x key_bytes x RADIX (step 1) */
  size_t *thread_count;             /* threads x RADIX (step 2) */
  size_t bucket_start[MAX_DIGITS][RADIX];
  unsigned pass_digit[MAX_DIGITS];  /* digit positions that need a pass, low first */
  unsigned passes;
} sort_job;

/* Step 1's tail, on one thread: sums the histograms of the team into bucket
 * starts and picks the digit positions that need a pass. */
static void plan_passes(sort_job *job, size_t team) {
  const size_t digits = job->key_bytes;
  job->passes = 0;
  for (size_t d = 0; d < digits; d++) {
    size_t start = 0;
    bool moves = true;
    for (size_t b = 0; b < RADIX; b++) {
      size_t total = 0;
      for (size_t th = 0; th < team; th++) total += job->thread_hist[(th * digits + d) * RADIX + b];
      if (total == job->n) moves = false;
      job->bucket_start[d][b] = start;
      start += total;
    }
    if (moves) job->pass_digit[job->passes++] = (unsigned)d;
  }
}

/* One thread's share of the whole sort, over its block [lo, hi). */
static void sort_thread(sort_job *job, size_t me, size_t team) {
  const size_t block = (job->n + team - 1) / team;
  const size_t lo = me * block < job->n ? me * block : job->n;
  const size_t hi = job->n - lo < block ? job->n : lo + block;
  const sort_loops *loops = job->loops;
  const size_t vsel = job->value_bytes / 4; /* 0, 1, 2: the scatter_fn index */

  size_t *hist = job->thread_hist + me * job->key_bytes * RADIX;
  memset(hist, 0, job->key_bytes * RADIX * sizeof *hist);
  loops->histogram(job->keys, lo, hi, job->direction, hist);
#pragma omp barrier
#pragma omp single
  plan_passes(job, team);
  /* (implicit barrier: every thread sees the plan) */

  sort_arrays a = {job->keys, job->values, job->key_buffer, job->value_buffer};
  for (unsigned p = 0; p < job->passes; p++) {
    const unsigned digit = job->pass_digit[p], shift = 8 * digit;
    /* Thread th's count of bucket b is counts[th * stride + b]. The first pass
     * reads the caller's keys in the same blocks as step 1, so step 1 counted
     * it already; later passes count what the previous one wrote. */
    const size_t *counts = job->thread_hist + digit * RADIX;
    size_t stride = job->key_bytes * RADIX;
    if (p > 0) {
      size_t *count = job->thread_count + me * RADIX;
      memset(count, 0, RADIX * sizeof *count);
      loops->count(a.keys_in, lo, hi, shift, job->direction, count);
      counts = job->thread_count;
      stride = RADIX;
#pragma omp barrier
    }
    size_t next[RADIX];
    for (size_t b = 0; b < RADIX; b++) {
      size_t at = job->bucket_start[digit][b];
      for (size_t th = 0; th < me; th++) at += counts[th * stride + b];
      next[b] = at;
    }
    loops->scatter[vsel](&a, lo, hi, shift, job->direction, next);
    /* The next pass reads what every thread wrote, and recounts. */
#pragma omp barrier
    sort_arrays swapped = {a.keys_out, a.values_out, (void *)a.keys_in, (void *)a.values_in};
    a = swapped;
  }
  if (job->passes % 2 == 1) {
    memcpy((char *)job->keys + lo * job->key_bytes, (char *)job->key_buffer + lo * job->key_bytes,
           (hi - lo) * job->key_bytes);
    if (job->value_bytes)
      memcpy((char *)job->values + lo * job->value_bytes,
             (char *)job->value_buffer + lo * job->value_bytes, (hi - lo) * job->value_bytes);
  }
}

gpu_status gp_sort_host(void *keys, void *values, size_t n, gpu_dtype key_t, size_t value_bytes,
                        unsigned flags) {
  if (n == 0) return GPU_OK;
  const char *fn = value_bytes ? "gpu_sort_pairs" : "gpu_sort_keys";
  size_t threads = gp_host_parallel(n) ? n / MIN_KEYS_PER_THREAD : 1;
  size_t max_threads = (size_t)omp_get_max_threads();
  if (threads > max_threads) threads = max_threads;
  if (threads < 1) threads = 1;

  sort_job *job = calloc(1, sizeof *job);
  if (!job) return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %zu bytes of sort state", fn, sizeof *job);
  job->loops = &loops_table[key_t];
  job->n = n;
  job->key_bytes = gp_sortkey_width(key_t);
  job->value_bytes = value_bytes;
  job->direction = gp_sortkey_direction(key_t, flags);
  job->keys = keys;
  job->values = value_bytes ? values : NULL;
  job->key_buffer = malloc(n * job->key_bytes);
  job->value_buffer = value_bytes ? malloc(n * value_bytes) : NULL;
  job->thread_hist = malloc(threads * job->key_bytes * RADIX * sizeof(size_t));
  job->thread_count = malloc(threads * RADIX * sizeof(size_t));
  gpu_status s = GPU_OK;
  if (!job->key_buffer || (value_bytes && !job->value_buffer) || !job->thread_hist ||
      !job->thread_count) {
    s = gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: no memory for a second buffer of %zu keys", fn, n);
  } else {
    /* The team may be smaller than asked for; blocks follow the actual team. */
#pragma omp parallel num_threads((int)threads) if (threads > 1)
    sort_thread(job, (size_t)omp_get_thread_num(), (size_t)omp_get_num_threads());
  }
  free(job->thread_count);
  free(job->thread_hist);
  free(job->value_buffer);
  free(job->key_buffer);
  free(job);
  return s;
}
