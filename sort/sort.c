/* gpu_sort_keys and gpu_sort_pairs: argument checks, then the backend's radix sort. */
#include "core/core.h"
#include "sort_host.h"

#if GPUPRIM_HAVE_CUDA
#  include "sort_cuda.h"
#endif

/* The checks both entry points share; *b receives the backend. */
static gpu_status check_keys(const char *fn, const void *keys, size_t n, gpu_dtype t,
                             unsigned flags, gpu_backend *b) {
  if (!gp_dtype_valid(t))
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown key type (gpu_dtype %d)", fn, (int)t);
  gpu_status s = gp_check_flags(fn, flags, GPU_DESCENDING);
  if (s == GPU_OK) s = gp_backend(fn, b);
  if (s == GPU_OK) s = gp_check_array(fn, "keys", keys, n, gpu_dtype_size(t), *b);
  return s;
}

static gpu_status sort(gpu_backend b, void *keys, void *values, size_t n, gpu_dtype t,
                       size_t value_bytes, unsigned flags) {
#if GPUPRIM_HAVE_CUDA
  if (b == GPU_BACKEND_CUDA) return gp_sort_cuda(keys, values, n, t, value_bytes, flags);
#else
  (void)b;
#endif
  return gp_sort_host(keys, values, n, t, value_bytes, flags);
}

gpu_status gpu_sort_keys(void *keys, size_t n, gpu_dtype t, unsigned flags) {
  static const char fn[] = "gpu_sort_keys";
  gpu_backend b = GPU_BACKEND_HOST;
  gpu_status s = check_keys(fn, keys, n, t, flags, &b);
  if (s != GPU_OK || n == 0) return s;
  return sort(b, keys, NULL, n, t, 0, flags);
}

gpu_status gpu_sort_pairs(void *keys, void *values, size_t n, gpu_dtype key_t, size_t value_bytes,
                          unsigned flags) {
  static const char fn[] = "gpu_sort_pairs";
  if (value_bytes != 4 && value_bytes != 8)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: value_bytes is %zu, not 4 or 8", fn,
                   value_bytes);
  gpu_backend b = GPU_BACKEND_HOST;
  gpu_status s = check_keys(fn, keys, n, key_t, flags, &b);
  if (s == GPU_OK) s = gp_check_array(fn, "values", values, n, value_bytes, b);
  if (s != GPU_OK || n == 0) return s;
  s = gp_check_disjoint(fn, "keys", keys, n * gpu_dtype_size(key_t), "values", values, n * value_bytes);
  if (s != GPU_OK) return s;
  return sort(b, keys, values, n, key_t, value_bytes, flags);
}
