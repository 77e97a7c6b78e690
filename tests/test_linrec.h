/* What test_linrec.c shares with test_linrec_args.c and test_linrec_cuda.c. */
#ifndef GP_TEST_LINREC_H
#define GP_TEST_LINREC_H

#include <check.h>
#include <stdbool.h>

#include "gpuprim.h"

typedef enum { LR_SINGLE, LR_BATCH, LR_OFFSETS } lr_form;

/* One call: gpu_linrec (len steps), gpu_linrec_batch (len x count) or
 * gpu_linrec_offsets (nseg segments, host copy of the offsets). */
typedef struct {
  lr_form form;
  gpu_dtype t;
  size_t len, count;
  const int64_t *offsets;
  size_t nseg;
  unsigned flags;
  bool with_h0;
  bool in_place;
} lr_case;

size_t lr_case_n(const lr_case *c);
/* The call on backend memory (h0_host for LR_SINGLE, h0_dev otherwise). */
gpu_status lr_call(const lr_case *c, const void *a, const void *b, void *h, const void *h0_host,
                   const void *h0_dev, const int64_t *offsets_dev);
/* Uploads host a, b (and h0: one value for LR_SINGLE, else one a sequence),
 * runs the case into poisoned memory and returns the result in a new host
 * array (free it). */
void *lr_run(const lr_case *c, const void *ha, const void *hb, const void *hh0);
/* The long-double reference and bound of every element of the case. */
void lr_case_reference(const lr_case *c, const void *a, const void *b, const void *h0,
                       long double *ref, long double *bound);

/* test_linrec_args.c: argument checks and the backward pass; with TU_CUDA,
 * test_linrec_cuda.c's cases too. */
void linrec_add_more_cases(Suite *s);
#if defined(TU_CUDA) && TU_CUDA
void linrec_add_cuda_cases(Suite *s);
#endif

#endif
