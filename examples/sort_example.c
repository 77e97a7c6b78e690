/*
 * Radix sort on real-sized data: 100 million float scores (a few of them
 * NaN, many of them equal) sorted on the device with their original index
 * as the value, once ascending and once descending. The host then checks
 * what a sort promises:
 *   - the keys are in order (NaN last ascending, first descending);
 *   - stability: among equal keys the indices still increase;
 *   - the pairs are a permutation of the input (each index once, with its key).
 *
 *   sort_example [n]      (GPUPRIM_BACKEND=host to run it without a GPU)
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpuprim.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Scores in 1/1024 steps of [-8, 8) (so equal keys are common), one in 10^4
 * NaN, one in 10^4 -0.0 (beside the +0.0 that the steps give); xorshift, so
 * every run sees the same data. */
static void make_scores(float *x, size_t n) {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < n; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x[i] = s % 10000 == 0 ? NAN : s % 10000 == 1 ? -0.0f : (float)((int64_t)(s >> 50) - 8192) / 1024.0f;
  }
}

/* a before b in the sort's order, ascending: -inf < ... < -0.0 < +0.0 <
 * ... < +inf < NaN (all NaNs one key); descending reverses it. */
static int ascending_before(float a, float b) {
  if (isnan(a) || isnan(b)) return !isnan(a) && isnan(b);
  if (a == b) return signbit(a) && !signbit(b); /* -0.0 before +0.0 */
  return a < b;
}
static int before(float a, float b, int descending) {
  return descending ? ascending_before(b, a) : ascending_before(a, b);
}

/* The same key for the sort: equal bits, or both NaN. */
static int same_key(float a, float b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

/* Order, stability and permutation of the sorted pairs; 0 when all hold. */
static int check(const float *input, const float *keys, const uint32_t *index, size_t n, int descending,
                 unsigned char *seen) {
  memset(seen, 0, n);
  for (size_t i = 0; i < n; i++) {
    const uint32_t j = index[i];
    if (j >= n || seen[j] || memcmp(&keys[i], &input[j], sizeof(float)) != 0) {
      printf("  FAILED: position %zu holds index %u, not a permutation of the input\n", i, j);
      return 1;
    }
    seen[j] = 1;
    if (i == 0) continue;
    const int equal = same_key(keys[i], keys[i - 1]);
    if (!equal && !before(keys[i - 1], keys[i], descending)) {
      printf("  FAILED: keys out of order at position %zu: %g then %g\n", i, keys[i - 1], keys[i]);
      return 1;
    }
    if (equal && index[i - 1] > index[i]) {
      printf("  FAILED: not stable at position %zu: equal keys with indices %u then %u\n", i, index[i - 1], index[i]);
      return 1;
    }
  }
  return 0;
}

/* Sorts (scores, indices) on the device in `flags` order, timed; checks on the host. */
static int sort_and_check(const float *input, size_t n, unsigned flags, float *d_keys, uint32_t *d_index,
                          float *keys, uint32_t *index, unsigned char *seen) {
  for (size_t i = 0; i < n; i++) index[i] = (uint32_t)i;
  gpu_status s = gpu_upload(d_keys, input, n * sizeof(float));
  if (s == GPU_OK) s = gpu_upload(d_index, index, n * sizeof(uint32_t));
  double t0 = now(), t1 = t0;
  if (s == GPU_OK) s = gpu_sort_pairs(d_keys, d_index, n, GPU_F32, sizeof(uint32_t), flags);
  if (s == GPU_OK) s = gpu_synchronize();
  t1 = now();
  if (s == GPU_OK) s = gpu_download(keys, d_keys, n * sizeof(float));
  if (s == GPU_OK) s = gpu_download(index, d_index, n * sizeof(uint32_t));
  if (s != GPU_OK) {
    fprintf(stderr, "sorting: %s: %s\n", gpu_status_string(s), gpu_last_error());
    return 1;
  }
  const int descending = (flags & GPU_DESCENDING) != 0;
  printf("%-10s %zu pairs in %8.2f ms (%6.2f Gkeys/s, one call, host clock); first %g, last %g\n",
         descending ? "descending" : "ascending", n, (t1 - t0) * 1e3, (double)n / (t1 - t0) * 1e-9, keys[0],
         keys[n - 1]);
  const int failed = check(input, keys, index, n, descending, seen);
  if (!failed) printf("  order, stability and permutation checked\n");
  return failed;
}

int main(int argc, char **argv) {
  /* The indices are 32-bit: n <= 2^32. strtoull alone would take "-1" as
   * 2^64 - 1 and "5x" as 5. */
  size_t n = 100000000;
  if (argc > 1) {
    char *end = NULL;
    errno = 0;
    const unsigned long long v = strtoull(argv[1], &end, 0);
    const int whole = isdigit((unsigned char)argv[1][0]) && !errno && !*end;
    n = whole && v <= UINT32_MAX ? (size_t)v : 0;
  }
  if (argc > 2 || n == 0) {
    fprintf(stderr, "usage: sort_example [n], n a whole number from 1 to %u\n", UINT32_MAX);
    return 2;
  }
  printf("gpuprim %s, %s backend, n = %zu\n", gpu_version(), gpu_get_backend() == GPU_BACKEND_CUDA ? "CUDA" : "host", n);

  float *input = malloc(n * sizeof *input), *keys = malloc(n * sizeof *keys);
  uint32_t *index = malloc(n * sizeof *index);
  unsigned char *seen = malloc(n);
  float *d_keys = NULL;
  uint32_t *d_index = NULL;
  int failures = 0;
  if (!input || !keys || !index || !seen || gpu_alloc((void **)&d_keys, n * sizeof(float)) != GPU_OK ||
      gpu_alloc((void **)&d_index, n * sizeof(uint32_t)) != GPU_OK) {
    fprintf(stderr, "out of memory for n = %zu: %s\n", n, gpu_last_error());
    failures = 1;
  } else {
    make_scores(input, n);
    failures += sort_and_check(input, n, GPU_ASCENDING, d_keys, d_index, keys, index, seen);
    failures += sort_and_check(input, n, GPU_DESCENDING, d_keys, d_index, keys, index, seen);
  }

  gpu_free(d_keys);
  gpu_free(d_index);
  free(input), free(keys), free(index), free(seen);
  return failures ? 1 : 0;
}
