/*
 * SpMV for `gpuprim demo`, and the timing and checking that `gpuprim spmv`
 * shares with it.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "demo.h"

/* Element k of a host array of an index or value type, as int64 / double. */
static int64_t index_at(const void *a, int64_t k, gpu_dtype t) {
  return t == GPU_I32 ? ((const int32_t *)a)[k] : ((const int64_t *)a)[k];
}
static double value_at(const void *a, int64_t k, gpu_dtype t) {
  return t == GPU_F32 ? ((const float *)a)[k] : ((const double *)a)[k];
}

/* Seconds per product y = A x over reps calls (after one warm-up call), by
 * gpu_spmv or, given one, by the plan. */
double spmv_seconds(const gpu_csr *A, gpu_spmv_plan *plan, const void *x, void *y, int reps) {
  double t0 = 0;
  for (int i = -1; i < reps; i++) {
    if (i == 0) {
      CHECK(gpu_synchronize());
      t0 = now();
    }
    CHECK(plan ? gpu_spmv_plan_run(plan, x, y, 1.0, 0.0) : gpu_spmv(A, x, y, 1.0, 0.0));
  }
  CHECK(gpu_synchronize());
  return (now() - t0) / reps;
}

/* The result y (its backend's, downloaded) against the host backend's product on a host copy of A:
 * each y[r] within a few units of rounding per entry of the magnitudes summed
 * in row r. Returns how many differ. */
size_t spmv_check_against_host(const gpu_csr *A, const void *h_x, const void *h_y, gpu_backend backend) {
  const size_t iw = gpu_dtype_size(A->index_type), vw = gpu_dtype_size(A->value_type);
  gpu_csr H = *A;
  H.row_ptr = malloc(((size_t)A->rows + 1) * iw);
  H.col_idx = malloc((size_t)A->nnz * iw + 1);
  H.values = malloc((size_t)A->nnz * vw + 1);
  void *h_ref = malloc((size_t)A->rows * vw + 1);
  if (!H.row_ptr || !H.col_idx || !H.values || !h_ref) die_no_memory("a host copy of A");
  CHECK(gpu_download(H.row_ptr, A->row_ptr, ((size_t)A->rows + 1) * iw));
  CHECK(gpu_download(H.col_idx, A->col_idx, (size_t)A->nnz * iw));
  CHECK(gpu_download(H.values, A->values, (size_t)A->nnz * vw));
  CHECK(gpu_set_backend(GPU_BACKEND_HOST));
  CHECK(gpu_spmv(&H, h_x, h_ref, 1.0, 0.0));
  CHECK(gpu_set_backend(backend));
  const double eps = A->value_type == GPU_F32 ? 0x1p-23 : 0x1p-52;
  size_t bad = 0;
  for (int64_t r = 0; r < A->rows; r++) {
    const int64_t lo = index_at(H.row_ptr, r, A->index_type), hi = index_at(H.row_ptr, r + 1, A->index_type);
    double magnitude = 0;
    for (int64_t k = lo; k < hi; k++)
      magnitude += fabs(value_at(H.values, k, A->value_type) *
                        value_at(h_x, index_at(H.col_idx, k, A->index_type), A->value_type));
    const double got = value_at(h_y, r, A->value_type), want = value_at(h_ref, r, A->value_type);
    bad += !(got == want || fabs(got - want) <= 2 * eps * (double)(hi - lo + 2) * magnitude);
  }
  free(H.row_ptr);
  free(H.col_idx);
  free(H.values);
  free(h_ref);
  return bad;
}

/* Demo matrices have rows = n / 64, so that nnz (16 a row) is about n / 4,
 * at least 1 row and at most 2^23 (nnz 2^27: 1.5 GB of values and indices,
 * and i32 indices with room to spare). */
enum { DEMO_ROW_LENGTH = 16, DEMO_MAX_ROWS = 1 << 23 };

/* A random square CSR matrix in host memory: f64 values in [-1, 1), i32
 * indices. Each row takes one random column in each of DEMO_ROW_LENGTH equal
 * stretches of [0, cols) (fewer when cols is smaller), so its columns are
 * distinct and sorted, as gpu_csr_read_mm gives them, and reach across x. */
static gpu_csr random_csr(size_t n) {
  const int64_t rows = n / 64 < 1 ? 1 : n / 64 > DEMO_MAX_ROWS ? DEMO_MAX_ROWS : (int64_t)(n / 64);
  const int64_t per_row = rows < DEMO_ROW_LENGTH ? rows : DEMO_ROW_LENGTH;
  gpu_csr A = {rows, rows, rows * per_row, NULL, NULL, NULL, GPU_I32, GPU_F64};
  int32_t *row_ptr = malloc(((size_t)rows + 1) * sizeof *row_ptr);
  int32_t *col_idx = malloc((size_t)A.nnz * sizeof *col_idx);
  double *values = malloc((size_t)A.nnz * sizeof *values);
  if (!row_ptr || !col_idx || !values) die_no_memory("the demo matrix");
  for (int64_t r = 0; r <= rows; r++) row_ptr[r] = (int32_t)(r * per_row);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t j = 0; j < per_row; j++) {
      const int64_t lo = j * A.cols / per_row, hi = (j + 1) * A.cols / per_row;
      col_idx[r * per_row + j] = (int32_t)(lo + (int64_t)(next_random() % (uint64_t)(hi - lo)));
    }
  fill(values, (size_t)A.nnz, GPU_F64);
  A.row_ptr = row_ptr;
  A.col_idx = col_idx;
  A.values = values;
  return A;
}

/* y = A x by gpu_spmv, then by a plan, each timed (after a warm-up call) and
 * checked against the host backend within the rounding of each row's sum. */
int demo_spmv(size_t n, gpu_backend backend) {
  progress("spmv");
  gpu_csr H = random_csr(n), A = H;
  const size_t index_bytes = (size_t)A.nnz * 4, value_bytes = (size_t)A.nnz * 8;
  const size_t row_ptr_bytes = ((size_t)A.rows + 1) * 4, x_bytes = (size_t)A.cols * 8, y_bytes = (size_t)A.rows * 8;
  CHECK(gpu_alloc(&A.row_ptr, row_ptr_bytes));
  CHECK(gpu_alloc(&A.col_idx, index_bytes));
  CHECK(gpu_alloc(&A.values, value_bytes));
  CHECK(gpu_upload(A.row_ptr, H.row_ptr, row_ptr_bytes));
  CHECK(gpu_upload(A.col_idx, H.col_idx, index_bytes));
  CHECK(gpu_upload(A.values, H.values, value_bytes));
  CHECK(gpu_csr_validate(&A));
  double *h_x = malloc(x_bytes), *h_y = malloc(y_bytes);
  void *d_x = NULL, *d_y = NULL;
  if (!h_x || !h_y) die_no_memory("the demo vectors");
  fill(h_x, (size_t)A.cols, GPU_F64);
  CHECK(gpu_alloc(&d_x, x_bytes));
  CHECK(gpu_alloc(&d_y, y_bytes));
  CHECK(gpu_upload(d_x, h_x, x_bytes));

  /* n here is nnz. Bytes: the matrix, x and y each once (x is gathered, so
   * parts of it are read more than once). */
  const double bytes = (double)(row_ptr_bytes + index_bytes + value_bytes + x_bytes + y_bytes);
  gpu_spmv_plan *plan = NULL;
  double plan_seconds = 0;
  int failures = 0;
  for (int planned = 0; planned < 2; planned++) {
    if (planned) {
      const double t0 = now();
      CHECK(gpu_spmv_plan_create(&plan, &A));
      plan_seconds = now() - t0;
    }
    const double seconds = spmv_seconds(&A, plan, d_x, d_y, 1);
    CHECK(gpu_download(h_y, d_y, y_bytes));
    const size_t bad = spmv_check_against_host(&A, h_x, h_y, backend);
    char check[96];
    if (bad)
      snprintf(check, sizeof check, "FAILED: %zu of %lld rows differ", bad, (long long)A.rows);
    else if (planned)
      snprintf(check, sizeof check, "ok, %.2f GFLOP/s (plan made in %.1f ms)", 2.0 * (double)A.nnz / seconds * 1e-9,
               plan_seconds * 1e3);
    else
      snprintf(check, sizeof check, "ok, %.2f GFLOP/s", 2.0 * (double)A.nnz / seconds * 1e-9);
    failures += bad != 0;
    row("spmv", planned ? "f64 i32 16/row, plan" : "f64 i32 16/row (n = nnz)", (size_t)A.nnz, seconds, bytes, check);
  }
  gpu_spmv_plan_destroy(plan);
  CHECK(gpu_free(A.row_ptr));
  CHECK(gpu_free(A.col_idx));
  CHECK(gpu_free(A.values));
  CHECK(gpu_free(d_x));
  CHECK(gpu_free(d_y));
  free(H.row_ptr);
  free(H.col_idx);
  free(H.values);
  free(h_x);
  free(h_y);
  return failures;
}
