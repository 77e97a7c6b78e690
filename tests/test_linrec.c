/*
 * Linear recurrences (gpu_linrec, gpu_linrec_batch, gpu_linrec_offsets,
 * gpu_linrec_backward) on one backend (host, or CUDA when built with
 * TU_CUDA) against the sequential loop in long double, within the bound of
 * docs/linrec.md. Outputs are poisoned first; coefficients are random in
 * [-1, 1] unless a case says otherwise, so an operator applied in the wrong
 * order shows.
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
#if !TU_CUDA && defined(_OPENMP)
#  include <omp.h>
#endif

static size_t elem(gpu_dtype t) { return gpu_dtype_size(t); }

size_t lr_case_n(const lr_case *c) {
  if (c->form == LR_OFFSETS) return (size_t)c->offsets[c->nseg];
  return c->len * c->count;
}

static size_t case_sequences(const lr_case *c) { return c->form == LR_OFFSETS ? c->nseg : c->count; }

/* Runs the case's call on backend memory; h0_host: the initial states (one
 * for LR_SINGLE, else one a sequence) or NULL. */
gpu_status lr_call(const lr_case *c, const void *a, const void *b, void *h, const void *h0_host,
                   const void *h0_dev, const int64_t *offsets_dev) {
  switch (c->form) {
    case LR_SINGLE: return gpu_linrec(a, b, h, c->len, c->t, h0_host, c->flags);
    case LR_BATCH: return gpu_linrec_batch(a, b, h, c->len, c->count, c->t, h0_dev, c->flags);
    case LR_OFFSETS: return gpu_linrec_offsets(a, b, h, offsets_dev, c->nseg, c->t, h0_dev, c->flags);
  }
  return GPU_ERR_INVALID_ARGUMENT;
}

void lr_case_reference(const lr_case *c, const void *a, const void *b, const void *h0,
                       long double *ref, long double *bound) {
  const bool reverse = c->flags & GPU_REVERSE, time_major = c->flags & GPU_TIME_MAJOR;
  for (size_t s = 0; s < case_sequences(c); s++) {
    const lr_seq v = lr_seq_of(s, c->len, c->count, c->form == LR_OFFSETS ? c->offsets : NULL,
                               time_major, reverse);
    const long double start = h0 ? tu_get_f(h0, s, c->t) : 0.0L;
    lr_reference(a, b, c->t, v, start, ref, bound);
  }
}

/* Runs the case on the backend (out poisoned first; in place into b where
 * c->in_place) and returns what it wrote in a new host array; checks that a
 * (and b unless in place) came back unchanged. */
void *lr_run(const lr_case *c, const void *ha, const void *hb, const void *hh0) {
  const size_t n = lr_case_n(c), w = elem(c->t), nseq = case_sequences(c);
  void *a = tu_alloc(n * w), *b = tu_alloc(n * w), *h = c->in_place ? b : tu_alloc(n * w);
  void *h0 = NULL;
  int64_t *offsets = NULL;
  tu_upload(a, ha, n * w);
  tu_upload(b, hb, n * w);
  if (!c->in_place) tu_poison(h, n * w);
  if (hh0 && c->form != LR_SINGLE) {
    h0 = tu_alloc(nseq * w);
    tu_upload(h0, hh0, nseq * w);
  }
  if (c->form == LR_OFFSETS) {
    offsets = tu_alloc((c->nseg + 1) * sizeof(int64_t));
    tu_upload(offsets, c->offsets, (c->nseg + 1) * sizeof(int64_t));
  }
  const gpu_status s = lr_call(c, a, b, h, c->form == LR_SINGLE ? hh0 : NULL, h0, offsets);
  ck_assert_msg(s == GPU_OK, "%s", gpu_last_error());
  void *got = tu_xmalloc(n * w), *back = tu_xmalloc(n * w);
  tu_download(got, h, n * w);
  tu_download(back, a, n * w);
  ck_assert_msg(n == 0 || memcmp(back, ha, n * w) == 0, "a changed");
  if (!c->in_place) {
    tu_download(back, b, n * w);
    ck_assert_msg(n == 0 || memcmp(back, hb, n * w) == 0, "b changed");
  }
  free(back);
  tu_free(a);
  tu_free(b);
  if (!c->in_place) tu_free(h);
  tu_free(h0);
  tu_free(offsets);
  return got;
}

/* Random a in [a_lo, a_hi), b in [-1, 1), initial states in [-1, 1) where
 * with_h0; runs the case and checks it against the reference. */
static void check_case(const lr_case *c, double a_lo, double a_hi, const char *what) {
  const size_t n = lr_case_n(c), w = elem(c->t), nseq = case_sequences(c);
  void *ha = tu_xmalloc(n * w), *hb = tu_xmalloc(n * w), *hh0 = NULL;
  lr_fill_uniform(ha, n, c->t, a_lo, a_hi);
  lr_fill_uniform(hb, n, c->t, -1, 1);
  if (c->with_h0) {
    hh0 = tu_xmalloc((nseq ? nseq : 1) * w);
    lr_fill_uniform(hh0, nseq ? nseq : 1, c->t, -1, 1);
  }
  void *got = lr_run(c, ha, hb, hh0);
  long double *ref = tu_xmalloc(n * sizeof *ref), *bound = tu_xmalloc(n * sizeof *bound);
  lr_case_reference(c, ha, hb, hh0, ref, bound);
  char msg[200];
  snprintf(msg, sizeof msg, "%s (%s, len %zu, count %zu, flags %u, h0 %d, in place %d)", what,
           c->t == GPU_F32 ? "f32" : "f64", c->len, c->count, c->flags, c->with_h0, c->in_place);
  lr_check(got, c->t, ref, bound, n, msg);
  free(ha), free(hb), free(hh0), free(got), free(ref), free(bound);
}

static lr_case single_case(gpu_dtype t, size_t n, unsigned flags, bool with_h0, bool in_place) {
  return (lr_case){LR_SINGLE, t, n, 1, NULL, 0, flags, with_h0, in_place};
}

/* The example: h = [1.0, 2.9, 3.29, 7.29], exactly as the same
 * arithmetic of the type gives it step by step (no fused products). */
START_TEST(linrec_seed_example) {
  volatile float fa[4] = {0.5f, 0.9f, 0.1f, 1.0f}, fb[4] = {1, 2, 3, 4};
  volatile double da[4] = {0.5, 0.9, 0.1, 1.0}, db[4] = {1, 2, 3, 4};
  float fwant[4], fa_c[4], fb_c[4];
  double dwant[4], da_c[4], db_c[4];
  volatile float fh = 0, fprod;
  volatile double dh = 0, dprod;
  for (int i = 0; i < 4; i++) {
    fprod = fa[i] * fh;
    fh = fprod + fb[i];
    fwant[i] = fh;
    dprod = da[i] * dh;
    dh = dprod + db[i];
    dwant[i] = dh;
    fa_c[i] = fa[i], fb_c[i] = fb[i], da_c[i] = da[i], db_c[i] = db[i];
  }
  ck_assert(fabs(dwant[3] - 7.29) < 1e-12 && fabs(dwant[1] - 2.9) < 1e-12);
  lr_case c = single_case(GPU_F32, 4, 0, false, false);
  float *fgot = lr_run(&c, fa_c, fb_c, NULL);
  c.t = GPU_F64;
  double *dgot = lr_run(&c, da_c, db_c, NULL);
  for (int i = 0; i < 4; i++) {
    ck_assert_msg(memcmp(&fgot[i], &fwant[i], 4) == 0, "f32 h[%d] = %.9g, want %.9g", i, fgot[i], fwant[i]);
    ck_assert_msg(memcmp(&dgot[i], &dwant[i], 8) == 0, "f64 h[%d] = %.17g, want %.17g", i, dgot[i], dwant[i]);
  }
  free(fgot), free(dgot);
}
END_TEST

static const size_t sizes[] = {1, 2, 31, 32, 33, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097,
                               8191, 8192, 8193, 16383, 16384, 16385, 65535, 65536, 65537, 131071,
                               131073, 1000003};

/* One sequence, every size, both types and directions, with and without h0. */
START_TEST(linrec_single_sizes) {
  const size_t nsz = sizeof sizes / sizeof sizes[0] - (tu_quick() ? 5 : 0);
  for (size_t i = 0; i < nsz; i++)
    for (int ti = 0; ti < 2; ti++)
      for (unsigned flags = 0; flags <= GPU_REVERSE; flags += GPU_REVERSE) {
        const gpu_dtype t = ti ? GPU_F64 : GPU_F32;
        lr_case c = single_case(t, sizes[i], flags, (i + ti) % 2 == 0, false);
        check_case(&c, -1, 1, "single");
      }
}
END_TEST

/* n == 0 does nothing, NULL pointers included. */
START_TEST(linrec_zero) {
  ck_assert_int_eq(gpu_linrec(NULL, NULL, NULL, 0, GPU_F32, NULL, 0), GPU_OK);
  ck_assert_int_eq(gpu_linrec_batch(NULL, NULL, NULL, 0, 5, GPU_F64, NULL, GPU_TIME_MAJOR), GPU_OK);
  ck_assert_int_eq(gpu_linrec_batch(NULL, NULL, NULL, 7, 0, GPU_F64, NULL, 0), GPU_OK);
  ck_assert_int_eq(gpu_linrec_offsets(NULL, NULL, NULL, NULL, 0, GPU_F32, NULL, 0), GPU_OK);
  ck_assert_int_eq(gpu_linrec_backward(NULL, NULL, NULL, NULL, NULL, 0, GPU_F32, NULL, 0), GPU_OK);
}
END_TEST

/* In place (h == b), both directions, with h0. */
START_TEST(linrec_in_place) {
  for (int ti = 0; ti < 2; ti++)
    for (unsigned flags = 0; flags <= GPU_REVERSE; flags += GPU_REVERSE) {
      lr_case c = single_case(ti ? GPU_F64 : GPU_F32, 100003, flags, true, true);
      check_case(&c, -1, 1, "in place");
      c = (lr_case){LR_BATCH, ti ? GPU_F64 : GPU_F32, 333, 77, NULL, 0, flags | GPU_TIME_MAJOR, true, true};
      check_case(&c, -1, 1, "in place, time-major");
      c.flags = flags;
      check_case(&c, -1, 1, "in place, sequence-major");
      /* On the CUDA backend in f32: the sequence walk at one block an SM. */
      c = (lr_case){LR_BATCH, ti ? GPU_F64 : GPU_F32, 8200, 130, NULL, 0, flags, true, true};
      check_case(&c, -1, 1, "in place, sequence-major, long");
      /* On the CUDA backend: the sequence tiles (fewer sequences than the
       * walk takes) and the narrow channel tiles, in place. */
      c.count = 20;
      check_case(&c, -1, 1, "in place, sequence-major, few");
      /* On the CUDA backend in f32: the walk in three strands a sequence. */
      c.len = 33000, c.count = 40;
      check_case(&c, -1, 1, "in place, sequence-major, strands");
      c = (lr_case){LR_BATCH, ti ? GPU_F64 : GPU_F32, 4100, 70, NULL, 0, flags | GPU_TIME_MAJOR, true, true};
      check_case(&c, -1, 1, "in place, time-major, long");
    }
}
END_TEST

/* Special coefficients: a = 1 (a plain sum), a = 0 (resets), a near 1 and
 * negative, over sizes that cross tiles. */
START_TEST(linrec_special_coefficients) {
  const size_t n = tu_quick() ? 20001 : 300007;
  for (int ti = 0; ti < 2; ti++) {
    const gpu_dtype t = ti ? GPU_F64 : GPU_F32;
    for (unsigned flags = 0; flags <= GPU_REVERSE; flags += GPU_REVERSE) {
      lr_case c = single_case(t, n, flags, true, false);
      check_case(&c, 1, 1, "a = 1");
      check_case(&c, 0, 0, "a = 0");
      check_case(&c, -1, -0.9, "a near -1");
      check_case(&c, 0.99, 1, "a near 1");
    }
  }
}
END_TEST

/* Zeros sprinkled into random a (resets mid-sequence). */
START_TEST(linrec_sparse_resets) {
  const size_t n = 200003;
  for (int ti = 0; ti < 2; ti++) {
    const gpu_dtype t = ti ? GPU_F64 : GPU_F32;
    const size_t w = elem(t);
    void *ha = tu_xmalloc(n * w), *hb = tu_xmalloc(n * w);
    lr_fill_uniform(ha, n, t, 0.9, 1);
    lr_fill_uniform(hb, n, t, -1, 1);
    for (size_t i = 0; i < n; i += 1 + tu_below(5000)) {
      if (t == GPU_F32) ((float *)ha)[i] = 0;
      else ((double *)ha)[i] = 0;
    }
    for (unsigned flags = 0; flags <= GPU_REVERSE; flags += GPU_REVERSE) {
      lr_case c = single_case(t, n, flags, false, false);
      void *got = lr_run(&c, ha, hb, NULL);
      long double *ref = tu_xmalloc(n * sizeof *ref), *bound = tu_xmalloc(n * sizeof *bound);
      lr_case_reference(&c, ha, hb, NULL, ref, bound);
      lr_check(got, t, ref, bound, n, "zeros in a");
      free(got), free(ref), free(bound);
    }
    free(ha), free(hb);
  }
}
END_TEST

/* Subnormal b and a, results subnormal: within the bound's absolute term. */
START_TEST(linrec_denormals) {
  const size_t n = 50001;
  for (int ti = 0; ti < 2; ti++) {
    const gpu_dtype t = ti ? GPU_F64 : GPU_F32;
    const size_t w = elem(t);
    const double tiny = t == GPU_F32 ? 1e-40 : 1e-310;
    void *ha = tu_xmalloc(n * w), *hb = tu_xmalloc(n * w);
    lr_fill_uniform(ha, n, t, -1, 1);
    lr_fill_uniform(hb, n, t, -tiny, tiny);
    for (size_t i = 0; i < n; i += 7) {
      if (t == GPU_F32) ((float *)ha)[i] = (float)(tiny * (tu_uniform() - 0.5));
      else ((double *)ha)[i] = tiny * (tu_uniform() - 0.5);
    }
    lr_case c = single_case(t, n, 0, false, false);
    void *got = lr_run(&c, ha, hb, NULL);
    long double *ref = tu_xmalloc(n * sizeof *ref), *bound = tu_xmalloc(n * sizeof *bound);
    lr_case_reference(&c, ha, hb, NULL, ref, bound);
    lr_check(got, t, ref, bound, n, "subnormals");
    free(got), free(ref), free(bound), free(ha), free(hb);
  }
}
END_TEST

/* NaN and infinities: inf or NaN in b, NaN in a, a zero after an infinity
 * (0 * inf: NaN from there on). Coefficients in [0.25, 1), so nothing
 * underflows to 0 between them. */
START_TEST(linrec_nan_inf) {
  const size_t n = 20000;
  for (int ti = 0; ti < 2; ti++) {
    const gpu_dtype t = ti ? GPU_F64 : GPU_F32;
    const size_t w = elem(t);
    for (int kind = 0; kind < 4; kind++)
      for (unsigned flags = 0; flags <= GPU_REVERSE; flags += GPU_REVERSE) {
        void *ha = tu_xmalloc(n * w), *hb = tu_xmalloc(n * w);
        lr_fill_uniform(ha, n, t, 0.25, 1);
        lr_fill_uniform(hb, n, t, -1, 1);
        const size_t at = flags ? n - 1 - 9000 : 9000;
        const double special = kind == 0 ? INFINITY : kind == 1 ? NAN : kind == 2 ? -INFINITY : INFINITY;
        void *target = kind == 1 && flags ? ha : hb;
        if (t == GPU_F32) ((float *)target)[at] = (float)special;
        else ((double *)target)[at] = special;
        if (kind == 3) { /* a zero 3000 steps later in scan order */
          const size_t z = flags ? at - 3000 : at + 3000;
          if (t == GPU_F32) ((float *)ha)[z] = 0;
          else ((double *)ha)[z] = 0;
        }
        lr_case c = single_case(t, n, flags, false, false);
        void *got = lr_run(&c, ha, hb, NULL);
        long double *ref = tu_xmalloc(n * sizeof *ref), *bound = tu_xmalloc(n * sizeof *bound);
        lr_case_reference(&c, ha, hb, NULL, ref, bound);
        lr_check(got, t, ref, bound, n, "NaN and infinities");
        free(got), free(ref), free(bound), free(ha), free(hb);
      }
  }
}
END_TEST

/* Sets element i (physical order) of sequence s of a batch case to v. */
static void set_batch_item(void *p, const lr_case *c, size_t s, size_t i, double v) {
  const lr_seq seq = lr_seq_of(s, c->len, c->count, NULL, (c->flags & GPU_TIME_MAJOR) != 0, false);
  const size_t at = (size_t)((ptrdiff_t)seq.base + (ptrdiff_t)i * seq.step);
  if (c->t == GPU_F32) ((float *)p)[at] = (float)v;
  else ((double *)p)[at] = v;
}

/* Specials in batches stay in their sequence: every other sequence has an
 * infinite b at its first and last steps (so that the state leaving it in
 * scan order, either way, is infinite or NaN) and a NaN a in the middle;
 * the sequences after them start afresh. Both layouts, both directions. */
START_TEST(linrec_batch_nan_inf) {
  static const size_t shapes[][2] = {{3000, 7}, {37, 300}, {20000, 3}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    for (int ti = 0; ti < 2; ti++)
      for (unsigned flags = 0; flags <= (GPU_REVERSE | GPU_TIME_MAJOR); flags++) {
        if (flags & GPU_EXCLUSIVE) continue;
        const gpu_dtype t = ti ? GPU_F64 : GPU_F32;
        const lr_case c = {LR_BATCH, t, shapes[i][0], shapes[i][1], NULL, 0, flags, flags % 2 == 0, false};
        const size_t n = lr_case_n(&c), w = elem(t);
        void *ha = tu_xmalloc(n * w), *hb = tu_xmalloc(n * w), *hh0 = tu_xmalloc(c.count * w);
        lr_fill_uniform(ha, n, t, 0.25, 1);
        lr_fill_uniform(hb, n, t, -1, 1);
        lr_fill_uniform(hh0, c.count, t, -1, 1);
        for (size_t s = 1; s < c.count; s += 2) {
          set_batch_item(hb, &c, s, 0, s % 4 == 1 ? INFINITY : -INFINITY);
          set_batch_item(hb, &c, s, c.len - 1, INFINITY);
          set_batch_item(ha, &c, s, c.len / 2, NAN);
        }
        void *got = lr_run(&c, ha, hb, c.with_h0 ? hh0 : NULL);
        long double *ref = tu_xmalloc(n * sizeof *ref), *bound = tu_xmalloc(n * sizeof *bound);
        lr_case_reference(&c, ha, hb, c.with_h0 ? hh0 : NULL, ref, bound);
        char msg[160];
        snprintf(msg, sizeof msg, "batch NaN and infinities (%s, len %zu, count %zu, flags %u)",
                 t == GPU_F32 ? "f32" : "f64", c.len, c.count, flags);
        lr_check(got, t, ref, bound, n, msg);
        free(got), free(ref), free(bound), free(ha), free(hb), free(hh0);
      }
}
END_TEST

/* Batches: both layouts, shapes from one long sequence to many short ones
 * (on the CUDA backend every path of the plan; 130 x 2049 time-major:
 * channel tiles, three tiles along time, a partial channel group, scalar
 * loads; 777 x 1028 time-major: channel tiles, 13 tiles along time, a
 * partial last one and a partial group, vector loads; 4099 x 260 and
 * 4097 x 513 time-major: narrow channel tiles, the tree of radix 4 (the
 * chain of states in f64 at 513), a partial group; 260 x 4099
 * sequence-major: the sequence walk in f32 (two blocks an SM), the
 * sequence tiles in f64, partial tiles, scalar loads). */
START_TEST(linrec_batch_layouts) {
  static const size_t shapes[][2] = {{1, 1},      {1, 1000},   {31, 33},    {256, 64},
                                     {4097, 3},   {33, 4096},  {100003, 2}, {7, 70001},
                                     {1000, 129}, {65537, 1},  {130, 2049}, {4099, 260},
                                     {777, 1028}, {4097, 513}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    for (int ti = 0; ti < 2; ti++)
      for (unsigned flags = 0; flags <= (GPU_REVERSE | GPU_TIME_MAJOR); flags++) {
        if (flags & GPU_EXCLUSIVE) continue;
        const gpu_dtype t = ti ? GPU_F64 : GPU_F32;
        lr_case c = {LR_BATCH, t, shapes[i][0], shapes[i][1], NULL, 0, flags, (i + flags) % 2 == 0, false};
        check_case(&c, -1, 1, "batch");
      }
}
END_TEST

/* Offsets with empty segments, at the start and end and in runs. */
START_TEST(linrec_offsets_segments) {
  const size_t nseg = 2000;
  int64_t *offsets = tu_xmalloc((nseg + 1) * sizeof(int64_t));
  for (int round = 0; round < 3; round++) {
    offsets[0] = 0;
    for (size_t s = 1; s <= nseg; s++) {
      const uint64_t r = tu_below(10);
      const int64_t len = r < 3 ? 0 : r < 8 ? (int64_t)tu_below(100) : (int64_t)tu_below(round == 2 ? 20000 : 3000);
      offsets[s] = offsets[s - 1] + (s == 1 || s == nseg ? 0 : len);
    }
    for (int ti = 0; ti < 2; ti++)
      for (unsigned flags = 0; flags <= GPU_REVERSE; flags += GPU_REVERSE) {
        const gpu_dtype t = ti ? GPU_F64 : GPU_F32;
        lr_case c = {LR_OFFSETS, t, 0, 0, offsets, nseg, flags, (round + ti) % 2 == 0, false};
        check_case(&c, -1, 1, "offsets");
      }
  }
  /* One segment, and every segment empty but one of one element. */
  int64_t one[2] = {0, 70001};
  lr_case c = {LR_OFFSETS, GPU_F32, 0, 0, one, 1, 0, true, false};
  check_case(&c, -1, 1, "one segment");
  int64_t mostly_empty[6] = {0, 0, 0, 1, 1, 1};
  c = (lr_case){LR_OFFSETS, GPU_F64, 0, 0, mostly_empty, 5, GPU_REVERSE, true, false};
  check_case(&c, -1, 1, "empty segments");
  free(offsets);
}
END_TEST

/* The same bits on two runs (and, on the host, with 1 and with all threads). */
START_TEST(linrec_same_bits) {
  const size_t n = tu_quick() ? 300007 : 3000017;
  for (int ti = 0; ti < 2; ti++) {
    const gpu_dtype t = ti ? GPU_F64 : GPU_F32;
    const size_t w = elem(t);
    void *ha = tu_xmalloc(n * w), *hb = tu_xmalloc(n * w);
    lr_fill_uniform(ha, n, t, -1, 1);
    lr_fill_uniform(hb, n, t, -1, 1);
    const lr_case cases[] = {single_case(t, n, 0, false, false), single_case(t, n, GPU_REVERSE, false, false),
                             {LR_BATCH, t, n / 32, 32, NULL, 0, GPU_TIME_MAJOR, false, false},
                             {LR_BATCH, t, n / 64, 64, NULL, 0, GPU_TIME_MAJOR, false, false},
                             {LR_BATCH, t, 64, n / 64, NULL, 0, GPU_TIME_MAJOR, false, false},
                             {LR_BATCH, t, n / 1030, 1030, NULL, 0, GPU_TIME_MAJOR, false, false},
                             {LR_BATCH, t, n / 1000, 1000, NULL, 0, 0, false, false},
                             {LR_BATCH, t, 4100, n / 4100, NULL, 0, 0, false, false},
                             {LR_BATCH, t, 9000, n / 9000, NULL, 0, 0, false, false},
                             {LR_BATCH, t, 50000, n / 50000, NULL, 0, 0, false, false}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      const size_t m = lr_case_n(&cases[k]);
      void *first = lr_run(&cases[k], ha, hb, NULL);
#if !TU_CUDA && defined(_OPENMP)
      const int threads = omp_get_max_threads();
      omp_set_num_threads(1);
#endif
      void *second = lr_run(&cases[k], ha, hb, NULL);
#if !TU_CUDA && defined(_OPENMP)
      omp_set_num_threads(threads);
#endif
      ck_assert_msg(memcmp(first, second, m * w) == 0, "case %zu: bits differ between runs", k);
      free(first), free(second);
    }
    free(ha), free(hb);
  }
}
END_TEST

Suite *linrec_suite(void) {
  Suite *s = suite_create("linrec");
  TCase *basic = tu_tcase("basic"), *accuracy = tu_tcase("accuracy"), *layouts = tu_tcase("layouts");
  tcase_add_test(basic, linrec_seed_example);
  tcase_add_test(basic, linrec_zero);
  tcase_add_test(basic, linrec_in_place);
  tcase_add_test(accuracy, linrec_single_sizes);
  tcase_add_test(accuracy, linrec_special_coefficients);
  tcase_add_test(accuracy, linrec_sparse_resets);
  tcase_add_test(accuracy, linrec_denormals);
  tcase_add_test(accuracy, linrec_nan_inf);
  tcase_add_test(layouts, linrec_batch_layouts);
  tcase_add_test(layouts, linrec_batch_nan_inf);
  tcase_add_test(layouts, linrec_offsets_segments);
  tcase_add_test(layouts, linrec_same_bits);
  suite_add_tcase(s, basic);
  suite_add_tcase(s, accuracy);
  suite_add_tcase(s, layouts);
  linrec_add_more_cases(s);
  return s;
}

int main(void) {
  return tu_main(TU_CUDA ? "linrec (CUDA backend)" : "linrec (host backend)", TU_THIS_BACKEND_IS_CUDA,
                 linrec_suite);
}
