/*
 * The calls across ranks (gpuprim_dist), run by ctest under mpiexec with 1-4
 * ranks. Every case makes one global input on rank 0 and broadcasts it; each
 * rank takes its slice (even, uneven, empty ranks, everything on one rank),
 * calls the distributed function, and compares its part with the
 * single-process call on the whole input: integers (and float MIN / MAX)
 * bit for bit, float ADD / MUL scans within rounding, sorts bit for bit
 * (values are the global indices, so stability is checked too).
 *
 * Assertions come after every collective of a case, on a verdict all ranks
 * share (all_ok), so a failing rank never leaves the others waiting.
 * Built twice: the host suite, and with TU_CUDA=1 the CUDA suite (skipped
 * without a GPU), whose big case puts more than 2^32 elements across ranks.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprim_dist.h"
#include "test_util.h"

#ifndef TU_CUDA
#  define TU_CUDA 0
#endif

static gpu_dist_comm *comm;
static int rank_, size_;

/* Whether every rank's ok holds. */
static bool all_ok(bool ok) {
  int mine = ok, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all != 0;
}

/* Partitions of N elements over the ranks. */
enum { EVEN, UNEVEN, ALL_ON_LAST, FIRST_EMPTY, NPARTS };
static const char *const part_names[] = {"even", "uneven", "all on the last rank", "rank 0 empty"};

/* Where rank r's slice starts (r = P: N). */
static size_t part_start(size_t N, int part, int r) {
  const unsigned __int128 whole = N, P = (unsigned)size_, at = (unsigned)r;
  if (r >= size_) return N;
  switch (part) {
    case EVEN: return (size_t)(whole * at / P);
    case UNEVEN: return (size_t)(whole * (at * (at + 1) / 2) / (P * (P + 1) / 2)); /* weights 1..P */
    case ALL_ON_LAST: return 0;
    default: return r == 0 || size_ == 1 ? 0 : (size_t)(whole * (at - 1) / (P - 1)); /* FIRST_EMPTY */
  }
}
static void my_slice(size_t N, int part, size_t *first, size_t *n) {
  *first = part_start(N, part, rank_);
  *n = part_start(N, part, rank_ + 1) - *first;
}

/* A global input made on rank 0, the same on every rank. */
static void *global_input(size_t N, gpu_dtype t, tu_kind kind) {
  const size_t bytes = N * gpu_dtype_size(t);
  void *host = tu_xmalloc(bytes + 8);
  if (rank_ == 0) tu_fill(host, N, t, kind);
  for (size_t at = 0; at < bytes; at += 1u << 30) {
    const size_t chunk = bytes - at < (1u << 30) ? bytes - at : (1u << 30);
    MPI_Bcast((char *)host + at, (int)chunk, MPI_BYTE, 0, MPI_COMM_WORLD);
  }
  return host;
}

/* Backend copy of host[first, first + n). */
static void *backend_slice(const void *host, size_t first, size_t n, size_t elem) {
  void *d = tu_alloc(n * elem + 8);
  tu_upload(d, (const char *)host + first * elem, n * elem);
  return d;
}

static const gpu_dtype types[] = {GPU_I32, GPU_U32, GPU_I64, GPU_U64, GPU_F32, GPU_F64};
static const gpu_op ops[] = {GPU_ADD, GPU_MUL, GPU_MIN, GPU_MAX, GPU_AND, GPU_OR, GPU_XOR};
static bool is_float(gpu_dtype t) { return t == GPU_F32 || t == GPU_F64; }
static bool exact(gpu_dtype t, gpu_op op) { return !is_float(t) || op == GPU_MIN || op == GPU_MAX; }

/* ------------------------------------------------------------------ scan */

/* One scan case: the rank's part against the single-process scan's slice. */
static bool scan_case(size_t N, int part, gpu_dtype t, gpu_op op, unsigned flags, tu_kind kind,
                      bool in_place) {
  const size_t elem = gpu_dtype_size(t);
  void *host = global_input(N, t, kind);
  size_t first, n;
  my_slice(N, part, &first, &n);
  void *whole = backend_slice(host, 0, N, elem), *ref = tu_alloc(N * elem + 8);
  bool ok = gpu_scan(whole, ref, N, t, op, flags) == GPU_OK;
  void *in = backend_slice(host, first, n, elem), *out = in_place ? in : tu_alloc(n * elem + 8);
  if (!in_place) tu_poison(out, n * elem);
  const gpu_status s = gpu_dist_scan(comm, in, out, n, t, op, flags);
  ok = ok && s == GPU_OK;
  void *expect = tu_xmalloc(N * elem + 8), *got = tu_xmalloc(n * elem + 8);
  tu_download(expect, ref, N * elem);
  tu_download(got, out, n * elem);
  /* float ADD over [-1, 1) and MUL near one: within rounding of n terms */
  const double scale = op == GPU_MUL ? pow(2.0, 10) : (double)N;
  for (size_t i = 0; ok && i < n; i++) {
    const char *e = (const char *)expect + (first + i) * elem;
    if (exact(t, op) || kind == TU_SMALL)
      ok = memcmp(e, (const char *)got + i * elem, elem) == 0;
    else
      ok = tu_close(got, e - i * elem, i, t, 1e-5, scale);
    if (!ok)
      fprintf(stderr, "rank %d: scan N %zu %s t %d op %d flags %u: element %zu (global %zu) differs (%s)\n",
              rank_, N, part_names[part], (int)t, (int)op, flags, i, first + i, gpu_dist_last_error());
  }
  if (s != GPU_OK) fprintf(stderr, "rank %d: %s\n", rank_, gpu_dist_last_error());
  free(host);
  free(expect);
  free(got);
  tu_free(whole);
  tu_free(ref);
  if (!in_place) tu_free(out);
  tu_free(in);
  return ok;
}

START_TEST(scan_every_type_op_flag) {
  const size_t N = 3001;
  for (int part = 0; part < NPARTS; part++)
    for (int ti = 0; ti < 6; ti++)
      for (int oi = 0; oi < 7; oi++) {
        if (is_float(types[ti]) && ops[oi] >= GPU_AND) continue;
        for (unsigned flags = 0; flags < 4; flags++) {
          const tu_kind kind = ops[oi] == GPU_MUL ? TU_NEAR_ONE : TU_FULL;
          ck_assert_msg(all_ok(scan_case(N, part, types[ti], ops[oi], flags, kind, flags == 1)),
                        "scan: %s, type %d, op %d, flags %u", part_names[part], (int)types[ti],
                        (int)ops[oi], flags);
        }
      }
}
END_TEST

/* Float ADD on small integers is exact in any order: bit for bit there too. */
START_TEST(scan_float_exact_values) {
  for (int part = 0; part < NPARTS; part++)
    for (unsigned flags = 0; flags < 4; flags++) {
      ck_assert(all_ok(scan_case(20000, part, GPU_F32, GPU_ADD, flags, TU_SMALL, false)));
      ck_assert(all_ok(scan_case(20000, part, GPU_F64, GPU_ADD, flags, TU_SMALL, false)));
    }
}
END_TEST

/* Sizes around the tiles, 0 and 1 in total. */
START_TEST(scan_sizes) {
  const size_t sizes[] = {0, 1, 2, 33, 1025, 65537, 262145};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
    for (int part = 0; part < NPARTS; part++)
      ck_assert_msg(all_ok(scan_case(sizes[k], part, GPU_I64, GPU_ADD, 0, TU_FULL, false)),
                    "scan of %zu", sizes[k]);
}
END_TEST

/* Float ADD with one non-empty rank is the single-process call bit for bit. */
START_TEST(scan_float_one_holder) {
  const size_t N = 100000;
  float *host = global_input(N, GPU_F32, TU_FULL);
  size_t first, n;
  my_slice(N, ALL_ON_LAST, &first, &n);
  void *whole = backend_slice(host, 0, N, 4), *in = backend_slice(host, first, n, 4);
  bool ok = gpu_scan(whole, whole, N, GPU_F32, GPU_ADD, 0) == GPU_OK &&
            gpu_dist_scan(comm, in, in, n, GPU_F32, GPU_ADD, 0) == GPU_OK;
  float *expect = tu_xmalloc(N * 4 + 4), *got = tu_xmalloc(n * 4 + 4);
  tu_download(expect, whole, N * 4);
  tu_download(got, in, n * 4);
  ok = ok && memcmp(expect + first, got, n * 4) == 0;
  ck_assert(all_ok(ok));
  free(host);
  free(expect);
  free(got);
  tu_free(whole);
  tu_free(in);
}
END_TEST

/* -------------------------------------------------------------- reduce */

START_TEST(reduce_and_allreduce) {
  const size_t N = 5000;
  for (int part = 0; part < NPARTS; part++)
    for (int ti = 0; ti < 6; ti++)
      for (int oi = 0; oi < 7; oi++) {
        const gpu_dtype t = types[ti];
        if (is_float(t) && ops[oi] >= GPU_AND) continue;
        const size_t elem = gpu_dtype_size(t);
        const tu_kind kind = ops[oi] == GPU_MUL ? TU_NEAR_ONE : exact(t, ops[oi]) ? TU_FULL : TU_SMALL;
        void *host = global_input(N, t, kind);
        size_t first, n;
        my_slice(N, part, &first, &n);
        void *whole = backend_slice(host, 0, N, elem), *in = backend_slice(host, first, n, elem);
        uint64_t expect = 0, all = 0, at_root = 0;
        bool ok = gpu_reduce(whole, N, t, ops[oi], &expect) == GPU_OK;
        ok = gpu_dist_allreduce(comm, in, n, t, ops[oi], &all) == GPU_OK && ok;
        ok = gpu_dist_reduce(comm, in, n, t, ops[oi], size_ - 1, &at_root) == GPU_OK && ok;
        ok = ok && all == expect && (rank_ != size_ - 1 || at_root == expect);
        ck_assert_msg(all_ok(ok), "reduce %s type %d op %d", part_names[part], (int)t, (int)ops[oi]);
        free(host);
        tu_free(whole);
        tu_free(in);
      }
}
END_TEST

/* ---------------------------------------------------------- compaction */

START_TEST(compact_offsets_and_balance) {
  const size_t N = 40000;
  for (int part = 0; part < NPARTS; part++)
    for (int balanced = 0; balanced < 2; balanced++) {
      int32_t *host = global_input(N, GPU_I32, TU_SMALL);
      size_t first, n;
      my_slice(N, part, &first, &n);
      const int32_t zero = 0;
      const gpu_pred pred = gpu_pred_cmp(GPU_I32, GPU_GT, &zero);
      void *whole = backend_slice(host, 0, N, 4), *ref = tu_alloc(N * 4 + 4);
      void *in = backend_slice(host, first, n, 4), *out = NULL;
      const int64_t total = gpu_compact(whole, N, pred, ref);
      gpu_dist_part kept = {0};
      gpu_status s;
      if (balanced) {
        s = gpu_dist_compact_balanced(comm, in, n, pred, &out, &kept);
      } else {
        out = tu_alloc(n * 4 + 4);
        s = gpu_dist_compact(comm, in, n, pred, out, &kept);
      }
      bool ok = s == GPU_OK && total >= 0 && kept.total == (uint64_t)total;
      if (balanced && ok)
        ok = kept.offset == (uint64_t)total * (unsigned)rank_ / (unsigned)size_ &&
             kept.offset + kept.count == (uint64_t)total * (unsigned)(rank_ + 1) / (unsigned)size_;
      int32_t *expect = tu_xmalloc(N * 4 + 4), *got = tu_xmalloc(kept.count * 4 + 4);
      if (ok) {
        tu_download(expect, ref, (size_t)total * 4);
        tu_download(got, out, kept.count * 4);
        ok = memcmp(expect + kept.offset, got, kept.count * 4) == 0;
      }
      uint64_t sum = 0, mine = kept.count;
      MPI_Allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
      ck_assert_msg(all_ok(ok && sum == (uint64_t)total), "compact %s balanced %d: %s",
                    part_names[part], balanced, gpu_dist_last_error());
      free(host);
      free(expect);
      free(got);
      tu_free(whole);
      tu_free(ref);
      tu_free(in);
      tu_free(out);
    }
}
END_TEST

/* ---------------------------------------------------------------- sort */

enum { K_RANDOM, K_EQUAL, K_SORTED, K_REVERSED, K_FEW, K_SPECIAL, NKINDS };
static const char *const kind_names[] = {"random", "all equal", "sorted", "reversed",
                                         "few distinct", "specials"};

/* Global keys of one kind (made on rank 0, broadcast). */
static void *sort_input(size_t N, gpu_dtype t, int kind) {
  const size_t elem = gpu_dtype_size(t);
  uint8_t *host = global_input(N, t, kind == K_SPECIAL ? TU_SPECIAL : TU_FULL);
  for (size_t i = 0; i < N; i++) {
    uint64_t bits = tu_get_bits(host, kind == K_FEW ? i % 3 : 0, t);
    if (kind == K_SORTED || kind == K_REVERSED) {
      const uint64_t v = kind == K_SORTED ? i : N - i;
      bits = is_float(t) ? 0 : v;
      if (t == GPU_F32) {
        const float f = (float)v;
        memcpy(&bits, &f, 4);
      } else if (t == GPU_F64) {
        const double d = (double)v;
        memcpy(&bits, &d, 8);
      }
    }
    if (kind != K_RANDOM && kind != K_SPECIAL) memcpy(host + i * elem, &bits, elem);
  }
  return host;
}

static bool sort_case(size_t N, int part, gpu_dtype t, int kind, unsigned flags, size_t value_bytes) {
  const size_t elem = gpu_dtype_size(t);
  uint8_t *keys = sort_input(N, t, kind);
  uint8_t *values = tu_xmalloc(N * 8 + 8);
  for (size_t i = 0; i < N; i++) {
    const uint64_t v = i;
    memcpy(values + i * (value_bytes ? value_bytes : 4), &v, value_bytes ? value_bytes : 4);
  }
  const size_t vb = value_bytes ? value_bytes : 4;
  size_t first, n;
  my_slice(N, part, &first, &n);
  void *whole_k = backend_slice(keys, 0, N, elem), *whole_v = backend_slice(values, 0, N, vb);
  bool ok = gpu_sort_pairs(whole_k, whole_v, N, t, vb, flags) == GPU_OK;
  void *k = backend_slice(keys, first, n, elem), *v = backend_slice(values, first, n, vb);
  void *k_out = NULL, *v_out = NULL;
  size_t n_out = 0;
  const gpu_status s = value_bytes
                           ? gpu_dist_sort_pairs(comm, k, v, n, t, value_bytes, flags, &k_out, &v_out, &n_out)
                           : gpu_dist_sort_keys(comm, k, n, t, flags, &k_out, &n_out);
  ok = ok && s == GPU_OK;
  uint64_t offset = 0, mine = n_out;
  MPI_Exscan(&mine, &offset, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) offset = 0;
  /* The stated balance: within N / (64 P) + 2 P + 1 of N / P. */
  const double share = (double)N / size_;
  const double bound = (double)N / (64.0 * size_) + 2.0 * size_ + 1;
  ok = ok && fabs((double)n_out - share) <= bound;
  uint8_t *expect_k = tu_xmalloc(N * elem + 8), *expect_v = tu_xmalloc(N * vb + 8);
  uint8_t *got_k = tu_xmalloc(n_out * elem + 8), *got_v = tu_xmalloc(n_out * vb + 8);
  if (ok) {
    tu_download(expect_k, whole_k, N * elem);
    tu_download(expect_v, whole_v, N * vb);
    tu_download(got_k, k_out, n_out * elem);
    ok = offset + n_out <= N && memcmp(expect_k + offset * elem, got_k, n_out * elem) == 0;
    if (ok && value_bytes) {
      tu_download(got_v, v_out, n_out * vb);
      ok = memcmp(expect_v + offset * vb, got_v, n_out * vb) == 0;
    }
  }
  if (!ok)
    fprintf(stderr, "rank %d: sort N %zu %s %s t %d flags %u vb %zu: n_out %zu offset %llu (%s)\n",
            rank_, N, part_names[part], kind_names[kind], (int)t, flags, value_bytes, n_out,
            (unsigned long long)offset, gpu_dist_last_error());
  free(keys);
  free(values);
  free(expect_k);
  free(expect_v);
  free(got_k);
  free(got_v);
  tu_free(whole_k);
  tu_free(whole_v);
  tu_free(k);
  tu_free(v);
  gpu_free(k_out);
  gpu_free(v_out);
  return ok;
}

START_TEST(sort_every_type_kind_direction) {
  const size_t value_widths[] = {0, 4, 8};
  for (int part = 0; part < NPARTS; part++)
    for (int ti = 0; ti < 6; ti++)
      for (int kind = 0; kind < NKINDS; kind++)
        for (unsigned flags = 0; flags < 2; flags++)
          for (int w = 0; w < 3; w++)
            ck_assert_msg(all_ok(sort_case(7919, part, types[ti], kind, flags, value_widths[w])),
                          "sort: %s, type %d, %s, flags %u, value bytes %zu", part_names[part],
                          (int)types[ti], kind_names[kind], flags, value_widths[w]);
}
END_TEST

START_TEST(sort_sizes) {
  const size_t sizes[] = {0, 1, 2, 5, 31, 1000, 100003, 300000};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
    for (int part = 0; part < NPARTS; part++)
      for (int kind = 0; kind < NKINDS; kind += 1) {
        ck_assert_msg(all_ok(sort_case(sizes[k], part, GPU_U32, kind, 0, 4)), "sort of %zu", sizes[k]);
        ck_assert_msg(all_ok(sort_case(sizes[k], part, GPU_F64, kind, 1, 8)), "sort of %zu", sizes[k]);
      }
}
END_TEST

/* ---------------------------------------------------------------- SpMV */

/* A random square matrix (host CSR, global): a diagonal and k entries a row. */
static void random_csr(int64_t N, int64_t **row_ptr, int32_t **col_idx, double **values) {
  const int per_row = 6;
  *row_ptr = tu_xmalloc((size_t)(N + 1) * sizeof **row_ptr);
  *col_idx = tu_xmalloc((size_t)(N * per_row + 1) * sizeof **col_idx);
  *values = tu_xmalloc((size_t)(N * per_row + 1) * sizeof **values);
  if (rank_ == 0) {
    int64_t at = 0;
    for (int64_t r = 0; r < N; r++) {
      (*row_ptr)[r] = at;
      for (int k = 0; k < per_row; k++) {
        (*col_idx)[at] = k == 0 ? (int32_t)r : (int32_t)tu_below((uint64_t)N);
        (*values)[at++] = tu_uniform() - 0.5;
      }
    }
    (*row_ptr)[N] = at;
  }
  MPI_Bcast(*row_ptr, (int)(N + 1), MPI_INT64_T, 0, MPI_COMM_WORLD);
  MPI_Bcast(*col_idx, (int)(N * per_row), MPI_INT32_T, 0, MPI_COMM_WORLD);
  MPI_Bcast(*values, (int)(N * per_row), MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

START_TEST(spmv_against_single_process) {
  const int64_t N = 2000;
  int64_t *row_ptr;
  int32_t *col_idx;
  double *values;
  random_csr(N, &row_ptr, &col_idx, &values);
  double *x = global_input((size_t)N, GPU_F64, TU_FULL), *y0 = global_input((size_t)N, GPU_F64, TU_FULL);
  int32_t *rp32 = tu_xmalloc((size_t)(N + 1) * 4);
  for (int64_t r = 0; r <= N; r++) rp32[r] = (int32_t)row_ptr[r];
  const int64_t nnz = row_ptr[N];
  gpu_csr whole = {N, N, nnz, backend_slice(rp32, 0, (size_t)N + 1, 4),
                   backend_slice(col_idx, 0, (size_t)nnz, 4), backend_slice(values, 0, (size_t)nnz, 8),
                   GPU_I32, GPU_F64};
  void *dx = backend_slice(x, 0, (size_t)N, 8), *dy = backend_slice(y0, 0, (size_t)N, 8);
  bool ok = gpu_spmv(&whole, dx, dy, 1.5, 0.5) == GPU_OK;
  double *expect = tu_xmalloc((size_t)N * 8);
  tu_download(expect, dy, (size_t)N * 8);
  for (int part = 0; part < NPARTS; part++) {
    size_t first, n;
    my_slice((size_t)N, part, &first, &n);
    const int64_t e0 = row_ptr[first], e1 = row_ptr[first + n];
    int32_t *local_rp = tu_xmalloc((n + 1) * 4);
    for (size_t r = 0; r <= n; r++) local_rp[r] = (int32_t)(row_ptr[first + r] - e0);
    gpu_csr local = {(int64_t)n, N, e1 - e0, backend_slice(local_rp, 0, n + 1, 4),
                     backend_slice(col_idx, (size_t)e0, (size_t)(e1 - e0), 4),
                     backend_slice(values, (size_t)e0, (size_t)(e1 - e0), 8), GPU_I32, GPU_F64};
    gpu_dist_spmv_plan *plan = NULL;
    gpu_status s = gpu_dist_spmv_plan_create(&plan, comm, &local);
    void *lx = backend_slice(x, first, n, 8), *ly = backend_slice(y0, first, n, 8);
    for (int rep = 0; rep < 2 && s == GPU_OK; rep++) { /* the plan's buffers reused */
      tu_upload(ly, y0 + first, n * 8);
      s = gpu_dist_spmv_plan_run(plan, lx, ly, 1.5, 0.5);
    }
    double *got = tu_xmalloc(n * 8 + 8);
    tu_download(got, ly, n * 8);
    bool part_ok = ok && s == GPU_OK;
    for (size_t i = 0; part_ok && i < n; i++) part_ok = fabs(got[i] - expect[first + i]) <= 1e-12 * 8;
    if (!part_ok) fprintf(stderr, "rank %d: spmv %s: %s\n", rank_, part_names[part], gpu_dist_last_error());
    ck_assert_msg(all_ok(part_ok), "spmv %s", part_names[part]);
    gpu_dist_spmv_plan_destroy(plan);
    tu_free(local.row_ptr);
    tu_free(local.col_idx);
    tu_free(local.values);
    tu_free(lx);
    tu_free(ly);
    free(local_rp);
    free(got);
  }
  tu_free(whole.row_ptr);
  tu_free(whole.col_idx);
  tu_free(whole.values);
  tu_free(dx);
  tu_free(dy);
  free(row_ptr);
  free(col_idx);
  free(values);
  free(rp32);
  free(x);
  free(y0);
  free(expect);
}
END_TEST

/* ----------------------------------------------------------- bad input */

START_TEST(ranks_disagree_on_arguments) {
  int32_t *d = tu_alloc(64 * 4);
  tu_poison(d, 64 * 4);
  /* dtype differs on the last rank (with one rank: nothing to disagree on) */
  gpu_status s = gpu_dist_scan(comm, d, d, 64, rank_ == size_ - 1 && size_ > 1 ? GPU_U32 : GPU_I32,
                               GPU_ADD, 0);
  ck_assert(all_ok(size_ == 1 ? s == GPU_OK
                              : s == GPU_ERR_INVALID_ARGUMENT && strstr(gpu_dist_last_error(), "disagree")));
  s = gpu_dist_scan(comm, d, d, 64, GPU_I32, rank_ == 0 ? GPU_MAX : GPU_ADD, 0);
  ck_assert(all_ok(size_ == 1 ? s == GPU_OK : s == GPU_ERR_INVALID_ARGUMENT));
  uint64_t result = 0;
  s = gpu_dist_allreduce(comm, d, 64, GPU_I32, GPU_ADD, &result); /* still in step */
  ck_assert(all_ok(s == GPU_OK));
  void *out = NULL;
  size_t n_out = 0;
  s = gpu_dist_sort_keys(comm, d, 64, GPU_I32, rank_ == size_ - 1 ? GPU_DESCENDING : 0, &out, &n_out);
  ck_assert(all_ok(size_ == 1 ? s == GPU_OK : s == GPU_ERR_INVALID_ARGUMENT));
  gpu_free(out);
  tu_free(d);
}
END_TEST

START_TEST(one_rank_refuses_its_arguments) {
  int32_t *d = tu_alloc(64 * 4);
  tu_poison(d, 64 * 4);
  /* The last rank passes NULL with n > 0: every rank fails, none waits. */
  const bool bad = rank_ == size_ - 1;
  gpu_status s = gpu_dist_scan(comm, bad ? NULL : d, d, 64, GPU_I32, GPU_ADD, 0);
  ck_assert(all_ok(s == GPU_ERR_INVALID_ARGUMENT));
  ck_assert(all_ok(bad || strstr(gpu_dist_last_error(), "failed")));
  s = gpu_dist_scan(comm, d, d, 64, GPU_I32, GPU_ADD, bad ? 8u : 0u); /* unknown flag */
  ck_assert(all_ok(s == GPU_ERR_INVALID_ARGUMENT));
  s = gpu_dist_scan(comm, d, d, 64, GPU_F32, GPU_XOR, 0); /* unsupported everywhere */
  ck_assert(all_ok(s == GPU_ERR_UNSUPPORTED));
  void *k = NULL, *v = NULL;
  size_t n_out = 0;
  s = gpu_dist_sort_pairs(comm, d, d, 64, GPU_I32, bad ? 3 : 4, 0, &k, &v, &n_out);
  ck_assert(all_ok(s == GPU_ERR_INVALID_ARGUMENT && k == NULL));
  gpu_dist_part kept;
  s = gpu_dist_compact(comm, d, 64, gpu_pred_expr(GPU_I32, bad ? "x >" : "x > 0"), d, &kept);
  ck_assert(all_ok(s != GPU_OK));
  uint64_t r = 0;
  s = gpu_dist_reduce(comm, d, 64, GPU_I32, GPU_ADD, size_, &r); /* no such root */
  ck_assert(all_ok(s == GPU_ERR_INVALID_ARGUMENT));
  s = gpu_dist_allreduce(comm, d, 64, GPU_I32, GPU_ADD, &r); /* still in step */
  ck_assert(all_ok(s == GPU_OK));
  tu_free(d);
}
END_TEST

START_TEST(wrong_communicators) {
  gpu_dist_comm *c = (gpu_dist_comm *)1;
  ck_assert_int_eq(gpu_dist_comm_create(&c, MPI_COMM_NULL), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(c);
  ck_assert_int_eq(gpu_dist_comm_create(NULL, MPI_COMM_WORLD), GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_dist_scan(NULL, NULL, NULL, 0, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(gpu_dist_last_error(), "NULL") != NULL);
  /* A communicator of a subset: ranks outside get MPI_COMM_NULL and a status. */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2 ? MPI_UNDEFINED : 0, rank_, &half);
  gpu_status s = gpu_dist_comm_create(&c, half);
  if (half == MPI_COMM_NULL) {
    ck_assert_int_eq(s, GPU_ERR_INVALID_ARGUMENT);
  } else {
    ck_assert_int_eq(s, GPU_OK);
    uint64_t r = 0;
    int32_t *d = tu_alloc(4);
    const int32_t one = 1;
    tu_upload(d, &one, 4);
    ck_assert_int_eq(gpu_dist_allreduce(c, d, 1, GPU_I32, GPU_ADD, &r), GPU_OK);
    ck_assert_int_eq((int)r, (size_ + 1) / 2);
    tu_free(d);
    gpu_dist_comm_destroy(c);
    MPI_Comm_free(&half);
  }
  /* An unknown transport word, or NCCL on the host backend: every rank refuses. */
  setenv("GPUPRIM_DIST_TRANSPORT", "carrier-pigeon", 1);
  s = gpu_dist_comm_create(&c, MPI_COMM_WORLD);
  ck_assert(all_ok(s == GPU_ERR_INVALID_ARGUMENT && c == NULL));
  if (!TU_CUDA) {
    setenv("GPUPRIM_DIST_TRANSPORT", "nccl", 1);
    s = gpu_dist_comm_create(&c, MPI_COMM_WORLD);
    ck_assert(all_ok(s == GPU_ERR_UNSUPPORTED && c == NULL));
  }
  unsetenv("GPUPRIM_DIST_TRANSPORT");
}
END_TEST

START_TEST(all_ranks_empty) {
  void *out = (void *)1;
  size_t n_out = 7;
  ck_assert(all_ok(gpu_dist_scan(comm, NULL, NULL, 0, GPU_F64, GPU_ADD, GPU_EXCLUSIVE) == GPU_OK));
  ck_assert(all_ok(gpu_dist_sort_keys(comm, NULL, 0, GPU_F32, 0, &out, &n_out) == GPU_OK));
  ck_assert(all_ok(out == NULL && n_out == 0));
  double r = 1;
  ck_assert(all_ok(gpu_dist_allreduce(comm, NULL, 0, GPU_F64, GPU_MIN, &r) == GPU_OK && isinf(r) && r > 0));
}
END_TEST

#if TU_CUDA
/* More than 2^32 elements across the ranks (where the GPU has the memory):
 * an i32 ADD scan of ones (global inclusive scan: index + 1, mod 2^32) and a
 * compaction count past 2^32. */
START_TEST(cuda_total_above_2_32) {
  const uint64_t N = (1ull << 32) + 4097;
  size_t first, n;
  my_slice((size_t)N, EVEN, &first, &n);
  void *d = NULL;
  /* every rank shares the GPU: room for all ranks' buffers, and margin */
  const gpu_status got = gpu_alloc(&d, 2 * n * 4 * (size_t)size_ + ((size_t)4 << 30));
  gpu_free(d);
  if (!all_ok(got == GPU_OK)) {
    if (rank_ == 0) printf("cuda_total_above_2_32: skipped (not enough GPU memory)\n");
    return;
  }
  int32_t *ones = tu_xmalloc(n * 4);
  for (size_t i = 0; i < n; i++) ones[i] = 1;
  void *in = backend_slice(ones, 0, n, 4);
  bool ok = gpu_dist_scan(comm, in, in, n, GPU_I32, GPU_ADD, 0) == GPU_OK;
  const size_t probes[] = {0, 1, n / 2, n - 1};
  for (int k = 0; k < 4 && ok && n; k++) {
    uint32_t v;
    tu_download(&v, (uint32_t *)in + probes[k], 4);
    ok = v == (uint32_t)(first + probes[k] + 1);
  }
  tu_upload(in, ones, n * 4);
  const int32_t zero = 0;
  gpu_dist_part kept;
  void *out = tu_alloc(n * 4 + 4); /* gpu_compact's output may not alias its input */
  ok = ok && gpu_dist_compact(comm, in, n, gpu_pred_cmp(GPU_I32, GPU_GT, &zero), out, &kept) == GPU_OK &&
       kept.total == N && kept.offset == first;
  ck_assert(all_ok(ok));
  tu_free(out);
  tu_free(in);
  free(ones);
}
END_TEST
#endif

static Suite *make_suite(void) {
  Suite *s = suite_create(TU_CUDA ? "dist_cuda" : "dist_host");
  TCase *tc = tu_tcase("args");
  tcase_add_test(tc, ranks_disagree_on_arguments);
  tcase_add_test(tc, one_rank_refuses_its_arguments);
  tcase_add_test(tc, wrong_communicators);
  tcase_add_test(tc, all_ranks_empty);
  suite_add_tcase(s, tc);
  tc = tu_tcase("scan");
  tcase_add_test(tc, scan_every_type_op_flag);
  tcase_add_test(tc, scan_float_exact_values);
  tcase_add_test(tc, scan_sizes);
  tcase_add_test(tc, scan_float_one_holder);
  tcase_add_test(tc, reduce_and_allreduce);
  suite_add_tcase(s, tc);
  tc = tu_tcase("compact");
  tcase_add_test(tc, compact_offsets_and_balance);
  suite_add_tcase(s, tc);
  tc = tu_tcase("sort");
  tcase_add_test(tc, sort_every_type_kind_direction);
  tcase_add_test(tc, sort_sizes);
  suite_add_tcase(s, tc);
  tc = tu_tcase("spmv");
  tcase_add_test(tc, spmv_against_single_process);
  suite_add_tcase(s, tc);
#if TU_CUDA
  tc = tu_tcase("big");
  tcase_add_test(tc, cuda_total_above_2_32);
  suite_add_tcase(s, tc);
#endif
  return s;
}

int main(int argc, char **argv) {
  const char *name = TU_CUDA ? "test_dist_cuda" : "test_dist_host";
  /* Without a GPU the CUDA suite is skipped before MPI starts (exit 77 on
   * every rank: mpiexec passes it on). */
  if (TU_CUDA) tu_require_cuda(name);
  else gpu_set_backend(GPU_BACKEND_HOST);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  tu_init(name); /* rank 0's random inputs are broadcast to the others */
  int rc = 0;
  if (gpu_dist_comm_create(&comm, MPI_COMM_WORLD) != GPU_OK) {
    fprintf(stderr, "%s: gpu_dist_comm_create: %s\n", name, gpu_dist_last_error());
    rc = 1;
  } else {
    if (rank_ == 0)
      printf("%s: %d rank(s), transport %s\n", name, size_,
             gpu_dist_transport_name(gpu_dist_comm_transport(comm)));
    rc = tu_run(make_suite(), true);
    gpu_dist_comm_destroy(comm);
  }
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (TU_CUDA) gpu_release_cached_memory();
  MPI_Finalize();
  return worst;
}
