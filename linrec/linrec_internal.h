/*
 * What linrec.c hands a backend once every argument is checked: the shape
 * of the sequences (one, a batch in either layout, or offsets), the initial
 * states and the direction.
 */
#ifndef GP_LINREC_INTERNAL_H
#define GP_LINREC_INTERNAL_H

#include "core/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  GP_LINREC_SINGLE,     /* one sequence of n steps */
  GP_LINREC_SEQ_MAJOR,  /* count sequences of len steps, sequence s at s*len */
  GP_LINREC_TIME_MAJOR, /* count sequences of len steps, step t of s at t*count + s */
  GP_LINREC_OFFSETS     /* count sequences [offsets[s], offsets[s+1]) */
} gp_linrec_layout;

typedef struct {
  gp_linrec_layout layout;
  gpu_dtype t;            /* GPU_F32 or GPU_F64 */
  size_t n;               /* elements in all (> 0) */
  size_t len, count;      /* SINGLE: n, 1; batch: as given; OFFSETS: 0, nseg */
  const int64_t *offsets; /* OFFSETS: nseg + 1 entries, well formed, backend memory */
  /* NULL: every initial state is 0. SINGLE: a host pointer to one element;
   * otherwise count elements in the backend's memory. */
  const void *h0;
  bool reverse;
} gp_linrec_shape;

#ifdef __cplusplus
}
#endif

#endif
