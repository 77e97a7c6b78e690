/*
 * The CUDA backend's CSR SpMV, callable from C: what spmv.c calls, and what
 * the kernels' host side provides (spmv_cuda_stub.c until then).
 *
 * What spmv.c has checked before any of these is called:
 *   - A's shape (gp_csr_check_shape): counts not negative, index_type
 *     GPU_I32/GPU_I64, value_type GPU_F32/GPU_F64, row_ptr (rows + 1),
 *     col_idx and values (nnz each) in device memory, aligned, long enough;
 *   - x: cols elements of value_type, y: rows elements, both device memory;
 *     y shares no byte with x or with A's arrays;
 *   - the product has work to do: rows > 0, and not (alpha == 0 and beta == 1).
 * A's structure is NOT checked (that is a full pass, gpu_csr_validate's job):
 * the kernels must not read outside row_ptr, col_idx, values or x whatever
 * the indices hold (the host backend clamps: a row range outside [0, nnz] is
 * read as empty, an entry whose column is outside [0, cols) is skipped, and
 * the call fails with INVALID_ARGUMENT, y unspecified; the CUDA backend
 * reports it from gpu_synchronize instead, as a deferred error, so that no
 * product waits for its check).
 *
 * The results follow the host backend's rules (spmv_host.h): beta == 0 does
 * not read y; alpha == 0 reads neither A nor x (y = beta * y); an empty row
 * gives beta * y whatever alpha is; alpha and beta are rounded to the value
 * type. Floats must come out bitwise the same from run to run on one device
 * (a fixed order of summation per row, not the host's order necessarily).
 * Work is ordered on the calling thread's stream (gp_stream()); the calls
 * need not wait for it.
 */
#ifndef GP_SPMV_CUDA_H
#define GP_SPMV_CUDA_H

#include "core/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y = alpha * A * x + beta * y, without a plan: any analysis is made per call. */
gpu_status gp_spmv_cuda(const gpu_csr *A, double alpha, const void *x, double beta, void *y);

/*
 * A plan's CUDA side: whatever analysis of A pays off over many products
 * (for example a merge-path partition of rows + entries into tiles, kept in
 * device memory). Called by gpu_spmv_plan_create once A's shape has passed
 * (rows may be 0). A points at the plan's own copy of the caller's gpu_csr:
 * the pointer stays valid, with the same contents, until
 * gp_spmv_plan_cuda_destroy. *cuda_plan receives the analysis (NULL if there
 * is nothing to keep); on failure it must be left NULL with nothing to free.
 */
gpu_status gp_spmv_plan_cuda_create(const gpu_csr *A, void **cuda_plan);
/* A product with the plan's analysis; the arguments as for gp_spmv_cuda, A
 * the pointer create received. Must give the bits gp_spmv_cuda gives. */
gpu_status gp_spmv_plan_cuda_run(void *cuda_plan, const gpu_csr *A, double alpha, const void *x,
                                 double beta, void *y);
/* Frees what create made (NULL: nothing); may wait for the stream. */
void gp_spmv_plan_cuda_destroy(void *cuda_plan);

#ifdef __cplusplus
}
#endif

#endif
