/*
 * What the SpMV suites share: random CSR matrices built on the host, their
 * copy in backend memory, and a plain reference product that follows
 * API.md's rules, with a rounding-error bound per row.
 */
#ifndef GP_TEST_SPMV_REF_H
#define GP_TEST_SPMV_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "mm_ref.h"
#include "test_util.h"

/* A random rows x cols matrix, about max_per_row / 2 entries a row (random
 * columns, repeats allowed, not sorted); a row is empty with probability
 * empty (0..1). Values in [-1, 1), exact as floats, so f32 and f64 copies
 * hold the same numbers. Free with ref_free. */
ref_csr spmv_random_matrix(int64_t rows, int64_t cols, int64_t max_per_row, double empty);

/* h in backend memory with the given types (free with gpu_csr_free). */
gpu_csr spmv_upload_matrix(const ref_csr *h, gpu_dtype index_type, gpu_dtype value_type);

/* n values of type t, in backend memory (NULL for n == 0; free with tu_free). */
void *spmv_upload_vector(const void *host, int64_t n, gpu_dtype t);

/*
 * want = alpha * h * x + beta * y0 by the API's rules (beta == 0: y0 not
 * read; alpha == 0: y0 * beta only; an empty row: beta * y0), in double, for
 * x and y0 of type t. tol[r] bounds the rounding error of a sum in t over
 * row r (a few units of t's epsilon per entry, times the magnitudes summed);
 * 0 where the result must be exact (empty rows, alpha == 0).
 */
void spmv_reference(const ref_csr *h, const void *x, const void *y0, gpu_dtype t, double alpha,
                    double beta, double *want, double *tol);

/* Fails the test at the first y[r] (n values of t) outside want[r] +- tol[r]
 * (NaN matches NaN; with tol 0 the value must be want rounded to t). */
void spmv_expect_close(const void *y, const double *want, const double *tol, int64_t n,
                       gpu_dtype t, const char *what);

/* y = alpha * A * x + beta * y0 in backend memory, once by gpu_spmv and once by
 * a plan; checks both succeed and agree bit for bit, and returns the result
 * downloaded into host memory (rows values of A's type; free it). */
void *spmv_product(const gpu_csr *A, const void *x_host, const void *y0_host, double alpha,
                   double beta);

/* s is INVALID_ARGUMENT and gpu_last_error() holds words. */
void spmv_expect_refused(gpu_status s, const char *words);

/* The ways a gpu_csr's fields can be wrong, which gpu_csr_validate and the
 * SpMV entry points refuse with INVALID_ARGUMENT without reading A's arrays:
 * for k in [0, SPMV_BAD_SHAPES), spoils one field of B (a copy of a valid
 * matrix) and returns words the refusal's message must hold. */
enum { SPMV_BAD_SHAPES = 15 };
const char *spmv_bad_shape(gpu_csr *B, int k);

/* The suite's other test cases: bad arguments and malformed matrices
 * (test_spmv_args.c), and the CUDA backend's own (test_spmv_cuda.c). */
TCase *test_spmv_args_tcase(void);
TCase *test_spmv_cuda_tcase(void);

#endif
