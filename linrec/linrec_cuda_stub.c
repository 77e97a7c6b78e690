/* The CUDA backend's linear recurrences until the kernels land: refused
 * with GPU_ERR_UNSUPPORTED, nothing written. */
#include "linrec_cuda.h"

gpu_status gp_linrec_cuda(const void *a, const void *b, void *h, const gp_linrec_shape *shape) {
  (void)a, (void)b, (void)h, (void)shape;
  return gp_fail(GPU_ERR_UNSUPPORTED, "linrec: not yet available on the CUDA backend");
}

gpu_status gp_linrec_backward_cuda(const void *a, const void *h, const void *dh, void *da, void *db,
                                   size_t n, gpu_dtype t, const void *h0, bool reverse) {
  (void)a, (void)h, (void)dh, (void)da, (void)db, (void)n, (void)t, (void)h0, (void)reverse;
  return gp_fail(GPU_ERR_UNSUPPORTED, "gpu_linrec_backward: not yet available on the CUDA backend");
}
