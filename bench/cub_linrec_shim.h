/*
 * What bench_linrec compares gpuprim's linear recurrences with (f32, device
 * pointers, default stream): CUB's DeviceScan with the pair operator on
 * interleaved (a, b), a plain per-channel loop kernel, and a kernel that
 * reads a and b and writes h (the bytes any recurrence must move); plus
 * gpuprim's forward pass along a forced path (bench-only: the library's
 * plan picks one by itself).
 */
#ifndef GP_BENCH_CUB_LINREC_SHIM_H
#define GP_BENCH_CUB_LINREC_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* pairs[i] = (a[i], b[i]) as float2 (not timed: the layout CUB needs). */
void linrec_interleave(const float *a, const float *b, void *pairs, size_t n);
/* cub::DeviceScan::InclusiveScan of n float2 pairs with (a1 a2, a2 b1 + b2);
 * the b of out[i] is h[i]. Temporary storage kept between calls. 0 on success. */
int linrec_cub_pair_scan(const void *pairs, void *out, size_t n);
/* h = a h + b, a thread per channel walking time, one load in flight:
 * time_major [T][C] or sequence-major [C][T]. */
void linrec_plain_loop(const float *a, const float *b, float *h, size_t len, size_t count, int time_major);
/* The backward pass of the forward above (h0 = 0) the same way: g = dh +
 * a[t + 1] g walking time backwards, db = g, da = g h[t - 1]. */
void linrec_plain_loop_backward(const float *a, const float *h, const float *dh, float *da, float *db, size_t len,
                                size_t count, int time_major);
/* The backward's bytes: reads a, h and dh, writes da and db (n a multiple of 4). */
void linrec_copy_floor_backward(const float *a, const float *h, const float *dh, float *da, float *db, size_t n);
/* h[i] = a[i] + b[i], 16-byte vectors, n a multiple of 4. */
void linrec_copy_floor(const float *a, const float *b, float *h, size_t n);
/* Largest |h[i] - b of pairs[i]| over n (waits). */
float linrec_max_difference(const float *h, const void *pairs, size_t n);
/* Largest |x[i] - y[i]| over n (waits). */
float linrec_max_difference_plain(const float *x, const float *y, size_t n);

/* gpuprim's forward pass over len x count (count 1: one sequence) along a
 * path: 0 the plan's, 1 look-back (one sequence), 2 look-back over start
 * flags (sequence-major), 3 channels (three passes), 4 one-pass tiles
 * (time-major: channel tiles; sequence-major: the sequence walk or tiles
 * the plan takes for the count); sequence-major only, whatever the count,
 * the forward sequence tiles at 5 linrec_tuning's sequence_tiles, 6 tiles
 * of 2048 steps at four blocks an SM (bench-only), and the sequence walk
 * (linrec_sequence_walk.cuh) at 7 linrec_tuning's sequence_walk (512
 * threads x 8 items), 8 its sequence_walk_long (1024 x 8), 9 at 1024 x 4
 * (bench-only); the one-pass tiles with a look-back policy forced: 10
 * time-major channel tiles 32 channels wide with the chain of states
 * (linrec_state_lookback.cuh), or sequence-major tiles of sequence_tiles'
 * shape with the Fenwick tree (bench/linrec_fenwick_lookback.cuh), 11
 * (sequence-major) of path 6's; time-major only, the channel tiles 32
 * channels wide (the library's width from 4096 steps) with the tree of
 * radix 8 (12, bench-only), the Fenwick tree (13, bench-only) and the
 * library's tree of radix 4 (14; linrec_radix_lookback.cuh); sequence-major
 * only, the walk in strands (as many as fit beside each other, at most 8;
 * the sequence tiles where only one fits) at 15 sequence_walk's shape and
 * 16 sequence_walk_long's. Returns a
 * gpu_status. */
int linrec_gpuprim_path(int path, const float *a, const float *b, float *h, size_t len, size_t count, int time_major);
/* gpuprim's backward pass of a batch (gpu_linrec_backward_batch, h0 NULL,
 * forward not reversed) along the same paths: 2 to 4 as above; time-major,
 * the channel tiles 32 wide with the tree of radix 4 (14). */
int linrec_gpuprim_backward_path(int path, const float *a, const float *h, const float *dh, float *da, float *db,
                                 size_t len, size_t count, int time_major);

#ifdef __cplusplus
}
#endif

#endif
