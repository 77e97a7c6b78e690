/* The SpMV suites' shared pieces (spmv_ref.h). */
#include "spmv_ref.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

ref_csr spmv_random_matrix(int64_t rows, int64_t cols, int64_t max_per_row, double empty) {
  ref_csr h = {rows, cols, 0, tu_xmalloc(((size_t)rows + 1) * sizeof(int64_t)), NULL, NULL};
  h.row_ptr[0] = 0;
  for (int64_t r = 0; r < rows; r++) {
    bool none = cols == 0 || tu_uniform() < empty;
    h.row_ptr[r + 1] = h.row_ptr[r] + (none ? 0 : (int64_t)tu_below((uint64_t)max_per_row + 1));
  }
  h.nnz = h.row_ptr[rows];
  h.col_idx = tu_xmalloc((size_t)h.nnz * sizeof(int64_t));
  h.values = tu_xmalloc((size_t)h.nnz * sizeof(double));
  for (int64_t k = 0; k < h.nnz; k++) {
    h.col_idx[k] = (int64_t)tu_below((uint64_t)cols);
    h.values[k] = (float)(tu_uniform() * 2 - 1);
  }
  return h;
}

/* n values, given as int64 (index types) or double (value types), as type t
 * in backend memory. */
static void *upload_converted(const int64_t *ints, const double *reals, int64_t n, gpu_dtype t) {
  if (n == 0) return NULL;
  size_t w = gpu_dtype_size(t);
  char *host = tu_xmalloc((size_t)n * w);
  for (int64_t k = 0; k < n; k++) {
    switch (t) {
      case GPU_I32: ((int32_t *)host)[k] = (int32_t)ints[k]; break;
      case GPU_I64: ((int64_t *)host)[k] = ints[k]; break;
      case GPU_F32: ((float *)host)[k] = (float)reals[k]; break;
      default: ((double *)host)[k] = reals[k]; break;
    }
  }
  void *d = spmv_upload_vector(host, n, t);
  free(host);
  return d;
}

gpu_csr spmv_upload_matrix(const ref_csr *h, gpu_dtype index_type, gpu_dtype value_type) {
  gpu_csr A = {h->rows, h->cols, h->nnz, NULL, NULL, NULL, index_type, value_type};
  A.row_ptr = upload_converted(h->row_ptr, NULL, h->rows + 1, index_type);
  A.col_idx = upload_converted(h->col_idx, NULL, h->nnz, index_type);
  A.values = upload_converted(NULL, h->values, h->nnz, value_type);
  return A;
}

void *spmv_upload_vector(const void *host, int64_t n, gpu_dtype t) {
  if (n == 0) return NULL;
  size_t bytes = (size_t)n * gpu_dtype_size(t);
  void *d = tu_alloc(bytes);
  tu_upload(d, host, bytes);
  return d;
}

void spmv_reference(const ref_csr *h, const void *x, const void *y0, gpu_dtype t, double alpha,
                    double beta, double *want, double *tol) {
  const double eps = t == GPU_F32 ? FLT_EPSILON : DBL_EPSILON;
  for (int64_t r = 0; r < h->rows; r++) {
    double scaled_y = beta == 0 ? 0 : beta * tu_get_f(y0, (size_t)r, t);
    int64_t lo = h->row_ptr[r], hi = h->row_ptr[r + 1];
    if (alpha == 0 || lo == hi) {
      want[r] = scaled_y;
      tol[r] = 0;
      continue;
    }
    double sum = 0, magnitude = 0;
    for (int64_t k = lo; k < hi; k++) {
      double p = h->values[k] * tu_get_f(x, (size_t)h->col_idx[k], t);
      sum += p;
      magnitude += fabs(p);
    }
    want[r] = alpha * sum + scaled_y;
    tol[r] = 2 * eps * (double)(hi - lo + 3) * (fabs(alpha) * magnitude + fabs(scaled_y));
  }
}

void spmv_expect_close(const void *y, const double *want, const double *tol, int64_t n,
                       gpu_dtype t, const char *what) {
  for (int64_t r = 0; r < n; r++) {
    double got = tu_get_f(y, (size_t)r, t), w = t == GPU_F32 ? (double)(float)want[r] : want[r];
    bool ok = (isnan(got) && isnan(w)) || got == w || fabs(got - w) <= tol[r];
    if (!ok)
      ck_abort_msg("%s: y[%lld] = %.17g, want %.17g +- %.3g", what, (long long)r, got, w, tol[r]);
  }
}

void *spmv_product(const gpu_csr *A, const void *x_host, const void *y0_host, double alpha,
                   double beta) {
  const gpu_dtype t = A->value_type;
  const size_t y_bytes = (size_t)A->rows * gpu_dtype_size(t);
  void *x = spmv_upload_vector(x_host, A->cols, t), *y = spmv_upload_vector(y0_host, A->rows, t);
  void *direct = tu_xmalloc(y_bytes), *planned = tu_xmalloc(y_bytes);
  gpu_status s = gpu_spmv(A, x, y, alpha, beta);
  ck_assert_msg(s == GPU_OK, "gpu_spmv: %s", gpu_last_error());
  tu_download(direct, y, y_bytes);

  tu_upload(y, y0_host, y_bytes);
  gpu_spmv_plan *plan = NULL;
  s = gpu_spmv_plan_create(&plan, A);
  ck_assert_msg(s == GPU_OK, "gpu_spmv_plan_create: %s", gpu_last_error());
  s = gpu_spmv_plan_run(plan, x, y, alpha, beta);
  ck_assert_msg(s == GPU_OK, "gpu_spmv_plan_run: %s", gpu_last_error());
  tu_download(planned, y, y_bytes);
  gpu_spmv_plan_destroy(plan);
  ck_assert_msg(memcmp(direct, planned, y_bytes) == 0, "the plan's product differs from gpu_spmv's");

  free(planned);
  tu_free(x);
  tu_free(y);
  return direct;
}

void spmv_expect_refused(gpu_status s, const char *words) {
  ck_assert_msg(s == GPU_ERR_INVALID_ARGUMENT, "got %s (%s), want INVALID_ARGUMENT for '%s'",
                gpu_status_string(s), gpu_last_error(), words);
  ck_assert_msg(strstr(gpu_last_error(), words), "message '%s' lacks '%s'", gpu_last_error(), words);
}

const char *spmv_bad_shape(gpu_csr *B, int k) {
  switch (k) {
    case 0: B->rows = -1; return "negative";
    case 1: B->cols = -1; return "negative";
    case 2: B->nnz = -1; return "negative";
    case 3: B->index_type = GPU_F32; return "index_type";
    case 4: B->index_type = GPU_U32; return "index_type";
    case 5: B->index_type = GPU_U64; return "index_type";
    case 6: B->index_type = (gpu_dtype)42; return "index_type";
    case 7: B->value_type = GPU_I32; return "value_type";
    case 8: B->value_type = GPU_I64; return "value_type";
    case 9: B->value_type = (gpu_dtype)-1; return "value_type";
    case 10: B->row_ptr = NULL; return "row_ptr is NULL";
    case 11: B->col_idx = NULL; return "col_idx is NULL";
    case 12: B->values = NULL; return "values is NULL";
    case 13: B->row_ptr = (char *)B->row_ptr + 1; return "aligned";
    default: B->rows = INT64_MAX; return "row_ptr"; /* rows + 1 indices overflow a size_t */
  }
}
