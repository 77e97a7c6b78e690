/*
 * SpMV on a row-partitioned CSR. The plan, made once, splits this rank's rows
 * into its own columns (the block on the diagonal, local indices) and the
 * others (the halo: columns owned by other ranks, renumbered 0..nghost-1 in
 * ascending global order), and agrees with the owners which x entries each
 * sends to whom (one all-to-all of counts, one of indices). Every product:
 *
 *   1. send_buf = G x_local        G: one 1 per row, picking the entries others need
 *   2. start the exchange          send_buf -> owners' ghost_buf, by the plan's counts
 *   3. y = alpha A_own x_local + beta y      while the halo travels
 *   4. finish the exchange
 *   5. y = alpha A_halo ghost_buf + y
 *
 * All three products are gpuprim SpMV plans (the gather too: gpuprim.h has no
 * gather, and a 0/1 matrix with one entry per row is one, exact in floats).
 */
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

struct gpu_dist_spmv_plan {
  gpu_dist_comm *c;
  int64_t rows, nghost, nsend;
  gpu_csr own, halo, gather;             /* backend memory owned by the plan */
  gpu_spmv_plan *own_plan, *halo_plan, *gather_plan;
  void *send_buf, *ghost_buf;
  uint64_t *table;                       /* 4 x size: send/recv bytes and offsets */
};

/* A CSR in host memory with 64-bit indices, values as raw bytes. */
typedef struct {
  int64_t rows, cols, nnz;
  int64_t *row_ptr, *col_idx;
  uint8_t *values;
} host_csr;

static void host_csr_free(host_csr *h) {
  free(h->row_ptr);
  free(h->col_idx);
  free(h->values);
  memset(h, 0, sizeof *h);
}

static gpu_status host_csr_alloc(host_csr *h, int64_t rows, int64_t nnz, size_t value_bytes) {
  h->rows = rows;
  h->nnz = nnz;
  h->row_ptr = calloc((size_t)rows + 1, sizeof *h->row_ptr);
  h->col_idx = malloc((size_t)(nnz ? nnz : 1) * sizeof *h->col_idx);
  h->values = malloc((size_t)(nnz ? nnz : 1) * value_bytes);
  if (h->row_ptr && h->col_idx && h->values) return GPU_OK;
  host_csr_free(h);
  return dist_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_dist_spmv_plan_create: host memory");
}

/* Backend index array (i32 or i64) -> host int64, and back. */
static gpu_status download_indices(const void *src, int64_t count, gpu_dtype index_type,
                                   int64_t *dst) {
  const size_t width = gpu_dtype_size(index_type);
  gpu_status s = dist_lib(gpu_download(dst, src, (size_t)count * width), "gpu_dist_spmv_plan_create",
                          "gpu_download");
  if (s == GPU_OK && width == 4)
    for (int64_t k = count - 1; k >= 0; k--) dst[k] = ((const int32_t *)dst)[k];
  return s;
}

static gpu_status upload_indices(void **dst, const int64_t *src, int64_t count,
                                 gpu_dtype index_type) {
  const size_t width = gpu_dtype_size(index_type);
  gpu_status s = dist_alloc(dst, (size_t)count * width, "gpu_dist_spmv_plan_create");
  if (s != GPU_OK || count == 0) return s;
  void *packed = malloc((size_t)count * width);
  if (!packed) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_dist_spmv_plan_create: host memory");
  for (int64_t k = 0; k < count; k++) {
    if (width == 4)
      ((int32_t *)packed)[k] = (int32_t)src[k];
    else
      ((int64_t *)packed)[k] = src[k];
  }
  s = dist_lib(gpu_upload(*dst, packed, (size_t)count * width), "gpu_dist_spmv_plan_create",
               "gpu_upload");
  free(packed);
  return s;
}

/* The host CSR into backend memory as a gpu_csr of A's types. */
static gpu_status upload_csr(const host_csr *h, const gpu_csr *like, gpu_csr *out) {
  *out = (gpu_csr){h->rows, h->cols, h->nnz, NULL, NULL, NULL, like->index_type, like->value_type};
  const size_t value_bytes = gpu_dtype_size(like->value_type);
  gpu_status s = upload_indices(&out->row_ptr, h->row_ptr, h->rows + 1, like->index_type);
  if (s == GPU_OK) s = upload_indices(&out->col_idx, h->col_idx, h->nnz, like->index_type);
  if (s == GPU_OK) s = dist_alloc(&out->values, (size_t)h->nnz * value_bytes, "gpu_dist_spmv_plan_create");
  if (s == GPU_OK && h->nnz)
    s = dist_lib(gpu_upload(out->values, h->values, (size_t)h->nnz * value_bytes),
                 "gpu_dist_spmv_plan_create", "gpu_upload");
  return s;
}

static void csr_free(gpu_csr *A) {
  gpu_free(A->row_ptr);
  gpu_free(A->col_idx);
  gpu_free(A->values);
  memset(A, 0, sizeof *A);
}

static gpu_status download_csr(const gpu_csr *A, host_csr *h) {
  const size_t value_bytes = gpu_dtype_size(A->value_type);
  gpu_status s = host_csr_alloc(h, A->rows, A->nnz, value_bytes);
  h->cols = A->cols;
  if (s == GPU_OK) s = download_indices(A->row_ptr, A->rows + 1, A->index_type, h->row_ptr);
  if (s == GPU_OK) s = download_indices(A->col_idx, A->nnz, A->index_type, h->col_idx);
  if (s == GPU_OK && A->nnz)
    s = dist_lib(gpu_download(h->values, A->values, (size_t)A->nnz * value_bytes),
                 "gpu_dist_spmv_plan_create", "gpu_download");
  return s;
}

static int compare_int64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The halo's global columns, ascending and unique, from A's entries outside
 * [first, first + rows). */
static gpu_status find_ghosts(const host_csr *A, int64_t first, int64_t **ghosts, int64_t *nghost) {
  int64_t count = 0;
  *ghosts = malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof **ghosts);
  if (!*ghosts) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_dist_spmv_plan_create: host memory");
  for (int64_t k = 0; k < A->nnz; k++)
    if (A->col_idx[k] < first || A->col_idx[k] >= first + A->rows) (*ghosts)[count++] = A->col_idx[k];
  qsort(*ghosts, (size_t)count, sizeof **ghosts, compare_int64);
  int64_t unique = 0;
  for (int64_t k = 0; k < count; k++)
    if (unique == 0 || (*ghosts)[unique - 1] != (*ghosts)[k]) (*ghosts)[unique++] = (*ghosts)[k];
  *nghost = unique;
  return GPU_OK;
}

/* A's rows split into own columns (own) and halo columns (halo). */
static gpu_status split_rows(const host_csr *A, int64_t first, const int64_t *ghosts,
                             int64_t nghost, size_t value_bytes, host_csr *own, host_csr *halo) {
  int64_t own_nnz = 0;
  for (int64_t k = 0; k < A->nnz; k++)
    own_nnz += A->col_idx[k] >= first && A->col_idx[k] < first + A->rows;
  gpu_status s = host_csr_alloc(own, A->rows, own_nnz, value_bytes);
  if (s == GPU_OK) s = host_csr_alloc(halo, A->rows, A->nnz - own_nnz, value_bytes);
  if (s != GPU_OK) return s;
  own->cols = A->rows;
  halo->cols = nghost;
  int64_t o = 0, h = 0;
  for (int64_t r = 0; r < A->rows; r++) {
    for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++) {
      const int64_t col = A->col_idx[k];
      const bool mine = col >= first && col < first + A->rows;
      host_csr *to = mine ? own : halo;
      int64_t *at = mine ? &o : &h;
      to->col_idx[*at] = mine ? col - first
                              : (int64_t *)bsearch(&col, ghosts, (size_t)nghost, sizeof *ghosts,
                                                   compare_int64) - ghosts;
      memcpy(to->values + (size_t)*at * value_bytes, A->values + (size_t)k * value_bytes, value_bytes);
      (*at)++;
    }
    own->row_ptr[r + 1] = o;
    halo->row_ptr[r + 1] = h;
  }
  return GPU_OK;
}

/* Who sends what: from the ghosts (owned by the ranks whose rows hold them),
 * the byte counts of both directions and this rank's send list (local indices). */
static gpu_status halo_lists(gpu_dist_spmv_plan *plan, const int64_t *starts, const int64_t *ghosts,
                             int64_t **send_list, size_t value_bytes) {
  gpu_dist_comm *c = plan->c;
  const int size = c->size;
  int *counts = calloc(4 * (size_t)size, sizeof *counts);
  if (!counts) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_dist_spmv_plan_create: host memory");
  int *recv_counts = counts, *recv_displs = counts + size, *send_counts = counts + 2 * size,
      *send_displs = counts + 3 * size;
  for (int64_t g = 0, owner = 0; g < plan->nghost; g++) {
    while (ghosts[g] >= starts[owner + 1]) owner++;
    recv_counts[owner]++;
  }
  c->traffic.collectives += 2;
  gpu_status s = dist_mpi(MPI_Alltoall(recv_counts, 1, MPI_INT, send_counts, 1, MPI_INT, c->comm),
                          "gpu_dist_spmv_plan_create", "MPI_Alltoall");
  int64_t nsend = 0, nrecv = 0;
  for (int r = 0; r < size; r++) {
    recv_displs[r] = (int)nrecv;
    send_displs[r] = (int)nsend;
    nrecv += recv_counts[r];
    nsend += send_counts[r];
  }
  plan->nsend = nsend;
  *send_list = malloc((size_t)(nsend ? nsend : 1) * sizeof **send_list);
  if (s == GPU_OK && !*send_list) s = dist_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_dist_spmv_plan_create: host memory");
  s = dist_agree_status(c, "gpu_dist_spmv_plan_create", s);
  if (s == GPU_OK)
    s = dist_mpi(MPI_Alltoallv(ghosts, recv_counts, recv_displs, MPI_INT64_T, *send_list,
                               send_counts, send_displs, MPI_INT64_T, c->comm),
                 "gpu_dist_spmv_plan_create", "MPI_Alltoallv");
  for (int64_t k = 0; k < nsend; k++) (*send_list)[k] -= starts[c->rank];
  for (int r = 0; r < size; r++) {
    plan->table[r] = (uint64_t)send_counts[r] * value_bytes;
    plan->table[size + r] = (uint64_t)send_displs[r] * value_bytes;
    plan->table[2 * size + r] = (uint64_t)recv_counts[r] * value_bytes;
    plan->table[3 * size + r] = (uint64_t)recv_displs[r] * value_bytes;
  }
  free(counts);
  return s;
}

/* The 0/1 gather matrix: row k picks x_local[send_list[k]]. */
static gpu_status gather_matrix(const gpu_dist_spmv_plan *plan, const int64_t *send_list,
                                size_t value_bytes, const gpu_csr *like, gpu_csr *out) {
  host_csr G = {0};
  gpu_status s = host_csr_alloc(&G, plan->nsend, plan->nsend, value_bytes);
  if (s != GPU_OK) return s;
  G.cols = plan->rows;
  const double one = 1.0;
  const float one_f = 1.0f;
  for (int64_t k = 0; k < plan->nsend; k++) {
    G.row_ptr[k + 1] = k + 1;
    G.col_idx[k] = send_list[k];
    memcpy(G.values + (size_t)k * value_bytes, value_bytes == 4 ? (const void *)&one_f : &one,
           value_bytes);
  }
  s = upload_csr(&G, like, out);
  host_csr_free(&G);
  return s;
}

static gpu_status make_plan(gpu_spmv_plan **plan, const gpu_csr *A, bool needed) {
  *plan = NULL;
  if (!needed) return GPU_OK;
  return dist_lib(gpu_spmv_plan_create(plan, A), "gpu_dist_spmv_plan_create", "gpu_spmv_plan_create");
}

/* Everything after the records: split, halo lists, matrices, plans, buffers. */
static gpu_status build(gpu_dist_spmv_plan *plan, const gpu_csr *A, const int64_t *starts) {
  const size_t value_bytes = gpu_dtype_size(A->value_type);
  const int64_t first = starts[plan->c->rank];
  host_csr host = {0}, own = {0}, halo = {0};
  int64_t *ghosts = NULL, *send_list = NULL;
  gpu_status s = download_csr(A, &host);
  if (s == GPU_OK) s = find_ghosts(&host, first, &ghosts, &plan->nghost);
  if (s == GPU_OK) s = split_rows(&host, first, ghosts, plan->nghost, value_bytes, &own, &halo);
  s = dist_agree_status(plan->c, "gpu_dist_spmv_plan_create", s);
  if (s == GPU_OK) s = halo_lists(plan, starts, ghosts, &send_list, value_bytes);
  if (s == GPU_OK) s = upload_csr(&own, A, &plan->own);
  if (s == GPU_OK) s = upload_csr(&halo, A, &plan->halo);
  if (s == GPU_OK) s = gather_matrix(plan, send_list, value_bytes, A, &plan->gather);
  if (s == GPU_OK) s = make_plan(&plan->own_plan, &plan->own, plan->rows > 0);
  if (s == GPU_OK) s = make_plan(&plan->halo_plan, &plan->halo, plan->halo.nnz > 0);
  if (s == GPU_OK) s = make_plan(&plan->gather_plan, &plan->gather, plan->nsend > 0);
  if (s == GPU_OK)
    s = dist_alloc(&plan->send_buf, (size_t)plan->nsend * value_bytes, "gpu_dist_spmv_plan_create");
  if (s == GPU_OK)
    s = dist_alloc(&plan->ghost_buf, (size_t)plan->nghost * value_bytes, "gpu_dist_spmv_plan_create");
  host_csr_free(&host);
  host_csr_free(&own);
  host_csr_free(&halo);
  free(ghosts);
  free(send_list);
  return s;
}

static gpu_status check_matrix(const gpu_csr *A) {
  static const char *fn = "gpu_dist_spmv_plan_create";
  if (!A) return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: A_local is NULL", fn);
  if ((A->index_type != GPU_I32 && A->index_type != GPU_I64) ||
      (A->value_type != GPU_F32 && A->value_type != GPU_F64))
    return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: index_type must be I32 or I64, value_type F32 or F64", fn);
  return dist_lib(gpu_csr_validate(A), fn, "gpu_csr_validate");
}

/* The records: types agree, every rank's cols is the sum of the rows. */
static gpu_status agree_on_shape(gpu_dist_comm *c, const gpu_csr *A, int64_t *starts) {
  static const char *fn = "gpu_dist_spmv_plan_create";
  dist_record mine = {0}, *all = malloc((size_t)c->size * sizeof *all);
  if (!all) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "%s: host memory", fn);
  mine.status = check_matrix(A);
  const uint64_t words[2] = {A ? (uint64_t)A->index_type : 0, A ? (uint64_t)A->value_type : 0};
  mine.hash = dist_hash(fn, words, 2);
  mine.count = A ? (uint64_t)A->rows : 0;
  mine.value = A ? (uint64_t)A->cols : 0;
  gpu_status s = dist_gather_records(c, fn, &mine, all);
  starts[0] = 0;
  for (int r = 0; r < c->size && s == GPU_OK; r++) starts[r + 1] = starts[r] + (int64_t)all[r].count;
  for (int r = 0; r < c->size && s == GPU_OK; r++)
    if ((int64_t)all[r].value != starts[c->size])
      s = dist_fail(GPU_ERR_INVALID_ARGUMENT,
                    "%s: rank %d's block has %lld columns, the ranks' rows add up to %lld (the "
                    "matrix must be square, columns global)",
                    fn, r, (long long)all[r].value, (long long)starts[c->size]);
  free(all);
  return s;
}

gpu_status gpu_dist_spmv_plan_create(gpu_dist_spmv_plan **plan, gpu_dist_comm *c,
                                     const gpu_csr *A_local) {
  static const char *fn = "gpu_dist_spmv_plan_create";
  gpu_status s = dist_check_comm(c, fn);
  if (s != GPU_OK) return s;
  if (!plan) return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: plan is NULL", fn);
  *plan = NULL;
  gpu_dist_spmv_plan *made = calloc(1, sizeof *made);
  int64_t *starts = malloc(((size_t)c->size + 1) * sizeof *starts);
  if (made) made->table = calloc(4 * (size_t)c->size, sizeof *made->table);
  if (!made || !starts || !made->table) {
    if (made) free(made->table);
    free(made);
    free(starts);
    return dist_fail(GPU_ERR_OUT_OF_MEMORY, "%s: host memory", fn);
  }
  made->c = c;
  s = agree_on_shape(c, A_local, starts);
  if (s == GPU_OK) {
    made->rows = A_local->rows;
    s = build(made, A_local, starts);
    s = dist_agree_status(c, fn, s);
  }
  free(starts);
  if (s != GPU_OK) {
    gpu_dist_spmv_plan_destroy(made);
    return s;
  }
  *plan = made;
  return GPU_OK;
}

gpu_status gpu_dist_spmv_plan_run(gpu_dist_spmv_plan *plan, const void *x_local, void *y_local,
                                  double alpha, double beta) {
  static const char *fn = "gpu_dist_spmv_plan_run";
  if (!plan) return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: plan is NULL", fn);
  gpu_dist_comm *c = plan->c;
  gpu_status s = dist_check_comm(c, fn);
  if (s == GPU_OK && plan->rows > 0 && (!x_local || !y_local))
    s = dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, x_local ? "y_local" : "x_local");
  s = dist_agree_status(c, fn, s);
  if (s == GPU_OK && plan->gather_plan)
    s = dist_lib(gpu_spmv_plan_run(plan->gather_plan, x_local, plan->send_buf, 1.0, 0.0), fn,
                 "the gather of the halo");
  s = dist_agree_status(c, fn, s);
  if (s != GPU_OK) return s;
  const int size = c->size;
  dist_exchange x;
  s = dist_exchange_begin(c, &x, plan->send_buf, plan->table, plan->table + size, plan->ghost_buf,
                          plan->table + 2 * size, plan->table + 3 * size);
  if (s != GPU_OK) return s;
  gpu_status own = GPU_OK;
  if (plan->own_plan)
    own = dist_lib(gpu_spmv_plan_run(plan->own_plan, x_local, y_local, alpha, beta), fn,
                   "the product of the rank's own columns");
  s = dist_exchange_end(c, &x);
  if (s == GPU_OK) s = own;
  if (s == GPU_OK && plan->halo_plan)
    s = dist_lib(gpu_spmv_plan_run(plan->halo_plan, plan->ghost_buf, y_local, alpha, 1.0), fn,
                 "the product of the halo");
  return s;
}

void gpu_dist_spmv_plan_destroy(gpu_dist_spmv_plan *plan) {
  if (!plan) return;
  gpu_spmv_plan_destroy(plan->own_plan);
  gpu_spmv_plan_destroy(plan->halo_plan);
  gpu_spmv_plan_destroy(plan->gather_plan);
  csr_free(&plan->own);
  csr_free(&plan->halo);
  csr_free(&plan->gather);
  gpu_free(plan->send_buf);
  gpu_free(plan->ghost_buf);
  free(plan->table);
  free(plan);
}
