/* The CUDA backend's scan and reduce: pick the grid scan, dispatch on the type. */
#include <cstdlib>
#include <cstring>

#include "scan_cuda.h"

#define GP_DECLARE_SCAN_CUDA_TYPE(SUFFIX)                                                                   \
  extern "C" gpu_status gp_scan_cuda_##SUFFIX(const void *in, void *out, size_t n, gpu_op op, unsigned flags, \
                                              gp_scan_algo algo);                                           \
  extern "C" gpu_status gp_reduce_cuda_##SUFFIX(const void *in, size_t n, gpu_op op, void *host_result);
GP_DECLARE_SCAN_CUDA_TYPE(i32)
GP_DECLARE_SCAN_CUDA_TYPE(u32)
GP_DECLARE_SCAN_CUDA_TYPE(i64)
GP_DECLARE_SCAN_CUDA_TYPE(u64)
GP_DECLARE_SCAN_CUDA_TYPE(f32)
GP_DECLARE_SCAN_CUDA_TYPE(f64)

/* -1: not chosen on this thread, use GPUPRIM_SCAN_ALGO. */
static thread_local int thread_algo = -1;

extern "C" void gp_scan_set_algo(gp_scan_algo a) { thread_algo = int(a); }

static gp_scan_algo current_algo() {
  if (thread_algo >= 0) return gp_scan_algo(thread_algo);
  static const gp_scan_algo from_env = [] {
    const char *v = std::getenv("GPUPRIM_SCAN_ALGO");
    return v && !std::strcmp(v, "reference") ? GP_SCAN_REFERENCE : GP_SCAN_LOOKBACK;
  }();
  return from_env;
}

extern "C" gpu_status gp_scan_cuda(const void *in, void *out, size_t n, gpu_dtype t, gpu_op op, unsigned flags) {
  const gp_scan_algo algo = current_algo();
  switch (t) {
    case GPU_I32: return gp_scan_cuda_i32(in, out, n, op, flags, algo);
    case GPU_U32: return gp_scan_cuda_u32(in, out, n, op, flags, algo);
    case GPU_I64: return gp_scan_cuda_i64(in, out, n, op, flags, algo);
    case GPU_U64: return gp_scan_cuda_u64(in, out, n, op, flags, algo);
    case GPU_F32: return gp_scan_cuda_f32(in, out, n, op, flags, algo);
    case GPU_F64: return gp_scan_cuda_f64(in, out, n, op, flags, algo);
  }
  return gp_fail(GPU_ERR_INVALID_ARGUMENT, "gpu_scan: unknown gpu_dtype %d", int(t));
}

extern "C" gpu_status gp_reduce_cuda(const void *in, size_t n, gpu_dtype t, gpu_op op, void *host_result) {
  switch (t) {
    case GPU_I32: return gp_reduce_cuda_i32(in, n, op, host_result);
    case GPU_U32: return gp_reduce_cuda_u32(in, n, op, host_result);
    case GPU_I64: return gp_reduce_cuda_i64(in, n, op, host_result);
    case GPU_U64: return gp_reduce_cuda_u64(in, n, op, host_result);
    case GPU_F32: return gp_reduce_cuda_f32(in, n, op, host_result);
    case GPU_F64: return gp_reduce_cuda_f64(in, n, op, host_result);
  }
  return gp_fail(GPU_ERR_INVALID_ARGUMENT, "gpu_reduce: unknown gpu_dtype %d", int(t));
}
