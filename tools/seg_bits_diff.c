/*
 * Hashes of segmented scan outputs, one line a case, for diffing two builds
 * of the library: a change meant to keep the same folds in the same order
 * (a refactor, a kernel that keeps its folds) must print the same lines. Fixed pseudo-random
 * inputs (floats with +-0.0, products near 1), f32 / i32 / f64, ADD / MIN /
 * MUL, inclusive and exclusive, gpu_segscan_offsets and gpu_segscan_flags
 * over the same segments (random lengths of mean 4 .. 3e6, empty ones too),
 * n from 1000 to 2^26 + 1 (f64 to 2^24 + 7). Not a ctest suite (it checks
 * nothing by itself); build and run by hand from the repository root:
 *
 *   gcc -O2 -std=c11 -Iinclude tools/seg_bits_diff.c -Lbuild -lgpuprim -o /tmp/seg_bits_diff
 *   LD_LIBRARY_PATH=build /tmp/seg_bits_diff > a.txt
 *   LD_LIBRARY_PATH=other/build /tmp/seg_bits_diff > b.txt && diff a.txt b.txt
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprim.h"
#include "tool_common.h"

static uint64_t fnv1a(const unsigned char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

int main(void) {
  const size_t NMAX = ((size_t)1 << 26) + 1;
  const size_t sizes[] = {1000, 3 * 8192 + 17, ((size_t)1 << 22) + 123, ((size_t)1 << 24) + 7, NMAX};
  const double means[] = {4, 64, 4096, 3e6};
  const gpu_dtype types[] = {GPU_F32, GPU_I32, GPU_F64};
  const gpu_op ops[] = {GPU_ADD, GPU_MIN, GPU_MUL};
  float *in_f32 = malloc(NMAX * sizeof(float));
  double *in_f64 = malloc(NMAX * sizeof(double));
  int32_t *in_i32 = malloc(NMAX * sizeof(int32_t));
  int64_t *offsets = malloc((NMAX + 1) * sizeof(int64_t));
  uint8_t *heads = malloc(NMAX);
  unsigned char *out = malloc(NMAX * 8);
  if (!in_f32 || !in_f64 || !in_i32 || !offsets || !heads || !out) return fprintf(stderr, "out of memory\n"), 1;
  for (size_t i = 0; i < NMAX; i++) {
    const uint64_t r = rng_next();
    double v = (double)(r >> 11) / 9007199254740992.0 * 2 - 1;
    if (r % 97 == 0) v = 0.0;
    if (r % 89 == 0) v = -0.0;
    if (r % 5 == 0) v = 1.0 + v * 1e-3; /* products stay finite for a while */
    in_f32[i] = (float)v;
    in_f64[i] = v;
    in_i32[i] = (int32_t)(r >> 40) - (1 << 23);
  }
  void *d_in, *d_out, *d_offsets, *d_heads;
  CHECK(gpu_alloc(&d_in, NMAX * 8));
  CHECK(gpu_alloc(&d_out, NMAX * 8));
  CHECK(gpu_alloc(&d_offsets, (NMAX + 1) * sizeof(int64_t)));
  CHECK(gpu_alloc(&d_heads, NMAX));
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
    for (size_t mi = 0; mi < sizeof means / sizeof *means; mi++) {
      const size_t n = sizes[si];
      size_t nseg = 0;
      offsets[0] = 0;
      memset(heads, 0, n);
      for (size_t p = 0; p < n;) { /* lengths 0 .. 2 x mean */
        size_t len = (size_t)(means[mi] * 2 * (double)(rng_next() % 1000) / 1000.0);
        if (len > n - p) len = n - p;
        if (len) heads[p] = 1;
        p += len;
        offsets[++nseg] = (int64_t)p;
      }
      heads[0] = 1;
      CHECK(gpu_upload(d_offsets, offsets, (nseg + 1) * sizeof(int64_t)));
      CHECK(gpu_upload(d_heads, heads, n));
      for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++) {
        const gpu_dtype t = types[ti];
        const size_t w = gpu_dtype_size(t);
        if (t == GPU_F64 && n == NMAX) continue;
        CHECK(gpu_upload(d_in, t == GPU_F32 ? (void *)in_f32 : t == GPU_F64 ? (void *)in_f64 : (void *)in_i32, n * w));
        for (size_t oi = 0; oi < sizeof ops / sizeof *ops; oi++)
          for (unsigned flags = 0; flags < 2; flags++) /* GPU_INCLUSIVE, GPU_EXCLUSIVE */
            for (int by_flags = 0; by_flags < 2; by_flags++) {
              if (by_flags) CHECK(gpu_segscan_flags(d_in, d_out, n, d_heads, t, ops[oi], flags));
              else CHECK(gpu_segscan_offsets(d_in, d_out, n, d_offsets, nseg, t, ops[oi], flags));
              CHECK(gpu_download(out, d_out, n * w));
              printf("n=%zu L=%g t=%d op=%d excl=%u %s %016llx\n", n, means[mi], (int)t, (int)ops[oi], flags,
                     by_flags ? "flags" : "offsets", (unsigned long long)fnv1a(out, n * w));
            }
      }
    }
  gpu_free(d_in);
  gpu_free(d_out);
  gpu_free(d_offsets);
  gpu_free(d_heads);
  free(in_f32), free(in_f64), free(in_i32), free(offsets), free(heads), free(out);
  return 0;
}
