/*
 * CUDA-only SpMV checks: arrays in host memory are refused, and a matrix of
 * more than 2^31 entries with i64 indices (about 26 GB of device memory;
 * skipped, saying so, where it does not fit, and in quick mode).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmv_ref.h"
#include "test_util.h"

START_TEST(host_memory_refused) {
  ref_csr h = spmv_random_matrix(10, 8, 3, 0);
  gpu_csr A = spmv_upload_matrix(&h, GPU_I32, GPU_F32), B = A;
  float host_x[8] = {0}, host_y[10] = {0}, host_values[64] = {0};
  float *x = tu_alloc(sizeof host_x), *y = tu_alloc(sizeof host_y);
  spmv_expect_refused(gpu_spmv(&A, host_x, y, 1, 0), "x");
  spmv_expect_refused(gpu_spmv(&A, x, host_y, 1, 0), "y");
  B.values = host_values;
  spmv_expect_refused(gpu_spmv(&B, x, y, 1, 0), "A->values");
  gpu_spmv_plan *plan = NULL;
  spmv_expect_refused(gpu_spmv_plan_create(&plan, &B), "A->values");
  tu_free(x);
  tu_free(y);
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  ref_free(&h);
}
END_TEST

/* 2^22 rows of 513 entries: 2^31 + 2^22 in all. Values +-1 and x small
 * integers, so every f32 sum is exact and the reference needs no matrix. */
enum { BIG_ROWS = 1 << 22, BIG_COLS = 1 << 20, BIG_ROW_LEN = 513, CHUNK_ROWS = 1 << 14 };
static int64_t big_col(int64_t r, int64_t k) { return (r * 7919 + k * 2053) & (BIG_COLS - 1); }
static float big_value(int64_t k) { return k & 1 ? -1.0f : 1.0f; }
static float big_x(int64_t c) { return (float)(c % 7 - 3); }

static bool alloc_or_skip(void **p, size_t bytes) {
  gpu_status s = gpu_alloc(p, bytes);
  if (s != GPU_OK) printf("more_than_2_31_entries: SKIPPED: %s\n", gpu_last_error());
  return s == GPU_OK;
}

START_TEST(more_than_2_31_entries) {
  if (tu_quick()) {
    printf("more_than_2_31_entries: SKIPPED in quick mode\n");
    return;
  }
  const int64_t nnz = (int64_t)BIG_ROWS * BIG_ROW_LEN;
  gpu_csr A = {BIG_ROWS, BIG_COLS, nnz, NULL, NULL, NULL, GPU_I64, GPU_F32};
  float *x = NULL, *y = NULL;
  if (!alloc_or_skip(&A.row_ptr, (BIG_ROWS + 1) * sizeof(int64_t)) ||
      !alloc_or_skip(&A.col_idx, (size_t)nnz * sizeof(int64_t)) ||
      !alloc_or_skip(&A.values, (size_t)nnz * sizeof(float)) ||
      !alloc_or_skip((void **)&x, BIG_COLS * sizeof(float)) ||
      !alloc_or_skip((void **)&y, BIG_ROWS * sizeof(float))) {
    gpu_csr_free(&A);
    gpu_free(x);
    return;
  }
  int64_t *row_ptr = tu_xmalloc((BIG_ROWS + 1) * sizeof(int64_t));
  for (int64_t r = 0; r <= BIG_ROWS; r++) row_ptr[r] = r * BIG_ROW_LEN;
  tu_upload(A.row_ptr, row_ptr, (BIG_ROWS + 1) * sizeof(int64_t));
  free(row_ptr);
  const size_t chunk = (size_t)CHUNK_ROWS * BIG_ROW_LEN;
  int64_t *cols = tu_xmalloc(chunk * sizeof(int64_t));
  float *values = tu_xmalloc(chunk * sizeof(float)), *hx = tu_xmalloc(BIG_COLS * sizeof(float));
  for (size_t k = 0; k < chunk; k++) values[k] = big_value((int64_t)(k % BIG_ROW_LEN));
  for (int64_t r0 = 0; r0 < BIG_ROWS; r0 += CHUNK_ROWS) {
    for (int64_t r = r0; r < r0 + CHUNK_ROWS; r++)
      for (int64_t k = 0; k < BIG_ROW_LEN; k++) cols[(r - r0) * BIG_ROW_LEN + k] = big_col(r, k);
    tu_upload((int64_t *)A.col_idx + r0 * BIG_ROW_LEN, cols, chunk * sizeof(int64_t));
    tu_upload((float *)A.values + r0 * BIG_ROW_LEN, values, chunk * sizeof(float));
  }
  for (int64_t c = 0; c < BIG_COLS; c++) hx[c] = big_x(c);
  tu_upload(x, hx, BIG_COLS * sizeof(float));

  float *direct = tu_xmalloc(BIG_ROWS * sizeof(float)), *planned = tu_xmalloc(BIG_ROWS * sizeof(float));
  tu_poison(y, BIG_ROWS * sizeof(float));
  ck_assert_msg(gpu_spmv(&A, x, y, 1, 0) == GPU_OK, "gpu_spmv: %s", gpu_last_error());
  tu_download(direct, y, BIG_ROWS * sizeof(float));
  gpu_spmv_plan *plan = NULL;
  ck_assert_msg(gpu_spmv_plan_create(&plan, &A) == GPU_OK, "%s", gpu_last_error());
  tu_poison(y, BIG_ROWS * sizeof(float));
  ck_assert_msg(gpu_spmv_plan_run(plan, x, y, 1, 0) == GPU_OK, "%s", gpu_last_error());
  tu_download(planned, y, BIG_ROWS * sizeof(float));
  gpu_spmv_plan_destroy(plan);
  ck_assert(memcmp(direct, planned, BIG_ROWS * sizeof(float)) == 0);
  for (int64_t r = 0; r < BIG_ROWS; r++) {
    float want = 0;
    for (int64_t k = 0; k < BIG_ROW_LEN; k++) want += big_value(k) * big_x(big_col(r, k));
    if (direct[r] != want)
      ck_abort_msg("y[%lld] = %g, want %g", (long long)r, (double)direct[r], (double)want);
  }
  printf("more_than_2_31_entries: %lld entries, products exact\n", (long long)nnz);
  free(cols), free(values), free(hx), free(direct), free(planned);
  gpu_free(x);
  gpu_free(y);
  ck_assert(gpu_csr_free(&A) == GPU_OK);
}
END_TEST

TCase *test_spmv_cuda_tcase(void) {
  TCase *tc = tu_tcase("cuda");
  tcase_add_test(tc, host_memory_refused);
  tcase_add_test(tc, more_than_2_31_entries);
  return tc;
}
