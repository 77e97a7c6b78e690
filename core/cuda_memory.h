/* core's CUDA-only helpers (built only with the CUDA backend). */
#ifndef GP_CUDA_MEMORY_H
#define GP_CUDA_MEMORY_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* INVALID_ARGUMENT unless the device can reach [p, p + bytes): memory from
 * cudaMalloc (or a pool) whose allocation holds the whole range, or managed
 * or pinned host memory. */
gpu_status gp_cuda_check_range(const char *fn, const char *name, const void *p, size_t bytes);

/* Whether p is device memory whose allocation is known; then *bytes gets
 * the bytes from p to its end (what a kernel may read from p). */
bool gp_cuda_room(const void *p, size_t *bytes);

#ifdef __cplusplus
}
#endif

#endif
