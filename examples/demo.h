/*
 * The pieces `gpuprim demo` and `gpuprim spmv` share: error exits, timing,
 * random data, the comparison with the host backend and the table row.
 *
 * Every demo section follows one pattern: fill host buffers with random data,
 * upload, time the call on the demo's backend (after a warm-up call), download,
 * switch to the host backend for the reference result, switch back, compare,
 * print one row. A section returns how many of its rows failed.
 */
#ifndef GPUPRIM_DEMO_H
#define GPUPRIM_DEMO_H

#include <stddef.h>
#include <stdint.h>

#include "gpuprim.h"

double now(void);
/* The library's last error in a user's words: its message without the name
 * of the function that failed, or the status's words where there is none. */
const char *error_words(gpu_status s);
/* Prints "gpuprim: " and the library's last error in a user's words, and
 * exits with status 1. */
void die(gpu_status s);
/* Prints that host memory for `what` ran out, and exits with status 1. */
void die_no_memory(const char *what);
#define CHECK(call)                 \
  do {                              \
    gpu_status s_ = (call);         \
    if (s_ != GPU_OK) die(s_);      \
  } while (0)

/* What the tool is doing now ("sort u32 keys"), on stderr where that is a
 * terminal, on one line that the next one replaces; nothing elsewhere, so
 * that a log or a pipe holds only results. progress_done() clears the line. */
void progress(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void progress_done(void);

/* Times one call (after a warm-up call) on the current backend. */
#define TIME_CALL(seconds, call)     \
  do {                               \
    CHECK(call);                     \
    CHECK(gpu_synchronize());        \
    double t0_ = now();              \
    CHECK(call);                     \
    CHECK(gpu_synchronize());        \
    (seconds) = now() - t0_;         \
  } while (0)

/* xorshift64: the same data on every run. */
uint64_t next_random(void);
/* Random contents: small integers (sums stay readable), floats in [-1, 1). */
void fill(void *p, size_t n, gpu_dtype t);
/* How many of a[i], b[i] differ: integers exactly; float sums within a
 * relative 1e-5 (f32) or 1e-12 (f64) of the running magnitude; MIN/MAX exactly. */
size_t mismatches(const void *a, const void *b, size_t n, gpu_dtype t, gpu_op op);
const char *type_name(gpu_dtype t);
/* One table row; GB/s is bytes / seconds, Gelem/s is n / seconds. */
void row(const char *primitive, const char *variant, size_t n, double seconds, double bytes, const char *check);

/* The whole demo (n == 0: the backend's default size); 0 when all agree. */
int demo(size_t n, gpu_backend backend);

/* The sections beyond scan, reduce and compaction. The buffers are the
 * demo's: host h_in, h_out, h_ref and backend d_in, d_out, n 8-byte
 * elements each. Each returns its number of failed rows. */
int demo_sort(size_t n, gpu_backend backend, void *h_in, void *h_out, void *h_ref, void *d_in, void *d_out);
int demo_segmented(size_t n, gpu_backend backend, void *h_in, void *h_out, void *h_ref, void *d_in, void *d_out);
int demo_linrec(size_t n, gpu_backend backend, void *h_in, void *h_out, void *h_ref, void *d_in, void *d_out);
int demo_spmv(size_t n, gpu_backend backend);

/* Seconds per product y = A x over reps calls (after one warm-up call), by
 * gpu_spmv or, given one, by the plan. */
double spmv_seconds(const gpu_csr *A, gpu_spmv_plan *plan, const void *x, void *y, int reps);
/* y (a host copy of the result for A in backend memory and host x) against
 * the host backend's product; returns how many rows differ. */
size_t spmv_check_against_host(const gpu_csr *A, const void *h_x, const void *h_y, gpu_backend backend);

#endif
