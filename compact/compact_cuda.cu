/* gp_compact_cuda: dispatch on the element type (compact_cuda_<type>.cu). */
#include "compact_launch.cuh"

extern "C" {
#define GP_DECLARE(SUFFIX) \
  int64_t gp_compact_cuda_##SUFFIX(const void *in, size_t n, const gpu_pred *pred, void *out, bool partition);
GP_DECLARE(i32) GP_DECLARE(u32) GP_DECLARE(i64) GP_DECLARE(u64) GP_DECLARE(f32) GP_DECLARE(f64)
#undef GP_DECLARE

int64_t gp_compact_cuda(const void *in, size_t n, const gpu_pred *pred, void *out, bool partition) {
  const gpu_dtype t = gpu_dtype(pred->private_.type);
  if (pred->private_.kind == GP_PRED_FLAGS)
    return gpu_dtype_size(t) == 4 ? gp::compact_flags<uint32_t>(in, n, pred, out, partition)
                                  : gp::compact_flags<uint64_t>(in, n, pred, out, partition);
  switch (t) {
    case GPU_I32: return gp_compact_cuda_i32(in, n, pred, out, partition);
    case GPU_U32: return gp_compact_cuda_u32(in, n, pred, out, partition);
    case GPU_I64: return gp_compact_cuda_i64(in, n, pred, out, partition);
    case GPU_U64: return gp_compact_cuda_u64(in, n, pred, out, partition);
    case GPU_F32: return gp_compact_cuda_f32(in, n, pred, out, partition);
    case GPU_F64: return gp_compact_cuda_f64(in, n, pred, out, partition);
  }
  return gp_neg(gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown element type %d",
                        gp::compact_fn(partition), int(t)));
}
}
