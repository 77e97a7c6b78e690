/*
 * `gpuprim demo`, continued: radix sort and segmented scan and reduce, each
 * timed on the demo's backend and checked against the host backend.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"

/* ---------------------------------------------------------------- sort */

typedef struct {
  const char *name;
  gpu_dtype key_type; /* GPU_U32 or GPU_F64: order_of knows these two */
  int pairs;          /* with u32 values, each element's original index */
  unsigned flags;
} sort_case;

static gpu_status sort_call(const sort_case *sc, void *keys, void *values, size_t n) {
  return sc->pairs ? gpu_sort_pairs(keys, values, n, sc->key_type, 4, sc->flags)
                   : gpu_sort_keys(keys, n, sc->key_type, sc->flags);
}

/* Key i's place in gpuprim's ascending order (API.md, "Radix sort"), written
 * here from the contract rather than taken from the library: f64 negatives
 * have their bits inverted (a larger magnitude comes first, -0.0 just below
 * +0.0), positives go above them, and every NaN comes after +inf. */
static uint64_t order_of(const void *keys, size_t i, gpu_dtype t) {
  if (t == GPU_U32) return ((const uint32_t *)keys)[i];
  const uint64_t sign = 1ull << 63;
  uint64_t bits;
  memcpy(&bits, (const double *)keys + i, sizeof bits);
  if ((bits & ~sign) > 0x7FF0000000000000ull) return UINT64_MAX; /* NaN */
  return bits & sign ? ~bits : bits | sign;
}

/* What is wrong with a sorted result, counted: neighbours out of order and,
 * given the values (original indices), a value that does not lead back to
 * its key in the input or equal keys whose values decrease (not stable). */
static size_t sort_problems(const sort_case *sc, const void *keys, const uint32_t *values, const void *input, size_t n) {
  const size_t w = gpu_dtype_size(sc->key_type);
  const int descending = (sc->flags & GPU_DESCENDING) != 0;
  size_t bad = 0;
  for (size_t i = 1; i < n; i++) {
    const uint64_t a = order_of(keys, i - 1, sc->key_type), b = order_of(keys, i, sc->key_type);
    bad += descending ? a < b : a > b;
    bad += values && a == b && values[i - 1] > values[i];
  }
  for (size_t i = 0; values && i < n; i++)
    bad += values[i] >= n || memcmp((const char *)keys + i * w, (const char *)input + values[i] * w, w) != 0;
  return bad;
}

/* Sorting is in place, so the warm-up call and the timed one each start from
 * a fresh upload of the unsorted input (not timed). */
static double sort_seconds(const sort_case *sc, size_t n, const void *h_keys, const void *h_values, void *d_keys,
                           void *d_values) {
  double seconds = 0;
  for (int run = 0; run < 2; run++) {
    CHECK(gpu_upload(d_keys, h_keys, n * gpu_dtype_size(sc->key_type)));
    if (sc->pairs) CHECK(gpu_upload(d_values, h_values, n * 4));
    CHECK(gpu_synchronize());
    const double t0 = now();
    CHECK(sort_call(sc, d_keys, d_values, n));
    CHECK(gpu_synchronize());
    seconds = now() - t0;
  }
  return seconds;
}

/* Both backends sort deterministically and stably, so the result must equal
 * the host backend's bit for bit, keys and values, floats included. */
int demo_sort(size_t n, gpu_backend backend, void *h_in, void *h_out, void *h_ref, void *d_in, void *d_out) {
  const sort_case cases[] = {
      {"u32 keys", GPU_U32, 0, GPU_ASCENDING},
      {"f64 keys", GPU_F64, 0, GPU_ASCENDING},
      {"f64 keys descending", GPU_F64, 0, GPU_DESCENDING},
      {"u32 keys, u32 values", GPU_U32, 1, GPU_ASCENDING},
  };
  int failures = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const sort_case *sc = &cases[c];
    const size_t kw = gpu_dtype_size(sc->key_type), vw = sc->pairs ? 4 : 0;
    progress("sort %s", sc->name);
    /* Pairs keep their u32 values in the same host buffers, after the n
     * keys (4n + 4n bytes of 8n), and in d_out on the backend. */
    uint32_t *in_values = (uint32_t *)((char *)h_in + n * kw), *out_values = (uint32_t *)((char *)h_out + n * kw),
             *ref_values = (uint32_t *)((char *)h_ref + n * kw);
    fill(h_in, n, sc->key_type);
    if (sc->key_type == GPU_F64) { /* a few of the values the float order places */
      const double special[] = {NAN, -0.0, 0.0, INFINITY, -INFINITY};
      for (size_t i = 7, k = 0; i < n; i += 4096, k++) ((double *)h_in)[i] = special[k % 5];
    }
    for (size_t i = 0; i < n && sc->pairs; i++) in_values[i] = (uint32_t)i;

    const double seconds = sort_seconds(sc, n, h_in, in_values, d_in, d_out);
    CHECK(gpu_download(h_out, d_in, n * kw));
    if (sc->pairs) CHECK(gpu_download(out_values, d_out, n * vw));
    memcpy(h_ref, h_in, n * (kw + vw));
    CHECK(gpu_set_backend(GPU_BACKEND_HOST));
    CHECK(sort_call(sc, h_ref, ref_values, n));
    CHECK(gpu_set_backend(backend));

    const size_t differ = mismatches(h_out, h_ref, n, kw == 4 ? GPU_U32 : GPU_U64, GPU_ADD) +
                          (sc->pairs ? mismatches(out_values, ref_values, n, GPU_U32, GPU_ADD) : 0);
    /* The values are indices only while n fits them. */
    const int indexed = sc->pairs && n <= (size_t)UINT32_MAX + 1;
    const size_t disorder = sort_problems(sc, h_out, indexed ? out_values : NULL, h_in, n);
    char check[64];
    if (differ)
      snprintf(check, sizeof check, "FAILED: %zu differ from host", differ);
    else if (disorder)
      snprintf(check, sizeof check, "FAILED: %zu out of order", disorder);
    else
      snprintf(check, sizeof check, "ok");
    failures += differ || disorder;
    /* Bytes: the keys (and values) read once and written once. A radix sort
     * moves them once per pass, so its real traffic is several times this. */
    row("sort", sc->name, n, seconds, 2.0 * (double)(n * (kw + vw)), check);
  }
  return failures;
}

/* ----------------------------------------------------------- segmented */

/* Segments of lengths uniform in [0, 128] (mean 64, empty ones included, as
 * the API allows), the last cut at n. Returns nseg; *offsets (malloc'd) gets
 * its nseg + 1 entries. */
static size_t random_offsets(size_t n, int64_t **offsets) {
  size_t capacity = n / 32 + 16, nseg = 0;
  int64_t *off = malloc(capacity * sizeof *off);
  if (!off) die_no_memory("the segment offsets");
  off[0] = 0;
  while ((size_t)off[nseg] < n) {
    if (nseg + 2 > capacity) {
      capacity *= 2;
      int64_t *grown = realloc(off, capacity * sizeof *off);
      if (!grown) die_no_memory("the segment offsets");
      off = grown;
    }
    const size_t length = next_random() % 129, left = n - (size_t)off[nseg];
    off[nseg + 1] = off[nseg] + (int64_t)(length < left ? length : left);
    nseg++;
  }
  *offsets = off;
  return nseg;
}

/* One segmented row; returns 1 when bad != 0. */
static int segmented_row(const char *primitive, const char *name, size_t n, double seconds, double bytes, size_t bad,
                         size_t nseg) {
  char check[64];
  snprintf(check, sizeof check, bad ? "FAILED: %zu differ" : "ok (%zu segments)", bad ? bad : nseg);
  row(primitive, name, n, seconds, bytes, check);
  return bad != 0;
}

/* Float sums: both backends add each segment in a fixed order, though not
 * necessarily the same one, so floats are compared as the scan rows compare
 * them (mismatches), one segment at a time so that each has its own running
 * magnitude. Integers must match exactly. */
int demo_segmented(size_t n, gpu_backend backend, void *h_in, void *h_out, void *h_ref, void *d_in, void *d_out) {
  int64_t *h_offsets = NULL, *d_offsets = NULL;
  const size_t nseg = random_offsets(n, &h_offsets), offsets_bytes = (nseg + 1) * sizeof(int64_t);
  uint8_t *h_heads = malloc(n), *d_heads = NULL;
  /* With empty segments there may be more segments than elements: the sums
   * get buffers of their own. */
  double *h_sums = malloc(nseg * sizeof(double)), *h_sums_ref = malloc(nseg * sizeof(double)), *d_sums = NULL;
  if (!h_heads || !h_sums || !h_sums_ref) die_no_memory("the segmented buffers");
  for (size_t i = 0; i < n; i++) h_heads[i] = next_random() % 64 == 0; /* segments of mean length 64 */
  CHECK(gpu_alloc((void **)&d_offsets, offsets_bytes));
  CHECK(gpu_alloc((void **)&d_heads, n));
  CHECK(gpu_alloc((void **)&d_sums, nseg * sizeof(double)));
  CHECK(gpu_upload(d_offsets, h_offsets, offsets_bytes));
  CHECK(gpu_upload(d_heads, h_heads, n));
  int failures = 0;
  double seconds;
  size_t bad = 0;

  progress("segscan f32 add inclusive, offsets");
  fill(h_in, n, GPU_F32);
  CHECK(gpu_upload(d_in, h_in, n * 4));
  TIME_CALL(seconds, gpu_segscan_offsets(d_in, d_out, n, d_offsets, nseg, GPU_F32, GPU_ADD, GPU_INCLUSIVE));
  CHECK(gpu_download(h_out, d_out, n * 4));
  CHECK(gpu_set_backend(GPU_BACKEND_HOST));
  CHECK(gpu_segscan_offsets(h_in, h_ref, n, h_offsets, nseg, GPU_F32, GPU_ADD, GPU_INCLUSIVE));
  CHECK(gpu_set_backend(backend));
  for (size_t s = 0; s < nseg; s++)
    bad += mismatches((float *)h_out + h_offsets[s], (float *)h_ref + h_offsets[s],
                      (size_t)(h_offsets[s + 1] - h_offsets[s]), GPU_F32, GPU_ADD);
  /* Bytes here and below: input, offsets or heads read once, output written. */
  failures += segmented_row("segscan", "f32 add inclusive, offsets", n, seconds,
                            8.0 * (double)n + (double)offsets_bytes, bad, nseg);

  progress("segscan i32 add exclusive, flags");
  fill(h_in, n, GPU_I32);
  CHECK(gpu_upload(d_in, h_in, n * 4));
  TIME_CALL(seconds, gpu_segscan_flags(d_in, d_out, n, d_heads, GPU_I32, GPU_ADD, GPU_EXCLUSIVE));
  CHECK(gpu_download(h_out, d_out, n * 4));
  CHECK(gpu_set_backend(GPU_BACKEND_HOST));
  CHECK(gpu_segscan_flags(h_in, h_ref, n, h_heads, GPU_I32, GPU_ADD, GPU_EXCLUSIVE));
  CHECK(gpu_set_backend(backend));
  size_t heads = 0;
  for (size_t i = 1; i < n; i++) heads += h_heads[i] != 0;
  failures += segmented_row("segscan", "i32 add exclusive, flags", n, seconds, 9.0 * (double)n,
                            mismatches(h_out, h_ref, n, GPU_I32, GPU_ADD), heads + 1);

  progress("segreduce f64 add, offsets");
  fill(h_in, n, GPU_F64);
  CHECK(gpu_upload(d_in, h_in, n * 8));
  TIME_CALL(seconds, gpu_segreduce(d_in, d_offsets, nseg, d_sums, GPU_F64, GPU_ADD));
  CHECK(gpu_download(h_sums, d_sums, nseg * sizeof(double)));
  CHECK(gpu_set_backend(GPU_BACKEND_HOST));
  CHECK(gpu_segreduce(h_in, h_offsets, nseg, h_sums_ref, GPU_F64, GPU_ADD));
  CHECK(gpu_set_backend(backend));
  bad = 0;
  for (size_t s = 0; s < nseg; s++) bad += mismatches(h_sums + s, h_sums_ref + s, 1, GPU_F64, GPU_ADD);
  failures += segmented_row("segreduce", "f64 add, offsets", n, seconds,
                            8.0 * (double)n + (double)offsets_bytes + 8.0 * (double)nseg, bad, nseg);

  CHECK(gpu_free(d_offsets));
  CHECK(gpu_free(d_heads));
  CHECK(gpu_free(d_sums));
  free(h_offsets);
  free(h_heads);
  free(h_sums);
  free(h_sums_ref);
  return failures;
}
