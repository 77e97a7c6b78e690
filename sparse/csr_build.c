/*
 * Coordinate entries to CSR, on the host, then into backend memory.
 *
 *   1. partition the entries, each followed by its mirror (j,i) in symmetric
 *      files, into buckets of consecutive rows: in parallel and stable (file
 *      order kept), with few enough buckets that every thread's writes stay
 *      in a few streams instead of one random row per entry,
 *   2. per bucket, in parallel: a counting sort by row (stable again), then
 *      per row a stable sort by column (rows usually arrive sorted and are
 *      only checked) and the runs of equal columns summed in order of
 *      appearance, so the sums never depend on thread timing,
 *   3. lay the surviving entries out with the requested types, straight into
 *      gpu_alloc'ed memory on the host backend, through a host copy and
 *      gpu_upload on CUDA.
 */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#  include <omp.h>
#endif

#include "csr_rows.h"
#include "mm_internal.h"

static const char fn[] = "gpu_csr_read_mm";

enum {
  ROWS_PER_TASK = 2048,
  MAX_BUCKETS = 1024,  /* write streams per thread in the partition */
  PARALLEL_MIN = 65536 /* entries below which threads cost more than they save */
};

/* ------------------------------------------------------------ the steps */

static int max_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* Rows go to buckets of 2^shift consecutive rows, at most MAX_BUCKETS. */
typedef struct {
  int shift;
  int64_t count;
} row_buckets;

static row_buckets make_buckets(int64_t rows) {
  row_buckets b = {0, rows};
  while (rows > 0 && ((rows - 1) >> b.shift) + 1 > MAX_BUCKETS) b.shift++;
  b.count = rows > 0 ? ((rows - 1) >> b.shift) + 1 : 0;
  return b;
}

/* The expanded entries (each, then its mirror) as coordinates in buckets. */
typedef struct {
  int64_t *row, *col;
  double *val;
  int64_t *start; /* count + 1: bucket b holds [start[b], start[b + 1]) */
} bucketed;

/* Step 1: a stable parallel partition by bucket. Each thread takes a
 * contiguous block of the file's entries and counts per bucket; bucket-major,
 * thread-minor offsets then keep file order inside each bucket. */
static void partition(const gp_mm_coo *coo, row_buckets rb, bool mirror, bool skew, int64_t *counts,
                      int threads, bucketed *out) {
  int64_t n = coo->n, nb = rb.count;
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    int t = 0, team = 1;
#ifdef _OPENMP
    t = omp_get_thread_num();
    team = omp_get_num_threads();
#endif
    int64_t lo = n / team * t + (t < n % team ? t : n % team);
    int64_t hi = lo + n / team + (t < n % team);
    int64_t *mine = counts + (size_t)t * (size_t)nb;
    for (int64_t k = lo; k < hi; k++) {
      mine[coo->row[k] >> rb.shift]++;
      if (mirror && coo->row[k] != coo->col[k]) mine[coo->col[k] >> rb.shift]++;
    }
#pragma omp barrier
#pragma omp single
    {
      int64_t at = 0;
      for (int64_t b = 0; b < nb; b++) {
        out->start[b] = at;
        for (int u = 0; u < team; u++) {
          int64_t c = counts[(size_t)u * (size_t)nb + (size_t)b];
          counts[(size_t)u * (size_t)nb + (size_t)b] = at;
          at += c;
        }
      }
      out->start[nb] = at;
    }
    for (int64_t k = lo; k < hi; k++) {
      int64_t i = coo->row[k], j = coo->col[k];
      double v = coo->val[k];
      int64_t at = mine[i >> rb.shift]++;
      out->row[at] = i;
      out->col[at] = j;
      out->val[at] = v;
      if (mirror && i != j) {
        at = mine[j >> rb.shift]++;
        out->row[at] = j;
        out->col[at] = i;
        out->val[at] = skew ? -v : v;
      }
    }
  }
}

/* What building the rows found wrong: no memory, or the first row (lowest
 * index, whatever the threads' timing) with a sum past the value type's
 * range (overflow_row -1: none). */
typedef struct {
  bool no_memory;
  int64_t overflow_row, overflow_col;
} rows_verdict;

static void note_overflow(rows_verdict *v, int64_t row, int64_t col) {
  if (v->overflow_row < 0 || row < v->overflow_row) {
    v->overflow_row = row;
    v->overflow_col = col;
  }
}

/* Step 2 for one bucket: a counting sort by row (stable) into col/val from
 * the bucket's offset, the rows' starts, then each row sorted and merged;
 * kept[r + 1] = entries left in row r. local has room for 2^shift + 1. A row
 * that cannot be sorted or overflows is noted in v; the others go on. */
static void build_bucket(const bucketed *in, int64_t b, row_buckets rb, int64_t rows,
                         int64_t *local, int64_t *start, int64_t *col, double *val, bool f32,
                         int64_t *kept, gp_row_scratch *scratch, rows_verdict *v) {
  int64_t first = b << rb.shift,
          span = rows - first < ((int64_t)1 << rb.shift) ? rows - first : ((int64_t)1 << rb.shift);
  int64_t lo = in->start[b], hi = in->start[b + 1];
  memset(local, 0, ((size_t)span + 1) * sizeof *local);
  for (int64_t k = lo; k < hi; k++) local[in->row[k] - first + 1]++;
  for (int64_t r = 0; r < span; r++) local[r + 1] += local[r];
  for (int64_t r = 0; r < span; r++) start[first + r] = lo + local[r];
  for (int64_t k = lo; k < hi; k++) {
    int64_t at = lo + local[in->row[k] - first]++;
    col[at] = in->col[k];
    val[at] = in->val[k];
  }
  for (int64_t r = 0; r < span; r++) {
    int64_t s = start[first + r], n = lo + local[r] - s; /* local[r] is now row r's end */
    int64_t bad_col = 0;
    int64_t left = gp_csr_sort_and_merge_row(col + s, val + s, n, f32, scratch, &bad_col);
    if (left == GP_ROW_NO_MEMORY) v->no_memory = true;
    if (left == GP_ROW_OVERFLOW) note_overflow(v, first + r, bad_col);
    kept[first + r + 1] = left < 0 ? 0 : left;
  }
}

/* Step 2 for all buckets, in parallel; the verdict says what went wrong. */
static rows_verdict build_rows(const bucketed *in, row_buckets rb, int64_t rows, int64_t *start,
                               int64_t *col, double *val, bool f32, int64_t *kept) {
  rows_verdict verdict = {false, -1, 0};
  int64_t expanded = in->start[rb.count];
#pragma omp parallel if (expanded > PARALLEL_MIN)
  {
    gp_row_scratch scratch = {NULL, NULL, 0};
    int64_t *local = malloc((((size_t)1 << rb.shift) + 1) * sizeof *local);
    rows_verdict mine = {local == NULL, -1, 0};
#pragma omp for schedule(dynamic, 1)
    for (int64_t b = 0; b < rb.count; b++)
      if (!mine.no_memory)
        build_bucket(in, b, rb, rows, local, start, col, val, f32, kept, &scratch, &mine);
#pragma omp critical
    {
      verdict.no_memory |= mine.no_memory;
      if (mine.overflow_row >= 0) note_overflow(&verdict, mine.overflow_row, mine.overflow_col);
    }
    free(local);
    gp_row_scratch_free(&scratch);
  }
  start[rows] = expanded;
  kept[0] = 0;
  for (int64_t r = 0; r < rows; r++) kept[r + 1] += kept[r];
  return verdict;
}

/* Step 3: the final arrays, with the requested types, in host memory. */
static void lay_out(int64_t rows, const int64_t *start, const int64_t *col, const double *val,
                    const int64_t *kept, bool i32, bool f32, void *row_ptr, void *col_idx,
                    void *values) {
#pragma omp parallel for schedule(dynamic, ROWS_PER_TASK) if (kept[rows] > PARALLEL_MIN)
  for (int64_t r = 0; r <= rows; r++) {
    if (i32)
      ((int32_t *)row_ptr)[r] = (int32_t)kept[r];
    else
      ((int64_t *)row_ptr)[r] = kept[r];
    if (r == rows) continue;
    const int64_t *c = col + start[r];
    const double *v = val + start[r];
    int64_t to = kept[r], n = kept[r + 1] - kept[r];
    for (int64_t k = 0; k < n; k++) {
      if (i32)
        ((int32_t *)col_idx)[to + k] = (int32_t)c[k];
      else
        ((int64_t *)col_idx)[to + k] = c[k];
      if (f32)
        ((float *)values)[to + k] = (float)v[k];
      else
        ((double *)values)[to + k] = v[k];
    }
  }
}

/* The three arrays in backend memory, and where to lay them out on the host. */
typedef struct {
  void *dev[3];
  void *host[3];
  size_t bytes[3];
} csr_arrays;

static void free_arrays(csr_arrays *a, gpu_backend b) {
  for (int k = 0; k < 3; k++) {
    if (b != GPU_BACKEND_HOST) free(a->host[k]);
    gpu_free(a->dev[k]);
  }
}

static gpu_status alloc_arrays(csr_arrays *a, gpu_backend b) {
  for (int k = 0; k < 3; k++) {
    gpu_status s = gpu_alloc(&a->dev[k], a->bytes[k]);
    if (s != GPU_OK) return s;
    a->host[k] = a->dev[k];
    if (b != GPU_BACKEND_HOST && a->bytes[k] > 0) {
      a->host[k] = malloc(a->bytes[k]);
      if (!a->host[k])
        return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %zu bytes of host memory", fn, a->bytes[k]);
    }
  }
  return GPU_OK;
}

gpu_status gp_csr_build(const char *path, gp_mm_coo *coo, const gp_mm_header *h,
                        gpu_dtype value_type, gpu_dtype index_type, gpu_backend b, gpu_csr *A) {
  bool mirror = h->symmetry != GP_MM_GENERAL, skew = h->symmetry == GP_MM_SKEW_SYMMETRIC;
  bool i32 = index_type == GPU_I32, f32 = value_type == GPU_F32;
  int64_t rows = h->rows, expanded = coo->n + (mirror ? coo->off_diagonal : 0);
  if (i32 && expanded > INT32_MAX) {
    gp_mm_coo_free(coo);
    return gp_fail(GPU_ERR_UNSUPPORTED,
                   "%s: %s: %lld entries (after symmetric expansion) exceed INT32_MAX = %d, the "
                   "limit of GPU_I32 indices; read it with GPU_I64",
                   fn, path, (long long)expanded, INT32_MAX);
  }
  gpu_status s = GPU_OK;
  row_buckets rb = make_buckets(rows);
  int threads = coo->n > PARALLEL_MIN ? max_threads() : 1;
  int64_t *start = NULL, *kept = NULL, *counts = NULL, *col = NULL;
  double *val = NULL;
  bucketed bk = {NULL, NULL, NULL, NULL};
  csr_arrays out = {{NULL}, {NULL}, {0}};
  size_t entries = (size_t)(expanded > 0 ? expanded : 1);
  if ((uint64_t)rows >= SIZE_MAX / sizeof(int64_t) - 1 ||
      (uint64_t)expanded >= SIZE_MAX / sizeof(int64_t)) {
    s = gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %s: %lld rows, %lld entries: too many for memory", fn,
                path, (long long)rows, (long long)expanded);
    goto done;
  }
  start = malloc(((size_t)rows + 1) * sizeof *start);
  kept = malloc(((size_t)rows + 1) * sizeof *kept);
  counts = calloc((size_t)threads * (size_t)(rb.count ? rb.count : 1), sizeof *counts);
  bk.start = malloc(((size_t)rb.count + 1) * sizeof *bk.start);
  bk.row = malloc(entries * sizeof *bk.row);
  bk.col = malloc(entries * sizeof *bk.col);
  bk.val = malloc(entries * sizeof *bk.val);
  if (!start || !kept || !counts || !bk.start || !bk.row || !bk.col || !bk.val) {
    s = gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %s: %lld rows, %lld entries", fn, path, (long long)rows,
                (long long)expanded);
    goto done;
  }
  bk.start[0] = 0;
  partition(coo, rb, mirror, skew, counts, threads, &bk);
  /* The coordinates are in the buckets now: their memory becomes the rows'
   * (realloc keeps the pages when the size does not grow: no fresh faults). */
  free(coo->row);
  coo->row = NULL;
  col = realloc(coo->col, entries * sizeof *col);
  if (col) coo->col = NULL;
  val = realloc(coo->val, entries * sizeof *val);
  if (val) coo->val = NULL;
  if (!col || !val) {
    s = gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %s: %lld entries", fn, path, (long long)expanded);
    goto done;
  }
  rows_verdict verdict = build_rows(&bk, rb, rows, start, col, val, f32, kept);
  if (verdict.no_memory) {
    s = gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %s: room to sort a row", fn, path);
    goto done;
  }
  /* Each value is in range (mm_entries.c), so only duplicates summed past
   * it give infinity: refused as a single value out of range is. */
  if (verdict.overflow_row >= 0) {
    s = gp_fail(GPU_ERR_PARSE,
                "%s: %s: the entries at row %lld, column %lld sum to a value outside the range "
                "of %s",
                fn, path, (long long)verdict.overflow_row + 1, (long long)verdict.overflow_col + 1,
                gp_dtype_name(value_type));
    goto done;
  }
  free(bk.row);
  free(bk.col);
  free(bk.val);
  bk.row = bk.col = NULL;
  bk.val = NULL;
  size_t isize = gpu_dtype_size(index_type), vsize = gpu_dtype_size(value_type);
  int64_t nnz = kept[rows];
  out.bytes[0] = ((size_t)rows + 1) * isize;
  out.bytes[1] = (size_t)nnz * isize;
  out.bytes[2] = (size_t)nnz * vsize;
  s = alloc_arrays(&out, b);
  if (s != GPU_OK) goto done;
  lay_out(rows, start, col, val, kept, i32, f32, out.host[0], out.host[1], out.host[2]);
  for (int k = 0; k < 3 && s == GPU_OK && b != GPU_BACKEND_HOST; k++)
    s = gpu_upload(out.dev[k], out.host[k], out.bytes[k]);
  if (s != GPU_OK) goto done;
  for (int k = 0; k < 3 && b != GPU_BACKEND_HOST; k++) free(out.host[k]);
  A->rows = rows;
  A->cols = h->cols;
  A->nnz = nnz;
  A->row_ptr = out.dev[0];
  A->col_idx = out.dev[1];
  A->values = out.dev[2];
  A->index_type = index_type;
  A->value_type = value_type;
  memset(&out, 0, sizeof out);
done:
  free_arrays(&out, b);
  gp_mm_coo_free(coo);
  free(start);
  free(kept);
  free(counts);
  free(bk.start);
  free(bk.row);
  free(bk.col);
  free(bk.val);
  free(col);
  free(val);
  return s;
}
