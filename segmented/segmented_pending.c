/*
 * Segmented scan and reduce until issue 5 lands them: each refuses with
 * GPU_ERR_UNSUPPORTED and says so, so that programs written against API.md
 * link and fail clearly instead of not linking.
 */
#include "core/core.h"

gpu_status gpu_segscan_flags(const void *in, void *out, size_t n, const uint8_t *heads, gpu_dtype t, gpu_op op,
                             unsigned flags) {
  (void)in, (void)out, (void)n, (void)heads, (void)t, (void)op, (void)flags;
  return gp_fail(GPU_ERR_UNSUPPORTED, "gpu_segscan_flags: not in this version of gpuprim yet");
}
gpu_status gpu_segscan_offsets(const void *in, void *out, size_t n, const int64_t *offsets, size_t nseg, gpu_dtype t,
                               gpu_op op, unsigned flags) {
  (void)in, (void)out, (void)n, (void)offsets, (void)nseg, (void)t, (void)op, (void)flags;
  return gp_fail(GPU_ERR_UNSUPPORTED, "gpu_segscan_offsets: not in this version of gpuprim yet");
}
gpu_status gpu_segreduce(const void *in, const int64_t *offsets, size_t nseg, void *out, gpu_dtype t, gpu_op op) {
  (void)in, (void)offsets, (void)nseg, (void)out, (void)t, (void)op;
  return gp_fail(GPU_ERR_UNSUPPORTED, "gpu_segreduce: not in this version of gpuprim yet");
}
