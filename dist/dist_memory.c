/*
 * Backend memory from dist's side: copies between buffers, single elements,
 * folds of per-rank totals by the library's own gpu_reduce, pinned staging
 * buffers, and what the CUDA runtime tells about GPUs and MPI.
 *
 * gpuprim.h has no device-to-device copy, so the CUDA build copies with the
 * CUDA runtime after waiting for the thread's stream (gpu_synchronize), and
 * waits for the copy before the next library call may read it.
 */
#define _POSIX_C_SOURCE 200809L /* gethostname */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist_internal.h"

#if GPUPRIM_DIST_CUDA
#  include <cuda_runtime_api.h>
#  if __has_include(<mpi-ext.h>)
#    include <mpi-ext.h>
#  endif
#endif

#if GPUPRIM_DIST_CUDA
static gpu_status cuda_status(cudaError_t rc, const char *what) {
  if (rc != cudaSuccess)
    return dist_fail(GPU_ERR_DEVICE, "gpuprim_dist: %s: %s", what, cudaGetErrorString(rc));
  return GPU_OK;
}
#endif

gpu_status dist_copy(gpu_dist_comm *c, void *dst, const void *src, size_t bytes) {
  if (bytes == 0 || dst == src) return GPU_OK;
  if (c->backend == GPU_BACKEND_HOST) {
    memmove(dst, src, bytes);
    return GPU_OK;
  }
#if GPUPRIM_DIST_CUDA
  gpu_status s = dist_lib(gpu_synchronize(), "gpuprim_dist", "gpu_synchronize");
  if (s != GPU_OK) return s;
  s = cuda_status(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
  if (s != GPU_OK) return s;
  return cuda_status(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
#else
  return dist_fail(GPU_ERR_NO_DEVICE, "gpuprim_dist: built without CUDA");
#endif
}

gpu_status dist_get(const void *a, size_t i, size_t elem, uint64_t *bits) {
  *bits = 0;
  return dist_lib(gpu_download(bits, (const char *)a + i * elem, elem), "gpuprim_dist",
                  "gpu_download");
}

gpu_status dist_put(void *a, size_t i, size_t elem, uint64_t bits) {
  return dist_lib(gpu_upload((char *)a + i * elem, &bits, elem), "gpuprim_dist", "gpu_upload");
}

gpu_status dist_get_strided(gpu_dist_comm *c, const void *a, size_t step, size_t count,
                            size_t elem, void *host) {
  if (count == 0) return GPU_OK;
#if GPUPRIM_DIST_CUDA
  /* One 2D copy instead of count round trips, where the pitch is allowed. */
  if (c->backend == GPU_BACKEND_CUDA && step * elem < ((size_t)1 << 31)) {
    gpu_status s = dist_lib(gpu_synchronize(), "gpuprim_dist", "gpu_synchronize");
    if (s != GPU_OK) return s;
    return cuda_status(
        cudaMemcpy2D(host, elem, a, step * elem, elem, count, cudaMemcpyDeviceToHost),
        "cudaMemcpy2D");
  }
#endif
  for (size_t k = 0; k < count; k++) {
    gpu_status s = dist_lib(gpu_download((char *)host + k * elem, (const char *)a + k * step * elem, elem),
                            "gpuprim_dist", "gpu_download");
    if (s != GPU_OK) return s;
  }
  return GPU_OK;
}

gpu_status dist_fold(gpu_dist_comm *c, gpu_dtype t, gpu_op op, const uint64_t *values, int count,
                     uint64_t *result) {
  const size_t elem = gpu_dtype_size(t);
  uint8_t packed[8 * 64];
  *result = 0;
  if (count == 1) {
    *result = values[0];
    return GPU_OK;
  }
  uint8_t *host = (size_t)count <= sizeof packed / 8 ? packed : malloc((size_t)count * 8);
  if (!host) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "gpuprim_dist: host memory");
  for (int k = 0; k < count; k++) memcpy(host + (size_t)k * elem, &values[k], elem);
  gpu_status s = dist_lib(gpu_upload(c->scratch, host, (size_t)count * elem), "gpuprim_dist",
                          "gpu_upload");
  if (s == GPU_OK)
    s = dist_lib(gpu_reduce(c->scratch, (size_t)count, t, op, result), "gpuprim_dist",
                 "gpu_reduce");
  if (host != packed) free(host);
  return s;
}

gpu_status dist_host_alloc_pinned(void **p, size_t bytes) {
  *p = NULL;
  if (bytes == 0) return GPU_OK;
#if GPUPRIM_DIST_CUDA
  if (cudaMallocHost(p, bytes) != cudaSuccess) {
    *p = NULL;
    return dist_fail(GPU_ERR_OUT_OF_MEMORY, "gpuprim_dist: cudaMallocHost of %zu bytes failed",
                     bytes);
  }
  return GPU_OK;
#else
  *p = malloc(bytes);
  return *p ? GPU_OK : dist_fail(GPU_ERR_OUT_OF_MEMORY, "gpuprim_dist: host memory");
#endif
}

void dist_host_free_pinned(void *p) {
  if (!p) return;
#if GPUPRIM_DIST_CUDA
  cudaFreeHost(p);
#else
  free(p);
#endif
}

bool dist_mpi_cuda_aware(void) {
#if GPUPRIM_DIST_CUDA && defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

/* A hash of this rank's GPU (host name and PCI bus id); 0 without one. */
static uint64_t gpu_identity(const gpu_dist_comm *c) {
  if (c->backend != GPU_BACKEND_CUDA) return 0;
  char name[256 + 32] = {0};
  gethostname(name, 256);
#if GPUPRIM_DIST_CUDA
  int device = 0;
  if (cudaGetDevice(&device) == cudaSuccess) {
    size_t used = strlen(name);
    name[used++] = '/';
    cudaDeviceGetPCIBusId(name + used, 31, device);
  }
#endif
  return dist_hash(name, NULL, 0) | 1;
}

gpu_status dist_ranks_own_gpus(gpu_dist_comm *c, bool *own) {
  uint64_t mine = gpu_identity(c), *all = malloc((size_t)c->size * sizeof *all);
  if (!all) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_dist_comm_create: host memory");
  c->traffic.collectives++;
  gpu_status s = dist_mpi(MPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, c->comm),
                          "gpu_dist_comm_create", "MPI_Allgather");
  *own = true;
  for (int r = 0; r < c->size && s == GPU_OK; r++) {
    if (all[r] == 0) *own = false;
    for (int q = 0; q < r; q++)
      if (all[q] == all[r]) *own = false;
  }
  free(all);
  return s;
}
