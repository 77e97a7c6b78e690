/*
 * Host segmented scan and reduce. As in scan/scan_host.c, the input is cut
 * into chunks of a fixed size (not one per thread) and chunk results are
 * combined in chunk order, so every float result has the same bits whatever
 * the number of OpenMP threads.
 *
 * Segmented scan, in logical order (REVERSE reads logical element j at
 * physical index n-1-j, and there a segment begins at its last element):
 *   1. per chunk (parallel): the fold from the chunk's last segment start (or
 *      its first element) to its end, and whether a segment starts in it
 *   2. in chunk order (serial): each chunk's carry, the fold of the elements
 *      of its first segment that lie in earlier chunks
 *   3. per chunk (parallel): scan from the carry, restarting at each start
 * Segment starts reach the loops as one byte per element of the chunk, made
 * from heads or offsets by fill_starts, so one pair of loops serves both
 * forms and both directions.
 *
 * Segmented reduce: chunk c folds the segments that start in it and end by
 * its end; the one that runs past its end is finished in chunk order with the
 * leading pieces of the chunks after it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#  include <omp.h>
#else
static int omp_get_max_threads(void) { return 1; }
static int omp_get_thread_num(void) { return 0; }
#endif

#include "core/host_parallel.h"
#include "scan/scan_host_ops.h"
#include "segmented_host.h"

enum { CHUNK = 1 << 14 };

/* One element of any type, for per-chunk partial results. */
typedef union {
  uint64_t bits;
  double f64;
  unsigned char bytes[8];
} seg_value;

#define PHYS(j) (reverse ? n - 1 - (j) : (j))

/* Per (type, op):
 *   fold_chunk  the fold of logical [lo, hi) from its last start (or lo)
 *   scan_chunk  logical [lo, hi) scanned from carry, restarting at starts
 *   fold_range  in[a] op ... op in[b-1], physical, a < b
 *   combine     *acc = *acc op *x */
#define GP_DEFINE_SEG_KERNELS(D, T, S, OP, NAME)                                              \
  static void fold_chunk_##NAME##_##S(const void *vin, size_t n, bool reverse, size_t lo,     \
                                      size_t hi, const uint8_t *start, void *tail) {          \
    const T *in = vin;                                                                        \
    T acc = in[PHYS(lo)];                                                                     \
    for (size_t j = lo + 1; j < hi; j++) {                                                    \
      T x = in[PHYS(j)];                                                                      \
      acc = start[j - lo] ? x : gp_##NAME##_##S(acc, x);                                      \
    }                                                                                         \
    memcpy(tail, &acc, sizeof acc);                                                           \
  }                                                                                           \
  static void scan_chunk_##NAME##_##S(const void *vin, void *vout, size_t n, unsigned flags,  \
                                      size_t lo, size_t hi, const uint8_t *start,             \
                                      const void *carry) {                                    \
    const T *in = vin;                                                                        \
    T *out = vout;                                                                            \
    const bool reverse = flags & GPU_REVERSE, exclusive = flags & GPU_EXCLUSIVE;              \
    T identity, acc;                                                                          \
    gp_identity(D, OP, &identity);                                                            \
    memcpy(&acc, carry, sizeof acc);                                                          \
    for (size_t j = lo; j < hi; j++) {                                                        \
      const size_t p = PHYS(j);                                                               \
      const T x = in[p];                                                                      \
      const bool first = start[j - lo];                                                       \
      /* A segment's first element is not combined with the identity: -0.0 stays -0.0. */    \
      const T next = first ? x : gp_##NAME##_##S(acc, x);                                     \
      out[p] = exclusive ? (first ? identity : acc) : next;                                   \
      acc = next;                                                                             \
    }                                                                                         \
  }                                                                                           \
  static void fold_range_##NAME##_##S(const void *vin, size_t a, size_t b, void *result) {    \
    const T *in = vin;                                                                        \
    T acc = in[a];                                                                            \
    for (size_t j = a + 1; j < b; j++) acc = gp_##NAME##_##S(acc, in[j]);                     \
    memcpy(result, &acc, sizeof acc);                                                         \
  }                                                                                           \
  static void combine_##NAME##_##S(void *vacc, const void *vx) {                              \
    T acc, x;                                                                                 \
    memcpy(&acc, vacc, sizeof acc);                                                           \
    memcpy(&x, vx, sizeof x);                                                                 \
    acc = gp_##NAME##_##S(acc, x);                                                            \
    memcpy(vacc, &acc, sizeof acc);                                                           \
  }
GP_HOST_TYPE_OPS(GP_DEFINE_SEG_KERNELS)
#undef GP_DEFINE_SEG_KERNELS

typedef struct {
  void (*fold_chunk)(const void *, size_t, bool, size_t, size_t, const uint8_t *, void *);
  void (*scan_chunk)(const void *, void *, size_t, unsigned, size_t, size_t, const uint8_t *,
                     const void *);
  void (*fold_range)(const void *, size_t, size_t, void *);
  void (*combine)(void *, const void *);
} seg_kernels;

#define GP_SEG_ENTRY(D, T, S, OP, NAME) \
  [D][OP] = {fold_chunk_##NAME##_##S, scan_chunk_##NAME##_##S, fold_range_##NAME##_##S, combine_##NAME##_##S},
static const seg_kernels kernels[GPU_F64 + 1][GPU_XOR + 1] = {GP_HOST_TYPE_OPS(GP_SEG_ENTRY)};
#undef GP_SEG_ENTRY

/* The first s in [0, count) with offsets[s] >= v, or count. */
static size_t lower_bound(const int64_t *offsets, size_t count, int64_t v) {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (offsets[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* start[k] = whether logical element lo + k begins a segment; returns whether
 * any in [lo, hi) does. Forward, physical j begins one when it is a head or an
 * offset; in REVERSE order logical j (physical n-1-j) begins one when the
 * element after it, physical n-j, is a head or an offset (n itself is one). */
static bool fill_starts(const uint8_t *heads, const int64_t *offsets, size_t nseg, size_t n,
                        bool reverse, size_t lo, size_t hi, uint8_t *start) {
  const size_t m = hi - lo;
  if (heads) {
    if (reverse)
      for (size_t k = 0; k < m; k++) start[k] = lo + k > 0 && heads[n - lo - k] != 0;
    else
      for (size_t k = 0; k < m; k++) start[k] = heads[lo + k] != 0;
  } else {
    memset(start, 0, m);
    const int64_t first = reverse ? (int64_t)(n - hi + 1) : (int64_t)lo,
                  last = reverse ? (int64_t)(n - lo) : (int64_t)hi - 1;
    for (size_t s = lower_bound(offsets, nseg + 1, first); s <= nseg && offsets[s] <= last; s++)
      start[(reverse ? n - (size_t)offsets[s] : (size_t)offsets[s]) - lo] = 1;
  }
  if (lo == 0) start[0] = 1; /* heads[0] is ignored: a segment always begins there */
  return memchr(start, 1, m) != NULL;
}

/* The team for a call of n elements in `chunks` chunks: one thread (no team
 * woken) for a small call, at most one a chunk otherwise. */
static int threads_for(size_t chunks, size_t n) {
  int t = gp_host_parallel(n) ? omp_get_max_threads() : 1;
  return chunks < (size_t)t ? (int)(chunks ? chunks : 1) : t;
}

gpu_status gp_segscan_host(const void *in, void *out, size_t n, const uint8_t *heads,
                           const int64_t *offsets, size_t nseg, gpu_dtype t, gpu_op op,
                           unsigned flags) {
  if (n == 0) return GPU_OK;
  const seg_kernels *k = &kernels[t][op];
  const bool reverse = flags & GPU_REVERSE;
  const size_t chunks = (n + CHUNK - 1) / CHUNK;
  const int threads = threads_for(chunks, n);
  uint8_t *starts = malloc((size_t)threads * CHUNK), *has_start = malloc(chunks);
  seg_value *tail = malloc(chunks * sizeof *tail), *carry = malloc(chunks * sizeof *carry);
  gpu_status s = GPU_OK;
  if (!starts || !has_start || !tail || !carry) {
    s = gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: no host memory for %zu chunks",
                heads ? "gpu_segscan_flags" : "gpu_segscan_offsets", chunks);
    goto done;
  }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (size_t c = 0; c < chunks; c++) {
    uint8_t *start = starts + (size_t)omp_get_thread_num() * CHUNK;
    const size_t lo = c * CHUNK, hi = lo + CHUNK < n ? lo + CHUNK : n;
    has_start[c] = fill_starts(heads, offsets, nseg, n, reverse, lo, hi, start);
    k->fold_chunk(in, n, reverse, lo, hi, start, &tail[c]);
  }
  /* Chunk 0 begins a segment at its first element: its carry is never used. */
  gp_identity(t, op, &carry[0]);
  for (size_t c = 1; c < chunks; c++) {
    carry[c] = has_start[c - 1] ? tail[c - 1] : carry[c - 1];
    if (!has_start[c - 1]) k->combine(&carry[c], &tail[c - 1]);
  }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (size_t c = 0; c < chunks; c++) {
    uint8_t *start = starts + (size_t)omp_get_thread_num() * CHUNK;
    const size_t lo = c * CHUNK, hi = lo + CHUNK < n ? lo + CHUNK : n;
    fill_starts(heads, offsets, nseg, n, reverse, lo, hi, start);
    k->scan_chunk(in, out, n, flags, lo, hi, start, &carry[c]);
  }
done:
  free(starts);
  free(has_start);
  free(tail);
  free(carry);
  return s;
}

/* What chunk c of a segmented reduce leaves for the serial pass. */
typedef struct {
  seg_value lead;      /* fold of its leading piece: the end of a segment begun earlier */
  seg_value open;      /* fold of the part of `open_seg` within this chunk */
  size_t open_seg;     /* the segment that begins here and runs past the chunk's end */
  bool has_lead, has_open;
  bool closes;         /* the segment begun earlier ends in this chunk */
} reduce_chunk;

gpu_status gp_segreduce_host(const void *in, size_t n, const int64_t *offsets, size_t nseg,
                             void *out, gpu_dtype t, gpu_op op) {
  const seg_kernels *k = &kernels[t][op];
  const size_t w = gpu_dtype_size(t), chunks = (n + CHUNK - 1) / CHUNK;
  seg_value identity;
  gp_identity(t, op, &identity);
  if (n == 0) { /* every segment is empty */
#pragma omp parallel for schedule(static) if (nseg > CHUNK && gp_host_parallel(nseg))
    for (size_t s = 0; s < nseg; s++) memcpy((char *)out + s * w, &identity, w);
    return GPU_OK;
  }
  reduce_chunk *part = malloc(chunks * sizeof *part);
  if (!part) return gp_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_segreduce: no host memory for %zu chunks", chunks);
#pragma omp parallel for num_threads(threads_for(chunks, n)) schedule(static)
  for (size_t c = 0; c < chunks; c++) {
    const size_t lo = c * CHUNK, hi = lo + CHUNK < n ? lo + CHUNK : n;
    const bool last = c == chunks - 1;
    /* Chunk c owns the segments beginning in [lo, hi); the last chunk also
     * the empty ones at n. */
    const size_t sa = lower_bound(offsets, nseg, (int64_t)lo),
                 sb = last ? nseg : lower_bound(offsets, nseg, (int64_t)hi);
    const size_t lead_end = sa < nseg && (size_t)offsets[sa] < hi ? (size_t)offsets[sa] : hi;
    reduce_chunk *r = &part[c];
    r->has_lead = lead_end > lo;
    r->has_open = false;
    r->closes = lead_end < hi || last;
    if (r->has_lead) k->fold_range(in, lo, lead_end, &r->lead);
    for (size_t s = sa; s < sb; s++) {
      const size_t a = (size_t)offsets[s], b = (size_t)offsets[s + 1];
      char *dst = (char *)out + s * w;
      if (b > hi) {
        r->has_open = true;
        r->open_seg = s;
        k->fold_range(in, a, hi, &r->open);
      } else if (a == b) {
        memcpy(dst, &identity, w);
      } else {
        k->fold_range(in, a, b, dst);
      }
    }
  }
  /* Segments across chunk ends, in chunk order: a fixed combination order. */
  bool pending = false;
  size_t pending_seg = 0;
  seg_value acc = identity;
  for (size_t c = 0; c < chunks; c++) {
    const reduce_chunk *r = &part[c];
    if (pending && r->has_lead) k->combine(&acc, &r->lead);
    if (pending && r->closes) {
      memcpy((char *)out + pending_seg * w, &acc, w);
      pending = false;
    }
    if (r->has_open) {
      pending = true;
      pending_seg = r->open_seg;
      acc = r->open;
    }
  }
  free(part);
  return GPU_OK;
}
