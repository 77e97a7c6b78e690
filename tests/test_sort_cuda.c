/*
 * CUDA-only sort checks, added to the CUDA sort suite: sizes around the
 * kernels' tile boundaries, the multi-pass (onesweep) path forced at small
 * n, n cut into portions of a few tiles, graph capture and replay, and an
 * n above 2^32. Sharded (tu_in_shard): the loops by combination, the
 * single tests by a number each.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort/sort_cuda.h"
#include "test_cuda_util.h"
#include "test_sort.h"
#include "test_util.h"

static void default_paths(void) {
  gp_sort_cuda_set_single_block_max(SIZE_MAX);
  gp_sort_cuda_set_portion_tiles(0);
}

/* Every combination at the edges of the single block and of one, two and
 * three onesweep tiles, on the default paths and with the onesweep path
 * forced; the kind of keys rotates. */
START_TEST(tile_boundaries) {
  if (!tu_in_shard((size_t)_i)) return;
  gpu_dtype t;
  size_t vw;
  unsigned flags;
  test_sort_combo(_i, &t, &vw, &flags);
  const size_t tile = gp_sort_cuda_tile_items(t, vw), single = gp_sort_cuda_single_block_items();
  const size_t sizes[] = {single - 1, single,   single + 1, tile - 1, tile,         tile + 1,
                          2 * tile - 1, 2 * tile, 2 * tile + 1, 3 * tile + 17, 5 * tile - 3};
  const size_t count = tu_quick() ? 6 : sizeof sizes / sizeof *sizes;
  for (int forced = 0; forced < 2; forced++) {
    gp_sort_cuda_set_single_block_max(forced ? 0 : SIZE_MAX);
    for (size_t s = 0; s < count; s++)
      test_sort_check(t, vw, flags, (int)((s + (size_t)_i + (size_t)forced) % TEST_SORT_KINDS), sizes[s]);
  }
}
END_TEST

/* The onesweep path at small n: every kind (all passes skipped, an odd
 * number of passes, passes skipped in between) for every combination. */
START_TEST(onesweep_small_sizes) {
  if (!tu_in_shard((size_t)_i)) return;
  gpu_dtype t;
  size_t vw;
  unsigned flags;
  test_sort_combo(_i, &t, &vw, &flags);
  static const size_t sizes[] = {1, 2, 31, 33, 257, 1000, 4097};
  const size_t count = tu_quick() ? 4 : sizeof sizes / sizeof *sizes;
  gp_sort_cuda_set_single_block_max(0);
  for (int k = 0; k < TEST_SORT_KINDS; k++)
    for (size_t s = 0; s < count; s++) test_sort_check(t, vw, flags, k, sizes[s]);
}
END_TEST

/* Portions of one or two tiles: every pass is several launches, each
 * handing the next its bucket starts, with look-back regions alternating
 * and copy launches done portion by portion. Quick: two of the sizes (a
 * tile past two, and a partial tile past five) and a third of the kinds. */
START_TEST(portions) {
  if (!tu_in_shard((size_t)_i)) return;
  gpu_dtype t;
  size_t vw;
  unsigned flags;
  test_sort_combo(_i, &t, &vw, &flags);
  const size_t tile = gp_sort_cuda_tile_items(t, vw);
  const size_t sizes[] = {2 * tile + 1, 4 * tile, 5 * tile + 123, 9 * tile - 1};
  gp_sort_cuda_set_single_block_max(0);
  for (uint32_t per = 1; per <= 2; per++) {
    gp_sort_cuda_set_portion_tiles(per);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s += tu_quick() ? 2 : 1)
      for (int k = 0; k < TEST_SORT_KINDS; k += tu_quick() ? 3 : 1)
        if ((k + (int)s) % 2 == (int)per % 2 || k == TEST_SORT_SMALL || k == TEST_SORT_EQUAL ||
            k == TEST_SORT_SPARSE)
          test_sort_check(t, vw, flags, k, sizes[s]);
  }
}
END_TEST

/* A sort captured into a graph sorts new data on every replay. */
START_TEST(graph_replay) {
  if (!tu_in_shard(0)) return;
  const size_t n = 300007;
  uint32_t *keys = tu_alloc(n * 4), *values = tu_alloc(n * 4);
  uint32_t *hk = tu_xmalloc(n * 4), *hv = tu_xmalloc(n * 4), *gk = tu_xmalloc(n * 4), *gv = tu_xmalloc(n * 4);
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  gpu_set_stream(stream);
  /* One sort before the capture: one-time set-up stays outside the graph. */
  ck_assert_int_eq(gpu_sort_pairs(keys, values, n, GPU_U32, 4, GPU_DESCENDING), GPU_OK);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  gpu_status s = gpu_sort_pairs(keys, values, n, GPU_U32, 4, GPU_DESCENDING);
  CUDA_OK(cudaStreamEndCapture(stream, &graph));
  ck_assert_msg(s == GPU_OK, "captured gpu_sort_pairs: %s", gpu_last_error());
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 3; round++) {
    /* Keys from 1000 values, so that ties test stability; values = index. */
    for (size_t i = 0; i < n; i++) {
      hk[i] = (uint32_t)tu_below(1000) * 2654435761u;
      hv[i] = (uint32_t)i;
    }
    CUDA_OK(cudaMemcpyAsync(keys, hk, n * 4, cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaMemcpyAsync(values, hv, n * 4, cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaGraphLaunch(exec, stream));
    CUDA_OK(cudaMemcpyAsync(gk, keys, n * 4, cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaMemcpyAsync(gv, values, n * 4, cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    for (size_t i = 0; i < n; i++) {
      const uint32_t from = gv[i];
      ck_assert_msg(from < n && gk[i] == hk[from], "round %d: slot %zu holds key %u from %u", round, i, gk[i], from);
      if (i > 0) {
        const bool ordered = gk[i - 1] > gk[i] || (gk[i - 1] == gk[i] && gv[i - 1] < from);
        ck_assert_msg(ordered, "round %d: slots %zu, %zu out of order or unstable", round, i - 1, i);
      }
    }
  }
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  gpu_set_stream(NULL);
  CUDA_OK(cudaStreamDestroy(stream));
  tu_free(keys);
  tu_free(values);
  free(hk);
  free(hv);
  free(gk);
  free(gv);
}
END_TEST

/* Memory the CUDA backend cannot use: refused, nothing written. */
START_TEST(cuda_bad_memory) {
  if (!tu_in_shard(1)) return;
  enum { N = 64 };
  uint32_t host[N], back[N], original[N];
  for (int i = 0; i < N; i++) original[i] = host[i] = (uint32_t)tu_rand();
  uint32_t *keys = tu_alloc(N * 4), *values = tu_alloc(N * 4);
  tu_upload(keys, original, sizeof original);
  tu_upload(values, original, sizeof original);
  ck_assert_int_eq(gpu_sort_keys(host, N, GPU_U32, GPU_ASCENDING), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_sort_pairs(keys, host, N, GPU_U32, 4, GPU_ASCENDING), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_sort_keys(keys, N + 1, GPU_U32, GPU_DESCENDING), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(gpu_last_error(), "past the end"));
  ck_assert_int_eq(gpu_sort_pairs(keys, values + 1, N, GPU_U32, 4, GPU_ASCENDING), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_sort_pairs(keys, values, N / 2 + 1, GPU_U32, 8, GPU_ASCENDING), GPU_ERR_INVALID_ARGUMENT);
  ck_assert(memcmp(host, original, sizeof host) == 0);
  tu_download(back, keys, sizeof back);
  ck_assert(memcmp(back, original, sizeof back) == 0);
  tu_download(back, values, sizeof back);
  ck_assert(memcmp(back, original, sizeof back) == 0);
  tu_free(keys);
  tu_free(values);
}
END_TEST

/* ---------------------------------------------------------- n > 2^32 */

/* A bijection of 32-bit words (MurmurHash3's finaliser). Key i is
 * mix(i mod 2^32), so keys 0 .. 2^32-1 are every 32-bit value once and the
 * rest repeat the first few: the sorted array is known without sorting. */
static uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

static int compare_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* The expected sorted sequence, ascending, one value at a time: every value
 * once, the repeated ones (sorted in `extra`) twice. */
typedef struct {
  uint64_t value; /* next value, 0 .. 2^32 */
  size_t next_extra;
  bool repeat;
} expected_walk;

static uint32_t next_expected(expected_walk *w, const uint32_t *extra, size_t n_extra) {
  if (w->repeat) {
    w->repeat = false;
    return (uint32_t)(w->value++);
  }
  uint32_t v = (uint32_t)w->value;
  if (w->next_extra < n_extra && extra[w->next_extra] == v) {
    w->next_extra++;
    w->repeat = true;
  } else {
    w->value++;
  }
  return v;
}

START_TEST(sort_above_2_to_32) {
  if (tu_quick() || !tu_in_shard(2)) return;
  const size_t n_extra = 123457, n = ((size_t)1 << 32) + n_extra, chunk = (size_t)1 << 26;
  if (!tu_device_has_memory("sort_above_2_to_32", 2 * n * 4)) return;
  uint32_t *keys = tu_alloc(n * 4), *h = tu_xmalloc(chunk * 4), *extra = tu_xmalloc(n_extra * 4);
  for (size_t i = 0; i < n_extra; i++) extra[i] = mix((uint32_t)i);
  qsort(extra, n_extra, 4, compare_u32);
  for (size_t lo = 0; lo < n; lo += chunk) {
    const size_t m = n - lo < chunk ? n - lo : chunk;
    for (size_t i = 0; i < m; i++) h[i] = mix((uint32_t)(lo + i));
    tu_upload(keys + lo, h, m * 4);
  }
  ck_assert_msg(gpu_sort_keys(keys, n, GPU_U32, GPU_ASCENDING) == GPU_OK, "%s", gpu_last_error());
  expected_walk w = {0, 0, false};
  for (size_t lo = 0; lo < n; lo += chunk) {
    const size_t m = n - lo < chunk ? n - lo : chunk;
    tu_download(h, keys + lo, m * 4);
    for (size_t i = 0; i < m; i++) {
      const uint32_t want = next_expected(&w, extra, n_extra);
      if (h[i] != want) ck_abort_msg("ascending: keys[%zu] = %u, want %u", lo + i, h[i], want);
    }
  }
  /* Descending, from the sorted array: the same sequence backwards. */
  ck_assert_msg(gpu_sort_keys(keys, n, GPU_U32, GPU_DESCENDING) == GPU_OK, "%s", gpu_last_error());
  w = (expected_walk){0, 0, false};
  for (size_t hi = n; hi > 0;) {
    const size_t lo = hi > chunk ? hi - chunk : 0, m = hi - lo;
    tu_download(h, keys + lo, m * 4);
    for (size_t i = m; i-- > 0;) {
      const uint32_t want = next_expected(&w, extra, n_extra);
      if (h[i] != want) ck_abort_msg("descending: keys[%zu] = %u, want %u", lo + i, h[i], want);
    }
    hi = lo;
  }
  tu_free(keys);
  free(h);
  free(extra);
}
END_TEST

TCase *test_sort_cuda_tcase(void) {
  TCase *tc = tu_tcase("cuda");
  /* Default paths before and after each test, even one that failed half-way. */
  tcase_add_checked_fixture(tc, default_paths, default_paths);
  tcase_add_loop_test(tc, tile_boundaries, 0, TEST_SORT_COMBOS);
  tcase_add_loop_test(tc, onesweep_small_sizes, 0, TEST_SORT_COMBOS);
  tcase_add_loop_test(tc, portions, 0, TEST_SORT_COMBOS);
  tcase_add_test(tc, graph_replay);
  tcase_add_test(tc, cuda_bad_memory);
  tcase_add_test(tc, sort_above_2_to_32);
  return tc;
}
