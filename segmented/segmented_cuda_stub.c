/* The CUDA backend's segmented scan and reduce until the kernels land
 * (issue 5): refused with GPU_ERR_UNSUPPORTED, nothing written. */
#include "segmented_cuda.h"

gpu_status gp_segscan_cuda(const void *in, void *out, size_t n, const uint8_t *heads,
                           const int64_t *offsets, size_t nseg, gpu_dtype t, gpu_op op,
                           unsigned flags) {
  (void)in, (void)out, (void)n, (void)offsets, (void)nseg, (void)t, (void)op, (void)flags;
  return gp_fail(GPU_ERR_UNSUPPORTED, "%s: not yet available on the CUDA backend",
                 heads ? "gpu_segscan_flags" : "gpu_segscan_offsets");
}

gpu_status gp_segreduce_cuda(const void *in, const int64_t *offsets, size_t nseg, void *out,
                             gpu_dtype t, gpu_op op) {
  (void)in, (void)offsets, (void)nseg, (void)out, (void)t, (void)op;
  return gp_fail(GPU_ERR_UNSUPPORTED, "gpu_segreduce: not yet available on the CUDA backend");
}
