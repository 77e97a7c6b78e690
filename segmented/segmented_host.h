/* The host backend's segmented scan and reduce (portable C, OpenMP). */
#ifndef GP_SEGMENTED_HOST_H
#define GP_SEGMENTED_HOST_H

#include "core/core.h"

/* Arguments already validated, offsets included (well formed, offsets[nseg]
 * == n); exactly one of heads and offsets is non-NULL; in == out allowed. */
gpu_status gp_segscan_host(const void *in, void *out, size_t n, const uint8_t *heads,
                           const int64_t *offsets, size_t nseg, gpu_dtype t, gpu_op op,
                           unsigned flags);
/* Arguments already validated; n == offsets[nseg]; out holds nseg elements. */
gpu_status gp_segreduce_host(const void *in, size_t n, const int64_t *offsets, size_t nseg,
                             void *out, gpu_dtype t, gpu_op op);

#endif
