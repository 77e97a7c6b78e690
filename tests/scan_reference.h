/*
 * Plain sequential scan and fold for the tests, written independently of the
 * library: one element after another, floats accumulated in a wider type
 * (float in double, double in long double) so the reference is closer to
 * the exact answer than either backend. Also the magnitude bound that float
 * comparisons scale their tolerance by.
 */
#ifndef GP_TEST_SCAN_REFERENCE_H
#define GP_TEST_SCAN_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuprim.h"

/* out[i] as gpu_scan defines it. scale[i] (if not NULL) gets a bound on the
 * magnitude of what out[i] combines (sum of |x| for ADD, |out| for MUL). */
void ref_scan(const void *in, void *out, size_t n, gpu_dtype t, gpu_op op, unsigned flags, double *scale);
/* in[0] op ... op in[n-1], the identity for n == 0; *scale as above. */
void ref_reduce(const void *in, size_t n, gpu_dtype t, gpu_op op, void *result, double *scale);

/* The relative tolerance for comparing a backend's float scan with the
 * reference (0 for exact types and operators). */
double ref_tolerance(gpu_dtype t, gpu_op op, size_t n);

#endif
