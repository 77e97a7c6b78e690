/*
 * What bench_spmv compares gpuprim's SpMV with: cusparseSpMV (CSR ALG1 and
 * ALG2) as C functions, plus the benchmark's own device helpers (the scale
 * each row's sum is checked against, a comparison within that scale). Device
 * pointers, default stream; the general helpers (fill, poison, timing) are
 * cub_shim.h's.
 */
#ifndef GP_BENCH_CUSPARSE_SHIM_H
#define GP_BENCH_CUSPARSE_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "gpuprim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One product y = alpha * A * x + beta * y made ready for cusparseSpMV with
 * algorithm alg (1: CUSPARSE_SPMV_CSR_ALG1, 2: CUSPARSE_SPMV_CSR_ALG2), as a
 * solver would hold it: descriptors over the caller's arrays, the work buffer
 * sized and allocated once, cusparseSpMV_preprocess called once with these
 * very arguments. A's index type GPU_I32 or GPU_I64, value type GPU_F32 or
 * GPU_F64 (x, y and the computation in that type). A's arrays, x and y must
 * outlive it. Returns NULL, with the reason in *why (a static string), when
 * cuSPARSE refuses. */
typedef struct cusparse_spmv cusparse_spmv;
cusparse_spmv *cusparse_spmv_create(const gpu_csr *A, const void *x, void *y, double alpha, double beta, int alg,
                                    const char **why);
/* One cusparseSpMV; does not wait. Returns 0, or 1 if cuSPARSE failed (the
 * reason on stderr). */
int cusparse_spmv_run(cusparse_spmv *p);
void cusparse_spmv_destroy(cusparse_spmv *p);

/* scale[i] = sum over row i of |a_ij * x_j|, plus |beta * y0[i]| when y0 is
 * not NULL, in double: the magnitude of what row i's result adds up, so a
 * bound relative to it holds whatever order each side sums in. Waits. */
void spmv_bench_row_scale(const gpu_csr *A, const void *x, const void *y0, double beta, double *scale);

/* The first i < n where |a[i] - b[i]| > rel_tol * scale[i] (NaN in either
 * counts as a difference), or -1; a and b of type t (GPU_F32 or GPU_F64). Waits. */
int64_t spmv_bench_first_mismatch(const void *a, const void *b, const double *scale, size_t n, gpu_dtype t,
                                  double rel_tol);

#ifdef __cplusplus
}
#endif

#endif
