/*
 * For the segmented suites: random segmentations of the kinds that stress an
 * implementation differently, and a plain sequential reference built on
 * scan_reference.c (one ref_scan or ref_reduce per segment).
 */
#ifndef GP_TEST_SEGMENTED_REFERENCE_H
#define GP_TEST_SEGMENTED_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "gpuprim.h"

typedef enum {
  SEG_TINY,   /* lengths 0..4: many tiny segments, a fifth of them empty */
  SEG_HUGE,   /* 1 to 4 segments at random cuts (some may be empty) */
  SEG_MIXED,  /* empties, short, medium and a few long; empties at both ends too */
  SEG_SINGLE, /* one segment of all n */
  SEG_UNIT,   /* n segments of one element */
  SEG_BURSTS, /* stretches of thousands of elements in segments of 0-2, between stretches of segments of 16-48 */
  SEG_SKEWED, /* n / 64 segments of 0-64 elements around one that holds the rest (about half): a short mean, one giant */
  SEG_KINDS,
  SEG_MEAN    /* not in the loops over kinds: seg_make_mean's lengths */
} seg_kind;
const char *seg_kind_name(seg_kind k);

/* A segmentation of n elements in both forms, on the host: nseg + 1 offsets,
 * and n head bytes (random nonzero values at segment starts; heads[0] random,
 * zero or not, as it is ignored). */
typedef struct {
  size_t n, nseg;
  int64_t *offsets;
  uint8_t *heads;
} segmentation;
segmentation seg_make(seg_kind kind, size_t n);
/* Lengths uniform in [0, 2 mean], and every long_every-th (0: none) a long
 * one of 1..25000 elements (kind SEG_MEAN). */
segmentation seg_make_mean(size_t n, size_t mean, size_t long_every);
void seg_free(segmentation *s);

/* out as gpu_segscan_offsets defines it; scale[i] (if not NULL) as ref_scan's,
 * a bound on the magnitude of what out[i] combines. */
void ref_segscan(const void *in, void *out, const segmentation *seg, gpu_dtype t, gpu_op op, unsigned flags,
                 double *scale);
/* out[s] as gpu_segreduce defines it; scale[s] likewise (if not NULL). */
void ref_segreduce(const void *in, const segmentation *seg, gpu_dtype t, gpu_op op, void *out, double *scale);

#endif
