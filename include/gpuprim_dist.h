/*
 * gpuprim_dist: gpuprim's calls across ranks (an optional component, library
 * gpuprim_dist, built where MPI is found). docs/distributed.md is the manual.
 *
 * Every rank of an MPI communicator passes its local part, in the current
 * backend's memory (gpuprim.h), and gets its part of the result back. The
 * global sequence is the concatenation of the ranks' parts in rank order.
 * Every call here is collective: all ranks of the communicator call it, in
 * the same order, with the same dtype, op and flags. Ranks that disagree get
 * GPU_ERR_INVALID_ARGUMENT on every rank ("ranks disagree on ..."); a rank
 * that refuses its own arguments makes every rank fail with a message naming
 * it; nothing waits forever on a rank that has returned. A rank with zero
 * elements is normal.
 *
 * Failures of the transport itself (an MPI or NCCL error) give GPU_ERR_IO.
 * gpu_dist_last_error() says in words why the calling thread's last call of
 * this header failed (gpu_last_error() keeps the library's own messages).
 */
#ifndef GPUPRIM_DIST_H
#define GPUPRIM_DIST_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ communicator */

/* How bulk data moves between ranks, chosen at gpu_dist_comm_create:
 *   MPI_HOST        host backend: MPI on the buffers themselves
 *   MPI_CUDA_AWARE  CUDA backend, MPI reports CUDA support: device pointers to MPI
 *   MPI_STAGED      CUDA backend: device -> pinned host -> MPI -> pinned host -> device
 *   NCCL            CUDA backend, built with NCCL, every rank on its own GPU
 * GPUPRIM_DIST_TRANSPORT=mpi|mpi-staged|mpi-cuda-aware|nccl overrides the
 * choice (mpi: the automatic MPI choice; on the host backend every MPI word
 * means MPI_HOST). Small per-rank records always travel by MPI on the host. */
typedef enum {
  GPU_DIST_MPI_HOST,
  GPU_DIST_MPI_CUDA_AWARE,
  GPU_DIST_MPI_STAGED,
  GPU_DIST_NCCL
} gpu_dist_transport;

typedef struct gpu_dist_comm gpu_dist_comm;

/* Collective over comm: duplicates it (errors there come back as statuses) and
 * chooses the transport for the calling thread's backend, which every rank
 * must share. MPI must be initialised; MPI_COMM_NULL and intercommunicators
 * are refused with GPU_ERR_INVALID_ARGUMENT. */
GPUPRIM_API gpu_status gpu_dist_comm_create(gpu_dist_comm **c, MPI_Comm comm);
/* Collective; NULL does nothing. */
GPUPRIM_API void gpu_dist_comm_destroy(gpu_dist_comm *c);
GPUPRIM_API int gpu_dist_comm_rank(const gpu_dist_comm *c);
GPUPRIM_API int gpu_dist_comm_size(const gpu_dist_comm *c);
GPUPRIM_API gpu_dist_transport gpu_dist_comm_transport(const gpu_dist_comm *c);
/* "mpi-host", "mpi-cuda-aware", "mpi-staged", "nccl"; NULL for an unknown value. */
GPUPRIM_API const char *gpu_dist_transport_name(gpu_dist_transport t);
GPUPRIM_API const char *gpu_dist_last_error(void);

/* What this rank has moved since the communicator was made (or reset): bulk
 * bytes sent to other ranks and messages sent to them (a message to oneself
 * is a local copy and not counted), and collectives of small per-rank records
 * (argument checks, totals, counts, samples). */
typedef struct {
  uint64_t bytes_sent, messages_sent, collectives;
} gpu_dist_traffic;
GPUPRIM_API gpu_dist_traffic gpu_dist_comm_traffic(const gpu_dist_comm *c);
GPUPRIM_API void gpu_dist_comm_traffic_reset(gpu_dist_comm *c);

/* ------------------------------------------------------------ scan, reduce */

/*
 * gpu_scan of the global sequence, every op and flag of gpu_scan
 * (GPU_EXCLUSIVE, GPU_REVERSE); n may exceed 2^32 on a rank and in total.
 * Each rank reduces its part, the ranks exchange their totals (one
 * allgather), and each rank scans its part seeded with the total of the
 * ranks before it (after it, for GPU_REVERSE), folded in rank order.
 * Integer ops, and float MIN and MAX, give exactly the bits of gpu_scan on
 * the concatenated sequence. Float ADD and MUL are combined in another order
 * than one gpu_scan over everything: the result is deterministic (same bits
 * every run for the same partition) and is the single-process result exactly
 * where only one rank holds elements (P = 1 among them); elsewhere it agrees
 * within rounding. in == out is allowed.
 */
GPUPRIM_API gpu_status gpu_dist_scan(gpu_dist_comm *c, const void *in, void *out, size_t n, gpu_dtype t,
                                     gpu_op op, unsigned flags);
/* *host_result = the op over the global sequence, on rank root only (other
 * ranks' host_result is not written and may be NULL); the identity when the
 * sequence is empty. Folded in rank order: deterministic. */
GPUPRIM_API gpu_status gpu_dist_reduce(gpu_dist_comm *c, const void *in, size_t n, gpu_dtype t, gpu_op op,
                                       int root, void *host_result);
/* The same result on every rank, the same bits everywhere. */
GPUPRIM_API gpu_status gpu_dist_allreduce(gpu_dist_comm *c, const void *in, size_t n, gpu_dtype t,
                                          gpu_op op, void *host_result);

/* ------------------------------------------------------- stream compaction */

/* Where a rank's part of a distributed result sits in the global result. */
typedef struct {
  uint64_t count;  /* elements on this rank */
  uint64_t offset; /* global index of this rank's first element */
  uint64_t total;  /* elements on all ranks */
} gpu_dist_part;

/* gpu_compact on each rank (out holds up to n elements, as gpu_compact's):
 * out gets this rank's kept elements, *kept their count, global offset and
 * the global count. The predicates' element types must agree. */
GPUPRIM_API gpu_status gpu_dist_compact(gpu_dist_comm *c, const void *in, size_t n, gpu_pred pred,
                                        void *out, gpu_dist_part *kept);
/* As gpu_dist_compact, then rebalanced: rank r holds kept elements
 * [floor(total r / P), floor(total (r + 1) / P)) of the global result, in
 * *out, allocated here with gpu_alloc (NULL when empty; free with gpu_free). */
GPUPRIM_API gpu_status gpu_dist_compact_balanced(gpu_dist_comm *c, const void *in, size_t n, gpu_pred pred,
                                                 void **out, gpu_dist_part *kept);

/* --------------------------------------------------------------- sort */

/*
 * Sample sort, stable in both directions, every key type of gpu_sort_keys:
 * afterwards rank r holds the r-th slice of the global order, equal keys in
 * (rank, index) order, so the concatenation of the ranks' outputs is exactly
 * gpu_sort_keys / gpu_sort_pairs of the concatenated input. Each key crosses
 * between ranks at most once. With N keys on P ranks, rank r holds within
 * N / (64 P) + 2 P + 1 of N / P (docs/distributed.md derives the bound); equal
 * keys split by (rank, index), so skewed keys balance too.
 *
 * keys (and values) are sorted in place locally as the first step: on return
 * they hold the rank's own keys in order, not the input. *keys_out (and
 * *values_out) are allocated here with gpu_alloc (NULL when *n_out is 0;
 * free with gpu_free). value_bytes is 4 or 8.
 */
GPUPRIM_API gpu_status gpu_dist_sort_keys(gpu_dist_comm *c, void *keys, size_t n, gpu_dtype t,
                                          unsigned flags, void **keys_out, size_t *n_out);
GPUPRIM_API gpu_status gpu_dist_sort_pairs(gpu_dist_comm *c, void *keys, void *values, size_t n,
                                           gpu_dtype key_t, size_t value_bytes, unsigned flags,
                                           void **keys_out, void **values_out, size_t *n_out);

/* ------------------------------------------- SpMV on a row-partitioned CSR */

/*
 * A square global matrix of N rows split by rows in rank order: rank r passes
 * its block of consecutive rows as a gpu_csr with rows = its row count, cols
 * = N and global column indices. x and y are split as the rows. The plan
 * (collective) finds which x entries each rank needs from which other and
 * sets up that halo exchange once; every product then gathers and sends
 * those entries, multiplies the rank's own columns while they travel, and
 * adds the product of the received ones. A must outlive the plan unchanged
 * only until gpu_dist_spmv_plan_create returns (the plan keeps its own
 * split copy). Each row is summed in two parts (own columns, then the
 * others), so results agree with gpu_spmv of the whole matrix within
 * rounding, and are deterministic.
 */
typedef struct gpu_dist_spmv_plan gpu_dist_spmv_plan;
GPUPRIM_API gpu_status gpu_dist_spmv_plan_create(gpu_dist_spmv_plan **plan, gpu_dist_comm *c,
                                                 const gpu_csr *A_local);
/* y = alpha * A * x + beta * y (collective); with beta == 0, y is not read. */
GPUPRIM_API gpu_status gpu_dist_spmv_plan_run(gpu_dist_spmv_plan *plan, const void *x_local, void *y_local,
                                              double alpha, double beta);
/* Local (not collective); NULL does nothing. */
GPUPRIM_API void gpu_dist_spmv_plan_destroy(gpu_dist_spmv_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* GPUPRIM_DIST_H */
