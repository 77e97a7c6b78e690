/*
 * The expression language of gpu_pred_expr (compact/expr.h): what it accepts
 * on every element type, what it refuses and at which column, type errors,
 * the canonical text and the CUDA text. Host evaluation against C is in
 * test_expr_eval.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact/expr.h"
#include "core/core.h"
#include "test_expr_formulas.h"
#include "test_util.h"

TCase *expr_eval_tcase(void);

static const char *const all_types[] = {EXPR_TEXTS_COMMON};
static const char *const int_types[] = {EXPR_TEXTS_INT};
static const char *const float_types[] = {EXPR_TEXTS_FLOAT};
#define COUNT(a) (sizeof a / sizeof a[0])

static gp_expr *compile_ok(const char *f, gpu_dtype t) {
  gp_expr *e = NULL;
  gpu_status s = gp_expr_compile(f, t, &e);
  ck_assert_msg(s == GPU_OK && e, "'%s' on %s refused: %s", f, gp_dtype_name(t), gpu_last_error());
  ck_assert_int_eq(gp_expr_dtype(e), t);
  return e;
}

/* The refusal and the column in its message. */
static void expect_error(const char *f, gpu_dtype t, int column) {
  gp_expr *e = (gp_expr *)&e; /* must be reset to NULL */
  gpu_status s = gp_expr_compile(f, t, &e);
  ck_assert_msg(s == GPU_ERR_INVALID_ARGUMENT, "'%s' on %s: status %d, not INVALID_ARGUMENT", f,
                gp_dtype_name(t), s);
  ck_assert_ptr_null(e);
  char want[48];
  snprintf(want, sizeof want, "gpu_pred_expr: column %d:", column);
  ck_assert_msg(strncmp(gpu_last_error(), want, strlen(want)) == 0, "'%s': wanted \"%s\", got \"%s\"", f,
                want, gpu_last_error());
}

START_TEST(accepts_valid_formulas) {
  gpu_dtype t = (gpu_dtype)_i;
  for (size_t k = 0; k < COUNT(all_types); k++) gp_expr_free(compile_ok(all_types[k], t));
  const char *const *list = gp_dtype_is_float(t) ? float_types : int_types;
  size_t n = gp_dtype_is_float(t) ? COUNT(float_types) : COUNT(int_types);
  for (size_t k = 0; k < n; k++) gp_expr_free(compile_ok(list[k], t));
}
END_TEST

START_TEST(bad_arguments) {
  gp_expr *e = NULL;
  ck_assert_int_eq(gp_expr_compile("x", GPU_I32, NULL), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gp_expr_compile(NULL, GPU_I32, &e), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(e);
  ck_assert_ptr_nonnull(strstr(gpu_last_error(), "gpu_pred_expr: expression is NULL"));
  ck_assert_int_eq(gp_expr_compile("x", (gpu_dtype)99, &e), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gp_expr_compile("x", (gpu_dtype)-1, &e), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(gpu_last_error(), "element type"));
  gp_expr_free(NULL);
}
END_TEST

static const struct {
  const char *formula;
  int column;
} grammar_errors[] = {
    {"", 1},              {"   ", 1},            {"(x + 1", 7},        {"x + 1)", 6},
    {")", 1},             {"x +", 4},            {"x + * 2", 5},       {"x 1", 3},
    {"x x", 3},           {"y > 1", 1},          {"x > y", 5},         {"X", 1},
    {"sin(x)", 1},        {"x(1)", 2},           {"abs x", 5},         {"abs", 4},
    {"min(x)", 1},        {"max(x, 1, 2)", 1},   {"abs(x, 1)", 1},     {"abs()", 1},
    {"min(x,)", 7},       {"min(,x)", 5},        {"x = 1", 3},         {"x += 1", 3},
    {"x <<= 1", 3},       {"x ? 1 : 0", 3},      {"x : 1", 3},         {"x, 1", 2},
    {"x++", 2},           {"--x", 1},            {"x @ 1", 3},         {"x # 1", 3},
    {"x $", 3},           {"x.y", 2},            {"x . 5 + 1", 3},     {"1.5f", 4},
    {"10u < x", 3},       {"x > 7L", 6},         {"1ul", 1},           {"0x", 1},
    {"0xg1", 1},          {"0x1p3", 1},          {"0x1e+1", 1},        {"1e", 1},
    {"1e+", 1},           {"1.2.3", 1},          {"12abc", 1},         {"0123", 1},
    {"x < 99999999999999999999", 5},             {"2147483648 * 9223372036854775808", 14},
    {"0x10000000000000000", 1},                  {"1e999 > x", 1},     {"x && || x", 6},
    {"(x))", 4},          {"((x)", 5},           {"()", 2},            {"x !", 3},
    {"x ~ 1", 3},         {"!", 2},              {"x\n+\n@", 5},       {"x + \x01", 5},
    {"x + \xc3\xa9", 5},  {"x [0]", 3},          {"x ; 1", 3},         {"'a'", 1},
    {"\"x\"", 1},         {"x -> 1", 4},         {"x == = 1", 6},      {"xabs(x)", 1},
    {"x/**/+1", 3},       {"x // 1", 4},
};

START_TEST(grammar_errors_name_the_column) {
  for (size_t k = 0; k < COUNT(grammar_errors); k++)
    expect_error(grammar_errors[k].formula, (gpu_dtype)_i, grammar_errors[k].column);
}
END_TEST

START_TEST(error_message_shows_a_caret) {
  expect_error("(x + 1", GPU_I32, 7);
  ck_assert_str_eq(gpu_last_error(), "gpu_pred_expr: column 7: expected ')'\n  (x + 1\n        ^");
  expect_error("x + foo", GPU_I32, 5);
  ck_assert_ptr_nonnull(strstr(gpu_last_error(), "unknown name 'foo'"));
}
END_TEST

/* Limits: length 4096, nesting 64 (parentheses, calls, prefix operators). */
START_TEST(limits) {
  char *f = tu_xmalloc(GP_EXPR_MAX_LENGTH + 200);
  memset(f, ' ', GP_EXPR_MAX_LENGTH);
  f[0] = 'x';
  f[GP_EXPR_MAX_LENGTH] = '\0';
  gp_expr_free(compile_ok(f, GPU_I32));
  strcat(f, " ");
  expect_error(f, GPU_I32, GP_EXPR_MAX_LENGTH + 1);
  static const char *const opens[] = {"(", "abs(", "- ", "!", "~", "min(1,"};
  for (size_t k = 0; k < COUNT(opens); k++) {
    for (int depth = GP_EXPR_MAX_NESTING; depth <= GP_EXPR_MAX_NESTING + 1; depth++) {
      f[0] = '\0';
      for (int d = 0; d < depth; d++) strcat(f, opens[k]);
      strcat(f, "x");
      if (strchr(opens[k], '('))
        for (int d = 0; d < depth; d++) strcat(f, ")");
      if (depth <= GP_EXPR_MAX_NESTING) gp_expr_free(compile_ok(f, GPU_I64));
      else expect_error(f, GPU_I64, (int)(strlen(opens[k]) * GP_EXPR_MAX_NESTING) + 1);
    }
  }
  /* A long flat chain is not nesting. */
  strcpy(f, "x");
  while (strlen(f) < GP_EXPR_MAX_LENGTH - 4) strcat(f, "-x");
  gp_expr_free(compile_ok(f, GPU_I32));
  free(f);
}
END_TEST

static const struct {
  const char *formula;
  int column;
} float_type_errors[] = {
    {"x & 1", 3},   {"x | 1", 3},         {"1 ^ x", 3},       {"~x", 1},          {"x << 1", 3},
    {"1 >> x", 3},  {"x % 2", 3},         {"2 % x", 3},       {"abs(x) & 1", 8},  {"(x > 0) | (x % 3)", 14},
    {"min(x, 1) ^ 3", 11},                {"x + ~x", 5},
};
static const struct {
  const char *formula;
  int column;
} literal_type_errors[] = {
    {"x & 1.5", 3}, {"x % 2.0", 3}, {"~1.", 1}, {"x << 1e0", 3}, {"sqrt(x) | 1", 9},
    {"floor(x) % 2", 10}, {"1 >> fabs(x)", 3}, {"x | min(x, 0.5)", 3},
};

START_TEST(type_errors) {
  gpu_dtype t = (gpu_dtype)_i;
  if (gp_dtype_is_float(t)) {
    for (size_t k = 0; k < COUNT(float_type_errors); k++)
      expect_error(float_type_errors[k].formula, t, float_type_errors[k].column);
    ck_assert_ptr_nonnull(strstr(gpu_last_error(), "needs integer operands"));
  } else {
    for (size_t k = 0; k < COUNT(float_type_errors); k++) gp_expr_free(compile_ok(float_type_errors[k].formula, t));
  }
  for (size_t k = 0; k < COUNT(literal_type_errors); k++)
    expect_error(literal_type_errors[k].formula, t, literal_type_errors[k].column);
}
END_TEST

/* Same canonical text for the same formula spelled differently. */
START_TEST(canonical_text) {
  static const char *const same[][4] = {
      {"x+1<2*x", "  x + 1 < 2 * x  ", "((x+1)<(2*x))", "(x + (1)) < (2 * (x))"},
      {"min(x,3)", "min( x , 3 )", "min((x),(3))", "\tmin(x,\n3)"},
      {"x > 1.5", "x>1.50", "x > 15e-1", "x > .15E1"},
      {"x == 10", "x==10", "(x)==(10)", "x == 0xA"},
      {"!x && -x", "(!x)&&(-x)", "! x && - x", "((!(x)) && (-(x)))"},
  };
  for (size_t g = 0; g < COUNT(same); g++) {
    gp_expr *first = compile_ok(same[g][0], GPU_I64);
    for (int k = 1; k < 4; k++) {
      gp_expr *e = compile_ok(same[g][k], GPU_I64);
      ck_assert_str_eq(gp_expr_canonical(e), gp_expr_canonical(first));
      gp_expr_free(e);
    }
    ck_assert_ptr_null(strchr(gp_expr_canonical(first), ' '));
    gp_expr_free(first);
  }
  static const char *const differ[][2] = {
      {"x+1<2*x", "x+(1<2)*x"}, {"4294967295 < x", "0xFFFFFFFF < x"}, {"x > 1", "x > 1.0"},
      {"x - 1 - 1", "x - (1 - 1)"}, {"0.1", "0.10000000000000001"}, {"2147483647", "0x7FFFFFFF + 0"},
      {"-x", "- -x"}, {"x < 1", "x <= 1"},
  };
  for (size_t g = 0; g < COUNT(differ); g++) {
    gp_expr *a = compile_ok(differ[g][0], GPU_I32), *b = compile_ok(differ[g][1], GPU_I32);
    if (g == 4) ck_assert_str_eq(gp_expr_canonical(a), gp_expr_canonical(b)); /* the same double */
    else ck_assert_str_ne(gp_expr_canonical(a), gp_expr_canonical(b));
    gp_expr_free(a);
    gp_expr_free(b);
  }
  gp_expr *e = compile_ok(" x*3 + 1 >= 0x10 && isnan(x) || !(x%2)", GPU_I32);
  ck_assert_str_eq(gp_expr_canonical(e), "(((((x*3)+1)>=16)&&isnan(x))||(!(x%2)))");
  gp_expr_free(e);
  e = compile_ok("4294967295 + 0xFFFFFFFF + 0xFFFFFFFFFFFFFFFF + 100. + 1e20 + .25", GPU_I32);
  ck_assert_str_eq(gp_expr_canonical(e),
                   "(((((4294967295ll+4294967295u)+18446744073709551615ull)+100.0)+1e+20)+0.25)");
  gp_expr_free(e);
}
END_TEST

/* The CUDA text: the right signature, no #include, exact float literals,
 * explicit round-to-nearest intrinsics for float arithmetic. */
START_TEST(cuda_source_text) {
  static const char *const ctype[] = {"int", "unsigned int", "long long", "unsigned long long", "float", "double"};
  gpu_dtype t = (gpu_dtype)_i;
  gp_expr *e = compile_ok("x * 3 + 1 > 0.1 && sqrt(x) < x / 2 - 1", t);
  char *src = gp_expr_cuda_source(e);
  ck_assert_ptr_nonnull(src);
  char sig[96];
  snprintf(sig, sizeof sig, "__device__ __forceinline__ bool gp_expr_pred(%s x)", ctype[t]);
  ck_assert_msg(strstr(src, sig), "no '%s' in\n%s", sig, src);
  ck_assert_ptr_null(strchr(src, '#'));
  ck_assert_ptr_nonnull(strstr(src, "0x1.999999999999ap-4")); /* 0.1, exactly */
  /* float stays float: x * 3 is __fmul_rn for float x; the rest is double */
  const char *p = t == GPU_F32 ? "__f" : "__d";
  const char *ops[] = {"mul_rn(", "add_rn(", "div_rn(", "sub_rn(", "sqrt_rn("};
  for (size_t k = gp_dtype_is_float(t) ? 0 : 4; k < COUNT(ops); k++) {
    char want[32];
    snprintf(want, sizeof want, "%s%s", k == 4 || gp_dtype_is_float(t) ? p : "__d", ops[k]);
    ck_assert_msg(strstr(src, want), "no %s in\n%s", want, src);
  }
  /* Built from the tree: spacing and redundant parentheses leave no trace. */
  gp_expr *same = compile_ok(" ( x*3 ) +1>.1&&sqrt ( x ) <((x/2)-1)", t);
  char *src2 = gp_expr_cuda_source(same);
  ck_assert_str_eq(src, src2);
  free(src2);
  gp_expr_free(same);
  free(src);
  gp_expr_free(e);
}
END_TEST

int main(void) {
  tu_init("test_expr");
  gpu_set_backend(GPU_BACKEND_HOST);
  Suite *s = suite_create("expr");
  TCase *tc = tu_tcase("language");
  tcase_add_loop_test(tc, accepts_valid_formulas, GPU_I32, GPU_F64 + 1);
  tcase_add_test(tc, bad_arguments);
  tcase_add_loop_test(tc, grammar_errors_name_the_column, GPU_I32, GPU_F64 + 1);
  tcase_add_test(tc, error_message_shows_a_caret);
  tcase_add_test(tc, limits);
  tcase_add_loop_test(tc, type_errors, GPU_I32, GPU_F64 + 1);
  tcase_add_test(tc, canonical_text);
  tcase_add_loop_test(tc, cuda_source_text, GPU_I32, GPU_F64 + 1);
  suite_add_tcase(s, tc);
  suite_add_tcase(s, expr_eval_tcase());
  return tu_run(s, false);
}
