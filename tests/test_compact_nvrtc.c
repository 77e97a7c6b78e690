/*
 * The CUDA backend's run-time compiled formulas, without a GPU: for every
 * element type, NVRTC must compile the library's compaction kernel with a
 * formula in it from the headers embedded in the library. Catches a kernel
 * header that NVRTC cannot take (a standard header, a host-only builtin)
 * on machines that cannot run the kernels.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "compact/compact_internal.h"
#include "test_util.h"

static const struct {
  gpu_dtype t;
  const char *formula;
} cases[] = {
    {GPU_I32, "x > 3 && (x & 1) == 0"}, {GPU_U32, "(x >> 3) * 7 < 100"},       {GPU_I64, "abs(x) % 7 == 1"},
    {GPU_U64, "x != 0xffffffffffffffff"}, {GPU_F32, "sqrt(fabs(x)) < 2.5"}, {GPU_F64, "!isnan(x) && floor(x) == x"},
};

START_TEST(formula_kernel_compiles) {
  gpu_pred p = gpu_pred_expr(cases[_i].t, cases[_i].formula);
  ck_assert_msg(p.private_.status == GPU_OK, "%s", gpu_last_error());
  gpu_status s = gp_compact_nvrtc_build((const gp_formula *)p.private_.ptr, 90);
  if (s == GPU_ERR_UNSUPPORTED) {
    fprintf(stderr, "skipped: %s\n", gpu_last_error()); /* no NVRTC on this machine */
    return;
  }
  ck_assert_msg(s == GPU_OK, "%s: %s", cases[_i].formula, gpu_last_error());
}
END_TEST

static Suite *make_suite(void) {
  Suite *s = suite_create("compact_nvrtc");
  TCase *tc = tu_tcase("build");
  tcase_add_loop_test(tc, formula_kernel_compiles, 0, (int)(sizeof cases / sizeof *cases));
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_main("compact_nvrtc", false, make_suite); }
