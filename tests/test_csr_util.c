/*
 * gpu_csr_validate and gpu_csr_free on matrices built in the test: random
 * valid ones pass, and each kind of corruption is caught, named by its first
 * bad entry, including past the validator's 1M-entry download chunks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmv_ref.h"
#include "test_util.h"

/* Sets element k of a backend index array. */
static void poke(void *array, gpu_dtype it, int64_t k, int64_t x) {
  if (it == GPU_I32) {
    int32_t v = (int32_t)x;
    tu_upload((int32_t *)array + k, &v, sizeof v);
  } else {
    tu_upload((int64_t *)array + k, &x, sizeof x);
  }
}

static void expect_invalid(const gpu_csr *A, const char *words) {
  spmv_expect_refused(gpu_csr_validate(A), words);
}

static const gpu_dtype index_types[] = {GPU_I32, GPU_I64};
static const gpu_dtype value_types[] = {GPU_F32, GPU_F64};

START_TEST(valid_matrices_pass) {
  const int64_t shapes[][3] = {{0, 0, 0},    {1, 1, 1},        {5, 0, 3},       {31, 17, 5},
                               {1000, 3, 4}, {1, 50000, 2000}, {2000, 2000, 40}};
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
    for (int t = 0; t < 4; t++) {
      ref_csr h = spmv_random_matrix(shapes[k][0], shapes[k][1], shapes[k][2], 0);
      gpu_csr A = spmv_upload_matrix(&h, index_types[t & 1], value_types[t >> 1]);
      ck_assert_msg(gpu_csr_validate(&A) == GPU_OK, "%s", gpu_last_error());
      ck_assert(gpu_csr_free(&A) == GPU_OK);
      gpu_csr zero;
      memset(&zero, 0, sizeof zero);
      ck_assert(memcmp(&A, &zero, sizeof A) == 0);
      ref_free(&h);
    }
}
END_TEST

START_TEST(each_corruption_is_named) {
  for (int t = 0; t < 4; t++) {
    gpu_dtype it = index_types[t & 1], vt = value_types[t >> 1];
    ref_csr h = spmv_random_matrix(40, 30, 6, 0);
    /* Row 16 and the last row non-empty, so that the pokes below break only what they mean to. */
    while (h.row_ptr[17] - h.row_ptr[16] < 2 || h.row_ptr[40] == h.row_ptr[39] || h.nnz < 10) {
      ref_free(&h);
      h = spmv_random_matrix(40, 30, 6, 0);
    }
    gpu_csr A = spmv_upload_matrix(&h, it, vt);
    char words[128];
    poke(A.row_ptr, it, 0, 1); /* row_ptr[0] != 0 */
    expect_invalid(&A, "row_ptr[0] = 1, not 0");
    poke(A.row_ptr, it, 0, 0);
    poke(A.row_ptr, it, 17, h.row_ptr[16] - 1); /* decreasing */
    snprintf(words, sizeof words,
             "gpu_csr_validate: row_ptr[17] = %lld is less than row_ptr[16] = %lld",
             (long long)h.row_ptr[16] - 1, (long long)h.row_ptr[16]);
    expect_invalid(&A, words);
    poke(A.row_ptr, it, 17, h.nnz + 1); /* past nnz */
    snprintf(words, sizeof words, "row_ptr[17] = %lld is greater than nnz", (long long)h.nnz + 1);
    expect_invalid(&A, words);
    poke(A.row_ptr, it, 17, h.row_ptr[17]);
    A.nnz = h.nnz - 1; /* the end is not nnz (and now passes it) */
    expect_invalid(&A, "is greater than nnz");
    A.nnz = h.nnz;
    poke(A.row_ptr, it, 40, h.nnz - 1);
    snprintf(words, sizeof words, "row_ptr[40] = %lld (the last) is not nnz = %lld",
             (long long)h.nnz - 1, (long long)h.nnz);
    expect_invalid(&A, words);
    poke(A.row_ptr, it, 40, h.nnz);
    ck_assert_msg(gpu_csr_validate(&A) == GPU_OK, "%s", gpu_last_error());
    poke(A.col_idx, it, 7, 30); /* column == cols */
    expect_invalid(&A, "col_idx[7] = 30 is outside [0, cols = 30)");
    poke(A.col_idx, it, 3, -1); /* negative column, earlier: the first is named */
    expect_invalid(&A, "col_idx[3] = -1 is outside");
    poke(A.col_idx, it, 3, h.col_idx[3]);
    poke(A.col_idx, it, 7, h.col_idx[7]);
    A.cols = 0;
    expect_invalid(&A, "col_idx[0]");
    A.cols = h.cols;
    ck_assert(gpu_csr_validate(&A) == GPU_OK);
    ck_assert(gpu_csr_free(&A) == GPU_OK);
    ref_free(&h);
  }
}
END_TEST

/* The validator reads 1M entries at a time: a decrease right across a chunk
 * boundary, and a bad column in a later chunk, must still be found. */
START_TEST(corruption_across_chunks) {
  const int64_t chunk = 1 << 20;
  /* About 1.5M entries: two col_idx chunks. */
  ref_csr h = spmv_random_matrix(chunk + 100, 1000, 3, 0);
  for (int t = 0; t < 2; t++) {
    gpu_dtype it = index_types[t];
    gpu_csr A = spmv_upload_matrix(&h, it, GPU_F32);
    ck_assert(gpu_csr_validate(&A) == GPU_OK);
    poke(A.row_ptr, it, chunk, h.row_ptr[chunk - 1] - 1);
    char words[128];
    snprintf(words, sizeof words, "row_ptr[%lld] = %lld is less than row_ptr[%lld]",
             (long long)chunk, (long long)h.row_ptr[chunk - 1] - 1, (long long)chunk - 1);
    expect_invalid(&A, words);
    poke(A.row_ptr, it, chunk, h.row_ptr[chunk]);
    int64_t late = h.nnz - 5;
    poke(A.col_idx, it, late, 1000);
    snprintf(words, sizeof words, "col_idx[%lld] = 1000", (long long)late);
    expect_invalid(&A, words);
    ck_assert(gpu_csr_free(&A) == GPU_OK);
  }
  ref_free(&h);
}
END_TEST

START_TEST(bad_arguments) {
  ref_csr h = spmv_random_matrix(10, 10, 3, 0);
  while (h.nnz == 0) {
    ref_free(&h);
    h = spmv_random_matrix(10, 10, 3, 0);
  }
  gpu_csr A = spmv_upload_matrix(&h, GPU_I64, GPU_F64), B;
  ck_assert(gpu_csr_validate(NULL) == GPU_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(gpu_last_error(), "gpu_csr_validate: A is NULL"));
  for (int k = 0; k < SPMV_BAD_SHAPES; k++) {
    B = A;
    const char *words = spmv_bad_shape(&B, k);
    expect_invalid(&B, words);
  }
  /* nnz 0 needs no col_idx or values. */
  gpu_csr empty = {3, 3, 0, A.row_ptr, NULL, NULL, GPU_I64, GPU_F64};
  int64_t zeros[4] = {0, 0, 0, 0};
  tu_upload(A.row_ptr, zeros, sizeof zeros);
  ck_assert_msg(gpu_csr_validate(&empty) == GPU_OK, "%s", gpu_last_error());
  if (gpu_get_backend() == GPU_BACKEND_CUDA) {
    /* A row_ptr shorter than rows + 1 is reported, not read past. */
    B = A;
    B.rows = 1000;
    expect_invalid(&B, "row_ptr");
  }
  ck_assert(gpu_csr_free(NULL) == GPU_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(gpu_last_error(), "gpu_csr_free: A is NULL"));
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  ck_assert(gpu_csr_free(&A) == GPU_OK); /* a zeroed matrix frees nothing */
  ref_free(&h);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("csr_util");
  TCase *tc = tu_tcase("validate");
  tcase_add_test(tc, valid_matrices_pass);
  tcase_add_test(tc, each_corruption_is_named);
  tcase_add_test(tc, corruption_across_chunks);
  tcase_add_test(tc, bad_arguments);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return tu_main(TU_THIS_BACKEND_IS_CUDA ? "test_csr_util_cuda" : "test_csr_util_host", TU_THIS_BACKEND_IS_CUDA, suite);
}
