/*
 * Sample sort across ranks, stable, every key type, both directions.
 *
 *   1. each rank sorts its part in place (gpu_sort_keys / gpu_sort_pairs);
 *      one allgather of records checks the arguments and gives every count
 *   2. regular samples: rank i takes every step_i-th key of its sorted part,
 *      step_i = ceil(n_i / S), S = 128 P, as (order key, rank, position)
 *      triples; one allgatherv gives every rank all of them, sorted on the host
 *      by the triple, a total order: equal keys order by (rank, index), so
 *      skewed keys (all equal) split as evenly as distinct ones
 *   3. splitter j (j = 1..P-1) is the first sample whose estimated count of
 *      elements below it reaches j N / P. The estimate for a sample x is
 *      sum_i pos_i(m_i), m_i the samples of rank i before x; the true count
 *      lies within sum_i step_i <= N / S + P of it, so each rank ends within
 *      2 (N / S + P) + 1 = N / (64 P) + 2 P + 1 of N / P
 *   4. each rank finds, by binary search between its two samples around each
 *      splitter, how many of its keys fall below it: its send counts
 *   5. one all-to-all of counts, one exchange of keys (and one of values):
 *      each key crosses between ranks at most once
 *   6. the received runs lie in source-rank order, each sorted; a stable
 *      local sort of their concatenation gives (key, rank, index) order
 *      (skipped when they came from one rank)
 *
 * Keys are compared on the host through the sort's own order-preserving maps
 * (sort/sort_keys.h), so the splitters order keys exactly as gpu_sort_keys.
 */
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"
#include "sort/sort_keys.h"

enum { SAMPLES_PER_RANK_PER_RANK = 128 };

typedef struct {
  uint64_t key; /* order key: gp_sortkey ^ direction */
  uint32_t rank, unused;
  uint64_t position; /* index in the rank's locally sorted part */
} sample;

/* What one call works with. */
typedef struct {
  gpu_dist_comm *c;
  const char *fn;
  void *keys, *values;
  gpu_dtype key_t;
  size_t key_bytes, value_bytes;
  bool pairs;                    /* false: keys only */
  unsigned flags;
  uint64_t *counts;              /* every rank's n */
  uint64_t total;
} sort_call;

static int compare_samples(const void *a, const void *b) {
  const sample *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return (x->position > y->position) - (x->position < y->position);
}

static uint64_t order_key(const sort_call *call, uint64_t bits) {
  return gp_sortkey(call->key_t, bits) ^ gp_sortkey_direction(call->key_t, call->flags);
}

static uint64_t step_of(uint64_t n, int size) {
  const uint64_t per_rank = (uint64_t)SAMPLES_PER_RANK_PER_RANK * (uint64_t)size;
  return n == 0 ? 1 : (n + per_rank - 1) / per_rank;
}
static uint64_t samples_of(uint64_t n, int size) { return n == 0 ? 0 : (n + step_of(n, size) - 1) / step_of(n, size); }
/* Position of rank i's m-th sample, n_i past the last. */
static uint64_t sample_position(uint64_t n, int size, uint64_t m) {
  const uint64_t p = m * step_of(n, size);
  return p < n ? p : n;
}

/* Every rank's samples, sorted, in *all (count in *nall). */
static gpu_status gather_samples(sort_call *call, sample **all, uint64_t *nall) {
  gpu_dist_comm *c = call->c;
  const int size = c->size;
  const uint64_t n = call->counts[c->rank], mine = samples_of(n, size);
  int *bytes = malloc(2 * (size_t)size * sizeof *bytes);
  uint64_t total = 0;
  for (int r = 0; r < size; r++) total += samples_of(call->counts[r], size);
  sample *local = malloc((size_t)(mine ? mine : 1) * sizeof *local);
  uint8_t *raw = malloc((size_t)(mine ? mine : 1) * call->key_bytes);
  *all = malloc((size_t)(total ? total : 1) * sizeof **all);
  *nall = total;
  gpu_status s = bytes && local && raw && *all && total * sizeof(sample) < (1ull << 31)
                     ? GPU_OK
                     : dist_fail(GPU_ERR_OUT_OF_MEMORY, "%s: host memory for %llu samples",
                                 call->fn, (unsigned long long)total);
  if (s == GPU_OK)
    s = dist_get_strided(c, call->keys, step_of(n, size), mine, call->key_bytes, raw);
  for (uint64_t k = 0; s == GPU_OK && k < mine; k++) {
    uint64_t bits = 0;
    memcpy(&bits, raw + k * call->key_bytes, call->key_bytes);
    local[k] = (sample){order_key(call, bits), (uint32_t)c->rank, 0, sample_position(n, size, k)};
  }
  s = dist_agree_status(c, call->fn, s);
  if (s == GPU_OK) {
    int at = 0;
    for (int r = 0; r < size; r++) {
      bytes[r] = (int)(samples_of(call->counts[r], size) * sizeof(sample));
      bytes[size + r] = at;
      at += bytes[r];
    }
    c->traffic.collectives++;
    s = dist_mpi(MPI_Allgatherv(local, (int)(mine * sizeof(sample)), MPI_BYTE, *all, bytes,
                                bytes + size, MPI_BYTE, c->comm),
                 call->fn, "MPI_Allgatherv");
  }
  if (s == GPU_OK) qsort(*all, (size_t)total, sizeof(sample), compare_samples);
  free(bytes);
  free(local);
  free(raw);
  return s;
}

/* Splitters from the sorted samples (step 3): splitters[j - 1] for j = 1..P-1,
 * rank = UINT32_MAX for one above everything; mine_before[j - 1] = how many
 * of this rank's samples precede it. */
static void choose_splitters(const sort_call *call, const sample *all, uint64_t nall,
                             sample *splitters, uint64_t *mine_before) {
  const int size = call->c->size;
  uint64_t *passed = calloc((size_t)size, sizeof *passed), estimate = 0;
  int j = 1;
  for (uint64_t k = 0; k <= nall && j < size; k++) {
    while (j < size && k < nall &&
           estimate >= call->total / (uint64_t)size * (uint64_t)j +
                           call->total % (uint64_t)size * (uint64_t)j / (uint64_t)size) {
      splitters[j - 1] = all[k];
      mine_before[j - 1] = passed[call->c->rank];
      j++;
    }
    if (k == nall) break;
    const int r = (int)all[k].rank;
    const uint64_t n = call->counts[r];
    estimate += sample_position(n, size, passed[r] + 1) - sample_position(n, size, passed[r]);
    passed[r]++;
  }
  for (; j < size; j++) {
    splitters[j - 1] = (sample){UINT64_MAX, UINT32_MAX, 0, 0};
    mine_before[j - 1] = passed[call->c->rank];
  }
  free(passed);
}

/* How many of this rank's keys precede splitter x (step 4). */
static gpu_status count_below(const sort_call *call, const sample *x, uint64_t mine_before,
                              uint64_t *below) {
  const int me = call->c->rank, size = call->c->size;
  const uint64_t n = call->counts[me];
  if (x->rank == UINT32_MAX) {
    *below = n;
    return GPU_OK;
  }
  if (x->rank == (uint32_t)me) {
    *below = x->position;
    return GPU_OK;
  }
  /* The answer lies in [position of sample m-1, position of sample m]. */
  uint64_t lo = mine_before ? sample_position(n, size, mine_before - 1) : 0;
  uint64_t hi = sample_position(n, size, mine_before);
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    uint64_t bits;
    gpu_status s = dist_get(call->keys, mid, call->key_bytes, &bits);
    if (s != GPU_OK) return s;
    const uint64_t key = order_key(call, bits);
    const bool precedes = key < x->key || (key == x->key && (uint32_t)me < x->rank);
    if (precedes)
      lo = mid + 1;
    else
      hi = mid;
  }
  *below = lo;
  return GPU_OK;
}

/* This rank's send counts (elements per destination), steps 2-4. */
static gpu_status send_counts(sort_call *call, uint64_t *sends) {
  gpu_dist_comm *c = call->c;
  const int size = c->size;
  const uint64_t n = call->counts[c->rank];
  if (size == 1) {
    sends[0] = n;
    return GPU_OK;
  }
  sample *all = NULL, *splitters = malloc((size_t)size * sizeof *splitters);
  uint64_t nall = 0, *mine_before = malloc((size_t)size * sizeof *mine_before);
  gpu_status s = gather_samples(call, &all, &nall);
  if (s == GPU_OK && (!splitters || !mine_before))
    s = dist_fail(GPU_ERR_OUT_OF_MEMORY, "%s: host memory", call->fn);
  uint64_t previous = 0;
  if (s == GPU_OK) {
    choose_splitters(call, all, nall, splitters, mine_before);
    for (int j = 1; j <= size && s == GPU_OK; j++) {
      uint64_t below = n;
      if (j < size) s = count_below(call, &splitters[j - 1], mine_before[j - 1], &below);
      sends[j - 1] = below - previous;
      previous = below;
    }
  }
  free(all);
  free(splitters);
  free(mine_before);
  return s;
}

/* Steps 5 and 6: the exchange into freshly allocated outputs, then the merge. */
static gpu_status exchange_and_merge(sort_call *call, const uint64_t *sends, void **keys_out,
                                     void **values_out, size_t *n_out) {
  gpu_dist_comm *c = call->c;
  const int size = c->size;
  uint64_t *table = calloc(6 * (size_t)size, sizeof *table);
  if (!table) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "%s: host memory", call->fn);
  uint64_t *recvs = table, *send_bytes = table + size, *send_offsets = table + 2 * size;
  uint64_t *recv_bytes = table + 3 * size, *recv_offsets = table + 4 * size;
  c->traffic.collectives++;
  gpu_status s = dist_mpi(MPI_Alltoall(sends, 1, MPI_UINT64_T, recvs, 1, MPI_UINT64_T, c->comm),
                          call->fn, "MPI_Alltoall");
  uint64_t received = 0;
  int sources = 0;
  for (int r = 0; r < size; r++) {
    received += recvs[r];
    sources += recvs[r] != 0;
  }
  void *keys = NULL, *values = NULL;
  if (s == GPU_OK) {
    gpu_status local = dist_alloc(&keys, received * call->key_bytes, call->fn);
    if (local == GPU_OK && call->pairs)
      local = dist_alloc(&values, received * call->value_bytes, call->fn);
    s = dist_agree_status(c, call->fn, local);
  }
  /* Keys, then values: the same counts in their own widths. */
  const size_t widths[2] = {call->key_bytes, call->pairs ? call->value_bytes : 0};
  void *sources_of[2] = {call->keys, call->values}, *targets[2] = {keys, values};
  for (int part = 0; part < 2 && s == GPU_OK && widths[part]; part++) {
    uint64_t at_send = 0, at_recv = 0;
    for (int r = 0; r < size; r++) {
      send_bytes[r] = sends[r] * widths[part];
      send_offsets[r] = at_send;
      at_send += send_bytes[r];
      recv_bytes[r] = recvs[r] * widths[part];
      recv_offsets[r] = at_recv;
      at_recv += recv_bytes[r];
    }
    s = dist_exchange_all(c, sources_of[part], send_bytes, send_offsets, targets[part], recv_bytes,
                          recv_offsets);
  }
  if (s == GPU_OK && sources > 1)
    s = dist_lib(call->pairs
                     ? gpu_sort_pairs(keys, values, received, call->key_t, call->value_bytes,
                                      call->flags)
                     : gpu_sort_keys(keys, received, call->key_t, call->flags),
                 call->fn, "the local merge (a stable sort)");
  free(table);
  if (s != GPU_OK) {
    gpu_free(keys);
    gpu_free(values);
    return s;
  }
  *keys_out = keys;
  if (values_out) *values_out = values;
  *n_out = (size_t)received;
  return GPU_OK;
}

static gpu_status check_sort_args(const sort_call *call, size_t n, void **keys_out,
                                  void **values_out, size_t *n_out) {
  const char *fn = call->fn;
  if (call->key_bytes == 0)
    return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown gpu_dtype %d", fn, (int)call->key_t);
  if (call->flags & ~(unsigned)GPU_DESCENDING)
    return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown flag bits 0x%x", fn,
                     call->flags & ~(unsigned)GPU_DESCENDING);
  if (call->pairs && call->value_bytes != 4 && call->value_bytes != 8)
    return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: value_bytes is %zu (4 or 8)", fn,
                     call->value_bytes);
  if (!keys_out || !n_out || (call->pairs && !values_out))
    return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: an output pointer is NULL", fn);
  if (n > 0 && (!call->keys || (call->pairs && !call->values)))
    return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: %s is NULL with n = %zu", fn,
                     call->keys ? "values" : "keys", n);
  return GPU_OK;
}

static gpu_status dist_sort(sort_call *call, size_t n, void **keys_out, void **values_out,
                            size_t *n_out) {
  gpu_dist_comm *c = call->c;
  if (keys_out) *keys_out = NULL;
  if (values_out) *values_out = NULL;
  if (n_out) *n_out = 0;
  dist_record mine = {0}, *all = malloc((size_t)c->size * sizeof *all);
  call->counts = malloc((size_t)c->size * sizeof *call->counts);
  uint64_t *sends = malloc((size_t)c->size * sizeof *sends);
  if (!all || !call->counts || !sends) {
    free(all);
    free(call->counts);
    free(sends);
    return dist_fail(GPU_ERR_OUT_OF_MEMORY, "%s: host memory", call->fn);
  }
  const uint64_t words[3] = {(uint64_t)call->key_t, call->flags, call->value_bytes};
  mine.hash = dist_hash(call->fn, words, 3);
  mine.count = n;
  mine.status = check_sort_args(call, n, keys_out, values_out, n_out);
  if (mine.status == GPU_OK)
    mine.status = dist_lib(call->pairs ? gpu_sort_pairs(call->keys, call->values, n, call->key_t,
                                                              call->value_bytes, call->flags)
                                             : gpu_sort_keys(call->keys, n, call->key_t, call->flags),
                           call->fn, "the local sort");
  gpu_status s = dist_gather_records(c, call->fn, &mine, all);
  call->total = 0;
  for (int r = 0; r < c->size && s == GPU_OK; r++) {
    call->counts[r] = all[r].count;
    call->total += all[r].count;
  }
  if (s == GPU_OK && call->total > 0) s = send_counts(call, sends);
  if (s == GPU_OK && call->total > 0) s = exchange_and_merge(call, sends, keys_out, values_out, n_out);
  free(all);
  free(call->counts);
  free(sends);
  return s;
}

gpu_status gpu_dist_sort_keys(gpu_dist_comm *c, void *keys, size_t n, gpu_dtype t,
                              unsigned flags, void **keys_out, size_t *n_out) {
  static const char *fn = "gpu_dist_sort_keys";
  gpu_status s = dist_check_comm(c, fn);
  if (s != GPU_OK) return s;
  sort_call call = {c, fn, keys, NULL, t, gpu_dtype_size(t), 0, false, flags, NULL, 0};
  return dist_sort(&call, n, keys_out, NULL, n_out);
}

gpu_status gpu_dist_sort_pairs(gpu_dist_comm *c, void *keys, void *values, size_t n,
                               gpu_dtype key_t, size_t value_bytes, unsigned flags,
                               void **keys_out, void **values_out, size_t *n_out) {
  static const char *fn = "gpu_dist_sort_pairs";
  gpu_status s = dist_check_comm(c, fn);
  if (s != GPU_OK) return s;
  sort_call call = {c, fn, keys, values, key_t, gpu_dtype_size(key_t), value_bytes, true, flags,
                    NULL, 0};
  return dist_sort(&call, n, keys_out, values_out, n_out);
}
