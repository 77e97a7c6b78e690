/*
 * Scan, reduce and compaction across ranks.
 *
 * Scan: each rank reduces its part (gpu_reduce), one allgather shares the
 * totals with every rank (with the argument check, dist_record), and each
 * rank folds the totals of the non-empty ranks before it (after it, for
 * GPU_REVERSE) in rank order: its seed. The rank then scans its part with
 * the seed combined into its first element (last, for GPU_REVERSE):
 *
 *   out = in;  out[0] = seed op in[0];  gpu_scan(out, out)   (exclusive: out[0] = seed)
 *
 * so every combination, the seed's too, is the library's own arithmetic
 * (gpu_reduce of the pair, gpu_scan of the rest). For an associative op
 * (integers, float MIN and MAX) that is exactly the single-process result;
 * float ADD and MUL are combined in another (fixed) order. A rank with no
 * non-empty rank before it scans its part as it is, so where one rank holds
 * all elements the result is the single-process call's, bit for bit.
 *
 * Memory passes on a rank of n elements: reduce (n reads), copy (in != out:
 * n reads, n writes), scan (n reads, n writes). Messages: one allgather of
 * 32-byte records.
 */
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

static gpu_status check_scan_args(const char *fn, const void *in, const void *out, size_t n,
                                  gpu_dtype t, gpu_op op, unsigned flags) {
  const size_t elem = gpu_dtype_size(t);
  if (elem == 0) return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown gpu_dtype %d", fn, (int)t);
  if ((unsigned)op > (unsigned)GPU_XOR)
    return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown gpu_op %d", fn, (int)op);
  if (flags & ~(unsigned)(GPU_EXCLUSIVE | GPU_REVERSE))
    return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown flag bits 0x%x", fn,
                     flags & ~(unsigned)(GPU_EXCLUSIVE | GPU_REVERSE));
  if (n > 0 && (!in || !out))
    return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: %s is NULL with n = %zu", fn,
                     in ? "out" : "in", n);
  const char *a = in, *b = out;
  if (n > 0 && a != b && a < b + n * elem && b < a + n * elem)
    return dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: in and out overlap (only in == out is allowed)",
                     fn);
  return GPU_OK;
}

/* This rank's total (the identity for n == 0: gpu_reduce still checks t and op). */
static gpu_status local_total(const char *fn, const void *in, size_t n, gpu_dtype t, gpu_op op,
                              uint64_t *total) {
  *total = 0;
  return dist_lib(gpu_reduce(in, n, t, op, total), fn, "gpu_reduce");
}

/* Folds the totals of the non-empty ranks in [from, to), in rank order. */
static gpu_status fold_ranks(gpu_dist_comm *c, const dist_record *all, int from, int to,
                             gpu_dtype t, gpu_op op, bool *any, uint64_t *result) {
  uint64_t *values = malloc((size_t)c->size * sizeof *values);
  if (!values) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "gpuprim_dist: host memory");
  int count = 0;
  for (int r = from; r < to; r++)
    if (all[r].count) values[count++] = all[r].value;
  *any = count > 0;
  gpu_status s = count ? dist_fold(c, t, op, values, count, result) : GPU_OK;
  free(values);
  return s;
}

/* Reduce and share: the records of every rank, each with its total. */
static gpu_status gather_totals(gpu_dist_comm *c, const char *fn, const uint64_t *words,
                                int nwords, gpu_status local, const void *in, size_t n,
                                gpu_dtype t, gpu_op op, dist_record *all) {
  dist_record mine = {0};
  mine.hash = dist_hash(fn, words, nwords);
  mine.count = n;
  if (local == GPU_OK) local = local_total(fn, in, n, t, op, &mine.value);
  mine.status = local;
  return dist_gather_records(c, fn, &mine, all);
}

/* Scans this rank's part with seed combined in (see the top of the file). */
static gpu_status scan_seeded(gpu_dist_comm *c, const void *in, void *out, size_t n, gpu_dtype t,
                              gpu_op op, unsigned flags, uint64_t seed) {
  static const char *fn = "gpu_dist_scan";
  const size_t elem = gpu_dtype_size(t);
  const bool reverse = (flags & GPU_REVERSE) != 0;
  const size_t at = reverse ? n - 1 : 0;
  uint64_t first = 0, combined = 0;
  gpu_status s = dist_copy(c, out, in, n * elem);
  if (s == GPU_OK) s = dist_get(out, at, elem, &first);
  if (s == GPU_OK) {
    /* Global order: the seed comes before the first element, after the last (reverse). */
    const uint64_t pair[2] = {reverse ? first : seed, reverse ? seed : first};
    s = dist_fold(c, t, op, pair, 2, &combined);
  }
  if (s == GPU_OK) s = dist_put(out, at, elem, combined);
  if (s == GPU_OK) s = dist_lib(gpu_scan(out, out, n, t, op, flags), fn, "gpu_scan");
  if (s == GPU_OK && (flags & GPU_EXCLUSIVE)) s = dist_put(out, at, elem, seed);
  return s;
}

gpu_status gpu_dist_scan(gpu_dist_comm *c, const void *in, void *out, size_t n, gpu_dtype t,
                         gpu_op op, unsigned flags) {
  static const char *fn = "gpu_dist_scan";
  gpu_status s = dist_check_comm(c, fn);
  if (s != GPU_OK) return s;
  dist_record *all = malloc((size_t)c->size * sizeof *all);
  if (!all) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "%s: host memory", fn);
  const uint64_t words[3] = {(uint64_t)t, (uint64_t)op, flags};
  s = gather_totals(c, fn, words, 3, check_scan_args(fn, in, out, n, t, op, flags), in, n, t, op,
                    all);
  bool any = false;
  uint64_t seed = 0;
  if (s == GPU_OK) {
    const bool reverse = (flags & GPU_REVERSE) != 0;
    s = fold_ranks(c, all, reverse ? c->rank + 1 : 0, reverse ? c->size : c->rank, t, op, &any,
                   &seed);
  }
  free(all);
  if (s != GPU_OK) return s;
  if (!any || n == 0) return dist_lib(gpu_scan(in, out, n, t, op, flags), fn, "gpu_scan");
  return scan_seeded(c, in, out, n, t, op, flags, seed);
}

/* The global reduction, identical on every rank. */
static gpu_status reduce_all(gpu_dist_comm *c, const char *fn, const uint64_t *words, int nwords,
                             gpu_status local, const void *in, size_t n, gpu_dtype t, gpu_op op,
                             uint64_t *result) {
  dist_record *all = malloc((size_t)c->size * sizeof *all);
  if (!all) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "%s: host memory", fn);
  gpu_status s = gather_totals(c, fn, words, nwords, local, in, n, t, op, all);
  bool any = false;
  if (s == GPU_OK) s = fold_ranks(c, all, 0, c->size, t, op, &any, result);
  if (s == GPU_OK && !any) *result = all[0].value; /* every rank empty: the identity */
  free(all);
  return s;
}

static gpu_status check_reduce_args(const char *fn, const void *in, size_t n, gpu_dtype t,
                                    gpu_op op, const void *host_result) {
  gpu_status s = check_scan_args(fn, in, in, n, t, op, 0);
  if (s == GPU_OK && !host_result)
    s = dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: host_result is NULL", fn);
  return s;
}

gpu_status gpu_dist_reduce(gpu_dist_comm *c, const void *in, size_t n, gpu_dtype t, gpu_op op,
                           int root, void *host_result) {
  static const char *fn = "gpu_dist_reduce";
  gpu_status s = dist_check_comm(c, fn);
  if (s != GPU_OK) return s;
  const bool is_root = root == c->rank;
  gpu_status local = check_reduce_args(fn, in, n, t, op, is_root ? host_result : "unused");
  if (local == GPU_OK && (root < 0 || root >= c->size))
    local = dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: root %d is not a rank of the %d", fn, root,
                      c->size);
  const uint64_t words[3] = {(uint64_t)t, (uint64_t)op, (uint64_t)(int64_t)root};
  uint64_t result = 0;
  s = reduce_all(c, fn, words, 3, local, in, n, t, op, &result);
  if (s == GPU_OK && is_root) memcpy(host_result, &result, gpu_dtype_size(t));
  return s;
}

gpu_status gpu_dist_allreduce(gpu_dist_comm *c, const void *in, size_t n, gpu_dtype t, gpu_op op,
                              void *host_result) {
  static const char *fn = "gpu_dist_allreduce";
  gpu_status s = dist_check_comm(c, fn);
  if (s != GPU_OK) return s;
  const uint64_t words[2] = {(uint64_t)t, (uint64_t)op};
  uint64_t result = 0;
  s = reduce_all(c, fn, words, 2, check_reduce_args(fn, in, n, t, op, host_result), in, n, t, op,
                 &result);
  if (s == GPU_OK) memcpy(host_result, &result, gpu_dtype_size(t));
  return s;
}

/* ---------------------------------------------------------- compaction */

/* gpu_compact on this rank (unless local already failed), then the counts of
 * all: offset and total, and each rank's count in counts (when not NULL). */
static gpu_status compact_and_count(gpu_dist_comm *c, const char *fn, gpu_status local,
                                    const void *in, size_t n, gpu_pred pred, void *out,
                                    gpu_dist_part *kept, uint64_t *counts) {
  memset(kept, 0, sizeof *kept);
  dist_record mine = {0}, *all = malloc((size_t)c->size * sizeof *all);
  if (!all) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "%s: host memory", fn);
  /* Predicates may differ in their values; their element type must not. */
  const uint64_t words[1] = {(uint64_t)pred.private_.type};
  mine.hash = dist_hash(fn, words, 1);
  mine.status = local;
  if (mine.status == GPU_OK && n > 0 && (!in || !out))
    mine.status = dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: %s is NULL with n = %zu", fn,
                            in ? "out" : "in", n);
  if (mine.status == GPU_OK) {
    const int64_t count = gpu_compact(in, n, pred, out);
    if (count < 0) mine.status = dist_lib((gpu_status)-count, fn, "gpu_compact");
    mine.count = count < 0 ? 0 : (uint64_t)count;
  }
  gpu_status s = dist_gather_records(c, fn, &mine, all);
  if (s == GPU_OK) {
    kept->count = mine.count;
    for (int r = 0; r < c->size; r++) {
      if (r < c->rank) kept->offset += all[r].count;
      kept->total += all[r].count;
      if (counts) counts[r] = all[r].count;
    }
  }
  free(all);
  return s;
}

gpu_status gpu_dist_compact(gpu_dist_comm *c, const void *in, size_t n, gpu_pred pred, void *out,
                            gpu_dist_part *kept) {
  static const char *fn = "gpu_dist_compact";
  gpu_status s = dist_check_comm(c, fn);
  if (s != GPU_OK) return s;
  gpu_dist_part unused;
  return compact_and_count(c, fn, GPU_OK, in, n, pred, out, kept ? kept : &unused, NULL);
}

/* Rank r's share of total elements: [total r / P, total (r + 1) / P). */
static uint64_t share_start(uint64_t total, int r, int size) {
  /* total * r / size without overflow for totals up to 2^64 / 2^16 ranks */
  return total / (uint64_t)size * (uint64_t)r + total % (uint64_t)size * (uint64_t)r / (uint64_t)size;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1, uint64_t *start) {
  *start = a0 > b0 ? a0 : b0;
  const uint64_t end = a1 < b1 ? a1 : b1;
  return end > *start ? end - *start : 0;
}

/* Moves this rank's kept elements (global [offset, offset + count)) to the
 * ranks whose shares they fall in; recv gets this rank's share. */
static gpu_status rebalance(gpu_dist_comm *c, const void *kept_buf, const gpu_dist_part *kept,
                            const uint64_t *counts, size_t elem, void *recv) {
  uint64_t *plan = calloc(4 * (size_t)c->size, sizeof *plan);
  if (!plan) return dist_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_dist_compact_balanced: host memory");
  uint64_t *send_bytes = plan, *send_offsets = plan + c->size;
  uint64_t *recv_bytes = plan + 2 * c->size, *recv_offsets = plan + 3 * c->size;
  const uint64_t my_lo = share_start(kept->total, c->rank, c->size);
  const uint64_t my_hi = share_start(kept->total, c->rank + 1, c->size);
  uint64_t offset_j = 0; /* rank j's global offset */
  for (int j = 0; j < c->size; j++) {
    uint64_t start;
    const uint64_t lo = share_start(kept->total, j, c->size);
    const uint64_t hi = share_start(kept->total, j + 1, c->size);
    send_bytes[j] = overlap(kept->offset, kept->offset + kept->count, lo, hi, &start) * elem;
    send_offsets[j] = (start - kept->offset) * elem;
    recv_bytes[j] = overlap(offset_j, offset_j + counts[j], my_lo, my_hi, &start) * elem;
    recv_offsets[j] = (start - my_lo) * elem;
    offset_j += counts[j];
  }
  gpu_status s = dist_exchange_all(c, kept_buf, send_bytes, send_offsets, recv, recv_bytes,
                                   recv_offsets);
  free(plan);
  return s;
}

gpu_status gpu_dist_compact_balanced(gpu_dist_comm *c, const void *in, size_t n, gpu_pred pred,
                                     void **out, gpu_dist_part *kept) {
  static const char *fn = "gpu_dist_compact_balanced";
  gpu_status s = dist_check_comm(c, fn);
  if (s != GPU_OK) return s;
  if (out) *out = NULL;
  const size_t elem = gpu_dtype_size((gpu_dtype)pred.private_.type);
  void *local = NULL, *share = NULL;
  gpu_status mine = out ? GPU_OK : dist_fail(GPU_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
  if (mine == GPU_OK && elem) mine = dist_alloc(&local, n * elem, fn);
  gpu_dist_part part, unused;
  if (!kept) kept = &unused;
  uint64_t *counts = malloc((size_t)c->size * sizeof *counts);
  if (!counts) {
    gpu_free(local);
    return dist_fail(GPU_ERR_OUT_OF_MEMORY, "%s: host memory", fn);
  }
  s = compact_and_count(c, fn, mine, in, n, pred, local, &part, counts);
  if (s == GPU_OK) {
    const uint64_t lo = share_start(part.total, c->rank, c->size);
    const uint64_t hi = share_start(part.total, c->rank + 1, c->size);
    s = dist_agree_status(c, fn, dist_alloc(&share, (hi - lo) * elem, fn));
    if (s == GPU_OK) s = rebalance(c, local, &part, counts, elem, share);
    if (s == GPU_OK) {
      *out = share;
      *kept = (gpu_dist_part){hi - lo, lo, part.total};
    } else {
      gpu_free(share);
    }
  }
  free(counts);
  gpu_free(local);
  return s;
}
