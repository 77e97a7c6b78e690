/*
 * gpu_segscan_flags, gpu_segscan_offsets and gpu_segreduce: argument checks,
 * then the backend's implementation.
 *
 * Malformed offsets (offsets[0] != 0, a negative or decreasing entry, one
 * beyond n, offsets[nseg] != n) give GPU_ERR_INVALID_ARGUMENT on both
 * backends. The host backend checks them all here, before anything is
 * written, and names the first bad entry; on the CUDA backend they are in
 * device memory, and the kernels clamp them as they read them and report
 * them afterwards (segmented_cuda.h), so no access leaves the arrays.
 *
 * Nothing is read that is not needed: with n == 0 a segmented scan does
 * nothing (offsets may then be NULL), and with nseg == 0 gpu_segreduce does
 * nothing (offsets and in may be NULL).
 */
#include <inttypes.h>

#include "core/core.h"
#include "segmented_host.h"

#if GPUPRIM_HAVE_CUDA
#  include "segmented_cuda.h"
#endif

/* What both scans check: type, operator, flags, backend, in and out. */
static gpu_status check_scan(const char *fn, const void *in, void *out, size_t n, gpu_dtype t,
                             gpu_op op, unsigned flags, gpu_backend *b) {
  gpu_status s = gp_check_dtype_op(fn, t, op);
  if (s == GPU_OK) s = gp_check_flags(fn, flags, GPU_EXCLUSIVE | GPU_REVERSE);
  if (s == GPU_OK) s = gp_backend(fn, b);
  const size_t w = gpu_dtype_size(t);
  if (s == GPU_OK) s = gp_check_array(fn, "in", in, n, w, *b);
  if (s == GPU_OK) s = gp_check_array(fn, "out", out, n, w, *b);
  if (s == GPU_OK) s = gp_check_same_or_disjoint(fn, "in", in, "out", out, n * w);
  return s;
}

/* nseg + 1 offsets must be countable in bytes. */
static gpu_status check_nseg(const char *fn, size_t nseg) {
  if (nseg >= SIZE_MAX / sizeof(int64_t))
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: nseg = %zu is too large", fn, nseg);
  return GPU_OK;
}

gpu_status gpu_segscan_flags(const void *in, void *out, size_t n, const uint8_t *heads,
                             gpu_dtype t, gpu_op op, unsigned flags) {
  static const char fn[] = "gpu_segscan_flags";
  gpu_backend b = GPU_BACKEND_HOST;
  gpu_status s = check_scan(fn, in, out, n, t, op, flags, &b);
  if (s == GPU_OK) s = gp_check_array(fn, "heads", heads, n, 1, b);
  if (s == GPU_OK)
    s = gp_check_disjoint(fn, "out", out, n * gpu_dtype_size(t), "heads", heads, n);
  if (s != GPU_OK || n == 0) return s;
#if GPUPRIM_HAVE_CUDA
  if (b == GPU_BACKEND_CUDA) return gp_segscan_flags_cuda(in, out, n, heads, t, op, flags);
#endif
  return gp_segscan_host(in, out, n, heads, NULL, 0, t, op, flags);
}

gpu_status gpu_segscan_offsets(const void *in, void *out, size_t n, const int64_t *offsets,
                               size_t nseg, gpu_dtype t, gpu_op op, unsigned flags) {
  static const char fn[] = "gpu_segscan_offsets";
  gpu_backend b = GPU_BACKEND_HOST;
  gpu_status s = check_scan(fn, in, out, n, t, op, flags, &b);
  if (s == GPU_OK) s = check_nseg(fn, nseg);
  if (s != GPU_OK || n == 0) return s;
  if (nseg == 0)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                   "%s: nseg = 0 with n = %zu (offsets[0] would have to be both 0 and n)", fn, n);
  s = gp_check_array(fn, "offsets", offsets, nseg + 1, sizeof(int64_t), b);
  if (s == GPU_OK)
    s = gp_check_disjoint(fn, "out", out, n * gpu_dtype_size(t), "offsets", offsets,
                          (nseg + 1) * sizeof(int64_t));
  if (s != GPU_OK) return s;
#if GPUPRIM_HAVE_CUDA
  if (b == GPU_BACKEND_CUDA) return gp_segscan_offsets_cuda(in, out, n, offsets, nseg, t, op, flags);
#endif
  size_t last;
  s = gp_check_offsets(fn, offsets, nseg, true, n, &last);
  if (s != GPU_OK) return s;
  return gp_segscan_host(in, out, n, NULL, offsets, nseg, t, op, flags);
}

gpu_status gpu_segreduce(const void *in, const int64_t *offsets, size_t nseg, void *out,
                         gpu_dtype t, gpu_op op) {
  static const char fn[] = "gpu_segreduce";
  gpu_backend b = GPU_BACKEND_HOST;
  gpu_status s = gp_check_dtype_op(fn, t, op);
  if (s == GPU_OK) s = gp_backend(fn, &b);
  if (s == GPU_OK) s = check_nseg(fn, nseg);
  const size_t w = gpu_dtype_size(t);
  if (s == GPU_OK) s = gp_check_array(fn, "out", out, nseg, w, b);
  if (s != GPU_OK || nseg == 0) return s;
  const size_t offsets_bytes = (nseg + 1) * sizeof(int64_t);
  s = gp_check_array(fn, "offsets", offsets, nseg + 1, sizeof(int64_t), b);
  if (s == GPU_OK) s = gp_check_disjoint(fn, "out", out, nseg * w, "offsets", offsets, offsets_bytes);
  if (s != GPU_OK) return s;
#if GPUPRIM_HAVE_CUDA
  /* n = offsets[nseg] is on the device: in is checked for alignment and
   * reach only (its extent is the kernels' business, segmented_cuda.h). */
  if (b == GPU_BACKEND_CUDA) {
    if (in) s = gp_check_array(fn, "in", in, 1, w, b);
    return s == GPU_OK ? gp_segreduce_cuda(in, offsets, nseg, out, t, op) : s;
  }
#endif
  size_t n = 0;
  s = gp_check_offsets(fn, offsets, nseg, false, 0, &n);
  if (s == GPU_OK) s = gp_check_array(fn, "in", in, n, w, b);
  if (s == GPU_OK) s = gp_check_disjoint(fn, "out", out, nseg * w, "in", in, n * w);
  if (s != GPU_OK) return s;
  return gp_segreduce_host(in, n, offsets, nseg, out, t, op);
}
