/*
 * Radix sort suite: gpu_sort_keys and gpu_sort_pairs on the current backend,
 * against a plain comparison sort (qsort of (key, index) with the float order
 * of API.md and the index as tie-break), compared element by element, keys
 * bitwise. Values are the original indices, so the comparison checks
 * stability too; keys alone check it through NaN payloads and +-0 patterns.
 *
 * Built twice: as a host suite, and with TU_CUDA=1 as a CUDA suite.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "test_sort.h"
#include "test_util.h"

#ifndef TU_CUDA
#  define TU_CUDA 0
#endif

static const gpu_dtype key_types[] = {GPU_I32, GPU_U32, GPU_I64, GPU_U64, GPU_F32, GPU_F64};
enum { NTYPES = 6 };
static const size_t value_widths[] = {0, 4, 8}; /* 0: gpu_sort_keys */
static const unsigned directions[] = {GPU_ASCENDING, GPU_DESCENDING};
/* A combination: type x value width x direction. */
enum { NCOMBOS = NTYPES * 3 * 2 };

typedef enum {
  K_RANDOM,
  K_DUPS,     /* drawn from 5 values */
  K_EQUAL,
  K_SORTED,   /* ascending already */
  K_REVERSED,
  K_SPECIAL,  /* NaNs of both signs and several payloads, +-inf, +-0, denormals; int extremes */
  K_SMALL,    /* tu_fill's TU_SMALL: few digits vary (u32: one pass, an odd count) */
  K_SPARSE,   /* only bytes 0, 2 (and 5 for 64-bit keys) vary: passes skipped in between */
  NKINDS
} kind;
static const char *const kind_names[] = {"random",   "few values", "all equal",  "sorted",
                                         "reversed", "specials",   "small ints", "sparse digits"};

/* ------------------------------------------------------------ reference */

static int compare_floats(double x, double y) {
  int nx = isnan(x) != 0, ny = isnan(y) != 0;
  if (nx || ny) return nx - ny; /* NaN after everything, NaNs all equal */
  if (x < y) return -1;
  if (x > y) return 1;
  return (signbit(y) != 0) - (signbit(x) != 0); /* -0.0 before +0.0 */
}

/* The ascending order of two keys of type t given as raw bits. */
static int compare_keys(gpu_dtype t, uint64_t a, uint64_t b) {
  switch (t) {
    case GPU_I32: {
      int32_t x = (int32_t)(uint32_t)a, y = (int32_t)(uint32_t)b;
      return (x > y) - (x < y);
    }
    case GPU_I64: {
      int64_t x = (int64_t)a, y = (int64_t)b;
      return (x > y) - (x < y);
    }
    case GPU_F32: {
      uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
      float x, y;
      memcpy(&x, &ua, 4);
      memcpy(&y, &ub, 4);
      return compare_floats(x, y); /* float -> double keeps NaN, sign, denormals */
    }
    case GPU_F64: {
      double x, y;
      memcpy(&x, &a, 8);
      memcpy(&y, &b, 8);
      return compare_floats(x, y);
    }
    case GPU_U32: case GPU_U64: break;
  }
  return (a > b) - (a < b);
}

typedef struct {
  uint64_t key;
  size_t index;
} record;

/* qsort has no context argument; the suite runs one test at a time. */
static gpu_dtype ref_type;
static bool ref_descending;

static int compare_records(const void *pa, const void *pb) {
  const record *a = pa, *b = pb;
  int c = compare_keys(ref_type, a->key, b->key);
  if (ref_descending) c = -c;
  if (c) return c;
  return (a->index > b->index) - (a->index < b->index);
}

/* The order a stable sort of keys must produce, as original indices. */
static record *reference_order(const void *keys, size_t n, gpu_dtype t, bool descending) {
  record *r = tu_xmalloc(n * sizeof *r);
  for (size_t i = 0; i < n; i++) r[i] = (record){tu_get_bits(keys, i, t), i};
  ref_type = t;
  ref_descending = descending;
  qsort(r, n, sizeof *r, compare_records);
  return r;
}

/* --------------------------------------------------------------- inputs */

static void set_bits(void *a, size_t i, gpu_dtype t, uint64_t bits) {
  if (gpu_dtype_size(t) == 4) ((uint32_t *)a)[i] = (uint32_t)bits;
  else ((uint64_t *)a)[i] = bits;
}

static const uint32_t special_f32[] = {
    0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FA5A5A5, /* NaNs */
    0x7F800000, 0xFF800000, 0x00000000, 0x80000000,              /* +-inf, +-0 */
    0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF,              /* denormals */
    0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000};
static const uint64_t special_f64[] = {
    0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFF0000000000001,
    0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x7FF4A5A5A5A5A5A5,                 /* NaNs */
    0x7FF0000000000000, 0xFFF0000000000000, 0x0000000000000000, 0x8000000000000000,
    0x0000000000000001, 0x8000000000000001, 0x000FFFFFFFFFFFFF, 0x800FFFFFFFFFFFFF,
    0x0010000000000000, 0x8010000000000000, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF,
    0x3FF0000000000000, 0xBFF0000000000000};
/* Integer extremes as bits of the type's width: 0, 1, -1, MIN, MIN+1, MAX-1, MAX. */
static uint64_t special_int(gpu_dtype t, uint64_t r) {
  const uint64_t top = gpu_dtype_size(t) == 4 ? 0x80000000ull : 0x8000000000000000ull;
  const uint64_t all = top | (top - 1);
  const uint64_t v[] = {0, 1, all, top, top + 1, top - 2, top - 1};
  return v[r % 7];
}

static uint64_t random_bits(gpu_dtype t) {
  uint64_t r = tu_rand();
  return gpu_dtype_size(t) == 4 ? r >> 32 : r;
}

static uint64_t special_bits(gpu_dtype t) {
  uint64_t r = tu_rand();
  if (r & 1) return random_bits(t); /* half specials, half anything */
  r >>= 1;
  if (t == GPU_F32) return special_f32[r % (sizeof special_f32 / sizeof *special_f32)];
  if (t == GPU_F64) return special_f64[r % (sizeof special_f64 / sizeof *special_f64)];
  return special_int(t, r);
}

static void make_keys(void *keys, size_t n, gpu_dtype t, kind k) {
  uint64_t few[5];
  for (int i = 0; i < 5; i++) few[i] = special_bits(t);
  switch (k) {
    case K_RANDOM: case K_SORTED: case K_REVERSED:
      for (size_t i = 0; i < n; i++) set_bits(keys, i, t, random_bits(t));
      break;
    case K_DUPS:
      for (size_t i = 0; i < n; i++) set_bits(keys, i, t, few[tu_below(5)]);
      break;
    case K_EQUAL:
      for (size_t i = 0; i < n; i++) set_bits(keys, i, t, few[0]);
      break;
    case K_SPECIAL:
      for (size_t i = 0; i < n; i++) set_bits(keys, i, t, special_bits(t));
      break;
    case K_SMALL: tu_fill(keys, n, t, TU_SMALL); break;
    case K_SPARSE: {
      const uint64_t vary = 0x0000FF0000FF00FFull, fixed = 0x3C12005600003400ull;
      for (size_t i = 0; i < n; i++) set_bits(keys, i, t, (random_bits(t) & vary) | fixed);
      break;
    }
    case NKINDS: break;
  }
  if (k == K_SORTED || k == K_REVERSED) {
    record *r = reference_order(keys, n, t, k == K_REVERSED);
    for (size_t i = 0; i < n; i++) set_bits(keys, i, t, r[i].key);
    free(r);
  }
}

/* Value i of a pair: its original index, with high bits that must move too. */
static uint64_t value_of(size_t i, size_t value_bytes) {
  return value_bytes == 4 ? (uint32_t)i : (uint64_t)i | 0xC0FFEE0000000000ull;
}

/* ---------------------------------------------------------- one sort */

/* Whether the element size bytes on either side of n elements at p+size
 * still hold the poison (0xA5). */
static bool guards_intact(const unsigned char *p, size_t n, size_t size) {
  for (size_t b = 0; b < size; b++)
    if (p[b] != 0xA5 || p[(n + 1) * size + b] != 0xA5) return false;
  return true;
}

/* Sorts n keys of kind k (with values of value_bytes, 0 = keys only) one
 * element into a poisoned allocation, and checks the result and that the
 * elements on either side stayed poisoned. (Per-element checks are plain
 * ifs: a passing ck_assert costs Check a write to its pipe.) */
static void check_sort(gpu_dtype t, size_t value_bytes, unsigned flags, kind k, size_t n) {
  const size_t kw = gpu_dtype_size(t), vw = value_bytes;
  const gpu_dtype vt = vw == 4 ? GPU_U32 : GPU_U64;
  const bool descending = flags & GPU_DESCENDING;
  char what[128];
  snprintf(what, sizeof what, "%s %s %s, %s, n = %zu", gp_dtype_name(t),
           vw == 0 ? "keys" : vw == 4 ? "pairs4" : "pairs8", descending ? "desc" : "asc",
           kind_names[k], n);

  void *keys = tu_xmalloc(n * kw), *values = tu_xmalloc(n * (vw ? vw : 1));
  make_keys(keys, n, t, k);
  for (size_t i = 0; vw && i < n; i++) set_bits(values, i, vt, value_of(i, vw));
  unsigned char *dkeys = tu_alloc((n + 2) * kw), *dvalues = vw ? tu_alloc((n + 2) * vw) : NULL;
  tu_poison(dkeys, (n + 2) * kw);
  tu_upload(dkeys + kw, keys, n * kw);
  if (vw) {
    tu_poison(dvalues, (n + 2) * vw);
    tu_upload(dvalues + vw, values, n * vw);
  }

  gpu_status s = vw ? gpu_sort_pairs(dkeys + kw, dvalues + vw, n, t, vw, flags)
                    : gpu_sort_keys(dkeys + kw, n, t, flags);
  ck_assert_msg(s == GPU_OK, "%s: %s (%s)", what, gpu_status_string(s), gpu_last_error());

  unsigned char *got_keys = tu_xmalloc((n + 2) * kw);
  unsigned char *got_values = tu_xmalloc((n + 2) * (vw ? vw : 1));
  tu_download(got_keys, dkeys, (n + 2) * kw);
  if (vw) tu_download(got_values, dvalues, (n + 2) * vw);
  ck_assert_msg(guards_intact(got_keys, n, kw), "%s: wrote outside the keys", what);
  ck_assert_msg(!vw || guards_intact(got_values, n, vw), "%s: wrote outside the values", what);

  record *r = reference_order(keys, n, t, descending);
  for (size_t i = 0; i < n; i++) {
    uint64_t want = r[i].key, got = tu_get_bits(got_keys + kw, i, t);
    if (got != want)
      ck_abort_msg("%s: key %zu is 0x%llx, want 0x%llx (from index %zu)", what, i,
                   (unsigned long long)got, (unsigned long long)want, r[i].index);
    if (!vw) continue;
    uint64_t wantv = value_of(r[i].index, vw), gotv = tu_get_bits(got_values + vw, i, vt);
    if (gotv != wantv)
      ck_abort_msg("%s: value %zu is 0x%llx, want 0x%llx", what, i, (unsigned long long)gotv,
                   (unsigned long long)wantv);
  }
  free(r);
  free(got_values);
  free(got_keys);
  tu_free(dvalues);
  tu_free(dkeys);
  free(values);
  free(keys);
}

static void combo(int i, gpu_dtype *t, size_t *vw, unsigned *flags) {
  *t = key_types[i / 6];
  *vw = value_widths[(i / 2) % 3];
  *flags = directions[i % 2];
}

_Static_assert((int)NKINDS == (int)TEST_SORT_KINDS && (int)NCOMBOS == (int)TEST_SORT_COMBOS &&
                   (int)K_EQUAL == (int)TEST_SORT_EQUAL && (int)K_SMALL == (int)TEST_SORT_SMALL &&
                   (int)K_SPARSE == (int)TEST_SORT_SPARSE,
               "test_sort.h is in step");

/* For the CUDA-only tests (test_sort_cuda.c). */
void test_sort_check(gpu_dtype t, size_t value_bytes, unsigned flags, int k, size_t n) {
  check_sort(t, value_bytes, flags, (kind)k, n);
}
void test_sort_combo(int i, gpu_dtype *t, size_t *value_bytes, unsigned *flags) {
  combo(i, t, value_bytes, flags);
}

/* -------------------------------------------------------------- tests */

/* Small sizes (up to 4097): every combination, every kind. Quick (under
 * compute-sanitizer): up to 1025, the kind rotating with the size, and
 * every kind at 1025. Sharded by combination (tu_in_shard). */
START_TEST(small_sizes) {
  if (!tu_in_shard((size_t)_i)) return;
  gpu_dtype t;
  size_t vw;
  unsigned flags;
  combo(_i, &t, &vw, &flags);
  const bool quick = tu_quick();
  const size_t limit = quick ? 1025 : 4097;
  for (int k = 0; k < NKINDS; k++)
    for (size_t s = 0; s < tu_nsizes && tu_sizes[s] <= limit; s++) {
      const bool rotating = (int)((s + (size_t)_i) % NKINDS) == k;
      if (tu_sizes[s] > 0 && (!quick || rotating || tu_sizes[s] == limit))
        check_sort(t, vw, flags, (kind)k, tu_sizes[s]);
    }
}
END_TEST

/* Medium sizes (4098..65537), the kind rotating, then one size from
 * 131072..262145 (several threads on the host) for every combination. */
START_TEST(medium_sizes) {
  gpu_dtype t;
  size_t vw;
  unsigned flags;
  combo(_i, &t, &vw, &flags);
  for (size_t s = 0; s < tu_nsizes; s++) {
    if (tu_sizes[s] <= 4097 || tu_sizes[s] > 65537) continue;
    if (tu_quick() && (tu_sizes[s] != 65537 || _i % 6 != 0)) continue;
    check_sort(t, vw, flags, (kind)((s + (size_t)_i) % NKINDS), tu_sizes[s]);
  }
  static const size_t threaded[] = {131072, 262143, 262144, 262145};
  if (!tu_quick()) check_sort(t, vw, flags, (kind)(_i % NKINDS), threaded[_i % 4]);
}
END_TEST

/* Large sizes (above 65537, these run on several threads): one combination
 * and kind per size, rotating, so that every type, width, direction and kind
 * meets a large n without a reference qsort of every one. */
START_TEST(large_sizes) {
  size_t j = 0;
  for (size_t s = 0; s < tu_nsizes; s++) {
    size_t n = tu_sizes[s];
    if (n <= 65537) continue;
    if (tu_quick() && n != 262145) continue;
    gpu_dtype t;
    size_t vw;
    unsigned flags;
    combo((int)((j * 7) % NCOMBOS), &t, &vw, &flags);
    check_sort(t, vw, flags, (kind)(j % NKINDS), n);
    j++;
  }
}
END_TEST

/* n == 0 does nothing, with or without arrays. */
START_TEST(empty) {
  for (int i = 0; i < NTYPES; i++) {
    gpu_dtype t = key_types[i];
    ck_assert_int_eq(gpu_sort_keys(NULL, 0, t, GPU_DESCENDING), GPU_OK);
    ck_assert_int_eq(gpu_sort_pairs(NULL, NULL, 0, t, 4, GPU_ASCENDING), GPU_OK);
    uint64_t *k = tu_alloc(16), *v = tu_alloc(16);
    const uint64_t hk[2] = {5, 3}, hv[2] = {1, 2};
    tu_upload(k, hk, 16);
    tu_upload(v, hv, 16);
    ck_assert_int_eq(gpu_sort_keys(k, 0, t, GPU_ASCENDING), GPU_OK);
    ck_assert_int_eq(gpu_sort_pairs(k, v, 0, t, 8, GPU_ASCENDING), GPU_OK);
    uint64_t gk[2], gv[2];
    tu_download(gk, k, 16);
    tu_download(gv, v, 16);
    ck_assert(memcmp(gk, hk, 16) == 0 && memcmp(gv, hv, 16) == 0);
    tu_free(v);
    tu_free(k);
  }
}
END_TEST

/* ------------------------------------------------------ bad arguments */

enum { NBAD = 64 };
static unsigned char *bad_keys, *bad_values; /* backend memory, NBAD * 8 bytes each */
static uint64_t bad_keys_host[NBAD], bad_values_host[NBAD];

static void bad_setup(void) {
  for (int i = 0; i < NBAD; i++) {
    bad_keys_host[i] = tu_rand();
    bad_values_host[i] = tu_rand();
  }
  bad_keys = tu_alloc(sizeof bad_keys_host);
  bad_values = tu_alloc(sizeof bad_values_host);
  tu_upload(bad_keys, bad_keys_host, sizeof bad_keys_host);
  tu_upload(bad_values, bad_values_host, sizeof bad_values_host);
}

/* Checks status s == want, the message names fn, and both arrays are untouched. */
static void expect_bad(gpu_status s, gpu_status want, const char *fn, const char *what) {
  ck_assert_msg(s == want, "%s (%s): got %s, want %s", fn, what, gpu_status_string(s),
                gpu_status_string(want));
  ck_assert_msg(strncmp(gpu_last_error(), fn, strlen(fn)) == 0, "%s (%s): message '%s'", fn,
                what, gpu_last_error());
  uint64_t k[NBAD], v[NBAD];
  tu_download(k, bad_keys, sizeof k);
  tu_download(v, bad_values, sizeof v);
  ck_assert_msg(memcmp(k, bad_keys_host, sizeof k) == 0, "%s (%s): keys changed", fn, what);
  ck_assert_msg(memcmp(v, bad_values_host, sizeof v) == 0, "%s (%s): values changed", fn, what);
}

START_TEST(bad_arguments) {
  bad_setup();
  const gpu_status INV = GPU_ERR_INVALID_ARGUMENT;
  const char *K = "gpu_sort_keys", *P = "gpu_sort_pairs";
  unsigned char *k = bad_keys, *v = bad_values;
  const size_t n = 16;

  expect_bad(gpu_sort_keys(NULL, n, GPU_U32, 0), INV, K, "NULL keys");
  expect_bad(gpu_sort_keys(k, n, (gpu_dtype)6, 0), INV, K, "dtype 6");
  expect_bad(gpu_sort_keys(k, n, (gpu_dtype)-1, 0), INV, K, "dtype -1");
  expect_bad(gpu_sort_keys(k, n, GPU_U32, 2), INV, K, "flag 2");
  expect_bad(gpu_sort_keys(k, n, GPU_F64, 0x80000001u), INV, K, "flag 0x80000001");
  expect_bad(gpu_sort_keys(k + 1, n, GPU_I32, 0), INV, K, "keys misaligned");
  expect_bad(gpu_sort_keys(k + 4, n, GPU_U64, 0), INV, K, "keys misaligned for u64");
  expect_bad(gpu_sort_keys(k, SIZE_MAX / 2, GPU_U64, 0), INV, K, "n * 8 overflows");

  expect_bad(gpu_sort_pairs(NULL, v, n, GPU_U32, 4, 0), INV, P, "NULL keys");
  expect_bad(gpu_sort_pairs(k, NULL, n, GPU_U32, 4, 0), INV, P, "NULL values");
  expect_bad(gpu_sort_pairs(k, v, n, (gpu_dtype)7, 4, 0), INV, P, "dtype 7");
  expect_bad(gpu_sort_pairs(k, v, n, GPU_I64, 8, 4), INV, P, "flag 4");
  const size_t widths[] = {0, 1, 2, 3, 5, 6, 7, 12, 16, SIZE_MAX};
  for (size_t i = 0; i < sizeof widths / sizeof *widths; i++) {
    char what[64];
    snprintf(what, sizeof what, "value_bytes %zu", widths[i]);
    expect_bad(gpu_sort_pairs(k, v, n, GPU_F32, widths[i], 0), INV, P, what);
    expect_bad(gpu_sort_pairs(k, v, 0, GPU_F32, widths[i], 0), INV, P, what);
  }
  expect_bad(gpu_sort_pairs(k, v, SIZE_MAX / 2, GPU_U64, 4, 0), INV, P, "n * 8 keys overflows");
  expect_bad(gpu_sort_pairs(k, v, SIZE_MAX / 6, GPU_U32, 8, 0), INV, P, "n * 8 values overflows");
  expect_bad(gpu_sort_pairs(k + 2, v, n, GPU_F32, 4, 0), INV, P, "keys misaligned");
  expect_bad(gpu_sort_pairs(k, v + 4, n, GPU_F32, 8, 0), INV, P, "values misaligned");
  expect_bad(gpu_sort_pairs(k, k, n, GPU_U32, 4, 0), INV, P, "values are the keys");
  expect_bad(gpu_sort_pairs(k, k + 8 * (n / 2), n, GPU_U64, 8, 0), INV, P, "values inside keys");
  expect_bad(gpu_sort_pairs(k + 8 * (n / 2), k, n, GPU_U64, 8, 0), INV, P, "keys inside values");
  expect_bad(gpu_sort_pairs(k + 4 * (n - 1), k, n, GPU_I32, 4, 0), INV, P,
             "last value is first key");
  expect_bad(gpu_sort_pairs(k, k + 4 * (n - 1), n, GPU_I32, 4, 0), INV, P,
             "last key is first value");
  expect_bad(gpu_sort_pairs(k, k + 4 * (n - 2), n, GPU_I32, 8, 0), INV, P,
             "8-byte values over the last keys");

  /* Touching but disjoint is fine: keys [0, 4n), values [4n, 8n) of one allocation. */
  ck_assert_int_eq(gpu_sort_pairs(k, k + 4 * n, n, GPU_U32, 4, GPU_DESCENDING), GPU_OK);
  ck_assert_int_eq(gpu_sort_pairs(k + 4 * n, k, n, GPU_U32, 4, GPU_ASCENDING), GPU_OK);
  tu_free(bad_values);
  tu_free(bad_keys);
}
END_TEST

#if !TU_CUDA
/* Host only: a second buffer the size of n keys that cannot be allocated gives
 * OUT_OF_MEMORY before the keys are read or written. (n is a lie about a
 * small array; nothing of it is read, since the buffer comes first.) */
START_TEST(out_of_memory) {
  bad_setup();
  expect_bad(gpu_sort_keys(bad_keys, SIZE_MAX / 16, GPU_U64, GPU_DESCENDING),
             GPU_ERR_OUT_OF_MEMORY, "gpu_sort_keys", "huge n");
  tu_free(bad_values);
  tu_free(bad_keys);
}
END_TEST
#endif

int main(void) {
  const char *name = TU_CUDA ? "sort (cuda)" : "sort (host)";
#if TU_CUDA
  tu_require_cuda(name);
#else
  gpu_set_backend(GPU_BACKEND_HOST);
#endif
  tu_init(name);
  Suite *s = suite_create(name);
  /* One case per group, so that CK_RUN_CASE=... runs one group alone. */
  TCase *small = tu_tcase("small"), *medium = tu_tcase("medium"), *large = tu_tcase("large"),
        *args = tu_tcase("arguments");
  tcase_add_loop_test(small, small_sizes, 0, NCOMBOS);
  tcase_add_loop_test(medium, medium_sizes, 0, NCOMBOS);
  tcase_add_test(large, large_sizes);
  tcase_add_test(args, empty);
  tcase_add_test(args, bad_arguments);
#if !TU_CUDA
  tcase_add_test(args, out_of_memory);
#endif
  suite_add_tcase(s, small);
  suite_add_tcase(s, medium);
  suite_add_tcase(s, large);
  suite_add_tcase(s, args);
#if TU_SORT_CUDA_ONLY
  suite_add_tcase(s, test_sort_cuda_tcase());
#endif
  return tu_run(s, TU_CUDA);
}
