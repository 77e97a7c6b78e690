/*
 * libFuzzer harness for gpu_csr_read_mm (host backend). Each input is a file,
 * read with the four (value, index) type pairs. Every GPU_OK result must be a
 * valid matrix (gpu_csr_validate passes, every row strictly increasing by
 * column, every value finite), and the pairs must agree with each other:
 *   - 32-bit indices succeed only where 64-bit ones do, with the same matrix,
 *     and fail otherwise only with GPU_ERR_UNSUPPORTED (the 32-bit limit) or
 *     the 64-bit read's status;
 *   - f32 succeeds only where f64 does, with the same rows and columns
 *     (f32 may refuse more: values or sums past its range);
 * except where the cap refused the wider pair's larger demand alone.
 * The input is handed over as /proc/self/fd/N of a memfd: a regular file,
 * nothing left on disk. GPUPRIM_MM_MAX_BYTES (16M) caps what a size line may
 * demand, so that a run stays within milliseconds.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpuprim.h"

#define CHECK(cond, ...)                       \
  do {                                         \
    if (!(cond)) {                             \
      fprintf(stderr, "fuzz_mm_read: ");       \
      fprintf(stderr, __VA_ARGS__);            \
      fprintf(stderr, "\n");                   \
      abort();                                 \
    }                                          \
  } while (0)

static int input_fd = -1;
static char input_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  setenv("GPUPRIM_MM_MAX_BYTES", "16M", 0); /* each run stays fast */
  gpu_set_backend(GPU_BACKEND_HOST);
  input_fd = memfd_create("fuzz_mm_read", 0);
  if (input_fd < 0) abort();
  snprintf(input_path, sizeof input_path, "/proc/self/fd/%d", input_fd);
  return 0;
}

/* Element k of an index array of type t. */
static int64_t index_at(const gpu_csr *A, const void *array, int64_t k) {
  return A->index_type == GPU_I32 ? ((const int32_t *)array)[k] : ((const int64_t *)array)[k];
}

static double value_at(const gpu_csr *A, int64_t k) {
  return A->value_type == GPU_F32 ? ((const float *)A->values)[k] : ((const double *)A->values)[k];
}

static void check_valid(const gpu_csr *A) {
  CHECK(gpu_csr_validate(A) == GPU_OK, "validate: %s", gpu_last_error());
  CHECK(A->rows >= 0 && A->cols >= 0 && A->nnz >= 0, "negative sizes");
  CHECK(index_at(A, A->row_ptr, A->rows) == A->nnz, "row_ptr does not end at nnz");
  for (int64_t r = 0; r < A->rows; r++) {
    int64_t lo = index_at(A, A->row_ptr, r), hi = index_at(A, A->row_ptr, r + 1);
    for (int64_t k = lo; k < hi; k++) {
      CHECK(k == lo || index_at(A, A->col_idx, k - 1) < index_at(A, A->col_idx, k),
            "row %lld is not strictly increasing at entry %lld", (long long)r, (long long)k);
      CHECK(isfinite(value_at(A, k)), "entry %lld is not finite", (long long)k);
    }
  }
}

/* The same rows and columns; values too when both have the same value type. */
static void check_same(const gpu_csr *a, const gpu_csr *b) {
  CHECK(a->rows == b->rows && a->cols == b->cols && a->nnz == b->nnz, "sizes differ");
  for (int64_t r = 0; r <= a->rows; r++)
    CHECK(index_at(a, a->row_ptr, r) == index_at(b, b->row_ptr, r), "row_ptr[%lld] differs", (long long)r);
  for (int64_t k = 0; k < a->nnz; k++) {
    CHECK(index_at(a, a->col_idx, k) == index_at(b, b->col_idx, k), "col_idx[%lld] differs", (long long)k);
    if (a->value_type == b->value_type) {
      double x = value_at(a, k), y = value_at(b, k);
      CHECK(memcmp(&x, &y, sizeof x) == 0, "value %lld differs", (long long)k);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (ftruncate(input_fd, 0) != 0 || pwrite(input_fd, data, size, 0) != (ssize_t)size) abort();
  enum { F64_I64, F64_I32, F32_I64, F32_I32, PAIRS };
  static const gpu_dtype value_of[PAIRS] = {GPU_F64, GPU_F64, GPU_F32, GPU_F32};
  static const gpu_dtype index_of[PAIRS] = {GPU_I64, GPU_I32, GPU_I64, GPU_I32};
  gpu_csr A[PAIRS];
  gpu_status s[PAIRS];
  for (int p = 0; p < PAIRS; p++) {
    memset(&A[p], 0, sizeof A[p]);
    s[p] = gpu_csr_read_mm(input_path, value_of[p], index_of[p], &A[p]);
    CHECK(s[p] >= GPU_OK && s[p] <= GPU_ERR_IO, "unknown status %d", (int)s[p]);
    CHECK(s[p] == GPU_OK || gpu_last_error()[0], "a refusal without a message");
    if (s[p] == GPU_OK) check_valid(&A[p]);
  }
  for (int p = F64_I32; p <= F32_I32; p += 2) { /* 32-bit indices against 64-bit ones */
    if (s[p] == GPU_OK) {
      /* The cap may refuse the wider read's larger demand alone. */
      CHECK(s[p - 1] == GPU_OK || s[p - 1] == GPU_ERR_OUT_OF_MEMORY,
            "32-bit indices read what 64-bit ones refused");
      if (s[p - 1] == GPU_OK) check_same(&A[p], &A[p - 1]);
    } else {
      /* A capped demand (OUT_OF_MEMORY) is smaller with 32-bit indices: the
       * read may then go on to refuse for another reason. */
      CHECK(s[p] == GPU_ERR_UNSUPPORTED || s[p] == s[p - 1] || s[p - 1] == GPU_ERR_OUT_OF_MEMORY,
            "32-bit indices: %s, 64-bit: %s",
            gpu_status_string(s[p]), gpu_status_string(s[p - 1]));
    }
  }
  for (int p = F32_I64; p <= F32_I32; p++) /* f32 against f64 */
    if (s[p] == GPU_OK) {
      CHECK(s[p - 2] == GPU_OK || s[p - 2] == GPU_ERR_OUT_OF_MEMORY, "f32 read what f64 refused");
      if (s[p - 2] == GPU_OK) check_same(&A[p], &A[p - 2]);
    }
  for (int p = 0; p < PAIRS; p++)
    if (s[p] == GPU_OK) CHECK(gpu_csr_free(&A[p]) == GPU_OK, "free: %s", gpu_last_error());
  return 0;
}
