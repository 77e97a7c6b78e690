/*
 * Conjugate gradient across MPI ranks: the matrix split by rows, every
 * product A p by a distributed SpMV plan (its halo exchange set up once):
 *
 *   mpiexec -n 2 dist_cg FILE.mtx [tolerance [max_iterations]]
 *
 * (tests/data/matrices/bcsstk13.mtx and 494_bus.mtx are SPD;
 * GPUPRIM_BACKEND=host runs it without a GPU.) As cg_example: b = A * ones,
 * so the exact solution is all ones; Jacobi preconditioner. Every rank reads
 * the file and keeps its block of rows (rank r: rows [r N / P, (r + 1) N / P));
 * the vectors live on the host in blocks of the same rows, dot products are
 * MPI_Allreduce sums, and each product uploads the rank's block of p and
 * downloads its block of A p.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gpuprim.h>
#include <gpuprim_dist.h>

static void check(gpu_status s, const char *what) {
  if (s == GPU_OK) return;
  fprintf(stderr, "dist_cg: %s: %s (%s | %s)\n", what, gpu_status_string(s), gpu_dist_last_error(),
          gpu_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static double dot(const double *a, const double *b, int64_t n) {
  double mine = 0, sum = 0;
  for (int64_t i = 0; i < n; i++) mine += a[i] * b[i];
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

typedef struct {
  gpu_dist_spmv_plan *plan;
  void *d_in, *d_out;
  int64_t n; /* this rank's rows */
} product;

static void multiply(const product *P, const double *in, double *out) {
  check(gpu_upload(P->d_in, in, (size_t)P->n * sizeof(double)), "gpu_upload");
  check(gpu_dist_spmv_plan_run(P->plan, P->d_in, P->d_out, 1.0, 0.0), "gpu_dist_spmv_plan_run");
  check(gpu_download(out, P->d_out, (size_t)P->n * sizeof(double)), "gpu_download");
}

/* This rank's rows [first, first + rows) of A (read whole on every rank):
 * uploaded as a block with global columns; its diagonal into diag. */
static void take_rows(const gpu_csr *A, int64_t first, int64_t rows, gpu_csr *block, double *diag) {
  const int64_t N = A->rows, nnz = A->nnz;
  int32_t *row_ptr = malloc((size_t)(N + 1) * sizeof *row_ptr);
  int32_t *col_idx = malloc((size_t)(nnz ? nnz : 1) * sizeof *col_idx);
  double *values = malloc((size_t)(nnz ? nnz : 1) * sizeof *values);
  if (!row_ptr || !col_idx || !values) check(GPU_ERR_OUT_OF_MEMORY, "host copy of A");
  check(gpu_download(row_ptr, A->row_ptr, (size_t)(N + 1) * sizeof *row_ptr), "gpu_download");
  check(gpu_download(col_idx, A->col_idx, (size_t)nnz * sizeof *col_idx), "gpu_download");
  check(gpu_download(values, A->values, (size_t)nnz * sizeof *values), "gpu_download");
  const int32_t e0 = row_ptr[first], e1 = row_ptr[first + rows];
  for (int64_t r = 0; r <= rows; r++) row_ptr[first + r] -= e0; /* the block's own row_ptr */
  for (int64_t r = 0; r < rows; r++) {
    diag[r] = 0;
    for (int32_t k = row_ptr[first + r]; k < row_ptr[first + r + 1]; k++)
      if (col_idx[e0 + k] == first + r) diag[r] += values[e0 + k];
  }
  *block = (gpu_csr){rows, N, e1 - e0, NULL, NULL, NULL, GPU_I32, GPU_F64};
  check(gpu_alloc(&block->row_ptr, (size_t)(rows + 1) * sizeof *row_ptr), "gpu_alloc");
  check(gpu_alloc(&block->col_idx, (size_t)(e1 - e0) * sizeof *col_idx), "gpu_alloc");
  check(gpu_alloc(&block->values, (size_t)(e1 - e0) * sizeof *values), "gpu_alloc");
  check(gpu_upload(block->row_ptr, row_ptr + first, (size_t)(rows + 1) * sizeof *row_ptr), "gpu_upload");
  check(gpu_upload(block->col_idx, col_idx + e0, (size_t)(e1 - e0) * sizeof *col_idx), "gpu_upload");
  check(gpu_upload(block->values, values + e0, (size_t)(e1 - e0) * sizeof *values), "gpu_upload");
  free(row_ptr);
  free(col_idx);
  free(values);
}

static int usage(int rank) {
  if (rank == 0) fprintf(stderr, "usage: mpiexec -n P dist_cg FILE.mtx [tolerance (1e-10) [max_iterations (10 n)]]\n");
  MPI_Finalize();
  return 2;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2 || argc > 4) return usage(rank);
  char *end = NULL;
  errno = 0;
  const double tolerance = argc > 2 ? strtod(argv[2], &end) : 1e-10;
  if (argc > 2 && (errno || end == argv[2] || *end || !(tolerance > 0) || !isfinite(tolerance))) {
    if (rank == 0) fprintf(stderr, "dist_cg: the tolerance must be a positive number, not '%s'\n", argv[2]);
    return usage(rank);
  }
  const long long limit = argc > 3 ? strtoll(argv[3], &end, 10) : 0;
  if (argc > 3 && (errno || end == argv[3] || *end || limit <= 0)) {
    if (rank == 0) fprintf(stderr, "dist_cg: max_iterations must be a positive whole number\n");
    return usage(rank);
  }
  gpu_csr A;
  check(gpu_csr_read_mm(argv[1], GPU_F64, GPU_I32, &A), "gpu_csr_read_mm");
  if (A.rows != A.cols || A.rows == 0) {
    if (rank == 0) fprintf(stderr, "dist_cg: %s is not square\n", argv[1]);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int64_t N = A.rows, first = N * rank / size, n = N * (rank + 1) / size - first;
  const int64_t max_iterations = limit > 0 ? limit : 10 * N;
  gpu_dist_comm *comm;
  check(gpu_dist_comm_create(&comm, MPI_COMM_WORLD), "gpu_dist_comm_create");
  double *x = calloc((size_t)n + 1, sizeof *x), *b = malloc(((size_t)n + 1) * sizeof *b);
  double *r = malloc(((size_t)n + 1) * sizeof *r), *z = malloc(((size_t)n + 1) * sizeof *z);
  double *p = malloc(((size_t)n + 1) * sizeof *p), *q = malloc(((size_t)n + 1) * sizeof *q);
  double *inverse_diag = malloc(((size_t)n + 1) * sizeof *inverse_diag);
  if (!x || !b || !r || !z || !p || !q || !inverse_diag) check(GPU_ERR_OUT_OF_MEMORY, "vectors");
  gpu_csr block;
  take_rows(&A, first, n, &block, inverse_diag);
  check(gpu_csr_free(&A), "gpu_csr_free");
  product P = {NULL, NULL, NULL, n};
  check(gpu_dist_spmv_plan_create(&P.plan, comm, &block), "gpu_dist_spmv_plan_create");
  check(gpu_alloc(&P.d_in, (size_t)n * sizeof(double)), "gpu_alloc");
  check(gpu_alloc(&P.d_out, (size_t)n * sizeof(double)), "gpu_alloc");
  if (rank == 0)
    printf("%s: %lld x %lld on %d ranks, %s backend, transport %s\n", argv[1], (long long)N,
           (long long)N, size, gpu_get_backend() == GPU_BACKEND_CUDA ? "CUDA" : "host",
           gpu_dist_transport_name(gpu_dist_comm_transport(comm)));
  for (int64_t i = 0; i < n; i++) {
    if (!(inverse_diag[i] > 0)) check(GPU_ERR_INVALID_ARGUMENT, "a diagonal entry is not positive");
    inverse_diag[i] = 1 / inverse_diag[i];
    q[i] = 1;
  }
  multiply(&P, q, b); /* b = A * ones */
  for (int64_t i = 0; i < n; i++) {
    r[i] = b[i];
    z[i] = inverse_diag[i] * r[i];
    p[i] = z[i];
  }
  const double b_norm = sqrt(dot(b, b, n));
  double rz = dot(r, z, n), residual = sqrt(dot(r, r, n)) / b_norm;
  int64_t iteration = 0;
  while (residual > tolerance && iteration < max_iterations) {
    multiply(&P, p, q);
    const double alpha = rz / dot(p, q, n);
    for (int64_t i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      z[i] = inverse_diag[i] * r[i];
    }
    const double rz_next = dot(r, z, n);
    for (int64_t i = 0; i < n; i++) p[i] = z[i] + rz_next / rz * p[i];
    rz = rz_next;
    residual = sqrt(dot(r, r, n)) / b_norm;
    iteration++;
  }
  double worst = 0, worst_all = 0;
  for (int64_t i = 0; i < n; i++) worst = fmax(worst, fabs(x[i] - 1));
  MPI_Allreduce(&worst, &worst_all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const gpu_dist_traffic t = gpu_dist_comm_traffic(comm);
  if (rank == 0)
    printf("%lld iterations, relative residual %.3e, max |x - 1| = %.3e; rank 0 sent %llu bytes "
           "in %llu messages\n",
           (long long)iteration, residual, worst_all, (unsigned long long)t.bytes_sent,
           (unsigned long long)t.messages_sent);
  gpu_dist_spmv_plan_destroy(P.plan);
  gpu_free(P.d_in);
  gpu_free(P.d_out);
  gpu_free(block.row_ptr);
  gpu_free(block.col_idx);
  gpu_free(block.values);
  free(x), free(b), free(r), free(z), free(p), free(q), free(inverse_diag);
  gpu_dist_comm_destroy(comm);
  MPI_Finalize();
  return residual <= tolerance ? 0 : 1;
}
