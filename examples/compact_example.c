/*
 * Stream compaction on real-sized data: 100 million float sensor readings
 * (some of them NaN: dropped samples) are filtered twice on the device,
 *   1. by a built-in predicate, a range lo <= x < hi, and
 *   2. by a formula, "x > 0.5 && !isnan(x)", which the CUDA backend compiles
 *      at run time on its first use (and caches).
 * Each count is checked against a plain loop on the host.
 *
 *   compact_example [n]      (GPUPRIM_BACKEND=host to run it without a GPU)
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gpuprim.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Readings in [0, 1), one in 1000 NaN; xorshift, so every run sees the same data. */
static void make_readings(float *x, size_t n) {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < n; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x[i] = s % 1000 == 0 ? NAN : (float)(s >> 40) * 0x1.0p-24f;
  }
}

/* Runs one filter twice (the first call may compile or allocate), times the
 * second with the host clock, and checks its count against `expected`. */
static int filter(const char *what, const float *readings, size_t n, gpu_pred pred, float *kept, int64_t expected) {
  int64_t first = gpu_compact(readings, n, pred, kept);
  double t0 = now();
  int64_t k = gpu_compact(readings, n, pred, kept);
  double t1 = now();
  if (first < 0 || k < 0) {
    gpu_status s = (gpu_status)-(first < 0 ? first : k);
    fprintf(stderr, "%s: %s: %s\n", what, gpu_status_string(s), gpu_last_error());
    return 1;
  }
  float head[3] = {0, 0, 0};
  gpu_download(head, kept, (size_t)(k < 3 ? k : 3) * sizeof(float));
  printf("%-26s kept %10lld of %zu (%4.1f%%) in %7.2f ms, %6.1f GB/s read; first: %.4f %.4f %.4f  %s\n", what,
         (long long)k, n, 100.0 * (double)k / (double)n, (t1 - t0) * 1e3, (double)(n * sizeof(float)) / (t1 - t0) * 1e-9,
         head[0], head[1], head[2], k == expected ? "(count checked)" : "COUNT DIFFERS FROM THE HOST LOOP");
  return k == expected ? 0 : 1;
}

int main(int argc, char **argv) {
  /* n floats are allocated: n * 4 bytes must not wrap. strtoull alone would
   * take "-1" as 2^64 - 1 and "5x" as 5. */
  size_t n = 100000000;
  if (argc > 1) {
    char *end = NULL;
    errno = 0;
    const unsigned long long v = strtoull(argv[1], &end, 0);
    const int whole = isdigit((unsigned char)argv[1][0]) && !errno && !*end;
    n = whole && v <= SIZE_MAX / sizeof(float) ? (size_t)v : 0;
  }
  if (argc > 2 || n == 0) {
    fprintf(stderr, "usage: compact_example [n], n a whole number from 1 to %zu\n", SIZE_MAX / sizeof(float));
    return 2;
  }
  printf("gpuprim %s, %s backend, n = %zu\n", gpu_version(), gpu_get_backend() == GPU_BACKEND_CUDA ? "CUDA" : "host", n);

  float *host = malloc(n * sizeof *host);
  float *readings = NULL, *kept = NULL;
  if (!host || gpu_alloc((void **)&readings, n * sizeof *host) != GPU_OK ||
      gpu_alloc((void **)&kept, n * sizeof *host) != GPU_OK) {
    fprintf(stderr, "out of memory for n = %zu: %s\n", n, gpu_last_error());
    return 1;
  }
  make_readings(host, n);
  gpu_upload(readings, host, n * sizeof *host);

  /* What the filters should keep, counted the plain way (NaN fails every comparison). */
  const float lo = 0.25f, hi = 0.75f;
  int64_t in_range = 0, high = 0;
  for (size_t i = 0; i < n; i++) {
    in_range += lo <= host[i] && host[i] < hi;
    high += host[i] > 0.5;
  }

  int failures = 0;
  failures += filter("range [0.25, 0.75)", readings, n, gpu_pred_range(GPU_F32, &lo, &hi), kept, in_range);
  failures += filter("x > 0.5 && !isnan(x)", readings, n, gpu_pred_expr(GPU_F32, "x > 0.5 && !isnan(x)"), kept, high);

  gpu_free(readings);
  gpu_free(kept);
  free(host);
  return failures ? 1 : 0;
}
