/*
 * The calls across ranks, inside: the communicator, the per-rank record that
 * every call gathers once (argument hash, local status, a count and a value),
 * backend memory helpers, and the bulk exchange of each transport.
 *
 * dist sits on top of gpuprim: it calls only the public entry points of
 * gpuprim.h, MPI, and (where built) the CUDA runtime for pinned staging
 * buffers and device copies, and NCCL.
 */
#ifndef GP_DIST_INTERNAL_H
#define GP_DIST_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuprim_dist.h"

struct gpu_dist_comm {
  MPI_Comm comm; /* our duplicate, errors returned as codes */
  int rank, size;
  gpu_backend backend;
  gpu_dist_transport transport;
  void *scratch;        /* backend memory for folding per-rank totals: size + 1 elements of 8 bytes */
  void *pinned_send;    /* MPI_STAGED: pinned host buffers, grown as needed */
  void *pinned_recv;
  size_t pinned_send_bytes, pinned_recv_bytes;
  void *nccl;           /* ncclComm_t where the transport is NCCL */
  gpu_dist_traffic traffic;
};

/* ------------------------------------------------------------- errors */

/* Records the calling thread's message and returns s. */
gpu_status dist_fail(gpu_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An MPI return code as a status (GPU_ERR_IO with MPI's words), GPU_OK for MPI_SUCCESS. */
gpu_status dist_mpi(int rc, const char *fn, const char *what);
/* A gpuprim status with gpu_last_error()'s words copied into ours. */
gpu_status dist_lib(gpu_status s, const char *fn, const char *what);

/* ------------------------------------------------- the per-rank record */

/* What each rank contributes to a call's one allgather. */
typedef struct {
  uint64_t hash;   /* of the arguments that must agree */
  int32_t status;  /* the rank's own verdict so far */
  int32_t unused;
  uint64_t count;  /* elements this rank holds (or kept) */
  uint64_t value;  /* a total's bits, zero-extended */
} dist_record;

/* FNV-1a over words: the arguments a call needs every rank to agree on. */
uint64_t dist_hash(const char *fn, const uint64_t *words, int nwords);
/* Allgathers mine into all (size records). Then, identically on every rank:
 * a disagreeing hash or any rank's failed status makes every rank return an
 * error (the failing rank keeps its own message, the others name it). */
gpu_status dist_gather_records(gpu_dist_comm *c, const char *fn, const dist_record *mine,
                               dist_record *all);
/* One allreduce of a local status: every rank gets the first failure's status. */
gpu_status dist_agree_status(gpu_dist_comm *c, const char *fn, gpu_status local);
/* Checks common to every call: c is set and the thread's backend is the one
 * the communicator was made for. */
gpu_status dist_check_comm(const gpu_dist_comm *c, const char *fn);

/* ----------------------------------------------------- backend memory */

/* Copies bytes between any two buffers of the backend's memory (or host). */
gpu_status dist_copy(gpu_dist_comm *c, void *dst, const void *src, size_t bytes);
/* Folds count values of type t (host memory, 8-byte slots, each value in the
 * low bytes) in order with op by gpu_reduce on the backend, so that the
 * library's own arithmetic (NaN rules, wrapping) decides every bit. */
gpu_status dist_fold(gpu_dist_comm *c, gpu_dtype t, gpu_op op, const uint64_t *values, int count,
                     uint64_t *result);
/* The element at index i of backend array a, zero-extended into 64 bits. */
gpu_status dist_get(const void *a, size_t i, size_t elem, uint64_t *bits);
gpu_status dist_put(void *a, size_t i, size_t elem, uint64_t bits);
/* Reads count elements at index step * k (k = 0..count-1) into host memory. */
gpu_status dist_get_strided(gpu_dist_comm *c, const void *a, size_t step, size_t count,
                            size_t elem, void *host);
/* gpu_alloc with our message on failure. */
gpu_status dist_alloc(void **p, size_t bytes, const char *fn);

/* ----------------------------------------------------------- exchange */

/* A bulk all-to-all in backend memory: this rank sends send_bytes[j] bytes
 * from send + send_offsets[j] to rank j and receives recv_bytes[j] into
 * recv + recv_offsets[j] (every rank knows both sides beforehand). Begin
 * starts it, end waits; the caller may work on other buffers in between. */
typedef struct {
  int nrequests;
  MPI_Request *requests;
  /* MPI_STAGED: where to copy the received bytes to at the end */
  void *recv;
  const uint64_t *recv_bytes, *recv_offsets;
  bool staged_copy_back;
  bool nccl_pending;
} dist_exchange;
gpu_status dist_exchange_begin(gpu_dist_comm *c, dist_exchange *x, const void *send,
                               const uint64_t *send_bytes, const uint64_t *send_offsets,
                               void *recv, const uint64_t *recv_bytes,
                               const uint64_t *recv_offsets);
gpu_status dist_exchange_end(gpu_dist_comm *c, dist_exchange *x);
gpu_status dist_exchange_all(gpu_dist_comm *c, const void *send, const uint64_t *send_bytes,
                             const uint64_t *send_offsets, void *recv,
                             const uint64_t *recv_bytes, const uint64_t *recv_offsets);

/* ------------------------------------------------------- CUDA and NCCL */

/* Pinned host memory (CUDA builds), plain malloc elsewhere. */
gpu_status dist_host_alloc_pinned(void **p, size_t bytes);
void dist_host_free_pinned(void *p);
/* Whether MPI says it can take device pointers. */
bool dist_mpi_cuda_aware(void);
/* Whether every rank of c has a GPU of its own (no two ranks share one). */
gpu_status dist_ranks_own_gpus(gpu_dist_comm *c, bool *own);
/* NCCL (dist_nccl.c, built where NCCL is found; stubs elsewhere). */
bool dist_nccl_built(void);
gpu_status dist_nccl_init(gpu_dist_comm *c);
void dist_nccl_destroy(gpu_dist_comm *c);
gpu_status dist_nccl_exchange_begin(gpu_dist_comm *c, const void *send,
                                    const uint64_t *send_bytes, const uint64_t *send_offsets,
                                    void *recv, const uint64_t *recv_bytes,
                                    const uint64_t *recv_offsets);
gpu_status dist_nccl_exchange_end(gpu_dist_comm *c);

#endif
