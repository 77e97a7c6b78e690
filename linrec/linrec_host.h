/* The host backend's linear recurrences (portable C, OpenMP). */
#ifndef GP_LINREC_HOST_H
#define GP_LINREC_HOST_H

#include "core/core.h"
#include "linrec_internal.h"

/* Arguments already validated (offsets included); h == b allowed. */
gpu_status gp_linrec_host(const void *a, const void *b, void *h, const gp_linrec_shape *shape);
/* Arguments already validated; n > 0; db == dh allowed. The shape is one
 * sequence (h0 a host pointer to one element, or NULL) or a batch (h0 NULL
 * or count elements in host memory), as the forward pass's. */
gpu_status gp_linrec_backward_host(const void *a, const void *h, const void *dh, void *da, void *db,
                                   const gp_linrec_shape *shape);

#endif
