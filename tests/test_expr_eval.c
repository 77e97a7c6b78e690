/*
 * Host evaluation of expressions against C: every formula of
 * test_expr_formulas.h is also compiled here as C (with -fwrapv, so that
 * + - * wrap as the language says, and -ffp-contract=off), on random inputs
 * of every element type with the awkward values mixed in: MIN, MAX, -1, 0,
 * shift widths, NaN, +-inf, +-0, denormals, random bit patterns.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact/expr.h"
#include "core/core.h"
#include "test_expr_formulas.h"
#include "test_util.h"

/* ---------------------------------------------------- reference helpers */

/* What the language defines and C does not: division by 0 or -1, any shift
 * count, abs of MIN. */
#define SIGNED_HELPERS(S, T, U, W)                                                   \
  static T div_##S(T a, T b) { return b == 0 ? 0 : b == -1 ? (T)(0 - (U)a) : a / b; } \
  static T mod_##S(T a, T b) { return b == 0 || b == -1 ? 0 : a % b; }               \
  static T shl_##S(T a, uint64_t c) { return (T)((U)a << (c % W)); }                 \
  static T shr_##S(T a, uint64_t c) { return a < 0 ? (T) ~((U)~a >> (c % W)) : (T)((U)a >> (c % W)); } \
  static T abs_##S(T a) { return a < 0 ? (T)(0 - (U)a) : a; }
#define UNSIGNED_HELPERS(S, T, W)                                   \
  static T div_##S(T a, T b) { return b == 0 ? 0 : a / b; }         \
  static T mod_##S(T a, T b) { return b == 0 ? 0 : a % b; }         \
  static T shl_##S(T a, uint64_t c) { return (T)(a << (c % W)); }   \
  static T shr_##S(T a, uint64_t c) { return (T)(a >> (c % W)); }   \
  static T abs_##S(T a) { return a; }
SIGNED_HELPERS(i32, int32_t, uint32_t, 32)
SIGNED_HELPERS(i64, int64_t, uint64_t, 64)
UNSIGNED_HELPERS(u32, uint32_t, 32)
UNSIGNED_HELPERS(u64, uint64_t, 64)

static double ref_fabs(double d) { return fabs(d); }
static int ref_isnan(double d) { return d != d; }
static int ref_isinf(double d) { return d == INFINITY || d == -INFINITY; }
static int ref_isfinite(double d) { return !ref_isnan(d) && !ref_isinf(d); }

/* The language's functions as C macros over the argument's type. int64_t is
 * long here; long long appears for completeness. */
#define INT_GENERIC(E, F)                                                              \
  _Generic((E), int32_t: F##_i32, uint32_t: F##_u32, int64_t: F##_i64, uint64_t: F##_u64, \
           long long: F##_i64, unsigned long long: F##_u64)
#define DIV(a, b) INT_GENERIC((a) + (b), div)((a), (b))
#define MOD(a, b) INT_GENERIC((a) + (b), mod)((a), (b))
#define SHL(a, c) INT_GENERIC((a), shl)((a), (uint64_t)(c))
#define SHR(a, c) INT_GENERIC((a), shr)((a), (uint64_t)(c))
#undef isnan
#undef isinf
#undef isfinite
#define isnan(a) ref_isnan((double)(a))
#define isinf(a) ref_isinf((double)(a))
#define isfinite(a) ref_isfinite((double)(a))
#define abs(a)                                                                             \
  _Generic((a), int32_t: abs_i32, uint32_t: abs_u32, int64_t: abs_i64, uint64_t: abs_u64, \
           float: fabsf, double: fabs)(a)
#define fabs(a) _Generic((a), float: fabsf, default: ref_fabs)(a)
#define floor(a) _Generic((a), float: floorf, default: floor)(a)
#define ceil(a) _Generic((a), float: ceilf, default: ceil)(a)
#define sqrt(a) _Generic((a), float: sqrtf, default: sqrt)(a)
/* A NaN operand wins, a tie keeps the first; the ?: gives the usual conversions. */
#define min(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (b) < (a) ? (b) : (a))
#define max(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) < (b) ? (b) : (a))

/* The formulas mix signedness and compare x with itself on purpose. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wparentheses"
#pragma GCC diagnostic ignored "-Wtautological-compare"
#ifdef __clang__
#pragma clang diagnostic ignored "-Wimplicit-const-int-float-conversion"
#else
#pragma GCC diagnostic ignored "-Wbool-compare"
#endif
#pragma GCC diagnostic ignored "-Wint-in-bool-context"
#pragma GCC diagnostic ignored "-Wdiv-by-zero"

#define REF_CASE(E) if (k-- == 0) return (E) != 0;
#define REF_UB_CASE(F, E) if (k-- == 0) return (E) != 0;
#define INT_REFS(S, T)                                                        \
  static int ref_common_##S(int k, T x) { EXPR_COMMON_C(REF_CASE) return -1; } \
  static int ref_int_##S(int k, T x) { EXPR_INT_C(REF_CASE) return -1; }       \
  static int ref_ub_##S(int k, T x) { EXPR_INT_UB(REF_UB_CASE) return -1; }
#define FLOAT_REFS(S, T)                                                      \
  static int ref_common_##S(int k, T x) { EXPR_COMMON_C(REF_CASE) return -1; } \
  static int ref_float_##S(int k, T x) { EXPR_FLOAT_C(REF_CASE) return -1; }
INT_REFS(i32, int32_t)
INT_REFS(u32, uint32_t)
INT_REFS(i64, int64_t)
INT_REFS(u64, uint64_t)
FLOAT_REFS(f32, float)
FLOAT_REFS(f64, double)

#pragma GCC diagnostic pop

/* ------------------------------------------------------------- the lists */

#define STR(E) #E,
#define STR_UB(F, E) F,
enum { L_COMMON, L_INT, L_FLOAT, L_UB };
static const char *const common_formulas[] = {EXPR_COMMON_C(STR)};
static const char *const int_formulas[] = {EXPR_INT_C(STR)};
static const char *const float_formulas[] = {EXPR_FLOAT_C(STR)};
static const char *const ub_formulas[] = {EXPR_INT_UB(STR_UB)};
#define COUNT(a) (int)(sizeof a / sizeof a[0])

/* The reference result of formula k of a list on element i of in. */
static int reference(gpu_dtype t, int list, int k, const void *in, size_t i) {
  switch (t) {
#define INT_CASE(D, S, T)                                                           \
  case D: {                                                                         \
    T x = ((const T *)in)[i];                                                       \
    return list == L_COMMON ? ref_common_##S(k, x) : list == L_INT ? ref_int_##S(k, x) \
                                                                   : ref_ub_##S(k, x); \
  }
    INT_CASE(GPU_I32, i32, int32_t)
    INT_CASE(GPU_U32, u32, uint32_t)
    INT_CASE(GPU_I64, i64, int64_t)
    INT_CASE(GPU_U64, u64, uint64_t)
    case GPU_F32: {
      float x = ((const float *)in)[i];
      return list == L_COMMON ? ref_common_f32(k, x) : ref_float_f32(k, x);
    }
    case GPU_F64: {
      double x = ((const double *)in)[i];
      return list == L_COMMON ? ref_common_f64(k, x) : ref_float_f64(k, x);
    }
  }
  return -1;
}

/* ------------------------------------------------------------------ tests */

/* Compiles formula for t, evaluates it on in[0..n) and compares each keep[i]
 * with the reference; keep beyond n must stay untouched. */
static void check_formula(gpu_dtype t, const char *formula, int list, int k, const void *in, size_t n) {
  gp_expr *e = NULL;
  ck_assert_msg(gp_expr_compile(formula, t, &e) == GPU_OK, "%s on %s: %s", formula, gp_dtype_name(t),
                gpu_last_error());
  uint8_t *keep = tu_xmalloc(n + 64);
  memset(keep, 0xA5, n + 64);
  gp_expr_eval_host(e, in, n, keep);
  /* Check's assertions cost a write each: test first, assert on a mismatch. */
  for (size_t i = 0; i < n; i++) {
    int want = reference(t, list, k, in, i);
    char buf[64];
    if (keep[i] != want)
      ck_abort_msg("%s on %s: x = %s gives %d, C gives %d (canonical %s)", formula, gp_dtype_name(t),
                   expr_value_text(t, in, i, buf), keep[i], want, gp_expr_canonical(e));
  }
  for (size_t i = n; i < n + 64; i++)
    if (keep[i] != 0xA5) ck_abort_msg("%s: keep[%zu] written past n = %zu", formula, i, n);
  free(keep);
  gp_expr_free(e);
}

static void check_list(gpu_dtype t, int list, const char *const *formulas, int count, const void *in, size_t n) {
  for (int k = 0; k < count; k++) check_formula(t, formulas[k], list, k, in, n);
}

START_TEST(eval_matches_c) {
  gpu_dtype t = (gpu_dtype)_i;
  enum { N = 3000 }; /* about three blocks, with a partial one */
  void *in = tu_xmalloc(N * gpu_dtype_size(t));
  expr_fill_inputs(in, N, t);
  check_list(t, L_COMMON, common_formulas, COUNT(common_formulas), in, N);
  if (gp_dtype_is_float(t)) {
    check_list(t, L_FLOAT, float_formulas, COUNT(float_formulas), in, N);
  } else {
    check_list(t, L_INT, int_formulas, COUNT(int_formulas), in, N);
    check_list(t, L_UB, ub_formulas, COUNT(ub_formulas), in, N);
  }
  free(in);
}
END_TEST

/* Sizes around the block and over the parallel path, on one formula per list. */
START_TEST(eval_sizes) {
  gpu_dtype t = (gpu_dtype)_i;
  const size_t max_n = tu_quick() ? 70000 : 1100000;
  void *in = tu_xmalloc(max_n * gpu_dtype_size(t));
  expr_fill_inputs(in, max_n, t);
  for (size_t s = 0; s < tu_nsizes && tu_sizes[s] <= max_n; s++) {
    size_t n = tu_sizes[s];
    check_formula(t, common_formulas[1], L_COMMON, 1, in, n);
    if (!gp_dtype_is_float(t)) check_formula(t, ub_formulas[0], L_UB, 0, in, n);
  }
  free(in);
}
END_TEST

/* Long chains and deep nesting: the evaluator's slots and blocks. */
START_TEST(eval_big_formulas) {
  gpu_dtype t = (gpu_dtype)_i;
  enum { N = 2100 };
  void *in = tu_xmalloc(N * gpu_dtype_size(t));
  expr_fill_inputs(in, N, t);
  uint8_t *keep = tu_xmalloc(N);
  char *f = tu_xmalloc(GP_EXPR_MAX_LENGTH + 1);
  /* x+x+...+x (2048 terms) == 2048*x: true where no rounding happens */
  strcpy(f, "x");
  while (strlen(f) + 2 <= GP_EXPR_MAX_LENGTH - 12) strcat(f, "+x");
  size_t terms = (strlen(f) + 1) / 2;
  snprintf(f + strlen(f), 32, "==%zu*x", terms);
  gp_expr *e = NULL;
  ck_assert_msg(gp_expr_compile(f, t, &e) == GPU_OK, "%s", gpu_last_error());
  gp_expr_eval_host(e, in, N, keep);
  for (size_t i = 0; i < N; i++) {
    double x = tu_get_f(in, i, t);
    int want = gp_dtype_is_float(t) ? isnan(x) ? 0 : keep[i] : 1; /* integers: both sides wrap alike */
    if (keep[i] != want) ck_abort_msg("x+x+...+x == %zu*x at x = %g gives %d", terms, x, keep[i]);
  }
  gp_expr_free(e);
  /* 63 levels of every precedence level at once: many values pending */
  f[0] = '\0';
  for (int d = 0; d < 63; d++) strcat(f, gp_dtype_is_float(t) ? "1||1&&1==1<1+1*(" : "1||1&&1|1^1&1==1<1<<1+1*(");
  strcat(f, "x");
  for (int d = 0; d < 63; d++) strcat(f, ")");
  ck_assert_msg(gp_expr_compile(f, t, &e) == GPU_OK, "%s", gpu_last_error());
  gp_expr_eval_host(e, in, N, keep);
  for (size_t i = 0; i < N; i++)
    if (keep[i] != 1) ck_abort_msg("deep formula on %s gives 0 at %zu", gp_dtype_name(t), i);
  gp_expr_free(e);
  free(f);
  free(keep);
  free(in);
}
END_TEST

/* One compiled formula used by many threads at once. */
START_TEST(eval_shared_between_threads) {
  gpu_dtype t = GPU_I64;
  enum { N = 5000, THREADS = 4 };
  void *in = tu_xmalloc(N * 8);
  expr_fill_inputs(in, N, t);
  gp_expr *e = NULL;
  ck_assert(gp_expr_compile(ub_formulas[1], t, &e) == GPU_OK);
  uint8_t *keep = tu_xmalloc(N * THREADS);
#pragma omp parallel for num_threads(THREADS)
  for (int th = 0; th < THREADS; th++) gp_expr_eval_host(e, in, N, keep + (size_t)th * N);
  for (int th = 0; th < THREADS; th++)
    for (size_t i = 0; i < N; i++)
      if (keep[(size_t)th * N + i] != reference(t, L_UB, 1, in, i)) ck_abort_msg("thread %d, element %zu", th, i);
  gp_expr_free(e);
  free(keep);
  free(in);
}
END_TEST

TCase *expr_eval_tcase(void) {
  TCase *tc = tu_tcase("eval");
  tcase_add_loop_test(tc, eval_matches_c, GPU_I32, GPU_F64 + 1);
  tcase_add_loop_test(tc, eval_sizes, GPU_I32, GPU_F64 + 1);
  tcase_add_loop_test(tc, eval_big_formulas, GPU_I32, GPU_F64 + 1);
  tcase_add_test(tc, eval_shared_between_threads);
  return tc;
}
