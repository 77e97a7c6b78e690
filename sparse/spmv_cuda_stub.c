/*
 * The CUDA side of gpu_spmv and its plans until the kernels land (issue 6):
 * refused with GPU_ERR_UNSUPPORTED, named after the public entry point that
 * reached it. The host backend is complete.
 */
#include "spmv_cuda.h"

gpu_status gp_spmv_cuda(const gpu_csr *A, double alpha, const void *x, double beta, void *y) {
  (void)A, (void)alpha, (void)x, (void)beta, (void)y;
  return gp_fail(GPU_ERR_UNSUPPORTED, "gpu_spmv: not yet available on the CUDA backend");
}

gpu_status gp_spmv_plan_cuda_create(const gpu_csr *A, void **cuda_plan) {
  (void)A;
  *cuda_plan = NULL;
  return gp_fail(GPU_ERR_UNSUPPORTED, "gpu_spmv_plan_create: not yet available on the CUDA backend");
}

gpu_status gp_spmv_plan_cuda_run(void *cuda_plan, const gpu_csr *A, double alpha, const void *x,
                                 double beta, void *y) {
  (void)cuda_plan, (void)A, (void)alpha, (void)x, (void)beta, (void)y;
  return gp_fail(GPU_ERR_UNSUPPORTED, "gpu_spmv_plan_run: not yet available on the CUDA backend");
}

void gp_spmv_plan_cuda_destroy(void *cuda_plan) { (void)cuda_plan; }
