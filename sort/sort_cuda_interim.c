/*
 * The CUDA backend's sort before its radix-sort kernels (issue 4), kept for
 * comparison (GPUPRIM_SORT_ALGO=interim): the keys (and values) go to the
 * host, the host radix sort orders them, and they come back. Correct and
 * stable, the same results as the host backend, but bound by the PCIe copies.
 */
#include <stdlib.h>

#include "sort_cuda.h"
#include "sort_host.h"

gpu_status gp_sort_cuda_interim(void *keys, void *values, size_t n, gpu_dtype key_t,
                                size_t value_bytes, unsigned flags) {
  const char *fn = values ? "gpu_sort_pairs" : "gpu_sort_keys";
  const size_t kb = n * gpu_dtype_size(key_t), vb = values ? n * value_bytes : 0;
  void *hk = malloc(kb ? kb : 1), *hv = vb ? malloc(vb) : NULL;
  gpu_status s = GPU_OK;
  if (!hk || (vb && !hv))
    s = gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %zu bytes of host memory for the interim host sort", fn, kb + vb);
  if (s == GPU_OK) s = gpu_download(hk, keys, kb);
  if (s == GPU_OK && vb) s = gpu_download(hv, values, vb);
  if (s == GPU_OK) s = gp_sort_host(hk, hv, n, key_t, values ? value_bytes : 0, flags);
  /* Values first: if the keys' upload failed, the caller's keys are unchanged. */
  if (s == GPU_OK && vb) s = gpu_upload(values, hv, vb);
  if (s == GPU_OK) s = gpu_upload(keys, hk, kb);
  free(hk);
  free(hv);
  return s;
}
