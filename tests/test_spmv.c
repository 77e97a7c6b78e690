/*
 * gpu_spmv and its plans on the current backend (host, or CUDA with TU_CUDA):
 * every shared matrix, synthetic ones (empty rows, a dense row, rectangular,
 * random), the alpha/beta rules, and bitwise agreement between a plan and a
 * direct call and from run to run (on the host, whatever the thread count).
 * Each product is compared with the test's own reference (spmv_ref.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#  include <omp.h>
#endif

#include "core/core.h"
#include "spmv_ref.h"
#include "test_util.h"

static const gpu_dtype index_types[] = {GPU_I32, GPU_I64};
static const gpu_dtype value_types[] = {GPU_F32, GPU_F64};

/* The (alpha, beta) pairs every matrix is multiplied with; exact in f32. */
static const double scalings[][2] = {{1, 0}, {-0.75, 1.5}, {2, 1}};

static void fill_nan(void *y, int64_t n, gpu_dtype t) {
  for (int64_t r = 0; r < n; r++) {
    if (t == GPU_F32)
      ((float *)y)[r] = NAN;
    else
      ((double *)y)[r] = NAN;
  }
}

/* Random x and y0 (all NaN where beta == 0: y must not be read), the
 * product by gpu_spmv and by a plan, checked against the reference. */
static void check_product(const gpu_csr *A, const ref_csr *h, double alpha, double beta,
                          const char *what) {
  const gpu_dtype t = A->value_type;
  const size_t w = gpu_dtype_size(t);
  void *x = tu_xmalloc((size_t)A->cols * w), *y0 = tu_xmalloc((size_t)A->rows * w);
  tu_fill(x, (size_t)A->cols, t, TU_FULL);
  if (beta == 0)
    fill_nan(y0, A->rows, t);
  else
    tu_fill(y0, (size_t)A->rows, t, TU_FULL);
  void *y = spmv_product(A, x, y0, alpha, beta);
  double *want = tu_xmalloc((size_t)A->rows * sizeof(double));
  double *tol = tu_xmalloc((size_t)A->rows * sizeof(double));
  spmv_reference(h, x, y0, t, alpha, beta, want, tol);
  char label[256];
  snprintf(label, sizeof label, "%s (%s values, %s indices, alpha %g, beta %g)", what,
           gp_dtype_name(t), gp_dtype_name(A->index_type), alpha, beta);
  spmv_expect_close(y, want, tol, A->rows, t, label);
  free(x), free(y0), free(y), free(want), free(tol);
}

/* h in each of the four type pairs, multiplied with each scaling. */
static void check_all_types(const ref_csr *h, const char *what) {
  for (int k = 0; k < 4; k++) {
    gpu_csr A = spmv_upload_matrix(h, index_types[k & 1], value_types[k >> 1]);
    for (size_t s = 0; s < sizeof scalings / sizeof scalings[0]; s++)
      check_product(&A, h, scalings[s][0], scalings[s][1], what);
    ck_assert(gpu_csr_free(&A) == GPU_OK);
  }
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .mtx file in the shared matrices folder, read with the library in
 * each type pair (files it refuses as unsupported, like complex ones, are
 * named and passed over), multiplied and compared. */
START_TEST(every_shared_matrix) {
  const char *dir_path = tu_need_data("matrices");
  char folder[4096];
  snprintf(folder, sizeof folder, "%s", dir_path);
  DIR *dir = opendir(folder);
  ck_assert_ptr_nonnull(dir);
  char *names[256];
  size_t count = 0;
  for (struct dirent *e; (e = readdir(dir)) && count < 256;) {
    size_t len = strlen(e->d_name);
    if (len > 4 && strcmp(e->d_name + len - 4, ".mtx") == 0) names[count++] = strdup(e->d_name);
  }
  closedir(dir);
  qsort(names, count, sizeof names[0], by_name);
  int multiplied = 0;
  for (size_t f = 0; f < count; f++) {
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", folder, names[f]);
    for (int k = 0; k < 4; k++) {
      gpu_csr A;
      gpu_status s = gpu_csr_read_mm(path, value_types[k >> 1], index_types[k & 1], &A);
      if (s == GPU_ERR_UNSUPPORTED) {
        printf("%s: not multiplied: %s\n", names[f], gpu_last_error());
        break;
      }
      ck_assert_msg(s == GPU_OK, "%s: %s", names[f], gpu_last_error());
      ref_csr h;
      ref_download(&A, &h);
      for (size_t c = 0; c < sizeof scalings / sizeof scalings[0]; c++)
        check_product(&A, &h, scalings[c][0], scalings[c][1], names[f]);
      if (k == 3) {
        printf("%s: %lld x %lld, %lld entries: products agree with the reference\n", names[f],
               (long long)h.rows, (long long)h.cols, (long long)h.nnz);
        multiplied++;
      }
      ref_free(&h);
      ck_assert(gpu_csr_free(&A) == GPU_OK);
    }
    free(names[f]);
  }
  ck_assert_msg(multiplied >= 15, "only %d shared matrices multiplied", multiplied);
}
END_TEST

START_TEST(synthetic_shapes) {
  const bool quick = tu_quick();
  /* rows, cols, most entries a row, share of empty rows (in percent) */
  const int64_t shapes[][4] = {
      {0, 0, 0, 0},        {0, 5, 3, 0},          {5, 0, 3, 0},     {1, 1, 1, 0},
      {3, 1000, 800, 0},   {1000, 3, 6, 0},       {100, 50, 0, 0},  {300, 200, 10, 50},
      {33, 4097, 64, 20},  {2000, 2000, 40, 10},  {40000, 3, 2, 90},
      {quick ? 20000 : 200000, quick ? 15000 : 150000, 16, 5}};
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    ref_csr h = spmv_random_matrix(shapes[k][0], shapes[k][1], shapes[k][2],
                                   (double)shapes[k][3] / 100);
    char what[128];
    snprintf(what, sizeof what, "random %lld x %lld, %lld entries", (long long)h.rows,
             (long long)h.cols, (long long)h.nnz);
    check_all_types(&h, what);
    ref_free(&h);
  }
}
END_TEST

/* h with row r replaced by one entry in every column, in order. */
static ref_csr with_dense_row(const ref_csr *h, int64_t r) {
  ref_csr d = {h->rows, h->cols, 0, tu_xmalloc(((size_t)h->rows + 1) * sizeof(int64_t)), NULL, NULL};
  int64_t old_len = h->row_ptr[r + 1] - h->row_ptr[r];
  d.nnz = h->nnz - old_len + h->cols;
  d.col_idx = tu_xmalloc((size_t)d.nnz * sizeof(int64_t));
  d.values = tu_xmalloc((size_t)d.nnz * sizeof(double));
  int64_t at = 0;
  d.row_ptr[0] = 0;
  for (int64_t i = 0; i < h->rows; i++) {
    for (int64_t k = h->row_ptr[i]; k < h->row_ptr[i + 1] && i != r; k++, at++) {
      d.col_idx[at] = h->col_idx[k];
      d.values[at] = h->values[k];
    }
    for (int64_t c = 0; c < h->cols && i == r; c++, at++) {
      d.col_idx[at] = c;
      d.values[at] = (float)(tu_uniform() * 2 - 1);
    }
    d.row_ptr[i + 1] = at;
  }
  return d;
}

START_TEST(one_dense_row) {
  const int64_t wide = tu_quick() ? 70000 : 300000;
  /* rows, cols, most entries a row, the dense row */
  const int64_t shapes[][4] = {{1000, wide, 3, 500}, {1, wide, 0, 0}, {5000, 20, 4, 4999}};
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    ref_csr sparse = spmv_random_matrix(shapes[k][0], shapes[k][1], shapes[k][2], 0.2);
    ref_csr h = with_dense_row(&sparse, shapes[k][3]);
    char what[128];
    snprintf(what, sizeof what, "%lld x %lld, row %lld dense", (long long)h.rows,
             (long long)h.cols, (long long)shapes[k][3]);
    check_all_types(&h, what);
    ref_free(&sparse);
    ref_free(&h);
  }
}
END_TEST

/* Whether element r of y is exactly v rounded to t (sign of zero included). */
static bool same_bits(const void *y, int64_t r, gpu_dtype t, double v) {
  if (t == GPU_F32) {
    float f = (float)v;
    return memcmp((const float *)y + r, &f, sizeof f) == 0;
  }
  return memcmp((const double *)y + r, &v, sizeof v) == 0;
}

/* BLAS's rules: beta == 0 does not read y, alpha == 0 reads neither A nor x,
 * alpha == 0 with beta == 1 leaves y as it is; and API.md's: an empty row
 * gives beta * y, whatever alpha is. */
START_TEST(alpha_beta_rules) {
  ref_csr h = spmv_random_matrix(300, 200, 10, 0.3);
  for (int k = 0; k < 4; k++) {
    gpu_csr A = spmv_upload_matrix(&h, index_types[k & 1], value_types[k >> 1]);
    const gpu_dtype t = A.value_type;
    const size_t w = gpu_dtype_size(t);
    void *x = tu_xmalloc(200 * w), *nan_x = tu_xmalloc(200 * w);
    void *y0 = tu_xmalloc(300 * w), *nan_y = tu_xmalloc(300 * w), *special_y = tu_xmalloc(300 * w);
    tu_fill(x, 200, t, TU_FULL);
    fill_nan(nan_x, 200, t);
    tu_fill(y0, 300, t, TU_FULL);
    fill_nan(nan_y, 300, t);
    tu_fill(special_y, 300, t, TU_SPECIAL);

    void *y = spmv_product(&A, x, nan_y, 1.5, 0); /* beta == 0: NaN in y stays out */
    for (int64_t r = 0; r < 300; r++) {
      bool empty = h.row_ptr[r] == h.row_ptr[r + 1];
      ck_assert_msg(empty ? same_bits(y, r, t, 0.0) : !isnan(tu_get_f(y, (size_t)r, t)),
                    "beta == 0: y[%lld] = %g", (long long)r, tu_get_f(y, (size_t)r, t));
    }
    free(y);
    y = spmv_product(&A, nan_x, y0, 0, 2); /* alpha == 0: y = 2 y, x not read */
    for (int64_t r = 0; r < 300; r++) ck_assert(same_bits(y, r, t, 2 * tu_get_f(y0, (size_t)r, t)));
    free(y);
    y = spmv_product(&A, nan_x, nan_y, 0, 0); /* both 0: y = +0 */
    for (int64_t r = 0; r < 300; r++) ck_assert(same_bits(y, r, t, 0.0));
    free(y);
    y = spmv_product(&A, nan_x, special_y, 0, 1); /* y unchanged, NaN and all */
    ck_assert(memcmp(y, special_y, 300 * w) == 0);
    free(y);
    y = spmv_product(&A, x, y0, INFINITY, -0.5); /* empty rows: beta * y, not inf * 0 */
    for (int64_t r = 0; r < 300; r++)
      if (h.row_ptr[r] == h.row_ptr[r + 1])
        ck_assert(same_bits(y, r, t, -0.5 * tu_get_f(y0, (size_t)r, t)));
    free(y);
    free(x), free(nan_x), free(y0), free(nan_y), free(special_y);
    ck_assert(gpu_csr_free(&A) == GPU_OK);
  }
  ref_free(&h);
}
END_TEST

/* One plan, many products with other vectors and scalings, each the same
 * bits as gpu_spmv's; the caller's gpu_csr struct may go once the plan exists. */
START_TEST(plan_reuse) {
  ref_csr h = spmv_random_matrix(5000, 4000, 30, 0.1);
  for (int k = 0; k < 4; k++) {
    gpu_csr A = spmv_upload_matrix(&h, index_types[k & 1], value_types[k >> 1]), copy = A;
    const gpu_dtype t = A.value_type;
    const size_t xb = 4000 * gpu_dtype_size(t), yb = 5000 * gpu_dtype_size(t);
    gpu_spmv_plan *plan = NULL;
    ck_assert_msg(gpu_spmv_plan_create(&plan, &copy) == GPU_OK, "%s", gpu_last_error());
    memset(&copy, 0, sizeof copy);
    void *hx = tu_xmalloc(xb), *hy = tu_xmalloc(yb), *direct = tu_xmalloc(yb), *planned = tu_xmalloc(yb);
    void *x = tu_alloc(xb), *y = tu_alloc(yb);
    for (int run = 0; run < 4; run++) {
      const double alpha = run == 2 ? -1 : 0.5 * run + 0.25, beta = run % 2 ? 0.5 : 0;
      tu_fill(hx, 4000, t, TU_FULL);
      tu_fill(hy, 5000, t, TU_FULL);
      tu_upload(x, hx, xb);
      tu_upload(y, hy, yb);
      ck_assert(gpu_spmv(&A, x, y, alpha, beta) == GPU_OK);
      tu_download(direct, y, yb);
      tu_upload(y, hy, yb);
      ck_assert_msg(gpu_spmv_plan_run(plan, x, y, alpha, beta) == GPU_OK, "%s", gpu_last_error());
      tu_download(planned, y, yb);
      ck_assert_msg(memcmp(direct, planned, yb) == 0, "run %d: plan and gpu_spmv differ", run);
    }
    gpu_spmv_plan_destroy(plan);
    tu_free(x), tu_free(y);
    free(hx), free(hy), free(direct), free(planned);
    ck_assert(gpu_csr_free(&A) == GPU_OK);
  }
  ref_free(&h);
}
END_TEST

/* The same bits every run; on the host, for any number of OpenMP threads. */
START_TEST(bitwise_deterministic) {
  ref_csr sparse = spmv_random_matrix(tu_quick() ? 20000 : 100000, 50000, 60, 0.1);
  ref_csr h = with_dense_row(&sparse, 777);
  for (int v = 0; v < 2; v++) {
    gpu_csr A = spmv_upload_matrix(&h, GPU_I64, value_types[v]);
    const gpu_dtype t = A.value_type;
    const size_t w = gpu_dtype_size(t);
    void *x = tu_xmalloc((size_t)h.cols * w), *y0 = tu_xmalloc((size_t)h.rows * w);
    tu_fill(x, (size_t)h.cols, t, TU_FULL);
    tu_fill(y0, (size_t)h.rows, t, TU_FULL);
    void *first = spmv_product(&A, x, y0, 1.25, -1);
#ifdef _OPENMP
    const int threads_before = omp_get_max_threads();
#endif
    static const int threads[] = {1, 2, 3, 8};
    for (int run = 0; run < 4; run++) {
#ifdef _OPENMP
      if (gpu_get_backend() == GPU_BACKEND_HOST) omp_set_num_threads(threads[run]);
#endif
      void *again = spmv_product(&A, x, y0, 1.25, -1);
      ck_assert_msg(memcmp(first, again, (size_t)h.rows * w) == 0,
                    "run %d (host: %d threads) gave other bits", run, threads[run]);
      free(again);
    }
#ifdef _OPENMP
    omp_set_num_threads(threads_before);
#endif
    free(first), free(x), free(y0);
    ck_assert(gpu_csr_free(&A) == GPU_OK);
  }
  ref_free(&sparse);
  ref_free(&h);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("spmv");
  TCase *tc = tu_tcase("products");
  tcase_add_test(tc, every_shared_matrix);
  tcase_add_test(tc, synthetic_shapes);
  tcase_add_test(tc, one_dense_row);
  tcase_add_test(tc, alpha_beta_rules);
  tcase_add_test(tc, plan_reuse);
  tcase_add_test(tc, bitwise_deterministic);
  suite_add_tcase(s, tc);
  suite_add_tcase(s, test_spmv_args_tcase());
#if TU_SPMV_CUDA_ONLY
  suite_add_tcase(s, test_spmv_cuda_tcase());
#endif
  return s;
}

int main(void) {
  tu_require_data("test_spmv", "matrices");
  return tu_main(TU_THIS_BACKEND_IS_CUDA ? "test_spmv_cuda" : "test_spmv_host",
                 TU_THIS_BACKEND_IS_CUDA, suite);
}
