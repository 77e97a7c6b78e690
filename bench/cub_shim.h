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
/* The same with an untimed step before each run of contender i,
 * prepare[i](args[i]) (e.g. restore an input that the run sorts in place);
 * prepare may be NULL. */
void bench_medians_prepared_us(int k, const bench_fn *prepare, const bench_fn *run, void *const *args, int warmup,
                               int reps, double *median_us);
/* Leaves L2 holding none of the benchmark's data and no dirty lines (reads
 * a buffer of three times its size), then waits: a step before each timed
 * run (bench_medians_prepared_us), so that no contender pays for writing
 * back what the one before it wrote, nor finds its input cached by it. */
void bench_settle_l2(void);
/* Queues a kernel that keeps one SM busy for `us` microseconds and returns
 * at once: a call timed after it (its start event queued behind it) has
 * its host-side work done while the GPU is busy, so its event time is the
 * GPU's alone, as in a loop where the host runs ahead. */
void bench_gpu_busy_us(double us);
/* A solver's loop: `count` calls of fn back to back (no wait between them),
 * timed with events around the loop: *gpu_us = the time per call; *host_us =
 * the calling thread's wall time per call to issue them (launch overhead and
 * argument checks; the GPU's queue absorbs it while the GPU is the slower). */
void bench_loop_us(bench_fn fn, void *arg, int count, double *gpu_us, double *host_us);

/* Stream compaction. Each call waits for its kept count and returns it (the
 * count travels to the host, as gpu_compact's does, so both sides deliver the
 * same thing); CUB's temporary storage is kept between calls, as above. n must
 * be below 2^31 (the benchmarks go to 2^30).
 *   cub_select_if_lt     cub::DeviceSelect::If, predicate x < *threshold
 *                        (threshold: host pointer to one element of type t)
 *   cub_select_flagged   cub::DeviceSelect::Flagged, flags[i] != 0 (device)
 *   cub_partition_if_lt  cub::DevicePartition::If, x < *threshold: the kept
 *                        ones first in order, then the rejected ones in
 *                        REVERSE order; with reverse_rejected != 0 a second
 *                        kernel reverses that part in place, which gives
 *                        gpu_partition's order (both sides in order). */
int64_t cub_select_if_lt(const void *in, void *out, size_t n, gpu_dtype t, const void *threshold);
int64_t cub_select_flagged(const void *in, const uint8_t *flags, void *out, size_t n, gpu_dtype t);
int64_t cub_partition_if_lt(const void *in, void *out, size_t n, gpu_dtype t, const void *threshold,
                            int reverse_rejected);

/* flags[i] = 0, or with probability keep_per_mille / 1000 a random nonzero
 * byte (1..255, so "!= 0" is what is tested, not "== 1"). Seeded. */
void bench_fill_flags(uint8_t *flags, size_t n, int keep_per_mille, uint64_t seed);

/* Sets every byte of p to 0xff (-1 for integers, NaN for floats: values the
 * benchmarks' data never holds), so output left unwritten cannot pass a
 * check. Waits for the device. */
void bench_poison(void *p, size_t bytes);

/* Compares n elements of elem_bytes (1, 4 or 8) bit for bit on the device;
 * returns the index of the first that differs, or -1 if all agree. Waits. */
int64_t bench_first_difference(const void *a, const void *b, size_t n, size_t elem_bytes);

/* The current device's multiprocessors (asked once): floor kernels size
 * their grids by it. */
int bench_sm_count(void);

/* Device memory the benchmarks reuse: grows, never shrinks. */
void *bench_buffer(int slot, size_t bytes);
/* CUB's temporary storage for the shims' calls, apart from bench_buffer's
 * slots: grows, never shrinks, as a user of CUB would keep it. Never NULL
 * (at least one byte): CUB takes a NULL storage for a size query. */
void *bench_cub_temp(size_t bytes);
void bench_copy(void *dst, const void *src, size_t bytes);

/* 1 when a smoke run is asked for: --quick among the arguments (taken out of
 * argv, so that Google Benchmark does not see it) or GPUPRIM_BENCH_QUICK set
 * and not "0"; else 0. */
int bench_quick_mode(int *argc, char **argv);
/* Selects gpuprim's CUDA backend and allocates and frees a byte there, so
 * that a missing GPU shows at once, not inside the first benchmark. 0 when it
 * works, else 1 with the reason on stderr after program's name. */
int bench_require_cuda(const char *program);

#ifdef __cplusplus
}
#endif

#endif
