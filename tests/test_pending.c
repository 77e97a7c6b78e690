/* The entry points later issues deliver: until then each refuses with
 * GPU_ERR_UNSUPPORTED, names itself, and writes nothing. */
#include <string.h>

#include "test_util.h"

static void expect_pending(gpu_status s, const char *fn) {
  ck_assert_int_eq(s, GPU_ERR_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(gpu_last_error(), fn));
}

START_TEST(pending_entry_points_refuse) {
  float in[4] = {1, 2, 3, 4}, out[4] = {9, 9, 9, 9};
  const int64_t offsets[2] = {0, 4};
  expect_pending(gpu_segscan_flags(in, out, 4, NULL, GPU_F32, GPU_ADD, 0), "gpu_segscan_flags");
  expect_pending(gpu_segscan_offsets(in, out, 4, offsets, 1, GPU_F32, GPU_ADD, 0), "gpu_segscan_offsets");
  expect_pending(gpu_segreduce(in, offsets, 1, out, GPU_F32, GPU_ADD), "gpu_segreduce");
  gpu_csr A = {0};
  expect_pending(gpu_spmv(&A, in, out, 1, 0), "gpu_spmv");
  gpu_spmv_plan *plan = (gpu_spmv_plan *)1;
  expect_pending(gpu_spmv_plan_create(&plan, &A), "gpu_spmv_plan_create");
  ck_assert_ptr_null(plan);
  expect_pending(gpu_spmv_plan_run(NULL, in, out, 1, 0), "gpu_spmv_plan_run");
  gpu_spmv_plan_destroy(NULL);
  for (int i = 0; i < 4; i++) ck_assert(out[i] == 9 && in[i] == (float)(i + 1));
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("pending");
  TCase *tc = tu_tcase("pending");
  tcase_add_test(tc, pending_entry_points_refuse);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_main("test_pending", false, suite); }
