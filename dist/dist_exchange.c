/*
 * The bulk all-to-all of every transport. Both sides know every count
 * beforehand (the callers exchange counts first), so the data moves as
 * point-to-point messages posted all at once:
 *
 *   MPI_HOST, MPI_CUDA_AWARE  MPI_Irecv / MPI_Isend on the buffers themselves,
 *                             in messages of at most 1 GiB (MPI counts are int)
 *   MPI_STAGED                the send buffer copied to pinned host memory,
 *                             the same messages between pinned buffers, and the
 *                             received bytes copied back to the device at the end
 *   NCCL                      ncclSend / ncclRecv in one group (dist_nccl.c)
 *
 * A rank's part for itself is a local copy, not a message.
 */
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

enum { MESSAGE_BYTES = 1 << 30 };

static int messages_for(uint64_t bytes) { return (int)((bytes + MESSAGE_BYTES - 1) / MESSAGE_BYTES); }

/* Posts the messages of one direction; *k counts requests. */
static gpu_status post(gpu_dist_comm *c, MPI_Request *requests, int *k, bool receive, char *base,
                       const uint64_t *bytes, const uint64_t *offsets) {
  static const char *fn = "gpuprim_dist exchange";
  for (int peer = 0; peer < c->size; peer++) {
    if (peer == c->rank) continue;
    for (int m = 0; m < messages_for(bytes[peer]); m++) {
      const uint64_t at = (uint64_t)m * MESSAGE_BYTES;
      const uint64_t left = bytes[peer] - at;
      const int length = (int)(left < MESSAGE_BYTES ? left : MESSAGE_BYTES);
      char *p = base + offsets[peer] + at;
      int rc = receive ? MPI_Irecv(p, length, MPI_BYTE, peer, m, c->comm, &requests[*k])
                       : MPI_Isend(p, length, MPI_BYTE, peer, m, c->comm, &requests[*k]);
      gpu_status s = dist_mpi(rc, fn, receive ? "MPI_Irecv" : "MPI_Isend");
      if (s != GPU_OK) return s;
      (*k)++;
      if (!receive) {
        c->traffic.messages_sent++;
        c->traffic.bytes_sent += (uint64_t)length;
      }
    }
  }
  return GPU_OK;
}

/* Grows a pinned buffer to at least bytes. */
static gpu_status pinned_at_least(void **buffer, size_t *have, size_t bytes) {
  if (*have >= bytes) return GPU_OK;
  dist_host_free_pinned(*buffer);
  *buffer = NULL;
  *have = 0;
  gpu_status s = dist_host_alloc_pinned(buffer, bytes);
  if (s == GPU_OK) *have = bytes;
  return s;
}

static uint64_t end_of(const uint64_t *bytes, const uint64_t *offsets, int size) {
  uint64_t end = 0;
  for (int r = 0; r < size; r++)
    if (bytes[r] && offsets[r] + bytes[r] > end) end = offsets[r] + bytes[r];
  return end;
}

gpu_status dist_exchange_begin(gpu_dist_comm *c, dist_exchange *x, const void *send,
                               const uint64_t *send_bytes, const uint64_t *send_offsets,
                               void *recv, const uint64_t *recv_bytes,
                               const uint64_t *recv_offsets) {
  memset(x, 0, sizeof *x);
  const int me = c->rank;
  gpu_status s = dist_copy(c, (char *)recv + recv_offsets[me], (const char *)send + send_offsets[me],
                           send_bytes[me]);
  if (s != GPU_OK) return s;
  if (c->transport == GPU_DIST_NCCL) {
    s = dist_nccl_exchange_begin(c, send, send_bytes, send_offsets, recv, recv_bytes, recv_offsets);
    x->nccl_pending = s == GPU_OK;
    return s;
  }
  const char *send_base = send;
  char *recv_base = recv;
  /* One rank alone sends nothing: no staging (the decision is the same on
   * every rank, as the collective below needs). */
  if (c->transport == GPU_DIST_MPI_STAGED && c->size > 1) {
    const uint64_t send_end = end_of(send_bytes, send_offsets, c->size);
    const uint64_t recv_end = end_of(recv_bytes, recv_offsets, c->size);
    s = pinned_at_least(&c->pinned_send, &c->pinned_send_bytes, send_end);
    if (s == GPU_OK) s = pinned_at_least(&c->pinned_recv, &c->pinned_recv_bytes, recv_end);
    /* A rank without its buffers must not leave the others waiting. */
    s = dist_agree_status(c, "gpuprim_dist exchange", s);
    /* Only the peers' parts travel through host memory. */
    for (int peer = 0; peer < c->size && s == GPU_OK; peer++)
      if (peer != me)
        s = dist_copy(c, (char *)c->pinned_send + send_offsets[peer],
                      (const char *)send + send_offsets[peer], send_bytes[peer]);
    if (s != GPU_OK) return s;
    send_base = c->pinned_send;
    recv_base = c->pinned_recv;
    x->recv = recv;
    x->recv_bytes = recv_bytes;
    x->recv_offsets = recv_offsets;
    x->staged_copy_back = true;
  }
  int count = 0;
  for (int peer = 0; peer < c->size; peer++)
    if (peer != me) count += messages_for(send_bytes[peer]) + messages_for(recv_bytes[peer]);
  x->requests = malloc((size_t)(count ? count : 1) * sizeof *x->requests);
  if (!x->requests) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "gpuprim_dist exchange: host memory");
  s = post(c, x->requests, &x->nrequests, true, recv_base, recv_bytes, recv_offsets);
  if (s == GPU_OK)
    s = post(c, x->requests, &x->nrequests, false, (char *)send_base, send_bytes, send_offsets);
  if (s != GPU_OK) dist_exchange_end(c, x);
  return s;
}

gpu_status dist_exchange_end(gpu_dist_comm *c, dist_exchange *x) {
  gpu_status s = GPU_OK;
  if (x->nccl_pending) {
    x->nccl_pending = false;
    return dist_nccl_exchange_end(c);
  }
  if (x->nrequests)
    s = dist_mpi(MPI_Waitall(x->nrequests, x->requests, MPI_STATUSES_IGNORE),
                 "gpuprim_dist exchange", "MPI_Waitall");
  free(x->requests);
  x->requests = NULL;
  x->nrequests = 0;
  if (s == GPU_OK && x->staged_copy_back) {
    for (int peer = 0; peer < c->size && s == GPU_OK; peer++)
      if (peer != c->rank)
        s = dist_copy(c, (char *)x->recv + x->recv_offsets[peer],
                      (char *)c->pinned_recv + x->recv_offsets[peer], x->recv_bytes[peer]);
  }
  x->staged_copy_back = false;
  return s;
}

gpu_status dist_exchange_all(gpu_dist_comm *c, const void *send, const uint64_t *send_bytes,
                             const uint64_t *send_offsets, void *recv,
                             const uint64_t *recv_bytes, const uint64_t *recv_offsets) {
  dist_exchange x;
  gpu_status s =
      dist_exchange_begin(c, &x, send, send_bytes, send_offsets, recv, recv_bytes, recv_offsets);
  if (s != GPU_OK) return s;
  return dist_exchange_end(c, &x);
}
