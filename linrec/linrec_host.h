/* The host backend's linear recurrences (portable C, OpenMP). */
#ifndef GP_LINREC_HOST_H
#define GP_LINREC_HOST_H

#include "core/core.h"
#include "linrec_internal.h"

/* Arguments already validated (offsets included); h == b allowed. */
gpu_status gp_linrec_host(const void *a, const void *b, void *h, const gp_linrec_shape *shape);
/* Arguments already validated; n > 0; db == dh allowed; h0 a host pointer
 * to one element or NULL. */
gpu_status gp_linrec_backward_host(const void *a, const void *h, const void *dh, void *da, void *db,
                                   size_t n, gpu_dtype t, const void *h0, bool reverse);

#endif
