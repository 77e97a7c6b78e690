/*
 * Linear recurrences: argument checks (statuses, nothing written, inputs
 * unchanged) and the backward pass (against finite differences in f64 and
 * against the forward pass on shifted data in the opposite direction, one
 * sequence and batches).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linrec_reference.h"
#include "test_linrec.h"
#include "test_util.h"

#ifndef TU_CUDA
#  define TU_CUDA 0
#endif

enum { ARG_N = 1000 };

/* Backend arrays of ARG_N f32 for the argument checks: a, b, and out
 * (poisoned), with host copies of what they held. */
typedef struct {
  float *a, *b, *out;
  float ha[ARG_N], hb[ARG_N];
  unsigned char poison[ARG_N * 4];
} arg_arrays;

static void args_setup(arg_arrays *x) {
  x->a = tu_alloc(3 * ARG_N * 4);
  x->b = x->a + ARG_N;
  x->out = x->b + ARG_N;
  lr_fill_uniform(x->ha, ARG_N, GPU_F32, -1, 1);
  lr_fill_uniform(x->hb, ARG_N, GPU_F32, -1, 1);
  tu_upload(x->a, x->ha, sizeof x->ha);
  tu_upload(x->b, x->hb, sizeof x->hb);
  tu_poison(x->out, ARG_N * 4);
  tu_download(x->poison, x->out, sizeof x->poison);
}

/* The refused call left everything as it was. */
static void args_unchanged(const arg_arrays *x, const char *what) {
  float back[ARG_N];
  tu_download(back, x->a, sizeof back);
  ck_assert_msg(memcmp(back, x->ha, sizeof back) == 0, "%s: a changed", what);
  tu_download(back, x->b, sizeof back);
  ck_assert_msg(memcmp(back, x->hb, sizeof back) == 0, "%s: b changed", what);
  tu_download(back, x->out, sizeof back);
  ck_assert_msg(memcmp(back, x->poison, sizeof back) == 0, "%s: out written", what);
}

#define EXPECT(call, status)                                                                      \
  do {                                                                                            \
    const gpu_status got_ = (call);                                                               \
    ck_assert_msg(got_ == (status), "%s: %s, want %s (%s)", #call, gpu_status_string(got_),       \
                  gpu_status_string(status), gpu_last_error());                                   \
    args_unchanged(&x, #call);                                                                    \
  } while (0)

START_TEST(linrec_bad_arguments) {
  arg_arrays x;
  args_setup(&x);
  const float h0 = 0.5f;
  EXPECT(gpu_linrec(NULL, x.b, x.out, ARG_N, GPU_F32, &h0, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec(x.a, NULL, x.out, ARG_N, GPU_F32, &h0, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec(x.a, x.b, NULL, ARG_N, GPU_F32, &h0, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec(x.a, x.b, x.out, ARG_N, GPU_I32, &h0, 0), GPU_ERR_UNSUPPORTED);
  EXPECT(gpu_linrec(x.a, x.b, x.out, ARG_N, (gpu_dtype)42, &h0, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec(x.a, x.b, x.out, ARG_N, GPU_F32, &h0, GPU_EXCLUSIVE), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec(x.a, x.b, x.out, ARG_N, GPU_F32, &h0, GPU_TIME_MAJOR), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec(x.a, x.b, x.out, ARG_N, GPU_F32, &h0, 1u << 7), GPU_ERR_INVALID_ARGUMENT);
  /* h overlapping a (h == a included) or overlapping b without being b. */
  EXPECT(gpu_linrec(x.out, x.b, x.out, ARG_N, GPU_F32, &h0, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec(x.out + 1, x.b, x.out, ARG_N - 1, GPU_F32, &h0, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec(x.a, x.out + 3, x.out, ARG_N - 3, GPU_F32, &h0, 0), GPU_ERR_INVALID_ARGUMENT);
  /* Misaligned. */
  EXPECT(gpu_linrec(x.a, x.b, (char *)x.out + 2, 10, GPU_F32, &h0, 0), GPU_ERR_INVALID_ARGUMENT);
  /* Batch: flags, overflow, initial states overlapping h. */
  EXPECT(gpu_linrec_batch(x.a, x.b, x.out, 10, 100, GPU_F32, NULL, GPU_EXCLUSIVE), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_batch(x.a, x.b, x.out, SIZE_MAX / 2, 3, GPU_F32, NULL, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_batch(x.a, x.b, x.out, 10, 90, GPU_F32, x.out + 850, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_batch(x.a, x.b, x.out, 10, 100, GPU_U64, NULL, 0), GPU_ERR_UNSUPPORTED);
  tu_free(x.a);
}
END_TEST

START_TEST(linrec_bad_offsets) {
  arg_arrays x;
  args_setup(&x);
  int64_t *offsets = tu_alloc(4 * sizeof(int64_t));
  const int64_t bad_first[4] = {1, 10, 20, 30}, decreasing[4] = {0, 20, 10, 30}, good[4] = {0, 10, 10, 30};
  tu_upload(offsets, bad_first, sizeof bad_first);
  EXPECT(gpu_linrec_offsets(x.a, x.b, x.out, offsets, 3, GPU_F32, NULL, 0), GPU_ERR_INVALID_ARGUMENT);
  tu_upload(offsets, decreasing, sizeof decreasing);
  EXPECT(gpu_linrec_offsets(x.a, x.b, x.out, offsets, 3, GPU_F32, NULL, 0), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(gpu_last_error(), "offsets[2]") != NULL, "%s", gpu_last_error());
  tu_upload(offsets, good, sizeof good);
  EXPECT(gpu_linrec_offsets(x.a, x.b, x.out, NULL, 3, GPU_F32, NULL, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_offsets(x.a, x.b, x.out, offsets, 3, GPU_F32, NULL, GPU_TIME_MAJOR),
         GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_offsets(x.a, x.b, x.out, offsets, 3, GPU_F32, x.out + 28, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_offsets(x.a, x.b, x.out, offsets, 3, GPU_I64, NULL, 0), GPU_ERR_UNSUPPORTED);
  tu_free(offsets);
  tu_free(x.a);
}
END_TEST

START_TEST(linrec_backward_bad_arguments) {
  arg_arrays x;
  args_setup(&x);
  float *more = tu_alloc(2 * ARG_N * 4), *dh = more, *db = more + ARG_N;
  tu_upload(dh, x.hb, sizeof x.hb);
  tu_poison(db, ARG_N * 4);
  const size_t n = ARG_N;
  /* x.out is da throughout; a and b stand for a and h. */
  EXPECT(gpu_linrec_backward(x.a, x.b, dh, x.out, x.out, n, GPU_F32, NULL, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_backward(x.a, x.b, dh, x.out, x.a, n, GPU_F32, NULL, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_backward(x.a, x.b, dh, x.out, x.b, n, GPU_F32, NULL, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_backward(x.a, x.b, x.out, x.out, db, n, GPU_F32, NULL, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_backward(x.a, x.b, dh, x.out, dh + 1, n - 1, GPU_F32, NULL, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_backward(NULL, x.b, dh, x.out, db, n, GPU_F32, NULL, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_backward(x.a, x.b, dh, x.out, db, n, GPU_F32, NULL, GPU_EXCLUSIVE), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_backward(x.a, x.b, dh, x.out, db, n, GPU_I32, NULL, 0), GPU_ERR_UNSUPPORTED);
  /* The batch: 10 sequences of 100; h0 must not overlap da or db. */
  EXPECT(gpu_linrec_backward_batch(x.a, x.b, dh, x.out, db, 100, 10, GPU_F32, x.out + 5, 0),
         GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_backward_batch(x.a, x.b, dh, x.out, db, 100, 10, GPU_F32, db + 990, 0),
         GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_backward_batch(x.a, x.b, dh, x.out, db, SIZE_MAX / 2, 3, GPU_F32, NULL, 0),
         GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_backward_batch(x.a, x.b, dh, x.out, x.out, 100, 10, GPU_F32, NULL, 0),
         GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_backward_batch(x.a, x.b, dh, x.out, db, 100, 10, GPU_F32, NULL, GPU_EXCLUSIVE),
         GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_backward_batch(x.a, x.b, dh, x.out, db, 100, 10, GPU_U64, NULL, 0), GPU_ERR_UNSUPPORTED);
  EXPECT(gpu_linrec_backward_batch(x.a, x.b, dh, NULL, db, 100, 10, GPU_F32, NULL, 0), GPU_ERR_INVALID_ARGUMENT);
  EXPECT(gpu_linrec_backward_batch(x.a, x.b, dh, x.out, db, 100, 10, (gpu_dtype)99, NULL, 0),
         GPU_ERR_INVALID_ARGUMENT);
  /* No refused call wrote db or dh. */
  float back[ARG_N];
  tu_download(back, dh, sizeof back);
  ck_assert_msg(memcmp(back, x.hb, sizeof back) == 0, "dh changed");
  tu_download(back, db, sizeof back);
  ck_assert_msg(memcmp(back, x.poison, sizeof back) == 0, "db written");
  tu_free(more);
  tu_free(x.a);
}
END_TEST

/* L = sum dh[t] h[t] in long double, with a[j] moved by delta. */
static long double loss(const double *a, const double *b, const double *dh, size_t n, double h0,
                        bool reverse, size_t j, long double delta) {
  long double h = h0, sum = 0;
  for (size_t i = 0; i < n; i++) {
    const size_t t = reverse ? n - 1 - i : i;
    h = ((long double)a[t] + (t == j ? delta : 0)) * h + b[t];
    sum += dh[t] * h;
  }
  return sum;
}

/* Backward on the backend: returns da and db in new host arrays; h from a
 * forward call on the backend. */
static void backward_run(const void *ha, const void *hb, const void *hdh, size_t n, gpu_dtype t,
                         const void *h0, unsigned flags, bool in_place, void **da_out, void **db_out,
                         void **h_out) {
  const size_t w = gpu_dtype_size(t);
  void *a = tu_alloc(n * w), *b = tu_alloc(n * w), *h = tu_alloc(n * w), *dh = tu_alloc(n * w);
  void *da = tu_alloc(n * w), *db = in_place ? dh : tu_alloc(n * w);
  tu_upload(a, ha, n * w);
  tu_upload(b, hb, n * w);
  tu_upload(dh, hdh, n * w);
  tu_poison(da, n * w);
  if (!in_place) tu_poison(db, n * w);
  ck_assert_msg(gpu_linrec(a, b, h, n, t, h0, flags) == GPU_OK, "%s", gpu_last_error());
  ck_assert_msg(gpu_linrec_backward(a, h, dh, da, db, n, t, h0, flags) == GPU_OK, "%s", gpu_last_error());
  *da_out = tu_xmalloc(n * w);
  *db_out = tu_xmalloc(n * w);
  *h_out = tu_xmalloc(n * w);
  tu_download(*da_out, da, n * w);
  tu_download(*db_out, db, n * w);
  tu_download(*h_out, h, n * w);
  tu_free(a), tu_free(b), tu_free(h), tu_free(dh), tu_free(da);
  if (!in_place) tu_free(db);
}

/* dL/da and dL/db against central differences of L in long double. */
START_TEST(linrec_backward_finite_differences) {
  const size_t n = 60;
  double a[60], b[60], dh[60];
  for (unsigned flags = 0; flags <= GPU_REVERSE; flags += GPU_REVERSE)
    for (int with_h0 = 0; with_h0 < 2; with_h0++) {
      lr_fill_uniform(a, n, GPU_F64, -0.95, 0.95);
      lr_fill_uniform(b, n, GPU_F64, -1, 1);
      lr_fill_uniform(dh, n, GPU_F64, -1, 1);
      const double h0 = with_h0 ? 0.75 : 0;
      void *da, *db, *h;
      backward_run(a, b, dh, n, GPU_F64, with_h0 ? &h0 : NULL, flags, false, &da, &db, &h);
      const long double delta = 1e-7L;
      for (size_t j = 0; j < n; j++) {
        const long double fd = (loss(a, b, dh, n, h0, flags, j, delta) - loss(a, b, dh, n, h0, flags, j, -delta)) /
                               (2 * delta);
        const double got = ((double *)da)[j];
        ck_assert_msg(fabsl(got - fd) <= 1e-6L * (1 + fabsl(fd)), "da[%zu] = %.12g, differences %.12Lg (flags %u)",
                      j, got, fd, flags);
        /* L is linear in b: dL/db[j] is L's change for b[j] + 1. */
        double b1[60];
        memcpy(b1, b, sizeof b1);
        b1[j] += 1;
        const long double fdb = loss(a, b1, dh, n, h0, flags, n, 0) - loss(a, b, dh, n, h0, flags, n, 0);
        ck_assert_msg(fabsl(((double *)db)[j] - fdb) <= 1e-9L * (1 + fabsl(fdb)), "db[%zu] = %.12g, want %.12Lg", j,
                      ((double *)db)[j], fdb);
      }
      free(da), free(db), free(h);
    }
}
END_TEST

/* db against gpu_linrec of (a shifted one step, dh) in the opposite
 * direction; da[t] = db[t] * h[t-1] exactly; in place (db == dh) the same. */
START_TEST(linrec_backward_as_forward) {
  const size_t n = tu_quick() ? 70001 : 1000003;
  for (int ti = 0; ti < 2; ti++)
    for (unsigned flags = 0; flags <= GPU_REVERSE; flags += GPU_REVERSE) {
      const gpu_dtype t = ti ? GPU_F64 : GPU_F32;
      const size_t w = gpu_dtype_size(t);
      void *ha = tu_xmalloc(n * w), *hb = tu_xmalloc(n * w), *hdh = tu_xmalloc(n * w), *shifted = tu_xmalloc(n * w);
      lr_fill_uniform(ha, n, t, -1, 1);
      lr_fill_uniform(hb, n, t, -1, 1);
      lr_fill_uniform(hdh, n, t, -1, 1);
      const bool reverse = flags & GPU_REVERSE;
      /* The backward's coefficient at t: a one step later in the forward's order, 0 past the end. */
      for (size_t i = 0; i < n; i++) {
        const bool last = reverse ? i == 0 : i == n - 1;
        const size_t from = reverse ? i - 1 : i + 1;
        if (t == GPU_F32) ((float *)shifted)[i] = last ? 0.0f : ((float *)ha)[from];
        else ((double *)shifted)[i] = last ? 0.0 : ((double *)ha)[from];
      }
      double h0d = 0.3;
      float h0f = 0.3f;
      const void *h0 = ti ? (const void *)&h0d : (const void *)&h0f;
      void *da, *db, *h, *da2, *db2, *h2;
      backward_run(ha, hb, hdh, n, t, h0, flags, false, &da, &db, &h);
      backward_run(ha, hb, hdh, n, t, h0, flags, true, &da2, &db2, &h2);
      ck_assert_msg(memcmp(db, db2, n * w) == 0 && memcmp(da, da2, n * w) == 0, "in place differs");
      lr_case g = {LR_SINGLE, t, n, 1, NULL, 0, flags ^ GPU_REVERSE, false, false};
      void *forward = lr_run(&g, shifted, hdh, NULL);
      long double *ref = tu_xmalloc(n * sizeof *ref), *bound = tu_xmalloc(n * sizeof *bound);
      lr_case_reference(&g, shifted, hdh, NULL, ref, bound);
      lr_check(db, t, ref, bound, n, "db");
      lr_check(forward, t, ref, bound, n, "forward on shifted data");
      if (!TU_CUDA) ck_assert_msg(memcmp(db, forward, n * w) == 0, "db differs from the forward pass's bits");
      for (size_t i = 0; i < n; i++) {
        const bool first = reverse ? i == n - 1 : i == 0;
        const size_t prev = reverse ? i + 1 : i - 1;
        if (t == GPU_F32) {
          volatile float want = ((float *)db)[i] * (first ? h0f : ((float *)h)[prev]);
          ck_assert_msg(memcmp(&((float *)da)[i], (const void *)&want, 4) == 0, "da[%zu]", i);
        } else {
          volatile double want = ((double *)db)[i] * (first ? h0d : ((double *)h)[prev]);
          ck_assert_msg(memcmp(&((double *)da)[i], (const void *)&want, 8) == 0, "da[%zu]", i);
        }
      }
      free(ha), free(hb), free(hdh), free(shifted), free(da), free(db), free(h), free(da2), free(db2), free(h2);
      free(forward), free(ref), free(bound);
    }
}
END_TEST

/* Element (s, t) of a batch case's layout, t in physical time. */
static size_t batch_at(const lr_case *c, size_t s, size_t t) {
  return c->flags & GPU_TIME_MAJOR ? t * c->count + s : s * c->len + t;
}

/* A batch's backward pass, each sequence as gpu_linrec_backward: db against
 * the forward pass of (a shifted one step within its sequence, dh) in the
 * opposite direction, and da[t] = db[t] * h one step earlier, h0[s] at
 * sequence s's first step, exactly. Both layouts, both directions; on the
 * CUDA backend each of its paths (linrec_tuning.h): the channel path
 * (time-major up to 1023 channels, or up to 7 from 4096 steps;
 * sequence-major, 8 steps or fewer and 2^13 sequences or more), the
 * channel tiles (time-major, the rest; 520 x 1028: wide tiles, 9 along
 * time, a partial channel group; 20000 x 64: narrow tiles, 79 along time,
 * the tree of radix 4; 4500 x 9: in f32 half-width tiles, 9 along time,
 * a partial channel group; 1030 channels of 4096 steps: narrow tiles, the
 * chain of states),
 * the sequence tiles (sequence-major, 4096 steps or more) and the
 * look-back over start flags (the other sequence-major shapes). */
START_TEST(linrec_backward_batch) {
  static const size_t shapes[][2] = {{1, 5},     {37, 300},   {3000, 7},  {100003, 2}, {4097, 3},
                                     {20000, 64}, {50, 1},    {129, 2048}, {37, 2050}, {4, 8200},
                                     {520, 1028}, {4096, 1030}, {4500, 9}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    for (int ti = 0; ti < 2; ti++)
      for (unsigned flags = 0; flags <= (GPU_REVERSE | GPU_TIME_MAJOR); flags++) {
        if (flags & GPU_EXCLUSIVE) continue;
        const gpu_dtype t = ti ? GPU_F64 : GPU_F32;
        const lr_case c = {LR_BATCH, t, shapes[i][0], shapes[i][1], NULL, 0, flags, (i + flags) % 2 == 0, false};
        const size_t n = c.len * c.count, w = gpu_dtype_size(t);
        void *ha = tu_xmalloc(n * w), *hb = tu_xmalloc(n * w), *hdh = tu_xmalloc(n * w);
        void *hh0 = tu_xmalloc(c.count * w), *shifted = tu_xmalloc(n * w);
        lr_fill_uniform(ha, n, t, -1, 1);
        lr_fill_uniform(hb, n, t, -1, 1);
        lr_fill_uniform(hdh, n, t, -1, 1);
        lr_fill_uniform(hh0, c.count, t, -1, 1);
        void *a = tu_alloc(n * w), *b = tu_alloc(n * w), *h = tu_alloc(n * w), *dh = tu_alloc(n * w);
        void *da = tu_alloc(n * w), *db = tu_alloc(n * w), *h0 = c.with_h0 ? tu_alloc(c.count * w) : NULL;
        tu_upload(a, ha, n * w);
        tu_upload(b, hb, n * w);
        tu_upload(dh, hdh, n * w);
        if (h0) tu_upload(h0, hh0, c.count * w);
        tu_poison(da, n * w);
        tu_poison(db, n * w);
        ck_assert_msg(gpu_linrec_batch(a, b, h, c.len, c.count, t, h0, flags) == GPU_OK, "%s", gpu_last_error());
        ck_assert_msg(gpu_linrec_backward_batch(a, h, dh, da, db, c.len, c.count, t, h0, flags) == GPU_OK, "%s",
                      gpu_last_error());
        void *got_da = tu_xmalloc(n * w), *got_db = tu_xmalloc(n * w), *got_h = tu_xmalloc(n * w);
        tu_download(got_da, da, n * w);
        tu_download(got_db, db, n * w);
        tu_download(got_h, h, n * w);
        const bool reverse = flags & GPU_REVERSE;
        for (size_t s = 0; s < c.count; s++)
          for (size_t step = 0; step < c.len; step++) {
            const bool last = reverse ? step == 0 : step == c.len - 1;
            const size_t p = batch_at(&c, s, step), next = batch_at(&c, s, reverse ? step - 1 : step + 1);
            if (t == GPU_F32) ((float *)shifted)[p] = last ? 0.0f : ((float *)ha)[next];
            else ((double *)shifted)[p] = last ? 0.0 : ((double *)ha)[next];
          }
        lr_case g = c;
        g.flags ^= GPU_REVERSE;
        long double *ref = tu_xmalloc(n * sizeof *ref), *bound = tu_xmalloc(n * sizeof *bound);
        lr_case_reference(&g, shifted, hdh, NULL, ref, bound);
        char msg[160];
        snprintf(msg, sizeof msg, "backward batch db (%s, len %zu, count %zu, flags %u, h0 %d)",
                 t == GPU_F32 ? "f32" : "f64", c.len, c.count, flags, c.with_h0);
        lr_check(got_db, t, ref, bound, n, msg);
        for (size_t s = 0; s < c.count; s++)
          for (size_t step = 0; step < c.len; step++) {
            const bool first = reverse ? step == c.len - 1 : step == 0;
            const size_t p = batch_at(&c, s, step), prev = batch_at(&c, s, reverse ? step + 1 : step - 1);
            if (t == GPU_F32) {
              const float before = first ? (c.with_h0 ? ((float *)hh0)[s] : 0.0f) : ((float *)got_h)[prev];
              volatile float want = ((float *)got_db)[p] * before;
              ck_assert_msg(memcmp(&((float *)got_da)[p], (const void *)&want, 4) == 0, "%s: da[%zu]", msg, p);
            } else {
              const double before = first ? (c.with_h0 ? ((double *)hh0)[s] : 0.0) : ((double *)got_h)[prev];
              volatile double want = ((double *)got_db)[p] * before;
              ck_assert_msg(memcmp(&((double *)got_da)[p], (const void *)&want, 8) == 0, "%s: da[%zu]", msg, p);
            }
          }
        tu_free(a), tu_free(b), tu_free(h), tu_free(dh), tu_free(da), tu_free(db);
        if (h0) tu_free(h0);
        free(ha), free(hb), free(hdh), free(hh0), free(shifted), free(got_da), free(got_db), free(got_h);
        free(ref), free(bound);
      }
}
END_TEST

void linrec_add_more_cases(Suite *s) {
  TCase *args = tu_tcase("arguments"), *backward = tu_tcase("backward");
  tcase_add_test(args, linrec_bad_arguments);
  tcase_add_test(args, linrec_bad_offsets);
  tcase_add_test(args, linrec_backward_bad_arguments);
  tcase_add_test(backward, linrec_backward_finite_differences);
  tcase_add_test(backward, linrec_backward_as_forward);
  tcase_add_test(backward, linrec_backward_batch);
  suite_add_tcase(s, args);
  suite_add_tcase(s, backward);
#if TU_CUDA
  linrec_add_cuda_cases(s);
#endif
}
