/*
 * The thin C shim between the benchmarks (C++, Google Benchmark) and what they
 * compare gpuprim with: CUB's device-wide calls, plus device-side helpers
 * (random fill, event timing). Everything works on device pointers and the
 * default stream.
 */
#ifndef GP_BENCH_CUB_SHIM_H
#define GP_BENCH_CUB_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "gpuprim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills n elements of type t with random values (seeded): integers in
 * [0, 1000), floats in [-1, 1). */
void bench_fill_random(void *p, size_t n, gpu_dtype t, uint64_t seed);

/* cub::DeviceScan for (t, op) ADD or MAX, inclusive or exclusive. The first
 * call for a size sizes CUB's temporary storage (kept between calls, as a
 * user of CUB would). Returns 0 on success. */
int cub_scan(const void *in, void *out, size_t n, gpu_dtype t, gpu_op op, int exclusive);

/* Times k contenders side by side: after `warmup` runs of each, `reps`
 * rounds in which each contender runs once between two CUDA events (round
 * robin, so drift in clocks or temperature hits all alike); median_us[i]
 * gets contender i's median in microseconds. */
typedef void (*bench_fn)(void *arg);
void bench_medians_us(int k, const bench_fn *fns, void *const *args, int warmup, int reps, double *median_us);

/* Device memory the benchmarks reuse: grows, never shrinks. */
void *bench_buffer(int slot, size_t bytes);
void bench_copy(void *dst, const void *src, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
