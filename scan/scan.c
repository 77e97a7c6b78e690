/* gpu_scan and gpu_reduce: argument checks, then the backend's implementation. */
#include "core/core.h"
#include "scan_host.h"

#if GPUPRIM_HAVE_CUDA
#  include "scan_cuda.h"
#endif

gpu_status gpu_scan(const void *in, void *out, size_t n, gpu_dtype t, gpu_op op, unsigned flags) {
  static const char fn[] = "gpu_scan";
  gpu_status s = gp_check_dtype_op(fn, t, op);
  if (s == GPU_OK) s = gp_check_flags(fn, flags, GPU_EXCLUSIVE | GPU_REVERSE);
  gpu_backend b = GPU_BACKEND_HOST;
  if (s == GPU_OK) s = gp_backend(fn, &b);
  size_t w = gpu_dtype_size(t);
  if (s == GPU_OK) s = gp_check_array(fn, "in", in, n, w, b);
  if (s == GPU_OK) s = gp_check_array(fn, "out", out, n, w, b);
  if (s == GPU_OK) s = gp_check_same_or_disjoint(fn, "in", in, "out", out, n * w);
  if (s != GPU_OK || n == 0) return s;
#if GPUPRIM_HAVE_CUDA
  if (b == GPU_BACKEND_CUDA) return gp_scan_cuda(in, out, n, t, op, flags);
#endif
  return gp_scan_host(in, out, n, t, op, flags);
}

gpu_status gpu_reduce(const void *in, size_t n, gpu_dtype t, gpu_op op, void *host_result) {
  static const char fn[] = "gpu_reduce";
  gpu_status s = gp_check_dtype_op(fn, t, op);
  if (s == GPU_OK && !host_result)
    s = gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: host_result is NULL", fn);
  gpu_backend b = GPU_BACKEND_HOST;
  if (s == GPU_OK) s = gp_backend(fn, &b);
  if (s == GPU_OK) s = gp_check_array(fn, "in", in, n, gpu_dtype_size(t), b);
  if (s != GPU_OK) return s;
  if (n == 0) {
    gp_identity(t, op, host_result);
    return GPU_OK;
  }
#if GPUPRIM_HAVE_CUDA
  if (b == GPU_BACKEND_CUDA) return gp_reduce_cuda(in, n, t, op, host_result);
#endif
  gp_reduce_host(in, n, t, op, host_result);
  return GPU_OK;
}
