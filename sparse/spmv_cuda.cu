/* The CUDA backend of gpu_spmv and its plans (spmv_cuda.h): dispatch on the
 * value type (spmv_cuda_<type>.cu). A plan keeps its matrix's tile_first[]
 * table, its row_ptr checked once, so each product is one kernel launch with
 * no wait. Neither kind of call waits for its check of A: a column outside
 * [0, cols) adds 0 and, like a bad row_ptr in a direct call, is reported by
 * gpu_synchronize (a deferred error). */
#include <cstdlib>

#include <cuda_runtime.h>

#include "spmv_cuda.h"

extern "C" {
gpu_status gp_spmv_cuda_f32(const gpu_csr *A, double alpha, const void *x, double beta, void *y,
                            const uint64_t *plan_tile_first);
gpu_status gp_spmv_cuda_f64(const gpu_csr *A, double alpha, const void *x, double beta, void *y,
                            const uint64_t *plan_tile_first);
gpu_status gp_spmv_plan_table_f32(const gpu_csr *A, uint64_t **tile_first, bool *malformed);
gpu_status gp_spmv_plan_table_f64(const gpu_csr *A, uint64_t **tile_first, bool *malformed);

/* A plan's CUDA side: the table (NULL when A has no nonzeros). */
typedef struct {
  uint64_t *tile_first;
  bool malformed; /* row_ptr found malformed when the plan was made: runs refuse */
} spmv_cuda_plan;

static gpu_status product(const gpu_csr *A, double alpha, const void *x, double beta, void *y,
                          const uint64_t *plan_tile_first) {
  return A->value_type == GPU_F32 ? gp_spmv_cuda_f32(A, alpha, x, beta, y, plan_tile_first)
                                  : gp_spmv_cuda_f64(A, alpha, x, beta, y, plan_tile_first);
}

gpu_status gp_spmv_cuda(const gpu_csr *A, double alpha, const void *x, double beta, void *y) {
  return product(A, alpha, x, beta, y, nullptr);
}

gpu_status gp_spmv_plan_cuda_create(const gpu_csr *A, void **cuda_plan) {
  *cuda_plan = nullptr;
  if (A->rows == 0 || A->nnz == 0) return GPU_OK; /* nothing to analyse: products only scale y */
  spmv_cuda_plan *p = static_cast<spmv_cuda_plan *>(calloc(1, sizeof *p));
  if (!p) return gp_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_spmv_plan_create: out of memory");
  gpu_status s = A->value_type == GPU_F32 ? gp_spmv_plan_table_f32(A, &p->tile_first, &p->malformed)
                                          : gp_spmv_plan_table_f64(A, &p->tile_first, &p->malformed);
  if (s != GPU_OK) {
    free(p);
    return s;
  }
  *cuda_plan = p;
  return GPU_OK;
}

gpu_status gp_spmv_plan_cuda_run(void *cuda_plan, const gpu_csr *A, double alpha, const void *x, double beta,
                                 void *y) {
  const spmv_cuda_plan *p = static_cast<const spmv_cuda_plan *>(cuda_plan);
  if (!p && A->nnz > 0) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "gpu_spmv_plan_run: the plan has no analysis");
  if (p && p->malformed && alpha != 0)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                   "gpu_spmv_plan_run: A is malformed: row_ptr not 0 = row_ptr[0] <= ... <= row_ptr[rows] = nnz");
  return product(A, alpha, x, beta, y, p ? p->tile_first : nullptr);
}

void gp_spmv_plan_cuda_destroy(void *cuda_plan) {
  spmv_cuda_plan *p = static_cast<spmv_cuda_plan *>(cuda_plan);
  if (!p) return;
  /* Runs may still be in flight on other threads' streams (threads may
   * share a plan): the table is freed only once the device is idle. */
  cudaDeviceSynchronize();
  cudaGetLastError();
  if (p->tile_first) gp_pool_free("gpu_spmv_plan_destroy", p->tile_first);
  free(p);
}
}
