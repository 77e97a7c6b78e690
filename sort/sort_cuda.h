/* The CUDA backend's radix sort, callable from C. */
#ifndef GP_SORT_CUDA_H
#define GP_SORT_CUDA_H

#include "core/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* keys/values in device memory, validated; value_bytes 0 (keys only), 4 or 8;
 * flags GPU_ASCENDING/GPU_DESCENDING. n > 0; keys and values disjoint.
 * Stable, in place from the caller's view, key order as in sort_keys.h;
 * ordered on the thread's stream. */
gpu_status gp_sort_cuda(void *keys, void *values, size_t n, gpu_dtype key_t, size_t value_bytes,
                        unsigned flags);

#ifdef __cplusplus
}
#endif

#endif
