/*
 * gpu_csr_free and gpu_csr_validate. Both work on either backend through the
 * public memory API: validate reads the arrays back in bounded chunks with
 * gpu_download, so checking a matrix of any size takes a few MiB of host
 * memory.
 */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "csr_check.h"

enum { CHUNK_ENTRIES = 1 << 20 };

gpu_status gpu_csr_free(gpu_csr *A) {
  static const char fn[] = "gpu_csr_free";
  if (!A) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: A is NULL", fn);
  gpu_backend b;
  gpu_status s = gp_backend(fn, &b);
  if (s != GPU_OK) return s;
  void *arrays[3] = {A->row_ptr, A->col_idx, A->values};
  for (int k = 0; k < 3; k++) {
    gpu_status f = gpu_free(arrays[k]);
    if (s == GPU_OK) s = f;
  }
  /* Zeroed even when a free failed: the pointers must not be freed twice. */
  memset(A, 0, sizeof *A);
  return s;
}

static int64_t index_at(const void *chunk, size_t k, bool i32) {
  return i32 ? ((const int32_t *)chunk)[k] : ((const int64_t *)chunk)[k];
}

gpu_status gp_csr_check_shape(const char *fn, const gpu_csr *A, gpu_backend b) {
  if (A->rows < 0 || A->cols < 0 || A->nnz < 0)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                   "%s: negative count: rows = %lld, cols = %lld, nnz = %lld", fn,
                   (long long)A->rows, (long long)A->cols, (long long)A->nnz);
  if (A->index_type != GPU_I32 && A->index_type != GPU_I64)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: index_type %d (%s) is not GPU_I32 or GPU_I64", fn,
                   (int)A->index_type, gp_dtype_name(A->index_type));
  if (A->value_type != GPU_F32 && A->value_type != GPU_F64)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: value_type %d (%s) is not GPU_F32 or GPU_F64", fn,
                   (int)A->value_type, gp_dtype_name(A->value_type));
  if ((uint64_t)A->rows >= SIZE_MAX || (uint64_t)A->nnz > SIZE_MAX)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                   "%s: rows = %lld or nnz = %lld exceeds this machine's size_t", fn,
                   (long long)A->rows, (long long)A->nnz);
  size_t isize = gpu_dtype_size(A->index_type), vsize = gpu_dtype_size(A->value_type);
  gpu_status s = gp_check_array(fn, "A->row_ptr", A->row_ptr, (size_t)A->rows + 1, isize, b);
  if (s == GPU_OK) s = gp_check_array(fn, "A->col_idx", A->col_idx, (size_t)A->nnz, isize, b);
  if (s == GPU_OK) s = gp_check_array(fn, "A->values", A->values, (size_t)A->nnz, vsize, b);
  return s;
}

/* row_ptr: starts at 0, never decreases, never passes nnz, ends at nnz. */
static gpu_status check_row_ptr(const char *fn, const gpu_csr *A, void *chunk) {
  bool i32 = A->index_type == GPU_I32;
  size_t isize = gpu_dtype_size(A->index_type), total = (size_t)A->rows + 1;
  int64_t previous = 0;
  for (size_t base = 0; base < total; base += CHUNK_ENTRIES) {
    size_t n = total - base < CHUNK_ENTRIES ? total - base : CHUNK_ENTRIES;
    gpu_status s = gpu_download(chunk, (const char *)A->row_ptr + base * isize, n * isize);
    if (s != GPU_OK) return s;
    for (size_t k = 0; k < n; k++) {
      int64_t x = index_at(chunk, k, i32);
      size_t at = base + k;
      if (at == 0 && x != 0)
        return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: row_ptr[0] = %lld, not 0", fn, (long long)x);
      if (x < previous)
        return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                       "%s: row_ptr[%zu] = %lld is less than row_ptr[%zu] = %lld", fn, at,
                       (long long)x, at - 1, (long long)previous);
      if (x > A->nnz)
        return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                       "%s: row_ptr[%zu] = %lld is greater than nnz = %lld", fn, at, (long long)x,
                       (long long)A->nnz);
      previous = x;
    }
  }
  if (previous != A->nnz)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                   "%s: row_ptr[%lld] = %lld (the last) is not nnz = %lld", fn, (long long)A->rows,
                   (long long)previous, (long long)A->nnz);
  return GPU_OK;
}

/* col_idx: every entry in [0, cols). */
static gpu_status check_col_idx(const char *fn, const gpu_csr *A, void *chunk) {
  bool i32 = A->index_type == GPU_I32;
  size_t isize = gpu_dtype_size(A->index_type), total = (size_t)A->nnz;
  for (size_t base = 0; base < total; base += CHUNK_ENTRIES) {
    size_t n = total - base < CHUNK_ENTRIES ? total - base : CHUNK_ENTRIES;
    gpu_status s = gpu_download(chunk, (const char *)A->col_idx + base * isize, n * isize);
    if (s != GPU_OK) return s;
    size_t first_bad = n;
#pragma omp parallel for reduction(min : first_bad) if (n > 65536)
    for (size_t k = 0; k < n; k++) {
      int64_t c = index_at(chunk, k, i32);
      if ((c < 0 || c >= A->cols) && k < first_bad) first_bad = k;
    }
    if (first_bad < n)
      return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                     "%s: col_idx[%zu] = %lld is outside [0, cols = %lld)", fn, base + first_bad,
                     (long long)index_at(chunk, first_bad, i32), (long long)A->cols);
  }
  return GPU_OK;
}

gpu_status gpu_csr_validate(const gpu_csr *A) {
  static const char fn[] = "gpu_csr_validate";
  if (!A) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: A is NULL", fn);
  gpu_backend b;
  gpu_status s = gp_backend(fn, &b);
  if (s == GPU_OK) s = gp_csr_check_shape(fn, A, b);
  if (s != GPU_OK) return s;
  size_t most = (size_t)(A->rows + 1 > A->nnz ? A->rows + 1 : A->nnz);
  size_t entries = most < CHUNK_ENTRIES ? most : CHUNK_ENTRIES;
  void *chunk = malloc((entries ? entries : 1) * sizeof(int64_t));
  if (!chunk) return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: a %zu-entry host buffer", fn, entries);
  s = check_row_ptr(fn, A, chunk);
  if (s == GPU_OK) s = check_col_idx(fn, A, chunk);
  free(chunk);
  return s;
}
