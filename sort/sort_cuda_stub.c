/* Stands in for the CUDA radix sort until its kernels land. */
#include "sort_cuda.h"

gpu_status gp_sort_cuda(void *keys, void *values, size_t n, gpu_dtype key_t, size_t value_bytes,
                        unsigned flags) {
  (void)keys, (void)n, (void)key_t, (void)value_bytes, (void)flags;
  return gp_fail(GPU_ERR_UNSUPPORTED, "%s: not yet available on the CUDA backend",
                 values ? "gpu_sort_pairs" : "gpu_sort_keys");
}
