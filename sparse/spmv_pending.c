/*
 * gpu_spmv and its plans until issue 6 lands them: each refuses with
 * GPU_ERR_UNSUPPORTED and says so, so that programs written against API.md
 * link and fail clearly instead of not linking.
 */
#include "core/core.h"

gpu_status gpu_spmv(const gpu_csr *A, const void *x, void *y, double alpha, double beta) {
  (void)A, (void)x, (void)y, (void)alpha, (void)beta;
  return gp_fail(GPU_ERR_UNSUPPORTED, "gpu_spmv: not in this version of gpuprim yet");
}
gpu_status gpu_spmv_plan_create(gpu_spmv_plan **plan, const gpu_csr *A) {
  (void)A;
  if (plan) *plan = NULL;
  return gp_fail(GPU_ERR_UNSUPPORTED, "gpu_spmv_plan_create: not in this version of gpuprim yet");
}
gpu_status gpu_spmv_plan_run(gpu_spmv_plan *plan, const void *x, void *y, double alpha, double beta) {
  (void)plan, (void)x, (void)y, (void)alpha, (void)beta;
  return gp_fail(GPU_ERR_UNSUPPORTED, "gpu_spmv_plan_run: not in this version of gpuprim yet");
}
void gpu_spmv_plan_destroy(gpu_spmv_plan *plan) { (void)plan; }
