/*
 * gpu_linrec, gpu_linrec_batch, gpu_linrec_offsets, gpu_linrec_backward and
 * gpu_linrec_backward_batch: argument checks, then the backend's
 * implementation.
 *
 * Every argument is checked before memory is touched: the type (GPU_F32 and
 * GPU_F64 only), the flags, each array's pointer, alignment and extent, and
 * the overlaps (h may equal b, db may equal dh; any other output sharing a
 * byte with an input or another output is refused). Offsets are checked as
 * gpu_segscan_offsets' host backend checks them, on both backends: on the
 * CUDA backend they are read back first (one copy of nseg + 1 entries, and
 * a wait), so a malformed entry is named before anything is written.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "core/core.h"
#include "linrec_host.h"
#include "linrec_internal.h"

#if GPUPRIM_HAVE_CUDA
#  include "linrec_cuda.h"
#endif

/* GPU_F32 and GPU_F64; an unknown value is INVALID_ARGUMENT, an integer
 * type UNSUPPORTED. */
static gpu_status check_float_dtype(const char *fn, gpu_dtype t) {
  if (!gp_dtype_valid(t)) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown gpu_dtype %d", fn, (int)t);
  if (t != GPU_F32 && t != GPU_F64)
    return gp_fail(GPU_ERR_UNSUPPORTED, "%s: %s is not supported (GPU_F32 and GPU_F64 only)", fn,
                   gp_dtype_name(t));
  return GPU_OK;
}

/* What every entry point checks first: the type, the flags against
 * `allowed`, and the backend (set in *be). */
static gpu_status check_call(const char *fn, gpu_dtype t, unsigned flags, unsigned allowed, gpu_backend *be) {
  gpu_status s = check_float_dtype(fn, t);
  if (s == GPU_OK) s = gp_check_flags(fn, flags, allowed);
  if (s == GPU_OK) s = gp_backend(fn, be);
  return s;
}

/* check_call; then a, b and h of n elements, h == b or disjoint from it,
 * h disjoint from a. */
static gpu_status check_forward(const char *fn, const void *a, const void *b, void *h, size_t n,
                                gpu_dtype t, unsigned flags, unsigned allowed, gpu_backend *be) {
  gpu_status s = check_call(fn, t, flags, allowed, be);
  const size_t w = gpu_dtype_size(t);
  if (s == GPU_OK) s = gp_check_array(fn, "a", a, n, w, *be);
  if (s == GPU_OK) s = gp_check_array(fn, "b", b, n, w, *be);
  if (s == GPU_OK) s = gp_check_array(fn, "h", h, n, w, *be);
  if (s == GPU_OK) s = gp_check_same_or_disjoint(fn, "b", b, "h", h, n * w);
  if (s == GPU_OK) s = gp_check_disjoint(fn, "h", h, n * w, "a", a, n * w);
  return s;
}

/* Initial states of count sequences in the backend's memory (NULL: all 0),
 * disjoint from the output `out` (named out_name) of n elements. */
static gpu_status check_states(const char *fn, const void *h0, size_t count, const char *out_name,
                               const void *out, size_t n, gpu_dtype t, gpu_backend be) {
  if (!h0) return GPU_OK;
  const size_t w = gpu_dtype_size(t);
  gpu_status s = gp_check_array(fn, "h0", h0, count, w, be);
  if (s == GPU_OK) s = gp_check_disjoint(fn, out_name, out, n * w, "h0", h0, count * w);
  return s;
}

/* n = len * count, refused where it overflows. */
static gpu_status batch_elements(const char *fn, size_t len, size_t count, size_t *n) {
  if (count != 0 && len > SIZE_MAX / count)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: len * count = %zu * %zu overflows", fn, len, count);
  *n = len * count;
  return GPU_OK;
}

/* A batch's shape: layout and direction from flags. */
static gp_linrec_shape batch_shape(gpu_dtype t, size_t len, size_t count, const void *h0, unsigned flags) {
  return (gp_linrec_shape){flags & GPU_TIME_MAJOR ? GP_LINREC_TIME_MAJOR : GP_LINREC_SEQ_MAJOR,
                           t, len * count, len, count, NULL, h0, (flags & GPU_REVERSE) != 0};
}

static gpu_status run_forward(const void *a, const void *b, void *h, const gp_linrec_shape *shape,
                              gpu_backend be) {
#if GPUPRIM_HAVE_CUDA
  if (be == GPU_BACKEND_CUDA) return gp_linrec_cuda(a, b, h, shape);
#endif
  (void)be;
  return gp_linrec_host(a, b, h, shape);
}

gpu_status gpu_linrec(const void *a, const void *b, void *h, size_t n, gpu_dtype t, const void *h0,
                      unsigned flags) {
  static const char fn[] = "gpu_linrec";
  gpu_backend be = GPU_BACKEND_HOST;
  gpu_status s = check_forward(fn, a, b, h, n, t, flags, GPU_REVERSE, &be);
  if (s != GPU_OK || n == 0) return s;
  const gp_linrec_shape shape = {GP_LINREC_SINGLE, t, n, n, 1, NULL, h0, (flags & GPU_REVERSE) != 0};
  return run_forward(a, b, h, &shape, be);
}

gpu_status gpu_linrec_batch(const void *a, const void *b, void *h, size_t len, size_t count,
                            gpu_dtype t, const void *h0, unsigned flags) {
  static const char fn[] = "gpu_linrec_batch";
  size_t n = 0;
  gpu_status s = batch_elements(fn, len, count, &n);
  if (s != GPU_OK) return s;
  gpu_backend be = GPU_BACKEND_HOST;
  s = check_forward(fn, a, b, h, n, t, flags, GPU_REVERSE | GPU_TIME_MAJOR, &be);
  if (s == GPU_OK) s = check_states(fn, h0, count, "h", h, n, t, be);
  if (s != GPU_OK || n == 0) return s;
  const gp_linrec_shape shape = batch_shape(t, len, count, h0, flags);
  return run_forward(a, b, h, &shape, be);
}

/* The offsets' values, checked where they are: in place on the host backend,
 * from a copy on the CUDA backend. *n_out = offsets[nseg]. */
static gpu_status read_offsets(const char *fn, const int64_t *offsets, size_t nseg, gpu_backend be,
                               size_t *n_out) {
  if (be == GPU_BACKEND_HOST) return gp_check_offsets(fn, offsets, nseg, false, 0, n_out);
  const size_t bytes = (nseg + 1) * sizeof(int64_t);
  int64_t *copy = malloc(bytes);
  if (!copy) return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: no host memory for a copy of the offsets", fn);
  gpu_status s = gpu_download(copy, offsets, bytes);
  if (s == GPU_OK) s = gp_check_offsets(fn, copy, nseg, false, 0, n_out);
  free(copy);
  return s;
}

gpu_status gpu_linrec_offsets(const void *a, const void *b, void *h, const int64_t *offsets,
                              size_t nseg, gpu_dtype t, const void *h0, unsigned flags) {
  static const char fn[] = "gpu_linrec_offsets";
  gpu_backend be = GPU_BACKEND_HOST;
  gpu_status s = check_call(fn, t, flags, GPU_REVERSE, &be);
  if (s == GPU_OK && nseg >= SIZE_MAX / sizeof(int64_t))
    s = gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: nseg = %zu is too large", fn, nseg);
  if (s != GPU_OK || nseg == 0) return s;
  s = gp_check_array(fn, "offsets", offsets, nseg + 1, sizeof(int64_t), be);
  size_t n = 0;
  if (s == GPU_OK) s = read_offsets(fn, offsets, nseg, be, &n);
  if (s == GPU_OK) s = check_forward(fn, a, b, h, n, t, flags, GPU_REVERSE, &be);
  const size_t w = gpu_dtype_size(t);
  if (s == GPU_OK)
    s = gp_check_disjoint(fn, "h", h, n * w, "offsets", offsets, (nseg + 1) * sizeof(int64_t));
  if (s == GPU_OK) s = check_states(fn, h0, nseg, "h", h, n, t, be);
  if (s != GPU_OK || n == 0) return s;
  const gp_linrec_shape shape = {GP_LINREC_OFFSETS, t, n, 0, nseg, offsets, h0, (flags & GPU_REVERSE) != 0};
  return run_forward(a, b, h, &shape, be);
}

/* check_call; then the backward pass's arrays of n elements: inputs a, h,
 * dh; outputs da, db (db == dh allowed). */
static gpu_status check_backward(const char *fn, const void *a, const void *h, const void *dh, void *da,
                                 void *db, size_t n, gpu_dtype t, unsigned flags, unsigned allowed,
                                 gpu_backend *be) {
  gpu_status s = check_call(fn, t, flags, allowed, be);
  const size_t w = gpu_dtype_size(t);
  if (s == GPU_OK) s = gp_check_array(fn, "a", a, n, w, *be);
  if (s == GPU_OK) s = gp_check_array(fn, "h", h, n, w, *be);
  if (s == GPU_OK) s = gp_check_array(fn, "dh", dh, n, w, *be);
  if (s == GPU_OK) s = gp_check_array(fn, "da", da, n, w, *be);
  if (s == GPU_OK) s = gp_check_array(fn, "db", db, n, w, *be);
  const size_t bytes = n * w;
  if (s == GPU_OK) s = gp_check_same_or_disjoint(fn, "dh", dh, "db", db, bytes);
  if (s == GPU_OK) s = gp_check_disjoint(fn, "db", db, bytes, "a", a, bytes);
  if (s == GPU_OK) s = gp_check_disjoint(fn, "db", db, bytes, "h", h, bytes);
  if (s == GPU_OK) s = gp_check_disjoint(fn, "da", da, bytes, "a", a, bytes);
  if (s == GPU_OK) s = gp_check_disjoint(fn, "da", da, bytes, "h", h, bytes);
  if (s == GPU_OK) s = gp_check_disjoint(fn, "da", da, bytes, "dh", dh, bytes);
  if (s == GPU_OK) s = gp_check_disjoint(fn, "da", da, bytes, "db", db, bytes);
  return s;
}

static gpu_status run_backward(const void *a, const void *h, const void *dh, void *da, void *db,
                               const gp_linrec_shape *shape, gpu_backend be) {
#if GPUPRIM_HAVE_CUDA
  if (be == GPU_BACKEND_CUDA) return gp_linrec_backward_cuda(a, h, dh, da, db, shape);
#endif
  (void)be;
  return gp_linrec_backward_host(a, h, dh, da, db, shape);
}

gpu_status gpu_linrec_backward(const void *a, const void *h, const void *dh, void *da, void *db,
                               size_t n, gpu_dtype t, const void *h0, unsigned flags) {
  static const char fn[] = "gpu_linrec_backward";
  gpu_backend be = GPU_BACKEND_HOST;
  const gpu_status s = check_backward(fn, a, h, dh, da, db, n, t, flags, GPU_REVERSE, &be);
  if (s != GPU_OK || n == 0) return s;
  const gp_linrec_shape shape = {GP_LINREC_SINGLE, t, n, n, 1, NULL, h0, (flags & GPU_REVERSE) != 0};
  return run_backward(a, h, dh, da, db, &shape, be);
}

gpu_status gpu_linrec_backward_batch(const void *a, const void *h, const void *dh, void *da, void *db,
                                     size_t len, size_t count, gpu_dtype t, const void *h0, unsigned flags) {
  static const char fn[] = "gpu_linrec_backward_batch";
  size_t n = 0;
  gpu_status s = batch_elements(fn, len, count, &n);
  if (s != GPU_OK) return s;
  const size_t w = gpu_dtype_size(t);
  gpu_backend be = GPU_BACKEND_HOST;
  s = check_backward(fn, a, h, dh, da, db, n, t, flags, GPU_REVERSE | GPU_TIME_MAJOR, &be);
  if (s == GPU_OK) s = check_states(fn, h0, count, "da", da, n, t, be);
  if (s == GPU_OK && h0) s = gp_check_disjoint(fn, "db", db, n * w, "h0", h0, count * w);
  if (s != GPU_OK || n == 0) return s;
  const gp_linrec_shape shape = batch_shape(t, len, count, h0, flags);
  return run_backward(a, h, dh, da, db, &shape, be);
}
