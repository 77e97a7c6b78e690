/*
 * gpu_segscan_flags, gpu_segscan_offsets and gpu_segreduce on the current
 * backend (host, or CUDA when built with TU_CUDA) against the plain reference
 * of segmented_reference.c: random segmentations of every kind, both forms
 * (heads made from the offsets, results checked to agree), every operator and
 * flag on i32, u64, f32 and f64 and all six types at one size, DESIGN.md's
 * sizes, misaligned pointers, float determinism. Outputs are poisoned with a
 * guard zone after them that must stay poisoned; inputs must come back as
 * they went in. Bad arguments: test_segmented_args.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan_reference.h"
#include "segmented_reference.h"
#include "test_util.h"
#ifndef TU_CUDA
#  define TU_CUDA 0
#endif
#if !TU_CUDA && defined(_OPENMP)
#  include <omp.h>
#endif

static const gpu_dtype ALL_TYPES[] = {GPU_I32, GPU_U32, GPU_I64, GPU_U64, GPU_F32, GPU_F64};
static const gpu_dtype MAIN_TYPES[] = {GPU_I32, GPU_U64, GPU_F32, GPU_F64};
static const gpu_dtype QUICK_TYPES[] = {GPU_I32, GPU_F64};
static const unsigned FLAGS[] = {GPU_INCLUSIVE, GPU_EXCLUSIVE, GPU_REVERSE, GPU_EXCLUSIVE | GPU_REVERSE};
enum { GUARD = 1024, SLACK = 256 }; /* SLACK: room for nseg > n (empty segments) and shifts */

static bool is_float(gpu_dtype t) { return t == GPU_F32 || t == GPU_F64; }

/* Contents that make each (type, op) meaningful, as in test_scan.c: exact
 * products, wrapping integer sums, NaN and infinities for float MIN/MAX. */
static tu_kind contents(gpu_dtype t, gpu_op op, size_t trial) {
  if (op == GPU_MUL) return TU_NEAR_ONE;
  return is_float(t) && op >= GPU_MIN && trial % 2 ? TU_SPECIAL : TU_FULL;
}

#if TU_CUDA
static size_t max_size(void) { return tu_quick() ? 70000 : 8388617; }
#else
static size_t max_size(void) { return tu_quick() ? 70000 : 1048577; }
#endif

/* Backend and host buffers for up to cap elements (or segments), reused. */
typedef struct {
  size_t cap;
  char *in, *out;                                  /* backend */
  unsigned char *h_in, *h_out, *h_ref, *h_first, *h_check, *h_guard;
  double *scale;
} buffers;

static buffers make_buffers(size_t max_n) {
  buffers b;
  b.cap = max_n + SLACK;
  const size_t bytes = (b.cap + GUARD) * 8;
  b.scale = tu_xmalloc(b.cap * sizeof(double));
  b.h_guard = tu_xmalloc(GUARD * 8);
  memset(b.h_guard, 0xA5, GUARD * 8); /* what tu_poison writes */
  unsigned char **host[] = {&b.h_in, &b.h_out, &b.h_ref, &b.h_first, &b.h_check};
  for (size_t i = 0; i < sizeof host / sizeof host[0]; i++) *host[i] = tu_xmalloc(bytes);
  b.in = tu_alloc(bytes);
  b.out = tu_alloc(bytes);
  return b;
}

static void free_buffers(buffers *b) {
  void *host[] = {b->h_in, b->h_out, b->h_ref, b->h_first, b->h_check, b->h_guard, b->scale};
  for (size_t i = 0; i < sizeof host / sizeof host[0]; i++) free(host[i]);
  tu_free(b->in);
  tu_free(b->out);
}

/* A segmentation uploaded to the backend, `shift` elements into its arrays
 * (shift 1: heads at an odd address, offsets one entry in). */
typedef struct {
  segmentation h;
  seg_kind kind;
  int64_t *offsets, *offsets_base;
  uint8_t *heads, *heads_base;
} dseg;

static dseg dseg_upload(segmentation h, seg_kind kind, size_t shift) {
  const size_t n = h.n;
  dseg d = {h, kind, NULL, NULL, NULL, NULL};
  d.offsets_base = tu_alloc((d.h.nseg + 1 + shift) * sizeof(int64_t));
  d.heads_base = tu_alloc(n + shift + 1);
  d.offsets = d.offsets_base + shift;
  d.heads = d.heads_base + shift;
  tu_upload(d.offsets, d.h.offsets, (d.h.nseg + 1) * sizeof(int64_t));
  tu_upload(d.heads, d.h.heads, n);
  return d;
}

static dseg dseg_make(seg_kind kind, size_t n, size_t shift) { return dseg_upload(seg_make(kind, n), kind, shift); }

/* Checks that no call changed the segmentation, then frees it. */
static void dseg_free(dseg *d) {
  int64_t *offsets = tu_xmalloc((d->h.nseg + 1) * sizeof(int64_t));
  uint8_t *heads = tu_xmalloc(d->h.n);
  tu_download(offsets, d->offsets, (d->h.nseg + 1) * sizeof(int64_t));
  tu_download(heads, d->heads, d->h.n);
  ck_assert_msg(memcmp(offsets, d->h.offsets, (d->h.nseg + 1) * sizeof(int64_t)) == 0, "offsets changed");
  ck_assert_msg(memcmp(heads, d->h.heads, d->h.n) == 0, "heads changed");
  free(offsets);
  free(heads);
  tu_free(d->offsets_base);
  tu_free(d->heads_base);
  seg_free(&d->h);
}

/* Compares got[0, m) with the reference in b->h_ref (float sums: with the
 * tolerance for sums of up to n elements), and got[m, m + GUARD) with the
 * poison. */
static void compare(const buffers *b, const unsigned char *got, size_t m, size_t n, gpu_dtype t, gpu_op op,
                    const char *what) {
  const double tol = ref_tolerance(t, op, n);
  for (size_t i = 0; i < m; i++)
    if (!tu_close(got, b->h_ref, i, t, tol, b->scale[i]))
      ck_abort_msg("%s: [%zu] = %.17g (bits %llx), expected %.17g (bits %llx)", what, i, tu_get_f(got, i, t),
                   (unsigned long long)tu_get_bits(got, i, t), tu_get_f(b->h_ref, i, t),
                   (unsigned long long)tu_get_bits(b->h_ref, i, t));
  const size_t w = gpu_dtype_size(t);
  ck_assert_msg(memcmp(got + m * w, b->h_guard, GUARD * w) == 0, "%s: wrote past the end of out", what);
}

/* One segmented scan of b->h_in in the given form (heads or offsets) into
 * poisoned out, or in place; in and out `shift` elements off alignment.
 * The result lands in b->h_out. */
static void run_segscan(buffers *b, const dseg *d, bool heads, gpu_dtype t, gpu_op op, unsigned flags,
                        bool in_place, size_t shift) {
  const size_t n = d->h.n, w = gpu_dtype_size(t);
  char *in = b->in + shift * w, *out = in_place ? in : b->out + shift * w;
  char what[256];
  snprintf(what, sizeof what, "%s %s n=%zu nseg=%zu type %d op %d flags %u in_place %d shift %zu",
           heads ? "gpu_segscan_flags" : "gpu_segscan_offsets", seg_kind_name(d->kind), n, d->h.nseg, t, op,
           flags, in_place, shift);
  tu_upload(in, b->h_in, n * w);
  tu_poison(out + (in_place ? n * w : 0), (in_place ? GUARD : n + GUARD) * w);
  gpu_status s = heads ? gpu_segscan_flags(in, out, n, d->heads, t, op, flags)
                       : gpu_segscan_offsets(in, out, n, d->offsets, d->h.nseg, t, op, flags);
  ck_assert_msg(s == GPU_OK, "%s: %s (%s)", what, gpu_status_string(s), gpu_last_error());
  tu_download(b->h_out, out, (n + GUARD) * w);
  compare(b, b->h_out, n, n, t, op, what);
  if (!in_place) {
    tu_download(b->h_check, in, n * w);
    ck_assert_msg(memcmp(b->h_check, b->h_in, n * w) == 0, "%s: in changed", what);
  }
}

/* Both forms of one scan: each against the reference, and with each other. */
static void check_segscan(buffers *b, const dseg *d, gpu_dtype t, gpu_op op, unsigned flags, size_t shift,
                          size_t trial) {
  const size_t n = d->h.n, w = gpu_dtype_size(t);
  tu_fill(b->h_in, n, t, contents(t, op, trial));
  ref_segscan(b->h_in, b->h_ref, &d->h, t, op, flags, b->scale);
  run_segscan(b, d, true, t, op, flags, trial % 2, shift);
  memcpy(b->h_first, b->h_out, n * w);
  run_segscan(b, d, false, t, op, flags, !(trial % 2), shift);
  const double tol = 2 * ref_tolerance(t, op, n);
  for (size_t i = 0; i < n; i++)
    if (!tu_close(b->h_first, b->h_out, i, t, tol, b->scale[i]))
      ck_abort_msg("%s n=%zu type %d op %d flags %u: the heads and offsets forms disagree at %zu: %.17g vs %.17g",
                   seg_kind_name(d->kind), n, t, op, flags, i, tu_get_f(b->h_first, i, t),
                   tu_get_f(b->h_out, i, t));
}

/* gpu_segreduce reading `in` (b's, or one of the caller's), its results
 * written `shift` elements into b's out. */
static void check_segreduce_from(buffers *b, const dseg *d, char *in, gpu_dtype t, gpu_op op, size_t shift,
                                 size_t trial, const char *where) {
  const size_t n = d->h.n, nseg = d->h.nseg, w = gpu_dtype_size(t);
  ck_assert_msg(nseg + shift <= b->cap, "test: %zu segments do not fit the buffers", nseg);
  char *out = b->out + shift * w;
  char what[200];
  snprintf(what, sizeof what, "gpu_segreduce %s n=%zu nseg=%zu type %d op %d shift %zu%s", seg_kind_name(d->kind), n,
           nseg, t, op, shift, where);
  tu_fill(b->h_in, n, t, contents(t, op, trial));
  ref_segreduce(b->h_in, &d->h, t, op, b->h_ref, b->scale);
  tu_upload(in, b->h_in, n * w);
  tu_poison(out, (nseg + GUARD) * w);
  gpu_status s = gpu_segreduce(in, d->offsets, nseg, out, t, op);
  ck_assert_msg(s == GPU_OK, "%s: %s (%s)", what, gpu_status_string(s), gpu_last_error());
  tu_download(b->h_out, out, (nseg + GUARD) * w);
  compare(b, b->h_out, nseg, n, t, op, what);
}

static void check_segreduce(buffers *b, const dseg *d, gpu_dtype t, gpu_op op, size_t shift, size_t trial) {
  check_segreduce_from(b, d, b->in + shift * gpu_dtype_size(t), t, op, shift, trial, "");
}

/* gpu_segreduce from an allocation of its own holding n + extra elements:
 * on the CUDA backend the kernel reads n itself and sizes its grid for
 * what in holds (segreduce_warps), so an allocation of exactly n and
 * larger ones must give the same results. */
static void check_segreduce_room(buffers *b, const dseg *d, gpu_dtype t, size_t extra, size_t trial) {
  const size_t n = d->h.n, w = gpu_dtype_size(t);
  char *in = tu_alloc((n + extra) * w);
  char where[64];
  snprintf(where, sizeof where, ", in of its own holding n + %zu", extra);
  check_segreduce_from(b, d, in, t, GPU_ADD, 0, trial, where);
  tu_free(in);
}

/* Every operator and flag of the given types on one segmentation. */
static void every_op_and_flag(buffers *b, const dseg *d, const gpu_dtype *types, size_t ntypes, size_t *trial) {
  for (size_t ti = 0; ti < ntypes; ti++)
    for (gpu_op op = GPU_ADD; op <= GPU_XOR; op++) {
      if (is_float(types[ti]) && op >= GPU_AND) continue;
      for (size_t fi = 0; fi < 4; fi++) check_segscan(b, d, types[ti], op, FLAGS[fi], 0, (*trial)++);
      check_segreduce(b, d, types[ti], op, 0, (*trial)++);
    }
}

/* Every kind of segmentation at sizes around the host's chunk (16384) and,
 * on the GPU, one of many tiles. */
START_TEST(segmented_every_combination) {
  static const size_t sizes[] = {0, 1, 2, 33, 1000, 16385, 70001, 1048577}, quick_sizes[] = {1, 33, 16390};
  const bool quick = tu_quick();
  const size_t *sz = quick ? quick_sizes : sizes;
  const size_t nsz = quick ? 3 : sizeof sizes / sizeof sizes[0] - !TU_CUDA;
  buffers b = make_buffers(sz[nsz - 1]);
  size_t trial = 0;
  for (size_t si = 0; si < nsz; si++)
    for (seg_kind k = 0; k < SEG_KINDS; k++) {
      if (quick && (k + si) % 2) continue;
      dseg d = dseg_make(k, sz[si], 0);
      every_op_and_flag(&b, &d, quick ? QUICK_TYPES : MAIN_TYPES, quick ? 2 : 4, &trial);
      dseg_free(&d);
    }
  free_buffers(&b);
}
END_TEST

START_TEST(segmented_all_types) {
  buffers b = make_buffers(4097);
  size_t trial = 0;
  for (seg_kind k = 0; k < SEG_KINDS; k++) {
    dseg d = dseg_make(k, tu_quick() ? 300 : 4097, 0);
    every_op_and_flag(&b, &d, ALL_TYPES, 6, &trial);
    dseg_free(&d);
  }
  free_buffers(&b);
}
END_TEST

/* DESIGN.md's sizes: one segmentation kind, type, operator and flag each,
 * taken in turn, so that all are met at every scale. */
START_TEST(segmented_design_sizes) {
  static const gpu_op ops[] = {GPU_ADD, GPU_MAX, GPU_ADD, GPU_MIN, GPU_XOR, GPU_MUL};
  buffers b = make_buffers(max_size());
  size_t trial = 0;
  for (size_t si = 0; si < tu_nsizes && tu_sizes[si] <= max_size(); si++) {
    dseg d = dseg_make((seg_kind)(si % SEG_KINDS), tu_sizes[si], 0);
    for (size_t k = 0; k < 2; k++) {
      const size_t pick = (si + k) % 6;
      const gpu_dtype t = ALL_TYPES[pick];
      const gpu_op op = is_float(t) && ops[pick] >= GPU_AND ? GPU_ADD : ops[pick];
      check_segscan(&b, &d, t, op, FLAGS[(si + k) % 4], 0, trial++);
      check_segreduce(&b, &d, t, op, 0, trial++);
    }
    dseg_free(&d);
  }
  free_buffers(&b);
}
END_TEST

/* The reduce where groups of consecutive segments hold more elements than
 * one window of a block's shared memory: on the CUDA backend
 * segreduce_direct takes those in several windows in turn (mean segments
 * of at most 512, n up to about 2.4M 4-byte or 1.6M 8-byte elements on the
 * H200), long segments across windows, and with segments of up to 25000
 * some groups beyond its cap (left to the helpers); from in aligned and
 * not (shift 1: copies element by element). */
START_TEST(segmented_reduce_windows) {
  static const size_t sizes[] = {1500007, 2400001}, means[] = {64, 400};
  static const gpu_dtype types[] = {GPU_I32, GPU_F32, GPU_F64};
  const size_t nsizes = tu_quick() ? 1 : 2;
  buffers b = make_buffers(sizes[nsizes - 1]);
  size_t trial = 0;
  for (size_t si = 0; si < nsizes; si++)
    for (size_t mi = 0; mi < 2; mi++)
      for (size_t long_every = 0; long_every <= 40; long_every += 40) {
        dseg d = dseg_upload(seg_make_mean(sizes[si], means[mi], long_every), SEG_MEAN, 0);
        for (size_t ti = 0; ti < 3; ti++, trial++)
          check_segreduce(&b, &d, types[ti], (trial / 3) % 2 ? GPU_MAX : GPU_ADD, trial % 2, trial);
        dseg_free(&d);
      }
  free_buffers(&b);
}
END_TEST

/* Inputs of many tiles a block on the CUDA backend (its scans by runs of
 * tiles, seg_runs, from about 2^22 elements; fewer than two tiles a run
 * below): every kind of segmentation, so that segments reach into a run
 * from before, span whole runs (huge, single) or never do (unit), with
 * every flag on a 4- and an 8-byte type, in place and not. */
START_TEST(segmented_long_runs) {
  const size_t n = TU_CUDA ? (tu_quick() ? 4500000 : 9000001) : (tu_quick() ? 70000 : 1048577);
  static const gpu_dtype types[] = {GPU_I32, GPU_F64};
  buffers b = make_buffers(n);
  size_t trial = 0;
  for (seg_kind k = 0; k < SEG_KINDS; k++) {
    dseg d = dseg_make(k, n, 0);
    for (size_t ti = 0; ti < 2; ti++)
      for (size_t fi = 0; fi < 4; fi++) check_segscan(&b, &d, types[ti], GPU_ADD, FLAGS[fi], 0, trial++);
    /* The reduce over several steps a warp, from in of exactly n and more. */
    const size_t extras[] = {0, 4097, n};
    check_segreduce_room(&b, &d, GPU_F32, extras[k % 3], trial++);
    check_segreduce_room(&b, &d, types[k % 2], k % 2 ? n / 2 : 1, trial++);
    dseg_free(&d);
  }
  free_buffers(&b);
}
END_TEST

/* Runs of more tiles than the CUDA backend walks (8 a run on the H200:
 * above about 17 million 4-byte elements), where each block builds its
 * run's table itself for long segments (mixed: a mean of about 500, some
 * over two tiles) and reads the table's launch for short ones (tiny),
 * inclusive and exclusive, in place and not. A case of its own ("runs"), so
 * that the sanitizers can take it alone (CK_RUN_CASE=runs). */
static const size_t OWN_TABLE_N = 25165829; /* 4-byte elements: runs of about 12 tiles on the H200 */
START_TEST(segmented_runs_own_table) {
  const size_t n = TU_CUDA ? (tu_quick() ? 18000001 : OWN_TABLE_N) : (tu_quick() ? 70001 : 1048577);
  static const gpu_dtype types[] = {GPU_I32, GPU_F32};
  static const seg_kind kinds[] = {SEG_MIXED, SEG_TINY};
  buffers b = make_buffers(n);
  size_t trial = 0;
  for (size_t ki = 0; ki < (tu_quick() ? 1u : 2u); ki++) {
    dseg d = dseg_make(kinds[ki], n, 0);
    for (size_t ti = 0; ti < (tu_quick() ? 1u : 2u); ti++)
      for (size_t fi = 0; fi < 2; fi++) check_segscan(&b, &d, types[ti], GPU_ADD, FLAGS[fi], 0, trial++);
    dseg_free(&d);
  }
  free_buffers(&b);
}
END_TEST

/* Arrays one element off their allocation's alignment (heads: an odd address). */
START_TEST(segmented_misaligned) {
  static const size_t sizes[] = {1, 5, 4097, 70001};
  buffers b = make_buffers(70001);
  size_t trial = 0;
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    if (tu_quick() && sizes[si] > 5000) continue;
    dseg d = dseg_make(SEG_MIXED, sizes[si], 1);
    for (size_t ti = 0; ti < 6; ti++)
      for (size_t fi = 0; fi < 4; fi++) {
        check_segscan(&b, &d, ALL_TYPES[ti], fi % 2 ? GPU_MAX : GPU_ADD, FLAGS[fi], 1, trial++);
        check_segreduce(&b, &d, ALL_TYPES[ti], fi % 2 ? GPU_MAX : GPU_ADD, 1, trial++);
      }
    dseg_free(&d);
  }
  free_buffers(&b);
}
END_TEST

/* Runs every float sum of one segmentation; *first gets the results of the
 * first call (compare = false), later calls must give the same bits. */
static void float_sums(const dseg *d, void *in, void *out, unsigned char *first, unsigned char *again, gpu_dtype t,
                       bool compare_with_first, const char *when) {
  const size_t n = d->h.n, nseg = d->h.nseg, w = gpu_dtype_size(t);
  for (size_t fi = 0; fi < 5; fi++) {
    gpu_status s = fi == 4   ? gpu_segreduce(in, d->offsets, nseg, out, t, GPU_ADD)
                   : fi % 2 ? gpu_segscan_offsets(in, out, n, d->offsets, nseg, t, GPU_ADD, FLAGS[fi])
                            : gpu_segscan_flags(in, out, n, d->heads, t, GPU_ADD, FLAGS[fi]);
    ck_assert_msg(s == GPU_OK, "%s: %s", when, gpu_last_error());
    const size_t bytes = (fi == 4 ? nseg : n) * w;
    unsigned char *dst = compare_with_first ? again : first + fi * n * w;
    tu_download(dst, out, bytes);
    if (compare_with_first)
      ck_assert_msg(memcmp(first + fi * n * w, again, bytes) == 0, "type %d %s, call %zu: other bits than the first run",
                    t, when, fi);
  }
}

/* One segmentation's float sums, run again and again: the same bits every
 * time (host: whatever the thread count). */
static void float_sums_repeat(seg_kind k, gpu_dtype t, size_t n) {
  const size_t w = gpu_dtype_size(t);
  dseg d = dseg_make(k, n, 0);
  void *in = tu_alloc(n * w), *out = tu_alloc((n + d.h.nseg) * w);
  unsigned char *h = tu_xmalloc(n * w), *first = tu_xmalloc(5 * n * w + 8), *again = tu_xmalloc(n * w + 8);
  tu_fill(h, n, t, TU_FULL);
  tu_upload(in, h, n * w);
  float_sums(&d, in, out, first, again, t, false, "first run");
#if !TU_CUDA && defined(_OPENMP)
  static const int threads[] = {1, 2, 3, 8};
  const int before = omp_get_max_threads();
  for (size_t i = 0; i < 4; i++) {
    omp_set_num_threads(threads[i]);
    float_sums(&d, in, out, first, again, t, true, "other thread count");
  }
  omp_set_num_threads(before);
#else
  for (int run = 0; run < 3; run++) float_sums(&d, in, out, first, again, t, true, "again");
#endif
  tu_free(in);
  tu_free(out);
  free(h);
  free(first);
  free(again);
  dseg_free(&d);
}

/* Float sums give the same bits on every run. On the GPU also at the size
 * of segmented_runs_own_table, where each block builds its run's entries
 * of the table (seg_runs.cuh); the smaller size walks. */
START_TEST(segmented_float_determinism) {
  const size_t n = TU_CUDA && !tu_quick() ? (size_t)1 << 23 : tu_quick() ? 40000 : 300000;
  for (seg_kind k = SEG_HUGE; k <= SEG_MIXED; k++)
    for (gpu_dtype t = GPU_F32; t <= GPU_F64; t++) float_sums_repeat(k, t, n);
  if (TU_CUDA && !tu_quick()) float_sums_repeat(SEG_MIXED, GPU_F32, OWN_TABLE_N);
}
END_TEST

void segmented_add_argument_tests(TCase *tc); /* test_segmented_args.c */
void segmented_add_runs_argument_tests(TCase *tc);
#if TU_CUDA
void segmented_add_cuda_tests(Suite *s);      /* test_segmented_cuda.c: n and nseg above 2^32 */
#endif

static Suite *segmented_suite(void) {
  Suite *s = suite_create("segmented");
  /* One case per group, so that CK_RUN_CASE=... runs one group alone:
   * compute-sanitizer's racecheck of the whole quick suite did not finish
   * in a device call on the H200 (session 29); case by case it took 1-331 s
   * (session 30, bench/NOTES.md). */
  TCase *args = tu_tcase("arguments"), *combos = tu_tcase("combinations"), *sizes = tu_tcase("sizes"),
        *long_runs = tu_tcase("long_runs");
  segmented_add_argument_tests(args);
  tcase_add_test(combos, segmented_every_combination);
  tcase_add_test(combos, segmented_all_types);
  tcase_add_test(sizes, segmented_design_sizes);
  tcase_add_test(sizes, segmented_misaligned);
  tcase_add_test(sizes, segmented_float_determinism);
  tcase_add_test(long_runs, segmented_long_runs);
  tcase_add_test(long_runs, segmented_reduce_windows);
  suite_add_tcase(s, args);
  suite_add_tcase(s, combos);
  suite_add_tcase(s, sizes);
  suite_add_tcase(s, long_runs);
  TCase *runs = tu_tcase("runs");
  tcase_add_test(runs, segmented_runs_own_table);
  segmented_add_runs_argument_tests(runs);
  suite_add_tcase(s, runs);
#if TU_CUDA
  segmented_add_cuda_tests(s);
#endif
  return s;
}

int main(void) {
  return tu_main(TU_CUDA ? "segmented (CUDA backend)" : "segmented (host backend)", TU_THIS_BACKEND_IS_CUDA,
                 segmented_suite);
}
