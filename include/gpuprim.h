/*
 * gpuprim: scan-based GPU primitives with a C API.
 *
 * This header is plain C99 and needs no CUDA headers. Every function returns a
 * status (or, where it returns a count, a negative status), validates its
 * arguments before touching memory, and leaves its inputs unchanged on error.
 * gpu_last_error() says in words why the calling thread's last call failed.
 *
 * Arrays are in the current backend's memory: device pointers for the CUDA
 * backend, ordinary host memory for the HOST backend. Work is ordered on the
 * calling thread's stream (gpu_set_stream); calls that return a value to the
 * host wait for it.
 */
#ifndef GPUPRIM_H
#define GPUPRIM_H

#include <stddef.h>
#include <stdint.h>

/* The version of this header; gpu_version() gives the library's. The build
 * reads its version from these three lines. */
#define GPUPRIM_VERSION_MAJOR 0
#define GPUPRIM_VERSION_MINOR 1
#define GPUPRIM_VERSION_PATCH 0

/* Marks the library's entry points: the shared library is built with hidden
 * visibility and exports only what carries this mark. Define GPUPRIM_API
 * before including this header to override it. */
#ifndef GPUPRIM_API
#  if defined(__GNUC__) && !defined(__CUDACC_RTC__)
#    define GPUPRIM_API __attribute__((visibility("default")))
#  else
#    define GPUPRIM_API
#  endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ status */

typedef enum {
  GPU_OK = 0,
  GPU_ERR_INVALID_ARGUMENT, /* NULL pointer with n > 0, unknown enum value, bad flag bits */
  GPU_ERR_UNSUPPORTED,      /* valid but not provided, e.g. GPU_XOR on GPU_F32 */
  GPU_ERR_OUT_OF_MEMORY,
  GPU_ERR_NO_DEVICE,        /* the CUDA backend was asked for and no usable GPU exists */
  GPU_ERR_DEVICE,           /* a CUDA error; gpu_last_error() names the call and error */
  GPU_ERR_PARSE,            /* malformed input file; gpu_last_error() gives file:line and why */
  GPU_ERR_IO
} gpu_status;

/* A fixed English name for a status ("GPU_ERR_INVALID_ARGUMENT: ..."). */
GPUPRIM_API const char *gpu_status_string(gpu_status s);
/* The calling thread's last failure, in words ("" if none yet). */
GPUPRIM_API const char *gpu_last_error(void);
/* The library's version, "MAJOR.MINOR.PATCH". */
GPUPRIM_API const char *gpu_version(void);

/* ------------------------------------------------------ element types, ops */

typedef enum { GPU_I32, GPU_U32, GPU_I64, GPU_U64, GPU_F32, GPU_F64 } gpu_dtype;
/* Bytes per element; 0 for an unknown value. */
GPUPRIM_API size_t gpu_dtype_size(gpu_dtype t);

/*
 * Integer ADD and MUL wrap modulo 2^bits (signed types too). AND, OR and XOR
 * exist for integer types only. Float MIN and MAX propagate NaN (as
 * numpy.minimum) and order -0 before +0 (IEEE 754-2019 minimum, maximum).
 * Identities: ADD 0, MUL 1, MIN the type's maximum (+inf), MAX its minimum
 * (-inf), AND all ones, OR and XOR 0.
 */
typedef enum { GPU_ADD, GPU_MUL, GPU_MIN, GPU_MAX, GPU_AND, GPU_OR, GPU_XOR } gpu_op;

/* ------------------------------------------------- backend, stream, memory */

typedef enum { GPU_BACKEND_AUTO, GPU_BACKEND_CUDA, GPU_BACKEND_HOST } gpu_backend;

/* Chooses the calling thread's backend. The default comes from the environment
 * variable GPUPRIM_BACKEND=auto|cuda|host (auto when unset). AUTO means CUDA
 * where a usable GPU exists, else HOST; CUDA where there is none makes later
 * calls fail with GPU_ERR_NO_DEVICE. */
GPUPRIM_API gpu_status gpu_set_backend(gpu_backend b);
/* The calling thread's resolved backend: GPU_BACKEND_CUDA or GPU_BACKEND_HOST. */
GPUPRIM_API gpu_backend gpu_get_backend(void);
/* The calling thread's CUDA stream (a cudaStream_t); NULL is the default stream. */
GPUPRIM_API gpu_status gpu_set_stream(void *cuda_stream);
/* Waits for the thread's stream; returns the first deferred error. */
GPUPRIM_API gpu_status gpu_synchronize(void);

/* Allocates bytes of the current backend's memory (device memory on CUDA).
 * 0 bytes gives NULL and GPU_OK. */
GPUPRIM_API gpu_status gpu_alloc(void **p, size_t bytes);
/* Frees what gpu_alloc gave; gpu_free(NULL) does nothing. */
GPUPRIM_API gpu_status gpu_free(void *p);
/* Copies bytes from host memory into the backend's memory, and back. A count
 * that no array can hold (above PTRDIFF_MAX, or one that wraps an address
 * range) is refused with GPU_ERR_INVALID_ARGUMENT. gpu_download waits. */
GPUPRIM_API gpu_status gpu_upload(void *dst, const void *host_src, size_t bytes);
GPUPRIM_API gpu_status gpu_download(void *host_dst, const void *src, size_t bytes);

/* Beyond the contract: hands back the memory the library keeps cached for the
 * calling thread's device (temporary pools, look-back state). Later calls
 * allocate again as needed. Useful before a leak checker looks. */
GPUPRIM_API gpu_status gpu_release_cached_memory(void);

/* ---------------------------------------------------------- scan, reduce */

enum { GPU_INCLUSIVE = 0, GPU_EXCLUSIVE = 1u << 0, GPU_REVERSE = 1u << 1 };

/*
 * Inclusive: out[i] = in[0] op ... op in[i]. Exclusive: out[0] = identity,
 * out[i] = in[0] op ... op in[i-1]. GPU_REVERSE scans from the end: inclusive
 * out[i] = in[i] op ... op in[n-1]. in == out is allowed (other overlaps are
 * refused). n may exceed 2^32; n == 0 does nothing. Float results are bitwise
 * identical from run to run on the same device.
 */
GPUPRIM_API gpu_status gpu_scan(const void *in, void *out, size_t n, gpu_dtype t, gpu_op op,
                                unsigned flags);
/* *host_result = in[0] op ... op in[n-1] (the identity when n == 0); waits. */
GPUPRIM_API gpu_status gpu_reduce(const void *in, size_t n, gpu_dtype t, gpu_op op,
                                  void *host_result);

/* ------------------------------------------------------- stream compaction */

typedef enum { GPU_EQ, GPU_NE, GPU_LT, GPU_LE, GPU_GT, GPU_GE } gpu_cmp;

/* A predicate on elements of one type: a small value, built by the
 * constructors below and passed by value. Its fields are private. A
 * constructor given bad arguments returns a predicate that makes gpu_compact
 * and gpu_partition fail with its error (gpu_last_error() says why). */
typedef struct gpu_pred {
  struct {
    int32_t kind, type, cmp, status;
    uint64_t a, b;       /* comparison values, as bits of the element type */
    const void *ptr;     /* flags array, or the parsed expression */
  } private_;
} gpu_pred;

/* Keeps x where x c *value; value is a host pointer to one element of type t,
 * read now. Comparisons follow IEEE 754: NaN fails all but GPU_NE. */
GPUPRIM_API gpu_pred gpu_pred_cmp(gpu_dtype t, gpu_cmp c, const void *value);
/* Keeps x where *lo <= x && x < *hi (host pointers, read now). */
GPUPRIM_API gpu_pred gpu_pred_range(gpu_dtype t, const void *lo, const void *hi);
/* Keeps element i where flags[i] != 0: n bytes in the backend's memory. */
GPUPRIM_API gpu_pred gpu_pred_flags(gpu_dtype t, const uint8_t *flags);
/* A C-like formula in x: numbers, + - * / %, comparisons, && || !, parentheses,
 * & | ^ ~ << >> for integer types, and abs fabs floor ceil sqrt isnan isinf
 * isfinite min max. Parsed by the library; anything else is refused with
 * GPU_ERR_INVALID_ARGUMENT and a message that points at the column
 * (docs/api.md has the whole language). The library keeps the parsed formula
 * in a bounded cache: a predicate stays usable until 1024 newer formulas have
 * been made or gpu_release_cached_memory() is called; after that,
 * gpu_compact and gpu_partition refuse it (GPU_ERR_INVALID_ARGUMENT) and it
 * must be made again. */
GPUPRIM_API gpu_pred gpu_pred_expr(gpu_dtype t, const char *expression);

/* Writes the elements of in for which pred holds, in order, to out; returns
 * how many, or -(int64_t)status on error. */
GPUPRIM_API int64_t gpu_compact(const void *in, size_t n, gpu_pred pred, void *out);
/* Writes all n: the kept ones first, then the others, each in their original
 * order; returns the kept count, or -(int64_t)status on error. */
GPUPRIM_API int64_t gpu_partition(const void *in, size_t n, gpu_pred pred, void *out);

/* ------------------------------------------------------------- radix sort */

enum { GPU_ASCENDING = 0, GPU_DESCENDING = 1u << 0 };

/* Sorts n keys in place, stable in both directions (GPU_ASCENDING or
 * GPU_DESCENDING). Float order, ascending:
 * -inf < negatives < -0.0 < +0.0 < positives < +inf < NaN. */
GPUPRIM_API gpu_status gpu_sort_keys(void *keys, size_t n, gpu_dtype t, unsigned flags);
/* The same, each value (value_bytes 4 or 8, moved as opaque bits) following
 * its key. */
GPUPRIM_API gpu_status gpu_sort_pairs(void *keys, void *values, size_t n, gpu_dtype key_t,
                                      size_t value_bytes, unsigned flags);

/* -------------------------------------------------- segmented scan, reduce */

/* heads[i] != 0 starts a segment at i (a segment always starts at 0). */
GPUPRIM_API gpu_status gpu_segscan_flags(const void *in, void *out, size_t n, const uint8_t *heads,
                                         gpu_dtype t, gpu_op op, unsigned flags);
/* Segment s is [offsets[s], offsets[s+1]); nseg + 1 offsets, offsets[0] = 0,
 * offsets[nseg] = n; empty segments allowed. */
GPUPRIM_API gpu_status gpu_segscan_offsets(const void *in, void *out, size_t n, const int64_t *offsets,
                                           size_t nseg, gpu_dtype t, gpu_op op, unsigned flags);
/* One value per segment; an empty segment gives the identity. */
GPUPRIM_API gpu_status gpu_segreduce(const void *in, const int64_t *offsets, size_t nseg, void *out,
                                     gpu_dtype t, gpu_op op);

/* ------------------------------------------------- sparse: CSR times vector */

typedef struct {
  int64_t rows, cols, nnz;
  void *row_ptr;        /* rows + 1 entries of index_type */
  void *col_idx;        /* nnz entries of index_type */
  void *values;         /* nnz entries of value_type */
  gpu_dtype index_type; /* GPU_I32 or GPU_I64 */
  gpu_dtype value_type; /* GPU_F32 or GPU_F64 */
} gpu_csr;

/* y = alpha * A * x + beta * y; with beta == 0, y is not read. */
GPUPRIM_API gpu_status gpu_spmv(const gpu_csr *A, const void *x, void *y, double alpha, double beta);
/* Checks row_ptr starts at 0, never decreases and ends at nnz, and every column
 * index is in [0, cols); names the first bad entry in gpu_last_error(). */
GPUPRIM_API gpu_status gpu_csr_validate(const gpu_csr *A);
/* Reads a Matrix Market coordinate file into the current backend's memory. */
GPUPRIM_API gpu_status gpu_csr_read_mm(const char *path, gpu_dtype value_type, gpu_dtype index_type,
                                       gpu_csr *A);
/* Frees what gpu_csr_read_mm allocated. */
GPUPRIM_API gpu_status gpu_csr_free(gpu_csr *A);

/* A plan holds the analysis of A that pays off over many products (a
 * solver's loop); A must outlive it and stay unchanged. It runs on the
 * backend it was made on; threads may share it. */
typedef struct gpu_spmv_plan gpu_spmv_plan;
/* Makes a plan for A (checks A's fields and row_ptr). */
GPUPRIM_API gpu_status gpu_spmv_plan_create(gpu_spmv_plan **plan, const gpu_csr *A);
/* y = alpha * A * x + beta * y with the plan's A: the same bits as gpu_spmv. */
GPUPRIM_API gpu_status gpu_spmv_plan_run(gpu_spmv_plan *plan, const void *x, void *y, double alpha,
                                         double beta);
/* Frees a plan (waits for the device on CUDA); NULL does nothing. */
GPUPRIM_API void gpu_spmv_plan_destroy(gpu_spmv_plan *plan);

/* ------------------------------------------------------- linear recurrences */

/* Batch layout flag of gpu_linrec_batch; GPU_REVERSE as for gpu_scan. */
enum { GPU_TIME_MAJOR = 1u << 2 };

/*
 * First-order linear recurrences, the scan of pairs (a, b) under
 * (a1, b1) then (a2, b2) = (a1 * a2, a2 * b1 + b2), which does not commute.
 * GPU_F32 and GPU_F64 only (other types: GPU_ERR_UNSUPPORTED). Results are
 * bitwise identical run to run on the same device; docs/linrec.md states
 * the error bound against exact arithmetic.
 *
 * gpu_linrec: h[t] = a[t] * h[t-1] + b[t] for t = 0 .. n-1, with h[-1] = *h0
 * (h0 is a host pointer to one element; NULL means 0). With GPU_REVERSE:
 * h[t] = a[t] * h[t+1] + b[t], with h[n] = *h0. h may equal b (in place);
 * any other overlap is refused. n may exceed 2^32; n == 0 does nothing.
 * Example: a = [0.5, 0.9, 0.1, 1.0], b = [1, 2, 3, 4], h0 = NULL give
 * h = [1.0, 2.9, 3.29, 7.29].
 */
GPUPRIM_API gpu_status gpu_linrec(const void *a, const void *b, void *h, size_t n, gpu_dtype t,
                                  const void *h0, unsigned flags);
/* `count` independent sequences of `len` steps: element t of sequence s sits
 * at s*len + t, or at t*count + s with GPU_TIME_MAJOR. h0 is NULL (all 0) or
 * `count` initial states in the backend's memory. */
GPUPRIM_API gpu_status gpu_linrec_batch(const void *a, const void *b, void *h, size_t len, size_t count,
                                        gpu_dtype t, const void *h0, unsigned flags);
/* Beyond the contract: sequences given by nseg + 1 offsets (as
 * gpu_segscan_offsets: offsets[0] = 0, never decreasing, offsets[nseg] = n,
 * empty segments allowed), in the backend's memory; sequence s is
 * [offsets[s], offsets[s+1]). h0 is NULL (all 0) or nseg initial states in
 * the backend's memory. */
GPUPRIM_API gpu_status gpu_linrec_offsets(const void *a, const void *b, void *h, const int64_t *offsets,
                                          size_t nseg, gpu_dtype t, const void *h0, unsigned flags);
/*
 * The backward pass of gpu_linrec: given the forward pass's a, its output h,
 * its h0 (host pointer, NULL = 0) and flags, and dh = dL/dh, writes
 * db = g and da[t] = g[t] * h[t-1] (h[-1] = *h0), where g is the reverse
 * recurrence g[t] = dh[t] + a[t+1] * g[t+1], g[n-1] = dh[n-1]. Under
 * GPU_REVERSE everything is mirrored: g[t] = dh[t] + a[t-1] * g[t-1] and
 * da[t] = g[t] * h[t+1] (h[n] = *h0). db may equal dh; any other overlap is
 * refused.
 */
GPUPRIM_API gpu_status gpu_linrec_backward(const void *a, const void *h, const void *dh, void *da,
                                           void *db, size_t n, gpu_dtype t, const void *h0, unsigned flags);
/* Beyond the contract: the backward pass of gpu_linrec_batch, each of the
 * `count` sequences of `len` steps as gpu_linrec_backward (layout and
 * direction by flags, as the forward pass's). h0 is NULL (all 0) or the
 * forward pass's `count` initial states, in the backend's memory. */
GPUPRIM_API gpu_status gpu_linrec_backward_batch(const void *a, const void *h, const void *dh, void *da,
                                                 void *db, size_t len, size_t count, gpu_dtype t,
                                                 const void *h0, unsigned flags);

#ifdef __cplusplus
}
#endif

#endif /* GPUPRIM_H */
