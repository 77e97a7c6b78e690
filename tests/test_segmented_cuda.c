/*
 * CUDA-only segmented checks at 64-bit sizes: n above 2^32 (segments from a
 * hash, one of them across index 2^32) in both forms and the reduce, and a
 * reduce with more than 2^32 segments. Contents come from a hash of the index
 * and are checked chunk by chunk, so the host never holds a copy of it all.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_cuda_util.h"
#include "test_util.h"

static const size_t CHUNK = (size_t)1 << 26;

static uint64_t mix(uint64_t z) {
  z *= 0x9e3779b97f4a7c15ull;
  z ^= z >> 29;
  z *= 0xbf58476d1ce4e5b9ull;
  return z ^ (z >> 32);
}

static uint32_t element(uint64_t i) { return (uint32_t)mix(i); }

/* Segments of mean length about 1024, none starting within 5000 of 2^32. */
static bool starts_segment(uint64_t i) {
  const uint64_t edge = (uint64_t)1 << 32;
  if (i + 5000 > edge && i < edge + 5000) return false;
  return i == 0 || mix(i ^ 0x5555555555555555ull) % 1024 == 0;
}

START_TEST(segmented_n_above_2_to_32) {
  if (tu_quick()) return;
  const size_t n = ((size_t)1 << 32) + 12345;
  if (!tu_device_has_memory("segmented_n_above_2_to_32", 2 * n * 4 + n + (n / 512) * 8)) return;
  uint32_t *in = tu_alloc(n * 4), *out = tu_alloc(n * 4), *h = tu_xmalloc(CHUNK * 4);
  uint8_t *heads = tu_alloc(n), *hh = tu_xmalloc(CHUNK);
  size_t nseg = 0, cap = n / 512;
  int64_t *offsets = tu_xmalloc((cap + 1) * sizeof(int64_t));
  for (size_t lo = 0; lo < n; lo += CHUNK) {
    const size_t m = n - lo < CHUNK ? n - lo : CHUNK;
    for (size_t i = 0; i < m; i++) {
      h[i] = element(lo + i);
      hh[i] = starts_segment(lo + i);
      if (hh[i]) {
        ck_assert(nseg < cap);
        offsets[nseg++] = (int64_t)(lo + i);
      }
    }
    tu_upload(in + lo, h, m * 4);
    tu_upload(heads + lo, hh, m);
  }
  offsets[nseg] = (int64_t)n;
  int64_t *d_offsets = tu_alloc((nseg + 1) * sizeof(int64_t));
  tu_upload(d_offsets, offsets, (nseg + 1) * sizeof(int64_t));
  uint32_t *sums = tu_xmalloc(nseg * 4);

  /* Inclusive, offsets form, into out; the segments' sums on the way. */
  CUDA_OK(cudaMemset(out, 0xA5, n * 4));
  ck_assert_msg(gpu_segscan_offsets(in, out, n, d_offsets, nseg, GPU_U32, GPU_ADD, GPU_INCLUSIVE) == GPU_OK, "%s",
                gpu_last_error());
  uint32_t run = 0;
  size_t s = 0;
  for (size_t lo = 0; lo < n; lo += CHUNK) {
    const size_t m = n - lo < CHUNK ? n - lo : CHUNK;
    tu_download(h, out + lo, m * 4);
    for (size_t i = 0; i < m; i++) {
      if (starts_segment(lo + i)) {
        if (lo + i > 0) sums[s++] = run;
        run = 0;
      }
      run += element(lo + i);
      if (h[i] != run) ck_abort_msg("inclusive: out[%zu] = %u, expected %u", lo + i, h[i], run);
    }
  }
  sums[s++] = run;
  ck_assert_uint_eq(s, nseg);

  /* The reduce over the same segments. */
  CUDA_OK(cudaMemset(out, 0xA5, nseg * 4));
  ck_assert_msg(gpu_segreduce(in, d_offsets, nseg, out, GPU_U32, GPU_ADD) == GPU_OK, "%s", gpu_last_error());
  uint32_t *got = tu_xmalloc(nseg * 4);
  tu_download(got, out, nseg * 4);
  for (size_t k = 0; k < nseg; k++)
    if (got[k] != sums[k]) ck_abort_msg("reduce: out[%zu] = %u, expected %u", k, got[k], sums[k]);

  /* Exclusive reverse, heads form, in place. */
  ck_assert_msg(gpu_segscan_flags(in, in, n, heads, GPU_U32, GPU_ADD, GPU_EXCLUSIVE | GPU_REVERSE) == GPU_OK, "%s",
                gpu_last_error());
  uint32_t after = 0; /* the sum of the later elements of i's segment */
  for (size_t c = (n + CHUNK - 1) / CHUNK; c-- > 0;) { /* chunks from the last */
    const size_t lo = c * CHUNK, m = n - lo < CHUNK ? n - lo : CHUNK;
    tu_download(h, in + lo, m * 4);
    for (size_t k = m; k-- > 0;) {
      const size_t i = lo + k;
      if (i + 1 < n && starts_segment(i + 1)) after = 0;
      if (h[k] != after) ck_abort_msg("exclusive reverse: out[%zu] = %u, expected %u", i, h[k], after);
      after += element(i);
    }
  }
  tu_free(in);
  tu_free(out);
  tu_free(heads);
  tu_free(d_offsets);
  free(h);
  free(hh);
  free(offsets);
  free(sums);
  free(got);
}
END_TEST

/* Segment s is empty when s % 8 == 7, else one element: offsets[s] = s - s/8. */
static int64_t unit_offset(uint64_t s) { return (int64_t)(s - s / 8); }

START_TEST(segmented_nseg_above_2_to_32) {
  if (tu_quick()) return;
  const size_t n = ((size_t)1 << 32) + 12345;
  size_t nseg = n + n / 7;
  while ((size_t)unit_offset(nseg) > n) nseg--;
  while ((size_t)unit_offset(nseg) < n) nseg++;
  if (!tu_device_has_memory("segmented_nseg_above_2_to_32", n * 4 + nseg * 4 + (nseg + 1) * 8)) return;
  uint32_t *in = tu_alloc(n * 4), *out = tu_alloc(nseg * 4), *h = tu_xmalloc(CHUNK * 4);
  int64_t *offsets = tu_alloc((nseg + 1) * 8), *ho = tu_xmalloc(CHUNK * 8);
  for (size_t lo = 0; lo < n; lo += CHUNK) {
    const size_t m = n - lo < CHUNK ? n - lo : CHUNK;
    for (size_t i = 0; i < m; i++) h[i] = element(lo + i);
    tu_upload(in + lo, h, m * 4);
  }
  for (size_t lo = 0; lo <= nseg; lo += CHUNK) {
    const size_t m = nseg + 1 - lo < CHUNK ? nseg + 1 - lo : CHUNK;
    for (size_t i = 0; i < m; i++) ho[i] = unit_offset(lo + i);
    tu_upload(offsets + lo, ho, m * 8);
  }
  CUDA_OK(cudaMemset(out, 0xA5, nseg * 4));
  ck_assert_msg(gpu_segreduce(in, offsets, nseg, out, GPU_U32, GPU_MAX) == GPU_OK, "%s", gpu_last_error());
  for (size_t lo = 0; lo < nseg; lo += CHUNK) {
    const size_t m = nseg - lo < CHUNK ? nseg - lo : CHUNK;
    tu_download(h, out + lo, m * 4);
    for (size_t i = 0; i < m; i++) {
      const uint64_t s = lo + i;
      const uint32_t want = s % 8 == 7 ? 0 : element((uint64_t)unit_offset(s));
      if (h[i] != want) ck_abort_msg("reduce: out[%zu] = %u, expected %u", (size_t)s, h[i], want);
    }
  }
  tu_free(in);
  tu_free(out);
  tu_free(offsets);
  free(h);
  free(ho);
}
END_TEST

void segmented_add_cuda_tests(Suite *s);
void segmented_add_cuda_tests(Suite *s) {
  TCase *tc = tu_tcase("cuda");
  tcase_add_test(tc, segmented_n_above_2_to_32);
  tcase_add_test(tc, segmented_nseg_above_2_to_32);
  suite_add_tcase(s, tc);
}
