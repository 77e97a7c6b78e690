/* The host backend's CSR SpMV (portable C, OpenMP). */
#ifndef GP_SPMV_HOST_H
#define GP_SPMV_HOST_H

#include "core/core.h"

/*
 * The rows of A cut into chunks of about equal work, counting one unit per
 * row and one per entry (so a run of empty rows weighs something, and a long
 * row gets a chunk to itself). Chunk c covers rows
 * [row_bounds[c], row_bounds[c + 1]). Only the speed depends on it: every row
 * is summed by one thread in entry order, so the results do not.
 */
typedef struct {
  int64_t *row_bounds; /* chunks + 1 entries */
  size_t chunks;
} gp_spmv_host_partition;

/* Reads A->row_ptr (host memory); a malformed row_ptr still gives bounds in
 * [0, rows] that never decrease. OUT_OF_MEMORY with "fn: ..." on failure. */
gpu_status gp_spmv_host_partition_make(const char *fn, const gpu_csr *A,
                                       gp_spmv_host_partition *p);
void gp_spmv_host_partition_free(gp_spmv_host_partition *p);

/*
 * y = alpha * A * x + beta * y, arguments validated (shape, x, y; y disjoint
 * from x and A), rows > 0. partition: A's, or NULL to make one for this call.
 * The rules (the same for the CUDA backend, spmv_cuda.h):
 *   - beta == 0: y is not read; alpha == 0: A and x are not read, y = beta * y
 *     (0 where beta == 0);
 *   - an empty row gives beta * y (0 where beta == 0), whatever alpha is;
 *   - sums in the value type, entry by entry in storage order, then
 *     alpha * sum + beta * y, in the value type (alpha and beta rounded to it).
 * A's structure is checked as it is read, at no extra pass: an entry whose
 * column is outside [0, cols) or a row whose row_ptr range is not inside
 * [0, nnz] is never dereferenced, and the call then fails with
 * INVALID_ARGUMENT naming the first such row, y unspecified.
 */
gpu_status gp_spmv_host(const char *fn, const gpu_csr *A, const gp_spmv_host_partition *partition,
                        double alpha, const void *x, double beta, void *y);

#endif
