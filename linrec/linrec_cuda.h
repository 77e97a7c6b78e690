/*
 * The CUDA backend's linear recurrences, callable from C. linrec.c has
 * checked everything, the offsets' values included (read back), before
 * these are called; n > 0.
 */
#ifndef GP_LINREC_CUDA_H
#define GP_LINREC_CUDA_H

#include "core/core.h"
#include "linrec_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* h == b allowed. Ordered on the thread's stream; bitwise identical run to run. */
gpu_status gp_linrec_cuda(const void *a, const void *b, void *h, const gp_linrec_shape *shape);
/* db == dh allowed. One sequence (h0 a host pointer to one element, or
 * NULL) or a batch (h0 NULL or count elements in device memory). */
gpu_status gp_linrec_backward_cuda(const void *a, const void *h, const void *dh, void *da, void *db,
                                   const gp_linrec_shape *shape);

#ifdef __cplusplus
}
#endif

#endif
