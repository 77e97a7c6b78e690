/* What test_sort.c shares with the CUDA-only sort tests (test_sort_cuda.c). */
#ifndef GP_TEST_SORT_H
#define GP_TEST_SORT_H

#include <check.h>
#include <stddef.h>

#include "gpuprim.h"

/* Kinds of keys test_sort.c makes (random, few values, all equal, sorted,
 * reversed, specials, small ints, sparse digits), and its combinations of
 * key type x value width x direction. */
enum { TEST_SORT_KINDS = 8, TEST_SORT_COMBOS = 36 };
enum { TEST_SORT_EQUAL = 2, TEST_SORT_SMALL = 6, TEST_SORT_SPARSE = 7 }; /* kinds named below */
void test_sort_combo(int i, gpu_dtype *t, size_t *value_bytes, unsigned *flags);
/* Sorts n keys of the kind (values: original indices) on the current
 * backend, and checks them against the plain reference, stability and
 * guard zones included. */
void test_sort_check(gpu_dtype t, size_t value_bytes, unsigned flags, int kind, size_t n);

/* test_sort_cuda.c: tile boundaries, the multi-pass path at small n,
 * portions, graph replay, n > 2^32. */
TCase *test_sort_cuda_tcase(void);

#endif
