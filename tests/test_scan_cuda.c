/*
 * CUDA-only scan checks: user streams, threads, graph capture and replay,
 * and an n above 2^32.
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan_reference.h"
#include "test_cuda_util.h"
#include "test_util.h"

static void fill_and_reference(uint32_t *h, uint32_t *ref, size_t n, unsigned flags) {
  tu_fill(h, n, GPU_U32, TU_FULL);
  ref_scan(h, ref, n, GPU_U32, GPU_ADD, flags, NULL);
}

/* A scan captured into a graph keeps working when the graph is replayed on new data. */
START_TEST(scan_graph_replay) {
  const size_t n = 3000001;
  uint32_t *in = tu_alloc(n * 4), *out = tu_alloc(n * 4);
  uint32_t *h = tu_xmalloc(n * 4), *ref = tu_xmalloc(n * 4), *got = tu_xmalloc(n * 4);
  tu_graph g;
  tu_graph_begin(&g);
  gpu_status s = gpu_scan(in, out, n, GPU_U32, GPU_ADD, GPU_EXCLUSIVE);
  CUDA_OK(tu_graph_end(&g));
  ck_assert_msg(s == GPU_OK, "captured gpu_scan: %s", gpu_last_error());
  const cudaStream_t stream = g.stream;
  for (int round = 0; round < 3; round++) {
    fill_and_reference(h, ref, n, GPU_EXCLUSIVE);
    CUDA_OK(cudaMemcpyAsync(in, h, n * 4, cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaMemsetAsync(out, 0xA5, n * 4, stream));
    CUDA_OK(cudaGraphLaunch(g.exec, stream));
    CUDA_OK(cudaMemcpyAsync(got, out, n * 4, cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    ck_assert_msg(memcmp(got, ref, n * 4) == 0, "graph replay %d: wrong result", round);
  }
  tu_graph_free(&g);
  tu_free(in);
  tu_free(out);
  free(h);
  free(ref);
  free(got);
}
END_TEST

/* Threads on streams of their own, at the same time. */
typedef struct {
  int failures;
} worker_result;

static void *scan_worker(void *arg) {
  worker_result *r = arg;
  const size_t n = 1 << 21;
  cudaStream_t stream;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    r->failures++;
    return NULL;
  }
  gpu_set_backend(GPU_BACKEND_CUDA);
  gpu_set_stream(stream);
  uint32_t *in = NULL, *out = NULL;
  uint32_t *h = malloc(n * 4), *ref = malloc(n * 4), *got = malloc(n * 4);
  if (gpu_alloc((void **)&in, n * 4) || gpu_alloc((void **)&out, n * 4)) r->failures++;
  for (int round = 0; round < 8 && !r->failures; round++) {
    unsigned flags = round % 2 ? GPU_REVERSE : GPU_INCLUSIVE;
    /* tu_rand is not thread-safe: a simple per-thread generator instead. */
    uint32_t x = (uint32_t)(uintptr_t)r * 2654435761u + (uint32_t)round;
    for (size_t i = 0; i < n; i++) h[i] = (x = x * 1664525u + 1013904223u);
    ref_scan(h, ref, n, GPU_U32, GPU_ADD, flags, NULL);
    if (gpu_upload(in, h, n * 4) || gpu_scan(in, out, n, GPU_U32, GPU_ADD, flags) ||
        gpu_download(got, out, n * 4) || memcmp(got, ref, n * 4))
      r->failures++;
  }
  gpu_free(in);
  gpu_free(out);
  free(h);
  free(ref);
  free(got);
  gpu_set_stream(NULL);
  cudaStreamDestroy(stream);
  return NULL;
}

START_TEST(scan_concurrent_streams) {
  enum { THREADS = 4 };
  pthread_t th[THREADS];
  worker_result res[THREADS];
  memset(res, 0, sizeof res);
  for (int i = 0; i < THREADS; i++) pthread_create(&th[i], NULL, scan_worker, &res[i]);
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < THREADS; i++) ck_assert_msg(res[i].failures == 0, "thread %d: %d failures", i, res[i].failures);
}
END_TEST

/* n = 2^32 + 12345 four-byte elements: contents from a hash of the index,
 * uploaded and checked chunk by chunk so the host needs no copy of it all. */
static uint32_t element(uint64_t i) {
  uint64_t z = i * 0x9e3779b97f4a7c15ull;
  z ^= z >> 29;
  z *= 0xbf58476d1ce4e5b9ull;
  return (uint32_t)(z >> 32);
}

START_TEST(scan_above_2_to_32) {
  if (tu_quick()) return;
  const size_t n = ((size_t)1 << 32) + 12345, chunk = (size_t)1 << 26;
  if (!tu_device_has_memory("scan_above_2_to_32", 2 * n * 4)) return;
  uint32_t *in = tu_alloc(n * 4), *out = tu_alloc(n * 4);
  uint32_t *h = tu_xmalloc(chunk * 4);
  for (size_t lo = 0; lo < n; lo += chunk) {
    size_t m = n - lo < chunk ? n - lo : chunk;
    for (size_t i = 0; i < m; i++) h[i] = element(lo + i);
    tu_upload(in + lo, h, m * 4);
  }
  CUDA_OK(cudaMemset(out, 0xA5, n * 4));
  /* Inclusive forward into out, exclusive reverse in place. */
  ck_assert_msg(gpu_scan(in, out, n, GPU_U32, GPU_ADD, GPU_INCLUSIVE) == GPU_OK, "%s", gpu_last_error());
  uint32_t run = 0;
  for (size_t lo = 0; lo < n; lo += chunk) {
    size_t m = n - lo < chunk ? n - lo : chunk;
    tu_download(h, out + lo, m * 4);
    for (size_t i = 0; i < m; i++) {
      run += element(lo + i);
      if (h[i] != run) ck_abort_msg("inclusive: out[%zu] = %u, expected %u", lo + i, h[i], run);
    }
  }
  uint32_t total = 0;
  ck_assert_int_eq(gpu_reduce(in, n, GPU_U32, GPU_ADD, &total), GPU_OK);
  ck_assert_uint_eq(total, run);
  ck_assert_msg(gpu_scan(in, in, n, GPU_U32, GPU_ADD, GPU_EXCLUSIVE | GPU_REVERSE) == GPU_OK, "%s", gpu_last_error());
  uint32_t after = 0; /* sum of elements after index i */
  for (size_t hi = n; hi > 0;) {
    size_t lo = hi > chunk ? hi - chunk : 0, m = hi - lo;
    tu_download(h, in + lo, m * 4);
    for (size_t i = m; i-- > 0;) {
      if (h[i] != after) ck_abort_msg("exclusive reverse: out[%zu] = %u, expected %u", lo + i, h[i], after);
      after += element(lo + i);
    }
    hi = lo;
  }
  tu_free(in);
  tu_free(out);
  free(h);
}
END_TEST

TCase *scan_cuda_tcase(void) {
  TCase *tc = tu_tcase("cuda");
  tcase_add_test(tc, scan_graph_replay);
  tcase_add_test(tc, scan_concurrent_streams);
  tcase_add_test(tc, scan_above_2_to_32);
  return tc;
}
