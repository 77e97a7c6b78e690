/*
 * Conjugate gradient on a symmetric positive definite matrix read from a
 * Matrix Market file, every product A p by an SpMV plan made once:
 *
 *   cg_example FILE.mtx [tolerance [max_iterations]]
 *
 * (tests/data/matrices/bcsstk13.mtx and 494_bus.mtx are SPD;
 * GPUPRIM_BACKEND=host runs it without a GPU.) The right-hand side is
 * b = A * ones, so the exact solution is all ones and the final error can be
 * shown. Preconditioner: Jacobi (the diagonal of A): without it CG on
 * bcsstk13 (a structural matrix) is still at 1e-8 after 100000 iterations;
 * with it, it reaches 1e-10 in about 1400 (494_bus: about 400).
 *
 * What runs where: gpuprim has no elementwise vector operations yet (no axpy,
 * no elementwise product for a dot product through gpu_reduce), so the
 * vector updates and dot products are plain loops over host copies of the
 * vectors. Only the products run in gpuprim, on either backend: p is
 * uploaded before each product and A p downloaded after (on the host
 * backend those copies are memcpy's). Nothing here passes memory of one
 * kind where the other is expected.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gpuprim.h>

static void check(gpu_status s, const char *what) {
  if (s == GPU_OK) return;
  fprintf(stderr, "cg_example: %s: %s (%s)\n", what, gpu_status_string(s), gpu_last_error());
  exit(1);
}

static double dot(const double *a, const double *b, int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; i++) sum += a[i] * b[i];
  return sum;
}

/* out = A * in through the plan: in uploaded to d_in, the product downloaded. */
static void multiply(gpu_spmv_plan *plan, const double *in, double *out, int64_t n, double *d_in,
                     double *d_out) {
  check(gpu_upload(d_in, in, (size_t)n * sizeof(double)), "gpu_upload");
  check(gpu_spmv_plan_run(plan, d_in, d_out, 1.0, 0.0), "gpu_spmv_plan_run");
  check(gpu_download(out, d_out, (size_t)n * sizeof(double)), "gpu_download");
}

/* The diagonal of A (read back from the backend's memory once). */
static void diagonal(const gpu_csr *A, double *diag) {
  const int64_t n = A->rows, nnz = A->nnz;
  int32_t *row_ptr = malloc((size_t)(n + 1) * sizeof *row_ptr);
  int32_t *col_idx = malloc((size_t)(nnz ? nnz : 1) * sizeof *col_idx);
  double *values = malloc((size_t)(nnz ? nnz : 1) * sizeof *values);
  if (!row_ptr || !col_idx || !values) check(GPU_ERR_OUT_OF_MEMORY, "host copy of A");
  check(gpu_download(row_ptr, A->row_ptr, (size_t)(n + 1) * sizeof *row_ptr), "gpu_download");
  check(gpu_download(col_idx, A->col_idx, (size_t)nnz * sizeof *col_idx), "gpu_download");
  check(gpu_download(values, A->values, (size_t)nnz * sizeof *values), "gpu_download");
  for (int64_t r = 0; r < n; r++) {
    diag[r] = 0;
    for (int32_t k = row_ptr[r]; k < row_ptr[r + 1]; k++)
      if (col_idx[k] == r) diag[r] += values[k];
  }
  free(row_ptr);
  free(col_idx);
  free(values);
}

static int usage(void) {
  fprintf(stderr, "usage: cg_example FILE.mtx [tolerance (1e-10) [max_iterations (10 n)]]\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 4) return usage();
  /* atof and atoll would take "abc" as 0 and run to the iteration limit. */
  char *end = NULL;
  errno = 0;
  const double tolerance = argc > 2 ? strtod(argv[2], &end) : 1e-10;
  if (argc > 2 && (errno || end == argv[2] || *end || !(tolerance > 0) || !isfinite(tolerance))) {
    fprintf(stderr, "cg_example: the tolerance must be a positive number, not '%s'\n", argv[2]);
    return usage();
  }
  const long long iteration_limit = argc > 3 ? strtoll(argv[3], &end, 10) : 0;
  if (argc > 3 && (errno || end == argv[3] || *end || iteration_limit <= 0)) {
    fprintf(stderr, "cg_example: max_iterations must be a positive whole number, not '%s'\n", argv[3]);
    return usage();
  }
  gpu_csr A;
  check(gpu_csr_read_mm(argv[1], GPU_F64, GPU_I32, &A), "gpu_csr_read_mm");
  check(gpu_csr_validate(&A), "gpu_csr_validate");
  if (A.rows != A.cols || A.rows == 0) {
    fprintf(stderr, "cg_example: %s is %lld x %lld: CG needs a square matrix\n", argv[1],
            (long long)A.rows, (long long)A.cols);
    return 1;
  }
  const int64_t n = A.rows, max_iterations = argc > 3 ? (int64_t)iteration_limit : 10 * n;
  printf("%s: %lld x %lld, %lld entries, %s backend\n", argv[1], (long long)n, (long long)n,
         (long long)A.nnz, gpu_get_backend() == GPU_BACKEND_CUDA ? "CUDA" : "host");

  gpu_spmv_plan *plan;
  check(gpu_spmv_plan_create(&plan, &A), "gpu_spmv_plan_create");
  double *d_in, *d_out; /* the backend's copies of a product's input and output */
  check(gpu_alloc((void **)&d_in, (size_t)n * sizeof(double)), "gpu_alloc");
  check(gpu_alloc((void **)&d_out, (size_t)n * sizeof(double)), "gpu_alloc");
  double *x = calloc((size_t)n, sizeof *x), *b = malloc((size_t)n * sizeof *b);
  double *r = malloc((size_t)n * sizeof *r), *z = malloc((size_t)n * sizeof *z);
  double *p = malloc((size_t)n * sizeof *p), *q = malloc((size_t)n * sizeof *q);
  double *inverse_diag = malloc((size_t)n * sizeof *inverse_diag);
  if (!x || !b || !r || !z || !p || !q || !inverse_diag) check(GPU_ERR_OUT_OF_MEMORY, "vectors");

  diagonal(&A, inverse_diag);
  for (int64_t i = 0; i < n; i++) {
    if (!(inverse_diag[i] > 0)) {
      fprintf(stderr, "cg_example: A[%lld][%lld] = %g: not positive definite\n", (long long)i,
              (long long)i, inverse_diag[i]);
      return 1;
    }
    inverse_diag[i] = 1 / inverse_diag[i];
    q[i] = 1; /* b = A * ones */
  }
  multiply(plan, q, b, n, d_in, d_out);
  const double norm_b = sqrt(dot(b, b, n));

  /* x = 0: r = b, z = M^-1 r, p = z. */
  for (int64_t i = 0; i < n; i++) {
    r[i] = b[i];
    z[i] = inverse_diag[i] * r[i];
    p[i] = z[i];
  }
  double rz = dot(r, z, n), residual = 1;
  int64_t iteration = 0;
  while (residual > tolerance && iteration < max_iterations) {
    multiply(plan, p, q, n, d_in, d_out); /* q = A p */
    const double step = rz / dot(p, q, n);
    for (int64_t i = 0; i < n; i++) {
      x[i] += step * p[i];
      r[i] -= step * q[i];
      z[i] = inverse_diag[i] * r[i];
    }
    const double rz_next = dot(r, z, n), beta = rz_next / rz;
    rz = rz_next;
    for (int64_t i = 0; i < n; i++) p[i] = z[i] + beta * p[i];
    residual = sqrt(dot(r, r, n)) / norm_b;
    printf("iteration %5lld   ||r|| / ||b|| = %.3e\n", (long long)++iteration, residual);
  }

  /* The true residual (not the recurrence's) and the error against all ones. */
  multiply(plan, x, q, n, d_in, d_out);
  double true_residual = 0, error = 0;
  for (int64_t i = 0; i < n; i++) {
    true_residual += (b[i] - q[i]) * (b[i] - q[i]);
    error = fmax(error, fabs(x[i] - 1));
  }
  printf("%s after %lld iterations: ||b - A x|| / ||b|| = %.3e, max |x - 1| = %.3e\n",
         residual <= tolerance ? "converged" : "NOT converged", (long long)iteration,
         sqrt(true_residual) / norm_b, error);

  gpu_spmv_plan_destroy(plan);
  check(gpu_free(d_in), "gpu_free");
  check(gpu_free(d_out), "gpu_free");
  check(gpu_csr_free(&A), "gpu_csr_free");
  free(x), free(b), free(r), free(z), free(p), free(q), free(inverse_diag);
  return residual <= tolerance ? 0 : 1;
}
