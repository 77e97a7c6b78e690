/*
 * Host compaction and partition: stable, and the same output whatever the
 * number of OpenMP threads (each element's place follows from counts alone).
 *
 * The input is taken in segments of SEGMENT elements, so the temporary
 * memory stays a few MiB whatever n is. In each segment:
 *   1. the predicate is evaluated into a byte mask (a flags array is its own
 *      mask: flags[i] != 0 keeps element i)          parallel
 *   2. each chunk of CHUNK elements counts its kept ones  parallel
 *   3. an exclusive scan of the chunk counts gives each chunk the place of
 *      its first kept element                          serial, in order
 *   4. each chunk copies its elements to their places   parallel
 * Partition writes the rejected elements after all n's kept ones, so it needs
 * the total kept count before writing any: with one segment that is the
 * segment's own count; with more, a first pass over the segments counts
 * them (the predicate is evaluated twice, the price of a small mask).
 *
 * Comparisons are made in the element type (C's, which for floats are
 * IEEE's: NaN fails all but !=), never through double, so 64-bit integers
 * above 2^53 compare exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/host_parallel.h"
#include "compact_internal.h"

enum { CHUNK = 1 << 14, SEGMENT = 1 << 22 };

/* ------------------------------------------------------------ predicates */

#define GP_COMPACT_HOST_TYPES(X) \
  X(i32, int32_t)                \
  X(u32, uint32_t)               \
  X(i64, int64_t)                \
  X(u64, uint64_t)               \
  X(f32, float)                  \
  X(f64, double)

#define MASK_LOOP(COND)                                            \
  {                                                                \
    _Pragma("omp parallel for schedule(static) if (m >= 4 * CHUNK)") \
    for (size_t i = 0; i < m; i++) mask[i] = (uint8_t)(COND);      \
  }

/* mask[i] = (x[i] cmp *value) and mask[i] = (lo <= x[i] && x[i] < hi) for
 * one type; values arrive as bits (compact_internal.h). */
#define GP_DEFINE_MASKS(S, T)                                                             \
  static void mask_cmp_##S(const void *vx, size_t m, int32_t cmp, uint64_t a, uint8_t *mask) { \
    const T *x = vx;                                                                      \
    T v;                                                                                  \
    memcpy(&v, &a, sizeof v);                                                             \
    switch (cmp) {                                                                        \
      case GPU_EQ: MASK_LOOP(x[i] == v); break;                                           \
      case GPU_NE: MASK_LOOP(x[i] != v); break;                                           \
      case GPU_LT: MASK_LOOP(x[i] < v); break;                                            \
      case GPU_LE: MASK_LOOP(x[i] <= v); break;                                           \
      case GPU_GT: MASK_LOOP(x[i] > v); break;                                            \
      default: MASK_LOOP(x[i] >= v); break;                                               \
    }                                                                                     \
  }                                                                                       \
  static void mask_range_##S(const void *vx, size_t m, uint64_t a, uint64_t b, uint8_t *mask) { \
    const T *x = vx;                                                                      \
    T lo, hi;                                                                             \
    memcpy(&lo, &a, sizeof lo);                                                           \
    memcpy(&hi, &b, sizeof hi);                                                           \
    MASK_LOOP(lo <= x[i] && x[i] < hi);                                                   \
  }
GP_COMPACT_HOST_TYPES(GP_DEFINE_MASKS)
#undef GP_DEFINE_MASKS

typedef void (*mask_cmp_fn)(const void *, size_t, int32_t, uint64_t, uint8_t *);
typedef void (*mask_range_fn)(const void *, size_t, uint64_t, uint64_t, uint8_t *);
#define GP_CMP_ENTRY(S, T) mask_cmp_##S,
#define GP_RANGE_ENTRY(S, T) mask_range_##S,
/* Indexed by gpu_dtype, in its order. */
static const mask_cmp_fn mask_cmp[] = {GP_COMPACT_HOST_TYPES(GP_CMP_ENTRY)};
static const mask_range_fn mask_range[] = {GP_COMPACT_HOST_TYPES(GP_RANGE_ENTRY)};

/* The mask of elements [lo, lo + m): the flags themselves, or `scratch`
 * filled in. */
static const uint8_t *predicate_mask(const gpu_pred *pred, const void *in, size_t lo, size_t m,
                                     uint8_t *scratch) {
  const gpu_dtype t = (gpu_dtype)pred->private_.type;
  const void *x = (const char *)in + lo * gpu_dtype_size(t);
  switch (pred->private_.kind) {
    case GP_PRED_FLAGS: return (const uint8_t *)pred->private_.ptr + lo;
    case GP_PRED_CMP: mask_cmp[t](x, m, pred->private_.cmp, pred->private_.a, scratch); break;
    case GP_PRED_RANGE: mask_range[t](x, m, pred->private_.a, pred->private_.b, scratch); break;
    default: gp_expr_eval_host(((const gp_formula *)pred->private_.ptr)->expr, x, m, scratch); break;
  }
  return scratch;
}

/* ------------------------------------------------------------- counting */

/* kept[c] = how many of chunk c's elements the mask keeps. */
static void count_chunks(const uint8_t *mask, size_t m, size_t *kept) {
  const size_t chunks = (m + CHUNK - 1) / CHUNK;
#pragma omp parallel for schedule(static) if (chunks >= 4 && gp_host_parallel(m))
  for (size_t c = 0; c < chunks; c++) {
    size_t lo = c * CHUNK, hi = lo + CHUNK < m ? lo + CHUNK : m, k = 0;
    for (size_t i = lo; i < hi; i++) k += mask[i] != 0;
    kept[c] = k;
  }
}

/* Turns the counts into exclusive prefix sums; returns their total. */
static size_t exclusive_scan(size_t *kept, size_t chunks) {
  size_t run = 0;
  for (size_t c = 0; c < chunks; c++) {
    size_t k = kept[c];
    kept[c] = run;
    run += k;
  }
  return run;
}

/* ------------------------------------------------------------- copying */

/* Chunk [lo, hi) of a segment: kept elements to kept_out in order, the others
 * (when rejected_out is not NULL) to rejected_out in order. Elements are
 * copied as bits, so NaN payloads and -0.0 survive. */
#define GP_DEFINE_SCATTER(U)                                                                  \
  static void scatter_##U(const U *in, const uint8_t *mask, size_t lo, size_t hi, U *kept_out, \
                          U *rejected_out) {                                                  \
    for (size_t i = lo; i < hi; i++) {                                                        \
      if (mask[i]) *kept_out++ = in[i];                                                       \
      else if (rejected_out) *rejected_out++ = in[i];                                         \
    }                                                                                         \
  }
GP_DEFINE_SCATTER(uint32_t)
GP_DEFINE_SCATTER(uint64_t)
#undef GP_DEFINE_SCATTER

/* Scatters segment [seg_lo, seg_lo + m) whose chunk offsets are in kept:
 * kept elements from out[kept_before], rejected ones (partition only) from
 * out[rejected_base]. */
static void scatter_segment(const void *in, size_t w, size_t seg_lo, size_t m, const uint8_t *mask,
                            const size_t *kept, size_t kept_before, bool partition, size_t rejected_base,
                            void *out) {
  const size_t chunks = (m + CHUNK - 1) / CHUNK;
#pragma omp parallel for schedule(static) if (chunks >= 4 && gp_host_parallel(m))
  for (size_t c = 0; c < chunks; c++) {
    size_t lo = c * CHUNK, hi = lo + CHUNK < m ? lo + CHUNK : m;
    size_t k = kept_before + kept[c], r = rejected_base + (lo - kept[c]); /* rejected before chunk c */
    if (w == 4) {
      const uint32_t *x = (const uint32_t *)in + seg_lo;
      scatter_uint32_t(x, mask, lo, hi, (uint32_t *)out + k, partition ? (uint32_t *)out + r : NULL);
    } else {
      const uint64_t *x = (const uint64_t *)in + seg_lo;
      scatter_uint64_t(x, mask, lo, hi, (uint64_t *)out + k, partition ? (uint64_t *)out + r : NULL);
    }
  }
}

/* ------------------------------------------------------------- the whole */

int64_t gp_compact_host(const void *in, size_t n, const gpu_pred *pred, void *out, bool partition) {
  const char *fn = partition ? "gpu_partition" : "gpu_compact";
  const size_t w = gpu_dtype_size((gpu_dtype)pred->private_.type);
  const size_t seg = n < SEGMENT ? n : SEGMENT, chunks = (seg + CHUNK - 1) / CHUNK;
  const bool one_segment = n <= SEGMENT;
  /* Everything is allocated before anything is written: on failure out is untouched. */
  uint8_t *scratch = pred->private_.kind == GP_PRED_FLAGS ? NULL : malloc(seg);
  size_t *kept = malloc(chunks * sizeof *kept);
  if (!kept || (!scratch && pred->private_.kind != GP_PRED_FLAGS)) {
    free(scratch);
    free(kept);
    return gp_neg(gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: no host memory for a %zu-element mask", fn, seg));
  }
  size_t kept_total = 0;
  if (partition && !one_segment)
    for (size_t lo = 0; lo < n; lo += SEGMENT) {
      size_t m = n - lo < SEGMENT ? n - lo : SEGMENT;
      count_chunks(predicate_mask(pred, in, lo, m, scratch), m, kept);
      kept_total += exclusive_scan(kept, (m + CHUNK - 1) / CHUNK);
    }
  size_t kept_before = 0, rejected_before = 0;
  for (size_t lo = 0; lo < n; lo += SEGMENT) {
    size_t m = n - lo < SEGMENT ? n - lo : SEGMENT;
    const uint8_t *mask = predicate_mask(pred, in, lo, m, scratch);
    count_chunks(mask, m, kept);
    size_t segment_kept = exclusive_scan(kept, (m + CHUNK - 1) / CHUNK);
    if (one_segment) kept_total = segment_kept;
    scatter_segment(in, w, lo, m, mask, kept, kept_before, partition, kept_total + rejected_before, out);
    kept_before += segment_kept;
    rejected_before += m - segment_kept;
  }
  free(scratch);
  free(kept);
  return (int64_t)kept_before;
}
