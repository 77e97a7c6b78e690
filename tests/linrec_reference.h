/*
 * The linear recurrences' reference: the sequential loop in long double,
 * and the error bound docs/linrec.md states, checked element by element.
 */
#ifndef GP_TEST_LINREC_REFERENCE_H
#define GP_TEST_LINREC_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuprim.h"

/* One sequence in scan order: step i at physical index base + i * step. */
typedef struct {
  size_t base;
  ptrdiff_t step;
  size_t len;
} lr_seq;

/* Sequence s of a batch or of offsets (offsets NULL: a batch of len steps
 * and count sequences; time_major for GPU_TIME_MAJOR), in scan order. */
lr_seq lr_seq_of(size_t s, size_t len, size_t count, const int64_t *offsets, bool time_major,
                 bool reverse);

/*
 * h = a * h + b along v from h0 (long double), into ref[] at the physical
 * indices; bound[] gets the error bound at each: 4 eps W + 8 (i + 2) tiny,
 * W = sum over terms of (steps they pass + 1) * |term| (h0 a term too),
 * eps and tiny of type t (unit roundoff, smallest subnormal).
 */
void lr_reference(const void *a, const void *b, gpu_dtype t, lr_seq v, long double h0,
                  long double *ref, long double *bound);

/* got[p] against ref[p] within bound[p] at the n physical indices: NaN where
 * the reference is NaN, the same infinity where it is infinite. Fails the
 * test naming the first bad index and `what`. */
void lr_check(const void *got, gpu_dtype t, const long double *ref, const long double *bound,
              size_t n, const char *what);

/* Random floats of type t in [lo, hi). */
void lr_fill_uniform(void *p, size_t n, gpu_dtype t, double lo, double hi);

#endif
