/*
 * The communicator: its creation (duplicate of the caller's MPI communicator,
 * transport chosen at run time), the thread's last error, and the one
 * allgather of per-rank records through which every call checks that the
 * ranks agree on their arguments and that none has failed, before any rank
 * waits for data from another.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

static _Thread_local char last_error[512];

const char *gpu_dist_last_error(void) { return last_error; }

gpu_status dist_fail(gpu_status s, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, args);
  va_end(args);
  return s;
}

gpu_status dist_mpi(int rc, const char *fn, const char *what) {
  if (rc == MPI_SUCCESS) return GPU_OK;
  char words[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, words, &length) != MPI_SUCCESS) snprintf(words, sizeof words, "code %d", rc);
  return dist_fail(GPU_ERR_IO, "%s: %s failed: %s", fn, what, words);
}

gpu_status dist_lib(gpu_status s, const char *fn, const char *what) {
  if (s == GPU_OK) return GPU_OK;
  return dist_fail(s, "%s: %s: %s", fn, what, gpu_last_error());
}

gpu_status dist_alloc(void **p, size_t bytes, const char *fn) {
  *p = NULL;
  return dist_lib(gpu_alloc(p, bytes), fn, "gpu_alloc");
}

/* ------------------------------------------------------- agreement */

uint64_t dist_hash(const char *fn, const uint64_t *words, int nwords) {
  uint64_t h = 1469598103934665603ull;
  for (const char *p = fn; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
  for (int w = 0; w < nwords; w++)
    for (int b = 0; b < 8; b++) h = (h ^ ((words[w] >> (8 * b)) & 0xFF)) * 1099511628211ull;
  return h;
}

gpu_status dist_gather_records(gpu_dist_comm *c, const char *fn, const dist_record *mine,
                               dist_record *all) {
  c->traffic.collectives++;
  gpu_status s = dist_mpi(MPI_Allgather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine,
                                        MPI_BYTE, c->comm),
                          fn, "MPI_Allgather");
  if (s != GPU_OK) return s;
  for (int r = 0; r < c->size; r++)
    if (all[r].hash != all[0].hash)
      return dist_fail(GPU_ERR_INVALID_ARGUMENT,
                       "%s: ranks disagree on the arguments (dtype, op, flags or sizes that must "
                       "match): rank %d's differ from rank 0's",
                       fn, r);
  for (int r = 0; r < c->size; r++)
    if (all[r].status != GPU_OK) {
      if (r == c->rank) return (gpu_status)mine->status; /* our own message stands */
      return dist_fail((gpu_status)all[r].status, "%s: rank %d failed: %s", fn, r,
                       gpu_status_string((gpu_status)all[r].status));
    }
  return GPU_OK;
}

gpu_status dist_agree_status(gpu_dist_comm *c, const char *fn, gpu_status local) {
  /* The lowest failing rank's status: (size - rank) in the high bits of a max. */
  int64_t mine = local == GPU_OK ? 0 : ((int64_t)(c->size - c->rank) << 8) | (int64_t)local, worst;
  c->traffic.collectives++;
  gpu_status s = dist_mpi(MPI_Allreduce(&mine, &worst, 1, MPI_INT64_T, MPI_MAX, c->comm), fn,
                          "MPI_Allreduce");
  if (s != GPU_OK) return s;
  if (worst == 0) return GPU_OK;
  if (local != GPU_OK) return local;
  const int rank = c->size - (int)(worst >> 8);
  const gpu_status status = (gpu_status)(worst & 0xFF);
  return dist_fail(status, "%s: rank %d failed: %s", fn, rank, gpu_status_string(status));
}

gpu_status dist_check_comm(const gpu_dist_comm *c, const char *fn) {
  if (!c) return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: the communicator is NULL", fn);
  if (gpu_get_backend() != c->backend)
    return dist_fail(GPU_ERR_INVALID_ARGUMENT,
                     "%s: the communicator was made for the %s backend, the thread now uses %s",
                     fn, c->backend == GPU_BACKEND_CUDA ? "CUDA" : "host",
                     gpu_get_backend() == GPU_BACKEND_CUDA ? "CUDA" : "host");
  return GPU_OK;
}

/* ------------------------------------------------------ transports */

const char *gpu_dist_transport_name(gpu_dist_transport t) {
  switch (t) {
    case GPU_DIST_MPI_HOST: return "mpi-host";
    case GPU_DIST_MPI_CUDA_AWARE: return "mpi-cuda-aware";
    case GPU_DIST_MPI_STAGED: return "mpi-staged";
    case GPU_DIST_NCCL: return "nccl";
  }
  return NULL;
}

/* The transport for the backend and GPUPRIM_DIST_TRANSPORT (unset: automatic). */
static gpu_status choose_transport(const gpu_dist_comm *c, bool own_gpus, gpu_dist_transport *t) {
  static const char *fn = "gpu_dist_comm_create";
  const char *word = getenv("GPUPRIM_DIST_TRANSPORT");
  if (word && !*word) word = NULL;
  if (word && strcmp(word, "mpi") && strcmp(word, "mpi-staged") && strcmp(word, "mpi-cuda-aware") &&
      strcmp(word, "nccl"))
    return dist_fail(GPU_ERR_INVALID_ARGUMENT,
                     "%s: GPUPRIM_DIST_TRANSPORT=%s is not one of mpi, mpi-staged, "
                     "mpi-cuda-aware, nccl",
                     fn, word);
  const bool want_nccl = word && !strcmp(word, "nccl");
  if (c->backend == GPU_BACKEND_HOST) {
    if (want_nccl)
      return dist_fail(GPU_ERR_UNSUPPORTED,
                       "%s: GPUPRIM_DIST_TRANSPORT=nccl needs the CUDA backend", fn);
    *t = GPU_DIST_MPI_HOST;
    return GPU_OK;
  }
  if (want_nccl) {
    if (!dist_nccl_built())
      return dist_fail(GPU_ERR_UNSUPPORTED,
                       "%s: GPUPRIM_DIST_TRANSPORT=nccl, but gpuprim_dist was built without NCCL",
                       fn);
    if (!own_gpus)
      return dist_fail(GPU_ERR_UNSUPPORTED,
                       "%s: GPUPRIM_DIST_TRANSPORT=nccl, but ranks share a GPU (NCCL needs "
                       "one GPU per rank)",
                       fn);
    *t = GPU_DIST_NCCL;
  } else if (word && !strcmp(word, "mpi-staged")) {
    *t = GPU_DIST_MPI_STAGED;
  } else if (word && !strcmp(word, "mpi-cuda-aware")) {
    *t = GPU_DIST_MPI_CUDA_AWARE;
  } else if (!word && dist_nccl_built() && own_gpus && c->size > 1) {
    *t = GPU_DIST_NCCL;
  } else {
    *t = dist_mpi_cuda_aware() ? GPU_DIST_MPI_CUDA_AWARE : GPU_DIST_MPI_STAGED;
  }
  return GPU_OK;
}

/* Local checks of the caller's communicator, before any communication. */
static gpu_status check_mpi_comm(MPI_Comm comm) {
  static const char *fn = "gpu_dist_comm_create";
  int initialized = 0, finalized = 0, inter = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: MPI is not initialised (or already finalised)",
                     fn);
  if (comm == MPI_COMM_NULL)
    return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: the communicator is MPI_COMM_NULL", fn);
  if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
    return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: the communicator is not a valid one", fn);
  if (inter)
    return dist_fail(GPU_ERR_INVALID_ARGUMENT,
                     "%s: intercommunicators are not supported (pass an intracommunicator)", fn);
  return GPU_OK;
}

static void comm_free(gpu_dist_comm *c) {
  if (!c) return;
  dist_nccl_destroy(c);
  gpu_free(c->scratch);
  dist_host_free_pinned(c->pinned_send);
  dist_host_free_pinned(c->pinned_recv);
  if (c->comm != MPI_COMM_NULL) MPI_Comm_free(&c->comm);
  free(c);
}

/* The duplicate, the backend, the transport and the scratch buffer; every
 * rank learns whether all succeeded and agree on backend and transport. */
static gpu_status comm_setup(gpu_dist_comm *c, MPI_Comm comm) {
  static const char *fn = "gpu_dist_comm_create";
  gpu_status s = dist_mpi(MPI_Comm_dup(comm, &c->comm), fn, "MPI_Comm_dup");
  if (s != GPU_OK) {
    c->comm = MPI_COMM_NULL;
    return s;
  }
  MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(c->comm, &c->rank);
  MPI_Comm_size(c->comm, &c->size);
  c->backend = gpu_get_backend();
  bool own_gpus = false; /* collective on every rank, whatever its backend */
  s = dist_ranks_own_gpus(c, &own_gpus);
  if (s != GPU_OK) return s;
  gpu_status local = choose_transport(c, own_gpus, &c->transport);
  if (local == GPU_OK) local = dist_alloc(&c->scratch, 8 * ((size_t)c->size + 1), fn);
  dist_record mine = {0}, *all = malloc((size_t)c->size * sizeof *all);
  if (!all) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "%s: host memory", fn);
  const uint64_t words[2] = {(uint64_t)c->backend, (uint64_t)c->transport};
  mine.hash = dist_hash(fn, words, 2);
  mine.status = local;
  s = dist_gather_records(c, fn, &mine, all);
  free(all);
  if (s == GPU_ERR_INVALID_ARGUMENT && local == GPU_OK && strstr(last_error, "disagree"))
    dist_fail(s, "%s: ranks disagree on the backend or transport (every rank must use the same)",
              fn);
  if (s == GPU_OK && c->transport == GPU_DIST_NCCL) s = dist_nccl_init(c);
  return s;
}

gpu_status gpu_dist_comm_create(gpu_dist_comm **c, MPI_Comm comm) {
  if (!c) return dist_fail(GPU_ERR_INVALID_ARGUMENT, "gpu_dist_comm_create: c is NULL");
  *c = NULL;
  gpu_status s = check_mpi_comm(comm);
  if (s != GPU_OK) return s;
  gpu_dist_comm *made = calloc(1, sizeof *made);
  if (!made) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_dist_comm_create: host memory");
  made->comm = MPI_COMM_NULL;
  s = comm_setup(made, comm);
  if (s != GPU_OK) {
    comm_free(made);
    return s;
  }
  *c = made;
  return GPU_OK;
}

void gpu_dist_comm_destroy(gpu_dist_comm *c) { comm_free(c); }

int gpu_dist_comm_rank(const gpu_dist_comm *c) { return c ? c->rank : -1; }
int gpu_dist_comm_size(const gpu_dist_comm *c) { return c ? c->size : 0; }
gpu_dist_transport gpu_dist_comm_transport(const gpu_dist_comm *c) {
  return c ? c->transport : GPU_DIST_MPI_HOST;
}
gpu_dist_traffic gpu_dist_comm_traffic(const gpu_dist_comm *c) {
  gpu_dist_traffic none = {0};
  return c ? c->traffic : none;
}
void gpu_dist_comm_traffic_reset(gpu_dist_comm *c) {
  if (c) memset(&c->traffic, 0, sizeof c->traffic);
}
