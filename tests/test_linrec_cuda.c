/*
 * CUDA-only linear recurrence checks: n above 2^32 (f32, a pattern that
 * repeats with a period prime to every tile size, checked at sampled
 * positions against the loop in long double started far enough back), and
 * the CUDA backend's results against the host backend's on fresh random
 * inputs, every path of the plan (1000 x 4099 time-major: channel tiles
 * with 16 tiles along time and a partial channel group; 500 x 4100
 * sequence-major: the sequence walk at two blocks an SM, blocks walking
 * several sequences, vector loads and a partial tile in each sequence;
 * 150 x 12000: the walk at one block an SM, a full and a partial tile in
 * each sequence, more sequences than SMs; 2050 channels of 4100 steps,
 * time-major: narrow channel tiles with the chain of states, a partial
 * group; sequence-major, the walk in strands: 64 x 32768 at two blocks an
 * SM, four strands a sequence, vector loads; 20 x 40001 at one block an
 * SM, five strands, scalar loads, a partial tile; 60 x 33000, two strands,
 * vector loads, a partial tile; 17 channels of 5000 steps, time-major:
 * narrow channel tiles of one partial group, scalar loads; 16, 9 and 8
 * channels: half-width tiles, 9 a partial group); batches in
 * strands on three streams at once, each round's bits against the batch
 * run alone; and every batch path and one sequence captured into a CUDA
 * graph, replayed on new data, against the call run directly.
 */
#include <cuda_runtime_api.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linrec_reference.h"
#include "test_cuda_util.h"
#include "test_linrec.h"
#include "test_util.h"

enum { PERIOD = 1000003, WARMUP = 400 };
static const size_t CHUNK = (size_t)1 << 26;

/* Fills n elements of backend memory with table[i % PERIOD]. */
static void fill_periodic(float *dst, size_t n, const float *table, float *buf) {
  for (size_t lo = 0; lo < n; lo += CHUNK) {
    const size_t m = n - lo < CHUNK ? n - lo : CHUNK;
    size_t j = lo % PERIOD;
    for (size_t i = 0; i < m; i++) {
      buf[i] = table[j];
      if (++j == PERIOD) j = 0;
    }
    tu_upload(dst + lo, buf, m * 4);
  }
}

/* h at t, from the loop in long double over the WARMUP steps before it
 * (|a| <= 0.9: what lies further back weighs below 0.9^400); *bound gets
 * docs/linrec.md's bound for the steps walked. */
static long double periodic_h(const float *ta, const float *tb, size_t n, size_t t, bool reverse, long double h0,
                              long double *bound) {
  const size_t steps = reverse ? n - t : t + 1;
  const size_t walk = steps < WARMUP ? steps : WARMUP;
  long double h = walk == steps ? h0 : 0, s = fabsl(h), w = fabsl(h);
  for (size_t k = walk; k-- > 0;) {
    const size_t p = reverse ? t + k : t - k;
    const long double a = ta[p % PERIOD], b = tb[p % PERIOD];
    h = a * h + b;
    w = fabsl(a) * (w + s) + fabsl(b);
    s = fabsl(a) * s + fabsl(b);
  }
  *bound = 4 * (FLT_EPSILON / 2) * w + 1e-12L;
  return h;
}

START_TEST(linrec_n_above_2_to_32) {
  if (tu_quick()) return;
  const size_t n = ((size_t)1 << 32) + 4099;
  if (!tu_device_has_memory("linrec_n_above_2_to_32", 3 * n * 4)) return;
  float *ta = tu_xmalloc(PERIOD * 4), *tb = tu_xmalloc(PERIOD * 4), *buf = tu_xmalloc(CHUNK * 4);
  lr_fill_uniform(ta, PERIOD, GPU_F32, -0.9, 0.9);
  lr_fill_uniform(tb, PERIOD, GPU_F32, -1, 1);
  float *a = tu_alloc(n * 4), *b = tu_alloc(n * 4), *h = tu_alloc(n * 4);
  fill_periodic(a, n, ta, buf);
  fill_periodic(b, n, tb, buf);
  const size_t edge = (size_t)1 << 32;
  size_t samples[3000], count = 0;
  for (size_t i = 0; i < 500; i++) {
    samples[count++] = i;
    samples[count++] = n - 1 - i;
    samples[count++] = edge - 250 + i;
    samples[count++] = edge - 4096 * (i + 1);   /* tile starts below 2^32 */
  }
  for (size_t i = 0; i < 1000; i++) samples[count++] = tu_below(n);
  for (unsigned flags = 0; flags <= GPU_REVERSE; flags += GPU_REVERSE) {
    const float h0 = 0.5f;
    CUDA_OK(cudaMemset(h, 0xA5, n * 4));
    ck_assert_msg(gpu_linrec(a, b, h, n, GPU_F32, &h0, flags) == GPU_OK, "%s", gpu_last_error());
    for (size_t i = 0; i < count; i++) {
      float got;
      tu_download(&got, h + samples[i], 4);
      long double bound;
      const long double want = periodic_h(ta, tb, n, samples[i], flags, h0, &bound);
      if (!(fabsl(got - want) <= bound))
        ck_abort_msg("flags %u: h[%zu] = %.9g, want %.9Lg (bound %.3Lg)", flags, samples[i], got, want, bound);
    }
  }
  tu_free(a), tu_free(b), tu_free(h);
  free(ta), free(tb), free(buf);
}
END_TEST

/* The same case on the CUDA and on the host backend: both within the bound
 * of the reference, and within twice the bound of each other. */
static void cuda_against_host(const lr_case *c, const char *what) {
  const size_t n = lr_case_n(c), w = gpu_dtype_size(c->t), nseq = c->form == LR_OFFSETS ? c->nseg : c->count;
  void *ha = tu_xmalloc(n * w), *hb = tu_xmalloc(n * w), *hh0 = tu_xmalloc((nseq ? nseq : 1) * w);
  lr_fill_uniform(ha, n, c->t, -1, 1);
  lr_fill_uniform(hb, n, c->t, -1, 1);
  lr_fill_uniform(hh0, nseq ? nseq : 1, c->t, -1, 1);
  void *on_gpu = lr_run(c, ha, hb, c->with_h0 ? hh0 : NULL);
  ck_assert(gpu_set_backend(GPU_BACKEND_HOST) == GPU_OK);
  void *on_host = lr_run(c, ha, hb, c->with_h0 ? hh0 : NULL);
  ck_assert(gpu_set_backend(GPU_BACKEND_CUDA) == GPU_OK);
  long double *ref = tu_xmalloc(n * sizeof *ref), *bound = tu_xmalloc(n * sizeof *bound);
  lr_case_reference(c, ha, hb, c->with_h0 ? hh0 : NULL, ref, bound);
  lr_check(on_gpu, c->t, ref, bound, n, what);
  lr_check(on_host, c->t, ref, bound, n, what);
  for (size_t p = 0; p < n; p++) {
    const long double g = tu_get_f(on_gpu, p, c->t), hst = tu_get_f(on_host, p, c->t);
    if (!(fabsl(g - hst) <= 2 * bound[p])) ck_abort_msg("%s: index %zu: CUDA %.17Lg, host %.17Lg", what, p, g, hst);
  }
  free(ha), free(hb), free(hh0), free(on_gpu), free(on_host), free(ref), free(bound);
}

START_TEST(linrec_cuda_matches_host) {
  static const size_t shapes[][2] = {{1000003, 1}, {256, 4096}, {4096, 256}, {3, 100000}, {16, 70001},
                                     {100003, 7}, {20000, 64}, {300001, 3}, {1000, 4099}, {8192, 256},
                                     {4100, 500}, {12000, 150}, {4100, 2050}, {32768, 64},
                                     {40001, 20}, {33000, 60}, {5000, 17}, {5000, 16},
                                     {4500, 9},   {4097, 8}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    /* Quick (under the sanitizers): the shapes up to 2^21 elements. */
    if (tu_quick() && shapes[i][0] * shapes[i][1] > ((size_t)1 << 21)) continue;
    for (int ti = 0; ti < 2; ti++)
      for (unsigned flags = 0; flags <= (GPU_REVERSE | GPU_TIME_MAJOR); flags += GPU_REVERSE) {
        const gpu_dtype t = ti ? GPU_F64 : GPU_F32;
        const lr_case c = {LR_BATCH, t, shapes[i][0], shapes[i][1], NULL, 0, flags, (i + flags) % 2 == 1, false};
        cuda_against_host(&c, "CUDA against host, batch");
      }
  }
  const size_t nseg = 5000;
  int64_t *offsets = tu_xmalloc((nseg + 1) * sizeof(int64_t));
  offsets[0] = 0;
  for (size_t s = 1; s <= nseg; s++) offsets[s] = offsets[s - 1] + (int64_t)(tu_below(4) ? tu_below(300) : 0);
  for (unsigned flags = 0; flags <= GPU_REVERSE; flags += GPU_REVERSE) {
    const lr_case c = {LR_OFFSETS, GPU_F32, 0, 0, offsets, nseg, flags, true, false};
    cuda_against_host(&c, "CUDA against host, offsets");
  }
  free(offsets);
}
END_TEST

/* Strands beside each other: each thread runs one batch that the walk in
 * strands takes, on its own stream, ROUNDS times, while the others run
 * theirs; every round must give the bits the batch gave alone. Two grids
 * of strands that each fit the device but not together must not wait on
 * each other (the walk's strands spin on their peers: a grid started in
 * part would never end). */
enum { STRAND_THREADS = 3, STRAND_ROUNDS = 4 };
typedef struct {
  lr_case c;
  const float *ha, *hb, *want; /* want: the batch run alone */
  int failures;
  char error[200];
} strand_worker;

static void strand_fail(strand_worker *r, const char *what) {
  snprintf(r->error, sizeof r->error, "%s (%s)", what, gpu_last_error());
  r->failures++;
}

static void *strand_rounds(void *arg) {
  strand_worker *r = arg;
  const size_t n = lr_case_n(&r->c);
  cudaStream_t stream;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    strand_fail(r, "cudaStreamCreateWithFlags");
    return NULL;
  }
  gpu_set_backend(GPU_BACKEND_CUDA);
  gpu_set_stream(stream);
  float *a = NULL, *b = NULL, *h = NULL, *got = malloc(n * 4);
  if (!got || gpu_alloc((void **)&a, n * 4) || gpu_alloc((void **)&b, n * 4) || gpu_alloc((void **)&h, n * 4) ||
      gpu_upload(a, r->ha, n * 4) || gpu_upload(b, r->hb, n * 4))
    strand_fail(r, "set-up");
  for (int round = 0; round < STRAND_ROUNDS && !r->failures; round++) {
    if (cudaMemsetAsync(h, 0xA5, n * 4, stream) != cudaSuccess ||
        gpu_linrec_batch(a, b, h, r->c.len, r->c.count, GPU_F32, NULL, 0) != GPU_OK || gpu_download(got, h, n * 4))
      strand_fail(r, "gpu_linrec_batch");
    else if (memcmp(got, r->want, n * 4) != 0)
      strand_fail(r, "other bits than alone");
  }
  gpu_free(a), gpu_free(b), gpu_free(h);
  free(got);
  gpu_set_stream(NULL);
  cudaStreamDestroy(stream);
  return NULL;
}

START_TEST(linrec_strands_beside_other_streams) {
  /* 64 x 32768: four strands of 512 threads a sequence; 20 x 40001: five
   * or six of 1024 threads; each grid fills most of an H100 alone. */
  static const size_t shapes[STRAND_THREADS][2] = {{32768, 64}, {40001, 20}, {32768, 64}};
  strand_worker w[STRAND_THREADS];
  pthread_t th[STRAND_THREADS];
  for (int i = 0; i < STRAND_THREADS; i++) {
    w[i] = (strand_worker){{LR_BATCH, GPU_F32, shapes[i][0], shapes[i][1], NULL, 0, 0, false, false}, 0, 0, 0, 0, ""};
    const size_t n = lr_case_n(&w[i].c);
    float *ha = tu_xmalloc(n * 4), *hb = tu_xmalloc(n * 4);
    lr_fill_uniform(ha, n, GPU_F32, -1, 1);
    lr_fill_uniform(hb, n, GPU_F32, -1, 1);
    w[i].ha = ha, w[i].hb = hb, w[i].want = lr_run(&w[i].c, ha, hb, NULL);
  }
  for (int i = 0; i < STRAND_THREADS; i++) pthread_create(&th[i], NULL, strand_rounds, &w[i]);
  for (int i = 0; i < STRAND_THREADS; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < STRAND_THREADS; i++) {
    ck_assert_msg(w[i].failures == 0, "thread %d (%zu x %zu): %s", i, w[i].c.count, w[i].c.len, w[i].error);
    free((void *)w[i].ha), free((void *)w[i].hb), free((void *)w[i].want);
  }
}
END_TEST

/* A call captured into a CUDA graph gives, replayed on new data, the bits
 * the same call gives run directly: every batch path (the tile state's
 * counter and words taken at capture, the walk's cooperative launch) and
 * one sequence. gpu_linrec_offsets reads its offsets back to check them,
 * which waits for the stream, so it cannot be captured (docs/linrec.md). */
static void check_graph_replay(const lr_case *c, const char *what) {
  const size_t n = lr_case_n(c);
  float *ha = tu_xmalloc(n * 4), *hb = tu_xmalloc(n * 4), *got = tu_xmalloc(n * 4);
  float *a = tu_alloc(n * 4), *b = tu_alloc(n * 4), *h = tu_alloc(n * 4);
  tu_graph g;
  tu_graph_begin(&g);
  const gpu_status st = lr_call(c, a, b, h, NULL, NULL, NULL);
  char call_error[300] = "GPU_OK";
  if (st != GPU_OK) snprintf(call_error, sizeof call_error, "%s", gpu_last_error());
  const cudaError_t end = tu_graph_end(&g);
  ck_assert_msg(st == GPU_OK && end == cudaSuccess, "%s: the captured call: %s; the end of the capture: %s", what,
                call_error, cudaGetErrorString(end));
  for (int round = 0; round < 2; round++) {
    lr_fill_uniform(ha, n, GPU_F32, -1, 1);
    lr_fill_uniform(hb, n, GPU_F32, -1, 1);
    float *want = lr_run(c, ha, hb, NULL);
    tu_upload(a, ha, n * 4);
    tu_upload(b, hb, n * 4);
    tu_poison(h, n * 4);
    CUDA_OK(cudaGraphLaunch(g.exec, g.stream));
    CUDA_OK(cudaStreamSynchronize(g.stream));
    tu_download(got, h, n * 4);
    ck_assert_msg(memcmp(got, want, n * 4) == 0, "%s: replay %d: other bits than the direct call", what, round);
    free(want);
  }
  tu_graph_free(&g);
  tu_free(a), tu_free(b), tu_free(h);
  free(ha), free(hb), free(got);
}

START_TEST(linrec_graph_replay) {
  static const struct {
    size_t len, count;
    unsigned flags;
    const char *what;
  } batches[] = {
      {4100, 2050, GPU_TIME_MAJOR, "time-major, narrow tiles, the chain"},
      {5000, 100, GPU_TIME_MAJOR | GPU_REVERSE, "time-major, narrow tiles, the tree, reversed"},
      {300, 1100, GPU_TIME_MAJOR, "time-major, wide tiles"},
      {4100, 12, GPU_TIME_MAJOR, "time-major, half-width tiles"},
      {4100, 500, 0, "sequence-major, the walk"},
      {32768, 64, 0, "sequence-major, the walk in strands"},
      {5000, 30, GPU_REVERSE, "sequence-major, sequence tiles, reversed"},
      {300, 700, 0, "sequence-major, look-back over start flags"},
  };
  for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++) {
    const lr_case c = {LR_BATCH, GPU_F32, batches[i].len, batches[i].count, NULL, 0, batches[i].flags, false, false};
    check_graph_replay(&c, batches[i].what);
  }
  const lr_case one = {LR_SINGLE, GPU_F32, (size_t)3 << 20, 1, NULL, 0, 0, false, false};
  check_graph_replay(&one, "one sequence, pipelined");
}
END_TEST

void linrec_add_cuda_cases(Suite *s) {
  TCase *cuda = tu_tcase("cuda");
  tcase_add_test(cuda, linrec_cuda_matches_host);
  tcase_add_test(cuda, linrec_n_above_2_to_32);
  tcase_add_test(cuda, linrec_strands_beside_other_streams);
  tcase_add_test(cuda, linrec_graph_replay);
  suite_add_tcase(s, cuda);
}
