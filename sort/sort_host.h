/* The host backend's radix sort (portable C, OpenMP). */
#ifndef GP_SORT_HOST_H
#define GP_SORT_HOST_H

#include "core/core.h"

/* Arguments already validated: n > 0, keys (and values when value_bytes is 4
 * or 8; NULL with 0) valid and disjoint. Fails only with OUT_OF_MEMORY, and
 * then before touching either array. */
gpu_status gp_sort_host(void *keys, void *values, size_t n, gpu_dtype key_t, size_t value_bytes,
                        unsigned flags);

#endif
