/*
 * libFuzzer harness for gpu_pred_expr with gpu_compact and gpu_partition
 * (host backend). An input is
 *   byte 0      the element type (mod 6) and, in bit 7, a gpu_release_cached_memory
 *               before the calls (the predicate's formula is then gone: the calls
 *               must refuse it cleanly, and a predicate made again must work)
 *   byte 1      the element count n (mod 65)
 *   n elements  their bytes (missing ones are zero)
 *   the rest    the formula text
 * A refused formula must make both calls fail with its status, never crash.
 * An accepted one must give, in bulk, what it gives element by element (a
 * call with n = 1 per element), and gpu_partition must agree with
 * gpu_compact: the same count, the kept elements first in order, then the
 * others in order, bit for bit.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprim.h"

#define CHECK(cond, ...)                       \
  do {                                         \
    if (!(cond)) {                             \
      fprintf(stderr, "fuzz_formula: ");       \
      fprintf(stderr, __VA_ARGS__);            \
      fprintf(stderr, "\n");                   \
      abort();                                 \
    }                                          \
  } while (0)

enum { MAX_N = 64, MAX_TEXT = 4200 };

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  gpu_set_backend(GPU_BACKEND_HOST);
  return 0;
}

/* Compact and partition against each other and against per-element calls. */
static void check_accepted(gpu_pred pred, const uint8_t *in, size_t n, size_t w) {
  uint8_t compacted[MAX_N * 8], partitioned[MAX_N * 8], one[8], expect[MAX_N * 8];
  int64_t kept = gpu_compact(in, n, pred, compacted);
  CHECK(kept >= 0 && (size_t)kept <= n, "gpu_compact returned %lld: %s", (long long)kept, gpu_last_error());
  int64_t split = gpu_partition(in, n, pred, partitioned);
  CHECK(split == kept, "gpu_partition kept %lld, gpu_compact %lld", (long long)split, (long long)kept);
  size_t front = 0, back = (size_t)kept;
  for (size_t i = 0; i < n; i++) {
    int64_t r = gpu_compact(in + i * w, 1, pred, one);
    CHECK(r == 0 || r == 1, "one element: %lld: %s", (long long)r, gpu_last_error());
    memcpy(expect + (r ? front++ : back++) * w, in + i * w, w);
  }
  CHECK(front == (size_t)kept, "element by element %zu kept, in bulk %lld", front, (long long)kept);
  CHECK(memcmp(compacted, expect, (size_t)kept * w) == 0, "gpu_compact's output differs");
  CHECK(memcmp(partitioned, expect, n * w) == 0, "gpu_partition's output differs");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  const gpu_dtype t = (gpu_dtype)(data[0] % 6);
  const bool release = data[0] & 0x80;
  const size_t n = data[1] % (MAX_N + 1), w = gpu_dtype_size(t);
  uint8_t in[MAX_N * 8];
  memset(in, 0, sizeof in);
  size_t at = 2, bytes = n * w <= size - at ? n * w : size - at;
  memcpy(in, data + at, bytes);
  at += bytes;
  char text[MAX_TEXT + 1];
  size_t len = size - at < MAX_TEXT ? size - at : MAX_TEXT;
  memcpy(text, data + at, len);
  text[len] = '\0';

  gpu_pred pred = gpu_pred_expr(t, text);
  uint8_t out[MAX_N * 8];
  if (release) {
    CHECK(gpu_release_cached_memory() == GPU_OK, "release: %s", gpu_last_error());
    int64_t r = gpu_compact(in, n, pred, out);
    CHECK(r < 0 || pred.private_.status == GPU_OK, "a refused formula kept %lld", (long long)r);
    CHECK(r == -(int64_t)GPU_ERR_INVALID_ARGUMENT || r == -(int64_t)pred.private_.status,
          "after release: %lld: %s", (long long)r, gpu_last_error());
    pred = gpu_pred_expr(t, text);
  }
  gpu_status status = (gpu_status)pred.private_.status;
  if (status != GPU_OK) {
    CHECK(gpu_compact(in, n, pred, out) == -(int64_t)status, "gpu_compact: %s", gpu_last_error());
    CHECK(gpu_partition(in, n, pred, out) == -(int64_t)status, "gpu_partition: %s", gpu_last_error());
    CHECK(strlen(gpu_last_error()) > 0, "no message");
    return 0;
  }
  check_accepted(pred, in, n, w);
  return 0;
}
