/*
 * NCCL as the transport where every rank has a GPU of its own: one NCCL
 * communicator per gpu_dist_comm (its id made by rank 0 and broadcast over
 * MPI), and the bulk all-to-all as ncclSend / ncclRecv in one group on the
 * default stream. Built where CMake finds nccl.h and libnccl
 * (GPUPRIM_DIST_NCCL=1); elsewhere the stubs below say it is absent.
 */
#include "dist_internal.h"

#if GPUPRIM_DIST_NCCL
#  include <cuda_runtime_api.h>
#  include <nccl.h>

static gpu_status nccl_status(ncclResult_t rc, const char *what) {
  if (rc == ncclSuccess) return GPU_OK;
  return dist_fail(GPU_ERR_IO, "gpuprim_dist (NCCL): %s: %s", what, ncclGetErrorString(rc));
}

bool dist_nccl_built(void) { return true; }

gpu_status dist_nccl_init(gpu_dist_comm *c) {
  ncclUniqueId id;
  gpu_status s = GPU_OK;
  if (c->rank == 0) s = nccl_status(ncclGetUniqueId(&id), "ncclGetUniqueId");
  s = dist_agree_status(c, "gpu_dist_comm_create", s);
  if (s != GPU_OK) return s;
  s = dist_mpi(MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, c->comm), "gpu_dist_comm_create",
               "MPI_Bcast");
  if (s != GPU_OK) return s;
  ncclComm_t comm = NULL;
  s = nccl_status(ncclCommInitRank(&comm, c->size, id, c->rank), "ncclCommInitRank");
  c->nccl = s == GPU_OK ? comm : NULL;
  return dist_agree_status(c, "gpu_dist_comm_create", s);
}

void dist_nccl_destroy(gpu_dist_comm *c) {
  if (c->nccl) ncclCommDestroy((ncclComm_t)c->nccl);
  c->nccl = NULL;
}

gpu_status dist_nccl_exchange_begin(gpu_dist_comm *c, const void *send,
                                    const uint64_t *send_bytes, const uint64_t *send_offsets,
                                    void *recv, const uint64_t *recv_bytes,
                                    const uint64_t *recv_offsets) {
  /* The library's work on the thread's stream must be done before NCCL reads. */
  gpu_status s = dist_lib(gpu_synchronize(), "gpuprim_dist (NCCL)", "gpu_synchronize");
  if (s != GPU_OK) return s;
  ncclComm_t comm = (ncclComm_t)c->nccl;
  s = nccl_status(ncclGroupStart(), "ncclGroupStart");
  for (int peer = 0; peer < c->size && s == GPU_OK; peer++) {
    if (peer == c->rank) continue;
    if (recv_bytes[peer])
      s = nccl_status(ncclRecv((char *)recv + recv_offsets[peer], recv_bytes[peer], ncclChar, peer,
                               comm, NULL),
                      "ncclRecv");
    if (s == GPU_OK && send_bytes[peer]) {
      s = nccl_status(ncclSend((const char *)send + send_offsets[peer], send_bytes[peer], ncclChar,
                               peer, comm, NULL),
                      "ncclSend");
      c->traffic.messages_sent++;
      c->traffic.bytes_sent += send_bytes[peer];
    }
  }
  gpu_status ended = nccl_status(ncclGroupEnd(), "ncclGroupEnd");
  return s != GPU_OK ? s : ended;
}

gpu_status dist_nccl_exchange_end(gpu_dist_comm *c) {
  (void)c;
  cudaError_t rc = cudaStreamSynchronize(NULL);
  if (rc != cudaSuccess)
    return dist_fail(GPU_ERR_DEVICE, "gpuprim_dist (NCCL): cudaStreamSynchronize: %s",
                     cudaGetErrorString(rc));
  return GPU_OK;
}

#else

bool dist_nccl_built(void) { return false; }
gpu_status dist_nccl_init(gpu_dist_comm *c) {
  (void)c;
  return dist_fail(GPU_ERR_UNSUPPORTED, "gpuprim_dist: built without NCCL");
}
void dist_nccl_destroy(gpu_dist_comm *c) { (void)c; }
gpu_status dist_nccl_exchange_begin(gpu_dist_comm *c, const void *send,
                                    const uint64_t *send_bytes, const uint64_t *send_offsets,
                                    void *recv, const uint64_t *recv_bytes,
                                    const uint64_t *recv_offsets) {
  return dist_nccl_init(c);
}
gpu_status dist_nccl_exchange_end(gpu_dist_comm *c) { return dist_nccl_init(c); }

#endif
