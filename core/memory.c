/* gpu_alloc/free/upload/download for both backends, and array argument checks. */
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#if GPUPRIM_HAVE_CUDA
#  include <cuda_runtime_api.h>
#  include "cuda_memory.h"
#endif

/* Host allocations are 64-byte aligned: whole cache lines, any vector width. */
enum { HOST_ALIGNMENT = 64 };

gpu_status gpu_alloc(void **p, size_t bytes) {
  static const char fn[] = "gpu_alloc";
  if (!p) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: p is NULL", fn);
  gpu_backend b;
  gpu_status s = gp_backend(fn, &b);
  if (s != GPU_OK) return s;
  *p = NULL;
  if (bytes == 0) return GPU_OK;
  if (b == GPU_BACKEND_HOST) {
    void *q = NULL;
    /* No object can exceed PTRDIFF_MAX; do not even ask for more. */
    if (bytes > PTRDIFF_MAX || posix_memalign(&q, HOST_ALIGNMENT, bytes) != 0)
      return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %zu bytes of host memory", fn, bytes);
    *p = q;
    return GPU_OK;
  }
#if GPUPRIM_HAVE_CUDA
  return gp_cuda_status(cudaMalloc(p, bytes), fn, "cudaMalloc");
#else
  return GPU_ERR_NO_DEVICE;
#endif
}

gpu_status gpu_free(void *p) {
  static const char fn[] = "gpu_free";
  if (!p) return GPU_OK;
  gpu_backend b;
  gpu_status s = gp_backend(fn, &b);
  if (s != GPU_OK) return s;
  if (b == GPU_BACKEND_HOST) {
    free(p);
    return GPU_OK;
  }
#if GPUPRIM_HAVE_CUDA
  return gp_cuda_status(cudaFree(p), fn, "cudaFree");
#else
  return GPU_ERR_NO_DEVICE;
#endif
}

/* One copy between host memory and the backend's memory, ordered on the
 * thread's stream and finished before returning (the caller may reuse or read
 * its host buffer at once). */
static gpu_status copy(const char *fn, void *dst, const void *src, size_t bytes, bool upload) {
  if (bytes > 0 && (!dst || !src))
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: %s is NULL with %zu bytes", fn,
                   !dst ? (upload ? "dst" : "host_dst") : (upload ? "host_src" : "src"), bytes);
  /* No object holds more than PTRDIFF_MAX bytes, and neither range may wrap
   * past the end of the address space: refused here, before any copy or CUDA
   * call sees the count. */
  if (bytes > PTRDIFF_MAX || (uintptr_t)dst > UINTPTR_MAX - bytes || (uintptr_t)src > UINTPTR_MAX - bytes)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: bytes = %zu is more than any array holds", fn, bytes);
  gpu_backend b;
  gpu_status s = gp_backend(fn, &b);
  if (s != GPU_OK || bytes == 0) return s;
  const void *dev = upload ? dst : src;
  s = gp_check_array(fn, upload ? "dst" : "src", dev, bytes, 1, b);
  if (s != GPU_OK) return s;
  if (b == GPU_BACKEND_HOST) {
    memmove(dst, src, bytes);
    return GPU_OK;
  }
#if GPUPRIM_HAVE_CUDA
  cudaStream_t stream = (cudaStream_t)gp_stream();
  s = gp_cuda_status(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream), fn,
                     "cudaMemcpyAsync");
  if (s != GPU_OK) return s;
  return gp_cuda_status(cudaStreamSynchronize(stream), fn, "cudaStreamSynchronize");
#else
  return GPU_ERR_NO_DEVICE;
#endif
}

gpu_status gpu_upload(void *dst, const void *host_src, size_t bytes) {
  return copy("gpu_upload", dst, host_src, bytes, true);
}

gpu_status gpu_download(void *host_dst, const void *src, size_t bytes) {
  return copy("gpu_download", host_dst, src, bytes, false);
}

enum { MAX_RELEASE_HOOKS = 8 };
static void (*release_hooks[MAX_RELEASE_HOOKS])(void);
static int n_release_hooks;
static pthread_mutex_t release_hooks_lock = PTHREAD_MUTEX_INITIALIZER;

void gp_on_release_cached(void (*release)(void)) {
  pthread_mutex_lock(&release_hooks_lock);
  bool known = false;
  for (int i = 0; i < n_release_hooks; i++) known |= release_hooks[i] == release;
  if (!known && n_release_hooks < MAX_RELEASE_HOOKS) release_hooks[n_release_hooks++] = release;
  pthread_mutex_unlock(&release_hooks_lock);
}

gpu_status gpu_release_cached_memory(void) {
  pthread_mutex_lock(&release_hooks_lock);
  int hooks = n_release_hooks;
  pthread_mutex_unlock(&release_hooks_lock);
  for (int i = 0; i < hooks; i++) release_hooks[i](); /* set once, never changed */
#if GPUPRIM_HAVE_CUDA
  if (gp_cuda_available()) return gp_cuda_release_cached("gpu_release_cached_memory");
#endif
  return GPU_OK;
}

gpu_status gp_check_array(const char *fn, const char *name, const void *p, size_t n,
                          size_t elem_bytes, gpu_backend b) {
  if (n == 0) return GPU_OK;
  if (!p) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: %s is NULL with n = %zu", fn, name, n);
  if (n > SIZE_MAX / elem_bytes)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: %s: n = %zu elements overflow a size_t", fn,
                   name, n);
  if ((uintptr_t)p % elem_bytes != 0)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: %s = %p is not aligned to its %zu-byte elements",
                   fn, name, p, elem_bytes);
#if GPUPRIM_HAVE_CUDA
  if (b == GPU_BACKEND_CUDA) return gp_cuda_check_range(fn, name, p, n * elem_bytes);
#else
  (void)b;
#endif
  return GPU_OK;
}

gpu_status gp_check_same_or_disjoint(const char *fn, const char *a_name, const void *a,
                                     const char *b_name, const void *b, size_t bytes) {
  uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  if (x == y || bytes == 0) return GPU_OK;
  bool overlap = x < y ? y - x < bytes : x - y < bytes;
  if (overlap)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                   "%s: %s and %s overlap without being the same array", fn, a_name, b_name);
  return GPU_OK;
}

bool gp_ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  if (a_bytes == 0 || b_bytes == 0) return false;
  return x <= y ? y - x < a_bytes : x - y < b_bytes;
}

gpu_status gp_check_disjoint(const char *fn, const char *a_name, const void *a, size_t a_bytes,
                             const char *b_name, const void *b, size_t b_bytes) {
  if (gp_ranges_overlap(a, a_bytes, b, b_bytes))
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: %s and %s overlap", fn, a_name, b_name);
  return GPU_OK;
}

/*
 * Host memory only: offsets[0] == 0 and no entry negative or below the one
 * before; with n_known, none beyond n and offsets[nseg] == n. Names the first
 * bad entry. *n_out gets offsets[nseg].
 */
gpu_status gp_check_offsets(const char *fn, const int64_t *offsets, size_t nseg, bool n_known, size_t n,
                            size_t *n_out) {
  if (offsets[0] != 0)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: offsets[0] = %" PRId64 ", must be 0", fn,
                   offsets[0]);
  for (size_t s = 1; s <= nseg; s++) {
    const int64_t v = offsets[s];
    if (v < 0)
      return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: offsets[%zu] = %" PRId64 " is negative", fn,
                     s, v);
    if (v < offsets[s - 1])
      return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                     "%s: offsets[%zu] = %" PRId64 " is below offsets[%zu] = %" PRId64
                     " (offsets must not decrease)",
                     fn, s, v, s - 1, offsets[s - 1]);
    if (n_known && (uint64_t)v > n)
      return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: offsets[%zu] = %" PRId64 " is beyond n = %zu",
                     fn, s, v, n);
  }
  if (n_known && (uint64_t)offsets[nseg] != n)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                   "%s: offsets[nseg] = offsets[%zu] = %" PRId64 ", must equal n = %zu", fn, nseg,
                   offsets[nseg], n);
  *n_out = (size_t)offsets[nseg];
  return GPU_OK;
}
