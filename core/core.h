/*
 * core: what every layer stands on. Errors and their words, element types and
 * operators, the calling thread's backend and stream, argument checks, and the
 * CUDA-side resources (memory pool, look-back tile state) a kernel borrows.
 *
 * Internal: names start with gp_ (the public ones with gpu_). Usable from C
 * and from CUDA C++.
 */
#ifndef GP_CORE_H
#define GP_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprim.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#  define GP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#  define GP_PRINTF(f, a)
#endif

/* ------------------------------------------------------------------ errors */

/* Records a message for gpu_last_error() on this thread and returns s.
 * Write messages as "function: what is wrong", e.g.
 * "gpu_scan: in is NULL with n = 10". */
gpu_status gp_fail(gpu_status s, const char *fmt, ...) GP_PRINTF(2, 3);

/* A count-returning call's error value: -(int64_t)s. */
static inline int64_t gp_neg(gpu_status s) { return -(int64_t)s; }

/* ---------------------------------------------------- element types, ops */

bool gp_dtype_valid(gpu_dtype t);
bool gp_dtype_is_float(gpu_dtype t);
bool gp_dtype_is_signed(gpu_dtype t);
const char *gp_dtype_name(gpu_dtype t); /* "i32" ... "f64", "?" if unknown */
bool gp_op_valid(gpu_op op);
bool gp_op_is_bitwise(gpu_op op);
const char *gp_op_name(gpu_op op); /* "add" ... "xor" */

/* INVALID_ARGUMENT for an unknown type or operator, UNSUPPORTED for a bitwise
 * operator on a float type; fn names the caller in the message. */
gpu_status gp_check_dtype_op(const char *fn, gpu_dtype t, gpu_op op);
/* INVALID_ARGUMENT when flags has bits outside allowed. */
gpu_status gp_check_flags(const char *fn, unsigned flags, unsigned allowed);

/* Writes op's identity for t into *out (gpu_dtype_size(t) bytes). */
void gp_identity(gpu_dtype t, gpu_op op, void *out);

/* ---------------------------------------------------------------- backend */

/* The calling thread's backend, resolved to CUDA or HOST. Fails with
 * NO_DEVICE when CUDA was asked for and no usable GPU exists, and with
 * INVALID_ARGUMENT when GPUPRIM_BACKEND holds an unknown word. */
gpu_status gp_backend(const char *fn, gpu_backend *resolved);
/* The calling thread's stream (a cudaStream_t, NULL = default). */
void *gp_stream(void);
/* Whether this build has the CUDA backend and a usable GPU exists. */
bool gp_cuda_available(void);

/* ---------------------------------------------------------- argument checks */

/* Checks an array argument of n elements of elem_bytes: NULL with n > 0,
 * n * elem_bytes overflowing, misalignment for the element type, and for the
 * CUDA backend memory the device cannot reach or a range that runs past the end
 * of its allocation. name is the parameter's name in the message. */
gpu_status gp_check_array(const char *fn, const char *name, const void *p, size_t n,
                          size_t elem_bytes, gpu_backend b);
/* INVALID_ARGUMENT when [a, a+bytes) and [b, b+bytes) overlap without being the
 * same array. */
gpu_status gp_check_same_or_disjoint(const char *fn, const char *a_name, const void *a,
                                     const char *b_name, const void *b, size_t bytes);
/* Whether [a, a+a_bytes) and [b, b+b_bytes) share a byte (none when either
 * is empty). */
bool gp_ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes);
/* INVALID_ARGUMENT when [a, a+a_bytes) and [b, b+b_bytes) share a byte, the
 * same array included: for an output that must not alias an input. */
gpu_status gp_check_disjoint(const char *fn, const char *a_name, const void *a, size_t a_bytes,
                             const char *b_name, const void *b, size_t b_bytes);

/* Offsets of segments (gpu_segscan_offsets, gpu_segreduce,
 * gpu_linrec_offsets), in host memory: offsets[0] == 0 and no entry negative
 * or below the one before; with n_known, none beyond n and offsets[nseg] ==
 * n. Names the first bad entry; *n_out gets offsets[nseg]. */
gpu_status gp_check_offsets(const char *fn, const int64_t *offsets, size_t nseg, bool n_known, size_t n,
                            size_t *n_out);

/* ------------------------------------------------------------ CUDA (core/) */

/* Maps a CUDA runtime error (an int, so that C callers need no CUDA headers)
 * to a status and records "fn: call: name (text)". cudaSuccess gives GPU_OK. */
gpu_status gp_cuda_status(int cuda_error, const char *fn, const char *call);

/* Temporary device memory from the library's stream-ordered pool, on the
 * calling thread's stream. Freed blocks stay cached in the pool, so a call in
 * a loop reuses them instead of calling cudaMalloc. */
gpu_status gp_pool_alloc(const char *fn, void **p, size_t bytes);
gpu_status gp_pool_free(const char *fn, void *p);

/*
 * Look-back tile state for one single-pass kernel launch on the thread's
 * stream. Entries are 64-bit words whose upper half is a tag; a word is
 * written in this launch when its tag equals `epoch`, so stale words from
 * earlier launches never need clearing. `counter` hands out tile indices in
 * launch order: tile = atomicAdd(counter, 1) - counter_base.
 *
 * For eager streams the state is a per-stream workspace reused from call to
 * call (no clearing launch). Under stream capture (CUDA graphs, replayed with
 * the same kernel arguments) the state is fresh pool memory cleared in the
 * graph; release it with gp_tilestate_release after the launch.
 */
typedef struct {
  uint64_t *words;            /* state_words tagged 64-bit words */
  unsigned long long *counter;
  uint64_t counter_base;
  uint32_t epoch;
  void *owned;                /* non-NULL: pool memory to release after launch */
} gp_tilestate;
gpu_status gp_tilestate_acquire(const char *fn, size_t state_words, uint64_t tiles,
                                gp_tilestate *ts);
gpu_status gp_tilestate_release(const char *fn, gp_tilestate *ts);

/* A word of mapped, pinned host memory for the calling thread (freed when
 * the thread ends; NULL where none can be had). A kernel writes a result
 * there that the host reads once the stream is synchronised, without a copy
 * launched and waited for: a few microseconds of every call that returns a
 * count or a verdict. One result at a time per thread. */
uint64_t *gp_mapped_host_word(void);

/*
 * Deferred errors: what a kernel finds wrong in data the host never reads
 * (malformed offsets, a malformed CSR matrix) without the call waiting for
 * the verdict. The kernel sets the thread's word of that kind (mapped
 * host memory beside gp_mapped_host_word's); gpu_synchronize, after
 * waiting for the stream, reports and clears them (gp_take_deferred).
 * gp_deferred_word is NULL where no mapped memory can be had: the caller
 * then waits for its verdict itself.
 *
 * Limits: gpu_synchronize waits for the thread's current stream only, so a
 * kernel on another stream or device is reported by a later call once it has
 * run; a call captured into a CUDA graph writes the capturing thread's word,
 * and must not be replayed after that thread ends or frees its words
 * (gp_cuda_release_cached).
 */
typedef enum { GP_DEFERRED_OFFSETS, GP_DEFERRED_CSR, GP_DEFERRED_KINDS } gp_deferred_kind;
unsigned *gp_deferred_word(gp_deferred_kind kind);
gpu_status gp_take_deferred(const char *fn);

/* Frees what gp_tilestate and gp_pool keep cached for the current device,
 * and the calling thread's mapped host words (a deferred error in them is
 * dropped), after waiting for the device. */
gpu_status gp_cuda_release_cached(const char *fn);

/* Registers release for gpu_release_cached_memory to call, on either
 * backend: how a layer above core frees what it caches (compact's formulas).
 * Registering the same function again does nothing; at most 8 in all. */
void gp_on_release_cached(void (*release)(void));

#ifdef __cplusplus
}
#endif

#endif /* GP_CORE_H */
