/*
 * Every entry point from 8 threads at once (host backend): each thread runs
 * the same rounds of calls on its own arrays and checks every result against
 * what one thread alone computes, while the others share the library's
 * process-wide state (formula cache, kept messages, release hooks, the
 * per-thread backend, stream and last error). Built under ThreadSanitizer by
 * tools/sanitize; in the ordinary build it checks the results.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_ref.h"
#include "test_util.h"

enum { THREADS = 8, N = 300, SEGMENTS = 7 };

typedef struct {
  int id, rounds;
  const char *mm_path;
  char failure[256]; /* empty: passed */
} worker;

#define EXPECT(w, cond, ...)                                         \
  do {                                                               \
    if (!(cond) && !(w)->failure[0]) {                               \
      snprintf((w)->failure, sizeof (w)->failure, __VA_ARGS__);      \
      return;                                                        \
    }                                                                \
  } while (0)

/* scan, reduce, sort, segmented scan and reduce on one array of N int32. */
static void round_of_arrays(worker *w, int round) {
  int32_t h[N], got[N], sorted[N];
  int64_t offsets[SEGMENTS + 1];
  uint8_t heads[N] = {0};
  for (int i = 0; i < N; i++) h[i] = (int32_t)((i * 7919 + w->id * 31 + round) % 97) - 48;
  for (int s = 0; s <= SEGMENTS; s++) offsets[s] = (int64_t)s * N / SEGMENTS;
  for (int s = 0; s < SEGMENTS; s++) heads[offsets[s]] = 1;
  int32_t *in = NULL, *out = NULL, *vals = NULL;
  int64_t *offs = NULL;
  uint8_t *hd = NULL;
  EXPECT(w, gpu_alloc((void **)&in, sizeof h) == GPU_OK && gpu_alloc((void **)&out, sizeof h) == GPU_OK &&
                gpu_alloc((void **)&vals, sizeof h) == GPU_OK && gpu_alloc((void **)&offs, sizeof offsets) == GPU_OK &&
                gpu_alloc((void **)&hd, sizeof heads) == GPU_OK,
         "gpu_alloc: %s", gpu_last_error());
  EXPECT(w, gpu_upload(in, h, sizeof h) == GPU_OK && gpu_upload(offs, offsets, sizeof offsets) == GPU_OK &&
                gpu_upload(hd, heads, sizeof heads) == GPU_OK,
         "gpu_upload: %s", gpu_last_error());
  EXPECT(w, gpu_scan(in, out, N, GPU_I32, GPU_ADD, GPU_EXCLUSIVE) == GPU_OK, "gpu_scan: %s", gpu_last_error());
  gpu_download(got, out, sizeof got);
  int32_t sum = 0;
  for (int i = 0; i < N; i++) {
    EXPECT(w, got[i] == sum, "gpu_scan: element %d", i);
    sum += h[i];
  }
  int32_t total = 0;
  EXPECT(w, gpu_reduce(in, N, GPU_I32, GPU_ADD, &total) == GPU_OK && total == sum, "gpu_reduce");
  EXPECT(w, gpu_segscan_flags(in, out, N, hd, GPU_I32, GPU_ADD, 0) == GPU_OK, "gpu_segscan_flags: %s",
         gpu_last_error());
  int32_t flagged[N];
  gpu_download(flagged, out, sizeof flagged);
  EXPECT(w, gpu_segscan_offsets(in, out, N, offs, SEGMENTS, GPU_I32, GPU_ADD, 0) == GPU_OK,
         "gpu_segscan_offsets: %s", gpu_last_error());
  gpu_download(got, out, sizeof got);
  EXPECT(w, memcmp(got, flagged, sizeof got) == 0, "gpu_segscan_offsets differs from gpu_segscan_flags");
  int32_t per_segment[SEGMENTS];
  EXPECT(w, gpu_segreduce(in, offs, SEGMENTS, out, GPU_I32, GPU_ADD) == GPU_OK, "gpu_segreduce: %s",
         gpu_last_error());
  gpu_download(per_segment, out, sizeof per_segment);
  for (int s = 0; s < SEGMENTS; s++)
    EXPECT(w, per_segment[s] == got[offsets[s + 1] - 1], "gpu_segreduce: segment %d", s);
  EXPECT(w, gpu_upload(vals, h, sizeof h) == GPU_OK, "gpu_upload");
  EXPECT(w, gpu_sort_pairs(in, vals, N, GPU_I32, 4, GPU_ASCENDING) == GPU_OK, "gpu_sort_pairs: %s",
         gpu_last_error());
  EXPECT(w, gpu_sort_keys(vals, N, GPU_I32, GPU_DESCENDING) == GPU_OK, "gpu_sort_keys: %s", gpu_last_error());
  gpu_download(sorted, in, sizeof sorted);
  gpu_download(got, vals, sizeof got);
  for (int i = 1; i < N; i++) EXPECT(w, sorted[i - 1] <= sorted[i] && got[i - 1] >= got[i], "sort order at %d", i);
  gpu_free(in);
  gpu_free(out);
  gpu_free(vals);
  gpu_free(offs);
  gpu_free(hd);
}

/* Every predicate kind, and a formula of this thread's own (a distinct text
 * per round: the cache fills and evicts under the other threads). */
static void round_of_predicates(worker *w, int round) {
  int64_t h[N], got[N];
  uint8_t flags_h[N];
  for (int i = 0; i < N; i++) {
    h[i] = (i * 37 + w->id) % 101;
    flags_h[i] = h[i] > 50;
  }
  int64_t *in = NULL, *out = NULL;
  uint8_t *flags = NULL;
  EXPECT(w, gpu_alloc((void **)&in, sizeof h) == GPU_OK && gpu_alloc((void **)&out, sizeof h) == GPU_OK &&
                gpu_alloc((void **)&flags, sizeof flags_h) == GPU_OK,
         "gpu_alloc");
  gpu_upload(in, h, sizeof h);
  gpu_upload(flags, flags_h, sizeof flags_h);
  const int64_t fifty = 50, lo = 51, hi = 1000;
  char text[64];
  snprintf(text, sizeof text, "x > 50 + 0 * %d", w->id * 100000 + round);
  const gpu_pred preds[] = {gpu_pred_cmp(GPU_I64, GPU_GT, &fifty), gpu_pred_range(GPU_I64, &lo, &hi),
                            gpu_pred_flags(GPU_I64, flags), gpu_pred_expr(GPU_I64, text)};
  int64_t want = 0;
  for (int i = 0; i < N; i++) want += h[i] > 50;
  for (size_t p = 0; p < sizeof preds / sizeof *preds; p++) {
    int64_t kept = gpu_compact(in, N, preds[p], out);
    /* Another thread's gpu_release_cached_memory may have freed the formula
     * (docs/limits.md): the predicate is refused, and made again it works. */
    gpu_pred again = preds[p];
    for (int tries = 0; tries < 100 && kept == -(int64_t)GPU_ERR_INVALID_ARGUMENT &&
                        strstr(gpu_last_error(), "no longer cached");
         tries++) {
      again = gpu_pred_expr(GPU_I64, text);
      kept = gpu_compact(in, N, again, out);
    }
    EXPECT(w, kept == want, "gpu_compact with predicate %zu: %lld, want %lld (%s)", p, (long long)kept,
           (long long)want, gpu_last_error());
    int64_t split = gpu_partition(in, N, again, out);
    for (int tries = 0; tries < 100 && split == -(int64_t)GPU_ERR_INVALID_ARGUMENT &&
                        strstr(gpu_last_error(), "no longer cached");
         tries++)
      split = gpu_partition(in, N, again = gpu_pred_expr(GPU_I64, text), out);
    EXPECT(w, split == want, "gpu_partition with predicate %zu: %s", p, gpu_last_error());
    gpu_download(got, out, sizeof got);
    for (int64_t i = 0; i < N; i++) EXPECT(w, (got[i] > 50) == (i < want), "gpu_partition: element %lld", (long long)i);
  }
  /* A refused formula, its message repeated by gpu_compact. */
  snprintf(text, sizeof text, "x > y%d", w->id * 100000 + round);
  EXPECT(w, gpu_compact(in, N, gpu_pred_expr(GPU_I64, text), out) == -(int64_t)GPU_ERR_INVALID_ARGUMENT &&
                strstr(gpu_last_error(), "column 5"),
         "a refused formula: %s", gpu_last_error());
  gpu_free(in);
  gpu_free(out);
  gpu_free(flags);
}

/* The reader, validation, the product with and without a plan. */
static void round_of_sparse(worker *w) {
  gpu_csr A;
  EXPECT(w, gpu_csr_read_mm(w->mm_path, GPU_F64, w->id % 2 ? GPU_I32 : GPU_I64, &A) == GPU_OK,
         "gpu_csr_read_mm: %s", gpu_last_error());
  EXPECT(w, gpu_csr_validate(&A) == GPU_OK, "gpu_csr_validate: %s", gpu_last_error());
  double x_h[3] = {1, 2, 3}, y_h[3], plan_y[3];
  double *x = NULL, *y = NULL;
  gpu_alloc((void **)&x, sizeof x_h);
  gpu_alloc((void **)&y, sizeof y_h);
  gpu_upload(x, x_h, sizeof x_h);
  EXPECT(w, gpu_spmv(&A, x, y, 1.0, 0.0) == GPU_OK, "gpu_spmv: %s", gpu_last_error());
  gpu_download(y_h, y, sizeof y_h);
  gpu_spmv_plan *plan = NULL;
  EXPECT(w, gpu_spmv_plan_create(&plan, &A) == GPU_OK, "gpu_spmv_plan_create: %s", gpu_last_error());
  EXPECT(w, gpu_spmv_plan_run(plan, x, y, 1.0, 0.0) == GPU_OK, "gpu_spmv_plan_run: %s", gpu_last_error());
  gpu_spmv_plan_destroy(plan);
  gpu_download(plan_y, y, sizeof plan_y);
  /* [[2 0 1] [0 0 0] [4 0 -1]] x [1 2 3] */
  EXPECT(w, y_h[0] == 5 && y_h[1] == 0 && y_h[2] == 1, "gpu_spmv: %g %g %g", y_h[0], y_h[1], y_h[2]);
  EXPECT(w, memcmp(y_h, plan_y, sizeof y_h) == 0, "the plan's product differs");
  gpu_free(x);
  gpu_free(y);
  EXPECT(w, gpu_csr_free(&A) == GPU_OK, "gpu_csr_free");
}

static void *run_worker(void *arg) {
  worker *w = arg;
  if (gpu_set_backend(GPU_BACKEND_HOST) != GPU_OK || gpu_get_backend() != GPU_BACKEND_HOST ||
      gpu_set_stream(NULL) != GPU_OK) {
    snprintf(w->failure, sizeof w->failure, "backend: %s", gpu_last_error());
    return NULL;
  }
  for (int round = 0; round < w->rounds && !w->failure[0]; round++) {
    round_of_arrays(w, round);
    round_of_predicates(w, round);
    round_of_sparse(w);
    if (!w->failure[0] && gpu_synchronize() != GPU_OK) snprintf(w->failure, sizeof w->failure, "gpu_synchronize");
    if (round % 4 == w->id % 4) gpu_release_cached_memory();
    if (!strstr(gpu_status_string(GPU_ERR_PARSE), "PARSE") || !gpu_version()[0] || gpu_dtype_size(GPU_F64) != 8)
      snprintf(w->failure, sizeof w->failure, "status words");
    /* The last error is this thread's own. */
    gpu_csr_validate(NULL);
    if (!strstr(gpu_last_error(), "gpu_csr_validate"))
      snprintf(w->failure, sizeof w->failure, "last error: %s", gpu_last_error());
  }
  return NULL;
}

START_TEST(every_entry_point_from_8_threads) {
  ref_tmp_begin();
  static const char mm[] = "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 2\n3 1 4\n1 3 1\n3 3 -1\n";
  const char *path = ref_tmp_write("threads.mtx", mm, sizeof mm - 1);
  worker workers[THREADS];
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) {
    workers[t] = (worker){.id = t, .rounds = tu_quick() ? 6 : 24, .mm_path = path};
    ck_assert_int_eq(pthread_create(&threads[t], NULL, run_worker, &workers[t]), 0);
  }
  for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
  for (int t = 0; t < THREADS; t++) ck_assert_msg(!workers[t].failure[0], "thread %d: %s", t, workers[t].failure);
  ref_tmp_end();
}
END_TEST

static Suite *threads_suite(void) {
  Suite *s = suite_create("threads");
  TCase *tc = tu_tcase("threads");
  tcase_add_test(tc, every_entry_point_from_8_threads);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_main("threads (host backend)", false, threads_suite); }
