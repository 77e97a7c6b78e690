/*
 * CUDA-only compaction checks: n = 2^32 + 12345 four-byte elements, with a
 * kept count above 2^32 (compact) and rejected elements placed beyond 2^32
 * (partition).
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_cuda_util.h"
#include "test_util.h"

/* Contents from a hash of the index, so the host needs no copy of it all. */
static uint32_t element(uint64_t i) {
  uint64_t z = i * 0x9e3779b97f4a7c15ull;
  z ^= z >> 29;
  z *= 0xbf58476d1ce4e5b9ull;
  return (uint32_t)(z >> 32);
}

enum { CHUNK = 1 << 26 };

/* A reader of out that matches it, chunk by chunk, with the input. */
typedef struct {
  const uint32_t *out;
  uint32_t *h;   /* a chunk of host memory */
  uint64_t n, i; /* i: the next input index to consider */
} walker;

/* out[from, to) must hold, in order, exactly the inputs with keep(x) == want. */
static void expect_run(walker *w, uint64_t from, uint64_t to, bool (*keep)(uint32_t), bool want, const char *what) {
  for (uint64_t lo = from; lo < to; lo += CHUNK) {
    size_t m = to - lo < CHUNK ? (size_t)(to - lo) : CHUNK;
    tu_download(w->h, w->out + lo, m * 4);
    for (size_t j = 0; j < m; j++) {
      uint32_t x;
      do {
        if (w->i >= w->n) ck_abort_msg("%s: out[%llu]: no more input elements", what, (unsigned long long)(lo + j));
        x = element(w->i++);
      } while (keep(x) != want);
      if (w->h[j] != x)
        ck_abort_msg("%s: out[%llu] = %u, expected %u (input %llu)", what, (unsigned long long)(lo + j), w->h[j], x,
                     (unsigned long long)(w->i - 1));
    }
  }
  /* No element that should have come remains. */
  while (w->i < w->n)
    if (keep(element(w->i++)) == want) ck_abort_msg("%s: elements missing", what);
}

static uint32_t dropped; /* the one value gpu_compact drops below */
static bool not_dropped(uint32_t x) { return x != dropped; }
static bool low_bits_nonzero(uint32_t x) { return (x & 3) != 0; }

START_TEST(compact_above_2_to_32) {
  if (tu_quick()) return;
  const uint64_t n = ((uint64_t)1 << 32) + 12345;
  if (!tu_device_has_memory("compact_above_2_to_32", 2 * n * 4)) return;
  uint32_t *in = tu_alloc(n * 4), *out = tu_alloc(n * 4);
  uint32_t *h = tu_xmalloc((size_t)CHUNK * 4);
  for (uint64_t lo = 0; lo < n; lo += CHUNK) {
    size_t m = n - lo < CHUNK ? (size_t)(n - lo) : CHUNK;
    for (size_t i = 0; i < m; i++) h[i] = element(lo + i);
    tu_upload(in + lo, h, m * 4);
  }
  /* Compact: everything but one value, so the count exceeds 2^32. */
  dropped = element(7);
  uint64_t want = 0;
  for (uint64_t i = 0; i < n; i++) want += element(i) != dropped;
  CUDA_OK(cudaMemset(out, 0xA5, n * 4));
  int64_t got = gpu_compact(in, n, gpu_pred_cmp(GPU_U32, GPU_NE, &dropped), out);
  ck_assert_msg(got == (int64_t)want, "gpu_compact returned %lld, expected %llu (%s)", (long long)got,
                (unsigned long long)want, got < 0 ? gpu_last_error() : "");
  walker w = {out, h, n, 0};
  expect_run(&w, 0, want, not_dropped, true, "compact");
  tu_download(h, out + want, (n - want) * 4);
  for (uint64_t i = 0; i < (n - want) * 4; i++)
    if (((unsigned char *)h)[i] != 0xA5) ck_abort_msg("compact wrote past its count"); /* no mark point a byte */

  /* Partition by a formula: about 3/4 kept, the rejected ones placed past 2^32. */
  want = 0;
  for (uint64_t i = 0; i < n; i++) want += low_bits_nonzero(element(i));
  got = gpu_partition(in, n, gpu_pred_expr(GPU_U32, "(x & 3) != 0"), out);
  ck_assert_msg(got == (int64_t)want, "gpu_partition returned %lld, expected %llu (%s)", (long long)got,
                (unsigned long long)want, got < 0 ? gpu_last_error() : "");
  walker kept = {out, h, n, 0}, rejected = {out, h, n, 0};
  expect_run(&kept, 0, want, low_bits_nonzero, true, "partition (kept)");
  expect_run(&rejected, want, n, low_bits_nonzero, false, "partition (rejected)");
  tu_free(in);
  tu_free(out);
  free(h);
}
END_TEST

/* Added to test_compact.c's test case. */
void compact_cuda_tests(TCase *tc) { tcase_add_test(tc, compact_above_2_to_32); }
