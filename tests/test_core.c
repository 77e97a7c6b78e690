/* core: status words, versions, types, backend choice, memory, bad arguments. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "test_util.h"

START_TEST(status_words) {
  for (int s = GPU_OK; s <= GPU_ERR_IO; s++) {
    const char *w = gpu_status_string((gpu_status)s);
    ck_assert_ptr_nonnull(w);
    ck_assert_ptr_nonnull(strstr(w, "GPU_"));
  }
  ck_assert_str_eq(gpu_status_string((gpu_status)99), "unknown gpu_status");
  ck_assert_ptr_nonnull(gpu_version());
  ck_assert_int_eq(gpu_status_string(GPU_ERR_PARSE)[0], 'G');
}
END_TEST

START_TEST(dtype_sizes) {
  ck_assert_uint_eq(gpu_dtype_size(GPU_I32), 4);
  ck_assert_uint_eq(gpu_dtype_size(GPU_U32), 4);
  ck_assert_uint_eq(gpu_dtype_size(GPU_F32), 4);
  ck_assert_uint_eq(gpu_dtype_size(GPU_I64), 8);
  ck_assert_uint_eq(gpu_dtype_size(GPU_U64), 8);
  ck_assert_uint_eq(gpu_dtype_size(GPU_F64), 8);
  ck_assert_uint_eq(gpu_dtype_size((gpu_dtype)6), 0);
  ck_assert_uint_eq(gpu_dtype_size((gpu_dtype)-1), 0);
}
END_TEST

START_TEST(identities) {
  int32_t i;
  gp_identity(GPU_I32, GPU_MIN, &i);
  ck_assert_int_eq(i, INT32_MAX);
  gp_identity(GPU_I32, GPU_MAX, &i);
  ck_assert_int_eq(i, INT32_MIN);
  gp_identity(GPU_I32, GPU_AND, &i);
  ck_assert_int_eq(i, -1);
  uint64_t u;
  gp_identity(GPU_U64, GPU_MIN, &u);
  ck_assert(u == UINT64_MAX);
  double d;
  gp_identity(GPU_F64, GPU_MUL, &d);
  ck_assert(d == 1.0);
  gp_identity(GPU_F64, GPU_MAX, &d);
  ck_assert(d < -1e308 && d * 0 != 0); /* -inf */
}
END_TEST

START_TEST(backend_choice) {
  ck_assert_int_eq(gpu_set_backend(GPU_BACKEND_HOST), GPU_OK);
  ck_assert_int_eq(gpu_get_backend(), GPU_BACKEND_HOST);
  ck_assert_int_eq(gpu_set_backend((gpu_backend)7), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_get_backend(), GPU_BACKEND_HOST); /* unchanged */
  ck_assert_int_eq(gpu_set_backend(GPU_BACKEND_AUTO), GPU_OK);
  gpu_backend b = gpu_get_backend();
  ck_assert(b == GPU_BACKEND_CUDA || b == GPU_BACKEND_HOST);
  ck_assert_int_eq(b == GPU_BACKEND_CUDA, gp_cuda_available());
  ck_assert_int_eq(gpu_set_backend(GPU_BACKEND_CUDA), GPU_OK);
  ck_assert_int_eq(gpu_get_backend(), GPU_BACKEND_CUDA);
  if (!gp_cuda_available()) {
    void *p = (void *)1;
    ck_assert_int_eq(gpu_alloc(&p, 64), GPU_ERR_NO_DEVICE);
    ck_assert_ptr_nonnull(strstr(gpu_last_error(), "gpu_alloc"));
    ck_assert_int_eq(gpu_scan(NULL, NULL, 0, GPU_I32, GPU_ADD, 0), GPU_ERR_NO_DEVICE);
    ck_assert_int_eq(gpu_synchronize(), GPU_ERR_NO_DEVICE);
  } else {
    ck_assert_int_eq(gpu_synchronize(), GPU_OK);
  }
  gpu_set_backend(GPU_BACKEND_HOST);
  ck_assert_int_eq(gpu_synchronize(), GPU_OK);
  ck_assert_int_eq(gpu_set_stream(NULL), GPU_OK);
}
END_TEST

START_TEST(host_memory) {
  gpu_set_backend(GPU_BACKEND_HOST);
  void *p = NULL;
  ck_assert_int_eq(gpu_alloc(&p, 1000), GPU_OK);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq((uintptr_t)p % 64, 0);
  char src[1000], dst[1000];
  for (int i = 0; i < 1000; i++) src[i] = (char)i;
  ck_assert_int_eq(gpu_upload(p, src, sizeof src), GPU_OK);
  ck_assert_int_eq(gpu_download(dst, p, sizeof dst), GPU_OK);
  ck_assert_mem_eq(src, dst, sizeof src);
  ck_assert_int_eq(gpu_free(p), GPU_OK);
  ck_assert_int_eq(gpu_free(NULL), GPU_OK);
  ck_assert_int_eq(gpu_alloc(&p, 0), GPU_OK);
  ck_assert_ptr_null(p);
  ck_assert_int_eq(gpu_alloc(NULL, 10), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_alloc(&p, SIZE_MAX), GPU_ERR_OUT_OF_MEMORY);
  ck_assert_int_eq(gpu_upload(NULL, src, 10), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_upload(dst, NULL, 10), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_download(NULL, src, 10), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_download(dst, NULL, 10), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_upload(NULL, NULL, 0), GPU_OK);
  ck_assert_int_eq(gpu_release_cached_memory(), GPU_OK);
}
END_TEST

/* Byte counts no array holds are refused before anything is copied (the
 * count once reached memmove and corrupted the heap). */
START_TEST(huge_copies_refused) {
  gpu_set_backend(GPU_BACKEND_HOST);
  char a[64] = {1}, b[64] = {2};
  const size_t counts[] = {SIZE_MAX, (size_t)1 << 63, (size_t)PTRDIFF_MAX + 1};
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
    ck_assert_int_eq(gpu_upload(a, b, counts[i]), GPU_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(gpu_last_error(), "gpu_upload: bytes = "));
    ck_assert_int_eq(gpu_download(a, b, counts[i]), GPU_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(gpu_last_error(), "gpu_download: bytes = "));
  }
  /* A range that would wrap past the end of the address space. */
  ck_assert_int_eq(gpu_upload((void *)(UINTPTR_MAX - 15), b, 64), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_download(a, (void *)(UINTPTR_MAX - 15), 64), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(a[0], 1);
  ck_assert_int_eq(b[0], 2);
}
END_TEST

START_TEST(argument_checks) {
  int32_t a[16];
  ck_assert_int_eq(gp_check_array("f", "x", NULL, 0, 4, GPU_BACKEND_HOST), GPU_OK);
  ck_assert_int_eq(gp_check_array("f", "x", NULL, 3, 4, GPU_BACKEND_HOST), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(gpu_last_error(), "f: x is NULL with n = 3");
  ck_assert_int_eq(gp_check_array("f", "x", (char *)a + 2, 3, 4, GPU_BACKEND_HOST), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gp_check_array("f", "x", a, SIZE_MAX / 2, 4, GPU_BACKEND_HOST), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gp_check_same_or_disjoint("f", "a", a, "b", a, 64), GPU_OK);
  ck_assert_int_eq(gp_check_same_or_disjoint("f", "a", a, "b", a + 8, 32), GPU_OK);
  ck_assert_int_eq(gp_check_same_or_disjoint("f", "a", a, "b", a + 8, 36), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gp_check_same_or_disjoint("f", "a", a + 8, "b", a, 36), GPU_ERR_INVALID_ARGUMENT);
  /* gp_check_disjoint: arrays of their own sizes, the same array refused too. */
  ck_assert_int_eq(gp_check_disjoint("f", "a", a, 32, "b", a + 8, 32), GPU_OK);
  ck_assert_int_eq(gp_check_disjoint("f", "a", a + 8, 32, "b", a, 32), GPU_OK);
  ck_assert_int_eq(gp_check_disjoint("f", "a", a, 36, "b", a + 8, 4), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gp_check_disjoint("f", "a", a + 8, 4, "b", a, 36), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(gpu_last_error(), "f: a and b overlap");
  ck_assert_int_eq(gp_check_disjoint("f", "a", a, 4, "b", a, 4), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gp_check_disjoint("f", "a", a, 0, "b", a, 64), GPU_OK);
  ck_assert_int_eq(gp_check_dtype_op("f", GPU_F32, GPU_XOR), GPU_ERR_UNSUPPORTED);
  ck_assert_int_eq(gp_check_dtype_op("f", GPU_U64, GPU_XOR), GPU_OK);
  ck_assert_int_eq(gp_check_flags("f", 3, 3), GPU_OK);
  ck_assert_int_eq(gp_check_flags("f", 4, 3), GPU_ERR_INVALID_ARGUMENT);
}
END_TEST

/* The last error is per thread. */
static void *fail_in_thread(void *arg) {
  gp_fail(GPU_ERR_IO, "other thread");
  *(int *)arg = strcmp(gpu_last_error(), "other thread") == 0;
  return NULL;
}

START_TEST(last_error_per_thread) {
  gp_fail(GPU_ERR_PARSE, "this thread %d", 1);
  int ok = 0;
  pthread_t t;
  pthread_create(&t, NULL, fail_in_thread, &ok);
  pthread_join(t, NULL);
  ck_assert(ok);
  ck_assert_str_eq(gpu_last_error(), "this thread 1");
}
END_TEST

/* ctest runs this suite again as test_core_bad_backend_variable with
 * GPUPRIM_BACKEND=bogus (core.cmake): a thread that chose no backend gets
 * INVALID_ARGUMENT, naming the variable, from calls that need a backend. */
static void *calls_with_default_backend(void *arg) {
  gpu_status *s = arg;
  void *p = (void *)1;
  s[0] = gpu_synchronize();
  s[1] = gpu_alloc(&p, 16);
  s[2] = gpu_scan(NULL, NULL, 0, GPU_I32, GPU_ADD, 0);
  s[3] = strstr(gpu_last_error(), "GPUPRIM_BACKEND=bogus") ? GPU_ERR_INVALID_ARGUMENT : GPU_OK;
  s[4] = p == (void *)1 ? GPU_ERR_INVALID_ARGUMENT : GPU_OK; /* untouched */
  return NULL;
}

START_TEST(bad_backend_variable) {
  const char *v = getenv("GPUPRIM_BACKEND");
  if (!v || strcmp(v, "bogus") != 0) return;
  gpu_status s[5];
  pthread_t t;
  pthread_create(&t, NULL, calls_with_default_backend, s);
  pthread_join(t, NULL);
  for (int i = 0; i < 5; i++) ck_assert_int_eq(s[i], GPU_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  tu_init("core");
  Suite *s = suite_create("core");
  TCase *tc = tu_tcase("core");
  tcase_add_test(tc, status_words);
  tcase_add_test(tc, dtype_sizes);
  tcase_add_test(tc, identities);
  tcase_add_test(tc, backend_choice);
  tcase_add_test(tc, host_memory);
  tcase_add_test(tc, huge_copies_refused);
  tcase_add_test(tc, argument_checks);
  tcase_add_test(tc, last_error_per_thread);
  tcase_add_test(tc, bad_backend_variable);
  suite_add_tcase(s, tc);
  return tu_run(s, true);
}
