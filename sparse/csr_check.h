/* The argument check gpu_csr_validate and the SpMV entry points share (csr_util.c). */
#ifndef GP_CSR_CHECK_H
#define GP_CSR_CHECK_H

#include "core/core.h"

/* A's shape, without reading its arrays: counts not negative, index_type
 * GPU_I32/GPU_I64, value_type GPU_F32/GPU_F64, and row_ptr (rows + 1),
 * col_idx and values (nnz each) present, aligned and, on the CUDA backend,
 * device memory long enough. INVALID_ARGUMENT with "fn: ..." otherwise.
 * A is not NULL. */
gpu_status gp_csr_check_shape(const char *fn, const gpu_csr *A, gpu_backend b);

#endif
