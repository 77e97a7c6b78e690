/*
 * bench_spmv's floor: a kernel that moves what any CSR product must (reads
 * row_ptr, the values and the columns, gathers x at the columns, writes y)
 * and adds nothing up by rows. Its time estimates the fastest a product of
 * that matrix on that x can be: where cuSPARSE already runs near it, a
 * kernel can gain little over cuSPARSE. An estimate, not a bound (cuSPARSE
 * beats it on f64 with random columns). Not a product: y gets junk.
 */
#ifndef GP_BENCH_SPMV_FLOOR_H
#define GP_BENCH_SPMV_FLOOR_H

#include "gpuprim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One launch on the default stream over A (i32 indices, f32 or f64 values);
 * y: A->rows elements of A's value type (overwritten), scratch: at least
 * spmv_floor_scratch_bytes(). Does not wait. Returns 0, or 1 (on stderr why). */
int spmv_floor_run(const gpu_csr *A, const void *x, void *y, void *scratch);
size_t spmv_floor_scratch_bytes(void);

#ifdef __cplusplus
}
#endif

#endif
