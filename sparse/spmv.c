/*
 * gpu_spmv and the SpMV plans: argument checks, then the backend's product.
 *
 * The checks cover A's shape and the vectors, never a pass over A's entries
 * (gpu_csr_validate does that, once, where the caller wants it). The host
 * backend still never reads outside A or x when the entries are malformed
 * (spmv_host.h says how); the CUDA side promises the same (spmv_cuda.h).
 */
#include <stdlib.h>

#include "core/core.h"
#include "csr_check.h"
#include "spmv_host.h"

#if GPUPRIM_HAVE_CUDA
#  include "spmv_cuda.h"
#endif

/*
 * A plan: the caller's gpu_csr (copied, so the struct itself may go; the
 * arrays are the caller's and must stay), the backend its arrays live on, and
 * that backend's analysis of A. Runs only read the plan, so threads may share
 * one.
 */
struct gpu_spmv_plan {
  gpu_csr A;
  gpu_backend backend;
  gp_spmv_host_partition host; /* host backend: rows cut into chunks of equal work */
  void *cuda;                  /* CUDA backend: gp_spmv_plan_cuda_create's analysis, opaque */
};

/* x: cols elements of A's value type; y: rows of them, written, so sharing no
 * byte with x or with A's arrays. */
static gpu_status check_vectors(const char *fn, const gpu_csr *A, const void *x, const void *y,
                                gpu_backend b) {
  const size_t vw = gpu_dtype_size(A->value_type), iw = gpu_dtype_size(A->index_type);
  const size_t rows = (size_t)A->rows, cols = (size_t)A->cols, nnz = (size_t)A->nnz;
  gpu_status s = gp_check_array(fn, "x", x, cols, vw, b);
  if (s == GPU_OK) s = gp_check_array(fn, "y", y, rows, vw, b);
  const size_t y_bytes = rows * vw;
  if (s == GPU_OK) s = gp_check_disjoint(fn, "y", y, y_bytes, "x", x, cols * vw);
  if (s == GPU_OK) s = gp_check_disjoint(fn, "y", y, y_bytes, "A->values", A->values, nnz * vw);
  if (s == GPU_OK) s = gp_check_disjoint(fn, "y", y, y_bytes, "A->col_idx", A->col_idx, nnz * iw);
  if (s == GPU_OK)
    s = gp_check_disjoint(fn, "y", y, y_bytes, "A->row_ptr", A->row_ptr, (rows + 1) * iw);
  return s;
}

/* BLAS's quick return: no rows, or y = 0 * A * x + 1 * y, which leaves y as it is. */
static bool nothing_to_do(const gpu_csr *A, double alpha, double beta) {
  return A->rows == 0 || (alpha == 0 && beta == 1);
}

gpu_status gpu_spmv(const gpu_csr *A, const void *x, void *y, double alpha, double beta) {
  static const char fn[] = "gpu_spmv";
  if (!A) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: A is NULL", fn);
  gpu_backend b;
  gpu_status s = gp_backend(fn, &b);
  if (s == GPU_OK) s = gp_csr_check_shape(fn, A, b);
  if (s == GPU_OK) s = check_vectors(fn, A, x, y, b);
  if (s != GPU_OK || nothing_to_do(A, alpha, beta)) return s;
#if GPUPRIM_HAVE_CUDA
  if (b == GPU_BACKEND_CUDA) return gp_spmv_cuda(A, alpha, x, beta, y);
#endif
  return gp_spmv_host(fn, A, NULL, alpha, x, beta, y);
}

gpu_status gpu_spmv_plan_create(gpu_spmv_plan **plan, const gpu_csr *A) {
  static const char fn[] = "gpu_spmv_plan_create";
  if (!plan) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: plan is NULL", fn);
  *plan = NULL;
  if (!A) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: A is NULL", fn);
  gpu_backend b;
  gpu_status s = gp_backend(fn, &b);
  if (s == GPU_OK) s = gp_csr_check_shape(fn, A, b);
  if (s != GPU_OK) return s;
  gpu_spmv_plan *p = calloc(1, sizeof *p);
  if (!p) return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %zu bytes for the plan", fn, sizeof *p);
  p->A = *A;
  p->backend = b;
#if GPUPRIM_HAVE_CUDA
  if (b == GPU_BACKEND_CUDA) s = gp_spmv_plan_cuda_create(&p->A, &p->cuda);
#endif
  if (b == GPU_BACKEND_HOST) s = gp_spmv_host_partition_make(fn, &p->A, &p->host);
  if (s != GPU_OK) {
    gpu_spmv_plan_destroy(p);
    return s;
  }
  *plan = p;
  return GPU_OK;
}

gpu_status gpu_spmv_plan_run(gpu_spmv_plan *plan, const void *x, void *y, double alpha,
                             double beta) {
  static const char fn[] = "gpu_spmv_plan_run";
  if (!plan) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: plan is NULL", fn);
  gpu_backend b;
  gpu_status s = gp_backend(fn, &b);
  if (s == GPU_OK && b != plan->backend)
    s = gp_fail(GPU_ERR_INVALID_ARGUMENT,
                "%s: the plan was made on the %s backend and this thread's backend is %s: "
                "A's arrays are not in its memory",
                fn, plan->backend == GPU_BACKEND_CUDA ? "CUDA" : "host",
                b == GPU_BACKEND_CUDA ? "CUDA" : "host");
  if (s == GPU_OK) s = check_vectors(fn, &plan->A, x, y, b);
  if (s != GPU_OK || nothing_to_do(&plan->A, alpha, beta)) return s;
#if GPUPRIM_HAVE_CUDA
  if (b == GPU_BACKEND_CUDA) return gp_spmv_plan_cuda_run(plan->cuda, &plan->A, alpha, x, beta, y);
#endif
  return gp_spmv_host(fn, &plan->A, &plan->host, alpha, x, beta, y);
}

void gpu_spmv_plan_destroy(gpu_spmv_plan *plan) {
  if (!plan) return;
#if GPUPRIM_HAVE_CUDA
  gp_spmv_plan_cuda_destroy(plan->cuda);
#endif
  gp_spmv_host_partition_free(&plan->host);
  free(plan);
}
