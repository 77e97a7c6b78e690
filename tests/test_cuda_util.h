/*
 * What the CUDA suites share beyond test_util.h: a check of CUDA runtime
 * calls, and the device-memory check of their cases above 2^32 elements.
 */
#ifndef GP_TEST_CUDA_UTIL_H
#define GP_TEST_CUDA_UTIL_H

#include <check.h>
#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>

/* A CUDA runtime call that must succeed: the test fails, naming it, if not. */
#define CUDA_OK(call) ck_assert_msg((call) == cudaSuccess, "%s failed", #call)

/* True when the device has `bytes` free and 1 GiB to spare; else prints
 * "<test>: SKIPPED: ..." with both figures and returns false. */
bool tu_device_has_memory(const char *test, size_t bytes);

#endif
