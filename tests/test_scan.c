/*
 * gpu_scan and gpu_reduce on the current backend (host, or CUDA when built
 * with TU_CUDA) against the plain reference of scan_reference.c: every type,
 * operator and flag, in and out of place, at DESIGN.md's sizes, with outputs
 * poisoned and a guard zone after them that must stay poisoned.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan_reference.h"
#include "test_util.h"
#ifndef TU_CUDA
#  define TU_CUDA 0
#endif
#if TU_CUDA
#  include "scan/scan_cuda.h"
#endif

static const gpu_dtype TYPES[] = {GPU_I32, GPU_U32, GPU_I64, GPU_U64, GPU_F32, GPU_F64};
static const gpu_op OPS[] = {GPU_ADD, GPU_MUL, GPU_MIN, GPU_MAX, GPU_AND, GPU_OR, GPU_XOR};
static const unsigned FLAGS[] = {GPU_INCLUSIVE, GPU_EXCLUSIVE, GPU_REVERSE, GPU_EXCLUSIVE | GPU_REVERSE};
enum { GUARD = 4096 }; /* elements after n that no call may touch */

static bool is_float(gpu_dtype t) { return t == GPU_F32 || t == GPU_F64; }
static bool op_exists(gpu_dtype t, gpu_op op) { return !(is_float(t) && op >= GPU_AND); }

/* Input contents that make each (type, op) meaningful: exact products
 * (+-1 with rare 2 and 1/2 for floats; 1, 3, -1, 5 for integers), sums of the full range (wrapping for integers), NaN and infinities
 * for float MIN/MAX now and then. */
static tu_kind kind_for(gpu_dtype t, gpu_op op, size_t trial) {
  if (op == GPU_MUL) return TU_NEAR_ONE;
  if (is_float(t) && (op == GPU_MIN || op == GPU_MAX) && trial % 2) return TU_SPECIAL;
  return TU_FULL;
}

/* Device buffers big enough for the largest case, reused across sizes. */
typedef struct {
  size_t cap;   /* elements, guard included */
  void *in, *out;
  unsigned char *h_in, *h_out, *h_ref, *h_guard;
  double *scale;
} buffers;

static buffers make_buffers(size_t max_n) {
  buffers b;
  b.cap = max_n + GUARD;
  b.in = tu_alloc(b.cap * 8);
  b.out = tu_alloc(b.cap * 8);
  b.h_in = tu_xmalloc(b.cap * 8);
  b.h_out = tu_xmalloc(b.cap * 8);
  b.h_ref = tu_xmalloc(b.cap * 8);
  b.h_guard = tu_xmalloc(GUARD * 8);
  b.scale = tu_xmalloc(b.cap * sizeof(double));
  memset(b.h_guard, 0xA5, GUARD * 8);
  return b;
}

static void free_buffers(buffers *b) {
  tu_free(b->in);
  tu_free(b->out);
  free(b->h_in);
  free(b->h_out);
  free(b->h_ref);
  free(b->h_guard);
  free(b->scale);
}

/* One scan: poisons, runs, and compares out[0, n) with the reference and
 * out[n, n + GUARD) with the poison. Element offset `shift` misaligns both. */
static void check_scan(buffers *b, size_t n, gpu_dtype t, gpu_op op, unsigned flags, bool in_place, size_t shift,
                       size_t trial) {
  const size_t w = gpu_dtype_size(t);
  char *in = (char *)b->in + shift * w, *out = in_place ? in : (char *)b->out + shift * w;
  tu_fill(b->h_in, n, t, kind_for(t, op, trial));
  ref_scan(b->h_in, b->h_ref, n, t, op, flags, b->scale);
  if (!in_place) tu_poison(out, (n + GUARD) * w);
  else tu_poison(out + n * w, GUARD * w);
  tu_upload(in, b->h_in, n * w);
  gpu_status s = gpu_scan(in, out, n, t, op, flags);
  ck_assert_msg(s == GPU_OK, "gpu_scan %s n=%zu: %s", gpu_status_string(s), n, gpu_last_error());
  tu_download(b->h_out, out, (n + GUARD) * w);
  const double tol = ref_tolerance(t, op, n);
  for (size_t i = 0; i < n; i++)
    if (!tu_close(b->h_out, b->h_ref, i, t, tol, b->scale[i]))
      ck_abort_msg("type %d op %d flags %u in_place %d shift %zu n=%zu: out[%zu] = %.17g (bits %llx), expected %.17g",
                   t, op, flags, in_place, shift, n, i, tu_get_f(b->h_out, i, t),
                   (unsigned long long)tu_get_bits(b->h_out, i, t), tu_get_f(b->h_ref, i, t));
  ck_assert_msg(memcmp(b->h_out + n * w, b->h_guard, GUARD * w) == 0,
                "type %d op %d flags %u n=%zu: wrote past the end of out", t, op, flags, n);
}

/* The GPU's tiles and look-back levels need the large sizes; the host's
 * chunks (65536) are covered well below them, and CI's two cores are slow. */
#if TU_CUDA
static size_t max_size(void) { return tu_quick() ? 70000 : 8388617; }
static size_t all_combinations_limit(void) { return tu_quick() ? 70000 : 262145; }
#else
static size_t max_size(void) { return 1048577; }
static size_t all_combinations_limit(void) { return 65537; }
#endif

/* Under compute-sanitizer (GPUPRIM_TEST_QUICK=1): two types, a few sizes
 * around the tile edges. */
static const size_t QUICK_SIZES[] = {1, 31, 33, 1025, 2049, 4097, 8193, 65537, 69999};

/* Every type, operator, flag and placement, at every size up to `limit`. */
static void sweep(size_t limit, bool all_combinations_at_large) {
  buffers b = make_buffers(max_size());
  const bool quick = tu_quick();
  const size_t *sizes = quick ? QUICK_SIZES : tu_sizes;
  const size_t nsizes = quick ? sizeof QUICK_SIZES / sizeof QUICK_SIZES[0] : tu_nsizes;
  size_t trial = 0;
  for (size_t ti = 0; ti < 6; ti++)
    for (size_t oi = 0; oi < 7; oi++) {
      if (!op_exists(TYPES[ti], OPS[oi])) continue;
      if (quick && TYPES[ti] != GPU_I32 && TYPES[ti] != GPU_F64) continue;
      for (size_t fi = 0; fi < 4; fi++)
        for (int place = 0; place < 2; place++)
          for (size_t si = 0; si < nsizes && sizes[si] <= max_size(); si++) {
            size_t n = sizes[si];
            bool large = n > limit;
            if (quick && place != (int)((fi + si) % 2)) continue;
            /* Large sizes: every type with ADD and MAX, one placement each. */
            if (large && !all_combinations_at_large &&
                !((OPS[oi] == GPU_ADD || OPS[oi] == GPU_MAX) && place == (int)(fi % 2)))
              continue;
            check_scan(&b, n, TYPES[ti], OPS[oi], FLAGS[fi], place, 0, trial++);
          }
    }
  free_buffers(&b);
}

START_TEST(scan_every_combination) { sweep(all_combinations_limit(), false); }
END_TEST

#if TU_CUDA
/* The three-kernel reference grid scan, the same checks. */
START_TEST(scan_reference_path) {
  gp_scan_set_algo(GP_SCAN_REFERENCE);
  sweep(all_combinations_limit(), false);
  gp_scan_set_algo(GP_SCAN_LOOKBACK);
}
END_TEST
#endif

/* Pointers one element into their allocation: no 16-byte vector access. */
START_TEST(scan_misaligned) {
  buffers b = make_buffers(max_size());
  const size_t sizes[] = {1, 5, 4097, 70001, 1048579};
  for (size_t ti = 0; ti < 6; ti++)
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0] && sizes[si] < max_size(); si++)
      for (size_t fi = 0; fi < 4; fi++) {
        check_scan(&b, sizes[si], TYPES[ti], GPU_ADD, FLAGS[fi], false, 1, si);
        check_scan(&b, sizes[si], TYPES[ti], GPU_MAX, FLAGS[fi], true, 3, si);
      }
  free_buffers(&b);
}
END_TEST

/* Float sums give the same bits on every run. */
START_TEST(scan_float_determinism) {
  const size_t n = TU_CUDA && !tu_quick() ? (size_t)1 << 23 : 300000;
  for (int ti = 4; ti < 6; ti++) {
    gpu_dtype t = TYPES[ti];
    size_t w = gpu_dtype_size(t);
    void *in = tu_alloc(n * w), *out = tu_alloc(n * w);
    unsigned char *h = tu_xmalloc(n * w), *first = tu_xmalloc(n * w), *again = tu_xmalloc(n * w);
    tu_fill(h, n, t, TU_FULL);
    tu_upload(in, h, n * w);
    for (size_t fi = 0; fi < 4; fi++) {
      unsigned char r1[8], r2[8];
      for (int run = 0; run < 4; run++) {
        ck_assert_int_eq(gpu_scan(in, out, n, t, GPU_ADD, FLAGS[fi]), GPU_OK);
        tu_download(run == 0 ? first : again, out, n * w);
        ck_assert_int_eq(gpu_reduce(in, n, t, GPU_ADD, run == 0 ? r1 : r2), GPU_OK);
        if (run > 0) {
          ck_assert_msg(memcmp(first, again, n * w) == 0, "type %d flags %u: run %d differs", t, FLAGS[fi], run);
          ck_assert_msg(memcmp(r1, r2, w) == 0, "type %d: reduce run %d differs", t, run);
        }
      }
    }
    tu_free(in);
    tu_free(out);
    free(h);
    free(first);
    free(again);
  }
}
END_TEST

START_TEST(reduce_every_combination) {
  const size_t max_n = TU_CUDA && !tu_quick() ? 4194304 : 262145;
  void *in = tu_alloc(max_n * 8);
  unsigned char *h = tu_xmalloc(max_n * 8);
  size_t trial = 0;
  for (size_t ti = 0; ti < 6; ti++)
    for (size_t oi = 0; oi < 7; oi++) {
      gpu_dtype t = TYPES[ti];
      gpu_op op = OPS[oi];
      if (!op_exists(t, op)) continue;
      const size_t *sizes = tu_quick() ? QUICK_SIZES : tu_sizes;
      const size_t nsizes = tu_quick() ? sizeof QUICK_SIZES / sizeof QUICK_SIZES[0] : tu_nsizes;
      for (size_t si = 0; si < nsizes && sizes[si] <= max_n; si++) {
        size_t n = sizes[si], w = gpu_dtype_size(t);
        tu_fill(h, n, t, kind_for(t, op, trial++));
        tu_upload(in, h, n * w);
        unsigned char got[8], want[8];
        double scale;
        ref_reduce(h, n, t, op, want, &scale);
        memset(got, 0xA5, sizeof got);
        ck_assert_msg(gpu_reduce(in, n, t, op, got) == GPU_OK, "gpu_reduce: %s", gpu_last_error());
        ck_assert_msg(tu_close(got, want, 0, t, ref_tolerance(t, op, n), scale),
                      "reduce type %d op %d n=%zu: %.17g, expected %.17g", t, op, n, tu_get_f(got, 0, t),
                      tu_get_f(want, 0, t));
      }
    }
  tu_free(in);
  free(h);
}
END_TEST

/* Bad arguments: the status API.md names, and the input left as it was. */
START_TEST(scan_bad_arguments) {
  const size_t n = 100;
  int32_t *in = tu_alloc(n * 4), *out = tu_alloc(n * 4);
  int32_t h[100], back[100];
  for (int i = 0; i < 100; i++) h[i] = i;
  tu_upload(in, h, sizeof h);
  tu_poison(out, n * 4);
  int32_t r = 12345;
  ck_assert_int_eq(gpu_scan(NULL, out, n, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(gpu_last_error(), "in is NULL"));
  ck_assert_int_eq(gpu_scan(in, NULL, n, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_scan(in, out, n, (gpu_dtype)17, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_scan(in, out, n, GPU_I32, (gpu_op)-1, 0), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_scan(in, out, n, GPU_I32, GPU_ADD, 4u), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_scan(in, out, n, GPU_F32, GPU_XOR, 0), GPU_ERR_UNSUPPORTED);
  ck_assert_int_eq(gpu_scan(in, out, n, GPU_F64, GPU_AND, 0), GPU_ERR_UNSUPPORTED);
  ck_assert_int_eq(gpu_scan((char *)in + 1, out, 10, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_scan(in, in + 1, 10, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT); /* overlap */
  ck_assert_int_eq(gpu_scan(in, out, SIZE_MAX / 2, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_reduce(NULL, n, GPU_I32, GPU_ADD, &r), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_reduce(in, n, GPU_I32, GPU_ADD, NULL), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_reduce(in, n, GPU_F32, GPU_OR, &r), GPU_ERR_UNSUPPORTED);
  ck_assert_int_eq(gpu_reduce(in, n, (gpu_dtype)6, GPU_ADD, &r), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_reduce(in, n, GPU_I32, (gpu_op)7, &r), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_reduce((char *)in + 2, 10, GPU_I32, GPU_ADD, &r), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_reduce(in, SIZE_MAX / 2, GPU_I32, GPU_ADD, &r), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_scan(in, (char *)out + 2, 10, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT);
#if TU_CUDA
  /* Past the end of the allocation, and host memory, on the CUDA backend. */
  ck_assert_int_eq(gpu_scan(in, out, 2 * n, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(gpu_last_error(), "past the end"));
  ck_assert_int_eq(gpu_scan(h, out, n, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_reduce(in, 2 * n, GPU_I32, GPU_ADD, &r), GPU_ERR_INVALID_ARGUMENT);
#endif
  tu_download(back, in, sizeof back);
  ck_assert_mem_eq(back, h, sizeof h);
  /* Nor was out written, nor host_result. */
  unsigned char poison[400];
  memset(poison, 0xA5, sizeof poison);
  tu_download(back, out, sizeof back);
  ck_assert_mem_eq(back, poison, sizeof back);
  ck_assert_int_eq(r, 12345);
  /* n == 0: nothing to do, NULL pointers are fine; reduce gives the identity. */
  ck_assert_int_eq(gpu_scan(NULL, NULL, 0, GPU_F32, GPU_ADD, 0), GPU_OK);
  float f = 3;
  ck_assert_int_eq(gpu_reduce(NULL, 0, GPU_F32, GPU_MIN, &f), GPU_OK);
  ck_assert(isinf(f) && f > 0);
  uint32_t u = 5;
  ck_assert_int_eq(gpu_reduce(NULL, 0, GPU_U32, GPU_AND, &u), GPU_OK);
  ck_assert_uint_eq(u, 0xffffffffu);
  tu_free(in);
  tu_free(out);
}
END_TEST

/* One suite; the CUDA build adds test_scan_cuda.c's case (streams, graphs, n > 2^32). */
#if TU_CUDA
TCase *scan_cuda_tcase(void);
#endif

static Suite *scan_suite(void) {
  Suite *s = suite_create("scan");
  TCase *tc = tu_tcase("scan");
  tcase_add_test(tc, scan_bad_arguments);
  tcase_add_test(tc, scan_every_combination);
#if TU_CUDA
  tcase_add_test(tc, scan_reference_path);
#endif
  tcase_add_test(tc, scan_misaligned);
  tcase_add_test(tc, scan_float_determinism);
  tcase_add_test(tc, reduce_every_combination);
  suite_add_tcase(s, tc);
#if TU_CUDA
  suite_add_tcase(s, scan_cuda_tcase());
#endif
  return s;
}

int main(void) {
  return tu_main(TU_CUDA ? "scan (CUDA backend)" : "scan (host backend)", TU_THIS_BACKEND_IS_CUDA, scan_suite);
}
