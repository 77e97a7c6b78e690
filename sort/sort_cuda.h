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

/* Choices the kernels' host side takes from the calling thread's settings. */
typedef struct {
  size_t single_block_max; /* n up to this sorts in one block (capped by its tile) */
  uint32_t portion_tiles;  /* tiles per onesweep launch; 0: as many as 30-bit counts allow */
} gp_sort_cuda_config;

/* Test hooks, for the calling thread: make small n take the multi-pass path
 * (single_block_max 0) and cut n into portions of a few tiles, so that
 * tests reach those paths at small sizes. SIZE_MAX / 0 restore the defaults. */
void gp_sort_cuda_set_single_block_max(size_t n);
void gp_sort_cuda_set_portion_tiles(uint32_t tiles);
/* Keys per onesweep tile, and the largest n the single block sorts, for
 * tests that aim at tile boundaries. */
size_t gp_sort_cuda_tile_items(gpu_dtype key_t, size_t value_bytes);
size_t gp_sort_cuda_single_block_items(void);

#ifdef __cplusplus
}
#endif

#endif
