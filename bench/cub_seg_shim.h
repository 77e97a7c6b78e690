/*
 * What bench_segmented compares gpuprim's segmented scan and reduce with:
 * cub::DeviceScan::{Inclusive,Exclusive}SumByKey and
 * cub::DeviceSegmentedReduce::Sum as C functions, plus the benchmark's own
 * device helpers (random segmentations in the forms each side reads, a
 * comparison with a tolerance for float sums). Device pointers, default
 * stream; the general helpers (fill, copy, poison, timing) are cub_shim.h's.
 */
#ifndef GP_BENCH_CUB_SEG_SHIM_H
#define GP_BENCH_CUB_SEG_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "gpuprim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* heads[i] = 1 where element i starts a segment, else 0: element 0 always,
 * any other with probability 1 / mean_len (a hash of seed and i), so segment
 * lengths are geometric with mean about mean_len and none is empty. */
void seg_bench_make_heads(uint8_t *heads, size_t n, size_t mean_len, uint64_t seed);
/* keys[i] = the number of segments that start in [0, i] (CUB's by-key scans
 * restart where the key changes); key_bytes 4 (int32, n < 2^31) or 8 (int64).
 * Returns nseg. Waits. */
size_t seg_bench_make_keys(const uint8_t *heads, void *keys, size_t key_bytes, size_t n);
/* offsets[0..nseg] from heads and keys: offsets[keys[i] - 1] = i where
 * heads[i], offsets[nseg] = n. */
void seg_bench_make_offsets(const uint8_t *heads, const void *keys, size_t key_bytes, size_t n, size_t nseg,
                            int64_t *offsets);

/* cub::DeviceScan::InclusiveSumByKey / ExclusiveSumByKey of in by keys into
 * out, for t = GPU_I32, GPU_F32 or GPU_F64. The temporary storage is sized on
 * first use and kept, as a user of CUB would. Returns 0 on success, 1 for a
 * type the shim does not instantiate. */
int cub_sum_by_key(const void *keys, size_t key_bytes, const void *in, void *out, size_t n, gpu_dtype t,
                   int exclusive);
/* cub::DeviceSegmentedReduce::Sum over offsets (begin = offsets, end =
 * offsets + 1), nseg results into out; types as above. */
int cub_segmented_sum(const void *in, void *out, const int64_t *offsets, size_t nseg, gpu_dtype t);

/* The first i where a[i] and b[i] differ (integers: at all; floats: by more
 * than abs_tol + rel_tol * |b[i]|, or one is NaN and not the other), or -1.
 * Waits. */
int64_t seg_bench_first_mismatch(const void *a, const void *b, size_t n, gpu_dtype t, double abs_tol,
                                 double rel_tol);

#ifdef __cplusplus
}
#endif

#endif
