/*
 * The CUDA source that gp_expr_cuda_source generates compiles with NVRTC, for
 * every formula of test_expr_formulas.h on every element type it is valid
 * for. NVRTC runs on the CPU: no GPU is needed.
 *
 * All formulas of a type go into one program (each function in a namespace
 * of its own, called by a kernel of its own), so that the suite compiles six
 * programs, not hundreds; when one fails, its formulas are compiled one by
 * one to name the culprit. The PTX of float formulas must hold no fused
 * multiply-add even with --fmad=true: the explicit _rn intrinsics forbid it.
 */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact/expr.h"
#include "core/core.h"
#include "test_expr_formulas.h"
#include "test_util.h"

static const char *const common_formulas[] = {EXPR_TEXTS_COMMON};
static const char *const int_formulas[] = {EXPR_TEXTS_INT};
static const char *const float_formulas[] = {EXPR_TEXTS_FLOAT};
#define COUNT(a) (sizeof a / sizeof a[0])

static const char *const ctype[] = {"int", "unsigned int", "long long", "unsigned long long", "float", "double"};

typedef struct {
  char *p;
  size_t len, cap;
} text;

static void append(text *t, const char *s) {
  size_t n = strlen(s);
  if (t->len + n + 1 > t->cap) {
    t->cap = 2 * (t->len + n + 1);
    t->p = realloc(t->p, t->cap);
    ck_assert_ptr_nonnull(t->p);
  }
  memcpy(t->p + t->len, s, n + 1);
  t->len += n;
}

/* Adds formula k as namespace f<k> with a kernel k<k> that calls it. */
static void add_formula(text *prog, const char *formula, gpu_dtype t, size_t k) {
  gp_expr *e = NULL;
  ck_assert_msg(gp_expr_compile(formula, t, &e) == GPU_OK, "%s: %s", formula, gpu_last_error());
  char *fn = gp_expr_cuda_source(e);
  ck_assert_ptr_nonnull(fn);
  char buf[512];
  snprintf(buf, sizeof buf, "namespace f%zu {\n", k);
  append(prog, buf);
  append(prog, fn);
  snprintf(buf, sizeof buf,
           "}\nextern \"C\" __global__ void k%zu(const %s *in, unsigned char *keep, unsigned long long n) {\n"
           "  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;\n"
           "  if (i < n) keep[i] = f%zu::gp_expr_pred(in[i]);\n}\n",
           k, ctype[t], k);
  append(prog, buf);
  free(fn);
  gp_expr_free(e);
}

/* NVRTC's verdict on src; on failure *log holds its messages (malloc'd). */
static bool nvrtc_compiles(const char *src, char **log, char **ptx) {
  nvrtcProgram prog;
  ck_assert_int_eq(nvrtcCreateProgram(&prog, src, "gp_expr.cu", 0, NULL, NULL), NVRTC_SUCCESS);
  const char *opts[] = {"--gpu-architecture=compute_90", "--fmad=true"};
  nvrtcResult r = nvrtcCompileProgram(prog, 2, opts);
  size_t n = 0;
  nvrtcGetProgramLogSize(prog, &n);
  *log = tu_xmalloc(n + 1);
  nvrtcGetProgramLog(prog, *log);
  (*log)[n] = '\0';
  *ptx = NULL;
  if (r == NVRTC_SUCCESS) {
    nvrtcGetPTXSize(prog, &n);
    *ptx = tu_xmalloc(n + 1);
    nvrtcGetPTX(prog, *ptx);
    (*ptx)[n] = '\0';
  }
  nvrtcDestroyProgram(&prog);
  return r == NVRTC_SUCCESS;
}

static void check_list(gpu_dtype t, const char *const *formulas, size_t count) {
  text prog = {0};
  for (size_t k = 0; k < count; k++) add_formula(&prog, formulas[k], t, k);
  char *log, *ptx;
  bool ok = nvrtc_compiles(prog.p, &log, &ptx);
  if (!ok) {
    /* Find the formula that does not compile and show its source. */
    for (size_t k = 0; k < count; k++) {
      text one = {0};
      add_formula(&one, formulas[k], t, k);
      char *log1, *ptx1;
      bool ok1 = nvrtc_compiles(one.p, &log1, &ptx1);
      ck_assert_msg(ok1, "NVRTC refuses '%s' on %s:\n%s\n%s", formulas[k], gp_dtype_name(t), log1, one.p);
      free(log1);
      free(ptx1);
      free(one.p);
    }
    ck_abort_msg("NVRTC refuses the %s program:\n%s", gp_dtype_name(t), log);
  }
  /* The only warning NVRTC gives is #186 for formulas such as x < 0 on an
   * unsigned x, which are the user's business; anything else is shown. */
  if (strstr(log, "warning") && !strstr(log, "warning #186-D"))
    printf("NVRTC warns, on %s:\n%s\n", gp_dtype_name(t), log);
  ck_assert_msg(strstr(ptx, ".entry k0"), "no kernel in the PTX");
  if (gp_dtype_is_float(t)) ck_assert_msg(!strstr(ptx, "fma."), "the %s PTX holds a fused multiply-add", gp_dtype_name(t));
  free(ptx);
  free(log);
  free(prog.p);
}

START_TEST(generated_source_compiles) {
  gpu_dtype t = (gpu_dtype)_i;
  check_list(t, common_formulas, COUNT(common_formulas));
  if (gp_dtype_is_float(t)) check_list(t, float_formulas, COUNT(float_formulas));
  else check_list(t, int_formulas, COUNT(int_formulas));
}
END_TEST

int main(void) {
  tu_init("test_expr_nvrtc");
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  printf("test_expr_nvrtc: NVRTC %d.%d\n", major, minor);
  Suite *s = suite_create("expr_nvrtc");
  TCase *tc = tu_tcase("nvrtc");
  tcase_add_loop_test(tc, generated_source_compiles, GPU_I32, GPU_F64 + 1);
  suite_add_tcase(s, tc);
  return tu_run(s, false);
}
