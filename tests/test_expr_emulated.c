/*
 * The generated CUDA text means what the host evaluator computes, bit for
 * bit: test_expr_emu_gen compiled the text of every test formula as C (CUDA
 * intrinsics replaced by their IEEE meaning), and here each function runs on
 * random inputs next to gp_expr_eval_host. No GPU involved: this checks the
 * generator's integer guards, casts, conversions and NaN handling; the
 * intrinsics themselves are NVIDIA's promise (and the NVRTC test checks that
 * the text compiles).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "compact/expr.h"
#include "core/core.h"
#include "test_expr_formulas.h"
#include "test_util.h"

#define EMU_DECLARE(S, CT)                         \
  extern const size_t emu_count_##S;               \
  extern const char *const emu_formulas_##S[];     \
  extern bool (*const emu_preds_##S[])(CT);
EMU_DECLARE(i32, int)
EMU_DECLARE(u32, unsigned int)
EMU_DECLARE(i64, long long)
EMU_DECLARE(u64, unsigned long long)
EMU_DECLARE(f32, float)
EMU_DECLARE(f64, double)

/* Runs the k-th emulated function of type t on element i (read through
 * memcpy: int64_t is long, the CUDA text says long long). */
static int emulated(gpu_dtype t, size_t k, const void *in, size_t i) {
  switch (t) {
#define EMU_CASE(D, S, CT)                                          \
  case D: {                                                         \
    CT x;                                                           \
    memcpy(&x, (const char *)in + i * sizeof x, sizeof x);          \
    return emu_preds_##S[k](x);                                     \
  }
    EMU_CASE(GPU_I32, i32, int)
    EMU_CASE(GPU_U32, u32, unsigned int)
    EMU_CASE(GPU_I64, i64, long long)
    EMU_CASE(GPU_U64, u64, unsigned long long)
    EMU_CASE(GPU_F32, f32, float)
    EMU_CASE(GPU_F64, f64, double)
  }
  return -1;
}

START_TEST(cuda_text_matches_host) {
  gpu_dtype t = (gpu_dtype)_i;
  static const size_t *const counts[] = {&emu_count_i32, &emu_count_u32, &emu_count_i64,
                                         &emu_count_u64, &emu_count_f32, &emu_count_f64};
  static const char *const *const formulas[] = {emu_formulas_i32, emu_formulas_u32, emu_formulas_i64,
                                                emu_formulas_u64, emu_formulas_f32, emu_formulas_f64};
  enum { N = 20000 };
  void *in = tu_xmalloc(N * gpu_dtype_size(t));
  uint8_t *keep = tu_xmalloc(N);
  expr_fill_inputs(in, N, t);
  for (size_t k = 0; k < *counts[t]; k++) {
    gp_expr *e = NULL;
    ck_assert_msg(gp_expr_compile(formulas[t][k], t, &e) == GPU_OK, "%s", gpu_last_error());
    gp_expr_eval_host(e, in, N, keep);
    for (size_t i = 0; i < N; i++) {
      int cuda = emulated(t, k, in, i);
      char buf[64];
      if (keep[i] != cuda)
        ck_abort_msg("%s on %s: x = %s: host %d, CUDA text %d", formulas[t][k], gp_dtype_name(t),
                     expr_value_text(t, in, i, buf), keep[i], cuda);
    }
    gp_expr_free(e);
  }
  free(keep);
  free(in);
}
END_TEST

int main(void) {
  tu_init("test_expr_emulated");
  Suite *s = suite_create("expr_emulated");
  TCase *tc = tu_tcase("emulated");
  tcase_add_loop_test(tc, cuda_text_matches_host, GPU_I32, GPU_F64 + 1);
  suite_add_tcase(s, tc);
  return tu_run(s, false);
}
