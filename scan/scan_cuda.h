/* The CUDA backend's scan and reduce (scan_cuda.cu), callable from C. */
#ifndef GP_SCAN_CUDA_H
#define GP_SCAN_CUDA_H

#include "core/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Arguments already validated; in == out allowed; ordered on the thread's stream. */
gpu_status gp_scan_cuda(const void *in, void *out, size_t n, gpu_dtype t, gpu_op op,
                        unsigned flags);
/* Waits for the result. */
gpu_status gp_reduce_cuda(const void *in, size_t n, gpu_dtype t, gpu_op op, void *host_result);

/* Which grid scan gp_scan_cuda runs: the single-pass look-back scan (the
 * default), or the three-kernel reduce-then-scan reference path. The variable
 * GPUPRIM_SCAN_ALGO=lookback|reference sets the process default; tests set it
 * per thread. */
typedef enum { GP_SCAN_LOOKBACK, GP_SCAN_REFERENCE } gp_scan_algo;
void gp_scan_set_algo(gp_scan_algo a);

#ifdef __cplusplus
}
#endif

#endif
