/* The host backend's scan and reduce (portable C, OpenMP). */
#ifndef GP_SCAN_HOST_H
#define GP_SCAN_HOST_H

#include "core/core.h"

/* Arguments already validated; in == out allowed. */
gpu_status gp_scan_host(const void *in, void *out, size_t n, gpu_dtype t, gpu_op op,
                        unsigned flags);
void gp_reduce_host(const void *in, size_t n, gpu_dtype t, gpu_op op, void *result);

#endif
