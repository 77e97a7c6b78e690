/*
 * Coordinate entries to CSR, on the host, then into backend memory.
 *
 *   1. count entries per row (a mirrored entry (j,i) counts for row j),
 *   2. scatter them into rows in file order (a counting sort by row, stable:
 *      each entry, then its mirror), and free the coordinate arrays,
 *   3. per row, in parallel: sort by column, stably (rows usually arrive
 *      sorted and are only checked), then sum runs of equal columns in
 *      order of appearance, so the sums do not depend on thread timing,
 *   4. lay the surviving entries out with the requested types, straight into
 *      gpu_alloc'ed memory on the host backend, through a host copy and
 *      gpu_upload on CUDA.
 */
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"

static const char fn[] = "gpu_csr_read_mm";

enum { INSERTION_SORT_MAX = 16, ROWS_PER_TASK = 2048 };

/* ----------------------------------------------------------- row sorting */

static void insertion_sort(int64_t *col, double *val, int64_t n) {
  for (int64_t k = 1; k < n; k++) {
    int64_t c = col[k];
    double v = val[k];
    int64_t m = k;
    for (; m > 0 && col[m - 1] > c; m--) { /* '>' keeps equal columns in order */
      col[m] = col[m - 1];
      val[m] = val[m - 1];
    }
    col[m] = c;
    val[m] = v;
  }
}

/* Per-thread room for merging one long row. */
typedef struct {
  int64_t *col;
  double *val;
  int64_t capacity;
} row_scratch;

static bool scratch_reserve(row_scratch *s, int64_t n) {
  if (n <= s->capacity) return true;
  free(s->col);
  free(s->val);
  s->col = malloc((size_t)n * sizeof *s->col);
  s->val = malloc((size_t)n * sizeof *s->val);
  s->capacity = s->col && s->val ? n : 0;
  return s->capacity > 0;
}

/* Stable bottom-up merge sort: insertion-sorted runs, then merges that take
 * from the left run on ties. */
static void merge_sort(int64_t *col, double *val, int64_t n, row_scratch *s) {
  for (int64_t lo = 0; lo < n; lo += INSERTION_SORT_MAX)
    insertion_sort(col + lo, val + lo, n - lo < INSERTION_SORT_MAX ? n - lo : INSERTION_SORT_MAX);
  int64_t *src_c = col, *dst_c = s->col;
  double *src_v = val, *dst_v = s->val;
  for (int64_t width = INSERTION_SORT_MAX; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      int64_t a = lo, b = mid, d = lo;
      while (a < mid && b < hi) {
        bool left = src_c[a] <= src_c[b];
        dst_c[d] = left ? src_c[a] : src_c[b];
        dst_v[d++] = left ? src_v[a++] : src_v[b++];
      }
      for (; a < mid; a++, d++) {
        dst_c[d] = src_c[a];
        dst_v[d] = src_v[a];
      }
      for (; b < hi; b++, d++) {
        dst_c[d] = src_c[b];
        dst_v[d] = src_v[b];
      }
    }
    int64_t *tc = src_c; src_c = dst_c; dst_c = tc;
    double *tv = src_v; src_v = dst_v; dst_v = tv;
  }
  if (src_c != col) {
    memcpy(col, src_c, (size_t)n * sizeof *col);
    memcpy(val, src_v, (size_t)n * sizeof *val);
  }
}

/* Sorts one row by column and sums duplicates into the first of each run;
 * returns the entries left, or -1 when there was no memory to sort. For f32
 * each partial sum is rounded to float: a double sum of two floats rounded
 * to float is exactly the float sum (53 >= 2 * 24 + 2 bits). */
static int64_t sort_and_merge_row(int64_t *col, double *val, int64_t n, bool f32,
                                  row_scratch *s) {
  bool sorted = true;
  for (int64_t k = 1; k < n && sorted; k++) sorted = col[k - 1] <= col[k];
  if (!sorted) {
    if (n <= INSERTION_SORT_MAX) insertion_sort(col, val, n);
    else if (scratch_reserve(s, n)) merge_sort(col, val, n, s);
    else return -1;
  }
  int64_t kept = 0;
  for (int64_t k = 0; k < n; k++) {
    if (kept > 0 && col[kept - 1] == col[k]) {
      double sum = val[kept - 1] + val[k];
      val[kept - 1] = f32 ? (double)(float)sum : sum;
    } else {
      col[kept] = col[k];
      val[kept++] = val[k];
    }
  }
  return kept;
}

/* ------------------------------------------------------------ the steps */

/* Steps 1 and 2: the rows' starts (rows + 1 of them) and the entries in row
 * order, file order within a row. */
static void scatter_rows(const gp_mm_coo *coo, int64_t rows, bool mirror, bool skew,
                         int64_t *start, int64_t *col, double *val) {
  int64_t n = coo->n;
#pragma omp parallel for if (n > 65536)
  for (int64_t k = 0; k < n; k++) {
#pragma omp atomic
    start[coo->row[k] + 1]++;
    if (mirror && coo->row[k] != coo->col[k]) {
#pragma omp atomic
      start[coo->col[k] + 1]++;
    }
  }
  for (int64_t r = 0; r < rows; r++) start[r + 1] += start[r];
  /* start[r] serves as row r's cursor, ending at row r + 1's start; a shift
   * puts it back. Serial, so that equal (row, col) keep file order. */
  for (int64_t k = 0; k < n; k++) {
    int64_t i = coo->row[k], j = coo->col[k];
    double v = coo->val[k];
    int64_t at = start[i]++;
    col[at] = j;
    val[at] = v;
    if (mirror && i != j) {
      at = start[j]++;
      col[at] = i;
      val[at] = skew ? -v : v;
    }
  }
  memmove(start + 1, start, (size_t)rows * sizeof *start);
  start[0] = 0;
}

/* Step 3: kept[r + 1] = entries left in row r; false when out of memory. */
static bool merge_rows(int64_t rows, const int64_t *start, int64_t *col, double *val, bool f32,
                       int64_t *kept) {
  bool failed = false;
#pragma omp parallel if (start[rows] > 65536)
  {
    row_scratch scratch = {NULL, NULL, 0};
#pragma omp for schedule(dynamic, ROWS_PER_TASK)
    for (int64_t r = 0; r < rows; r++) {
      int64_t left = sort_and_merge_row(col + start[r], val + start[r], start[r + 1] - start[r],
                                        f32, &scratch);
      if (left < 0) {
#pragma omp atomic write
        failed = true;
        left = 0;
      }
      kept[r + 1] = left;
    }
    free(scratch.col);
    free(scratch.val);
  }
  kept[0] = 0;
  for (int64_t r = 0; r < rows; r++) kept[r + 1] += kept[r];
  return !failed;
}

/* Step 4: the final arrays, with the requested types, in host memory. */
static void lay_out(int64_t rows, const int64_t *start, const int64_t *col, const double *val,
                    const int64_t *kept, bool i32, bool f32, void *row_ptr, void *col_idx,
                    void *values) {
#pragma omp parallel for schedule(dynamic, ROWS_PER_TASK) if (kept[rows] > 65536)
  for (int64_t r = 0; r <= rows; r++) {
    if (i32) ((int32_t *)row_ptr)[r] = (int32_t)kept[r];
    else ((int64_t *)row_ptr)[r] = kept[r];
    if (r == rows) continue;
    const int64_t *c = col + start[r];
    const double *v = val + start[r];
    int64_t to = kept[r], n = kept[r + 1] - kept[r];
    for (int64_t k = 0; k < n; k++) {
      if (i32) ((int32_t *)col_idx)[to + k] = (int32_t)c[k];
      else ((int64_t *)col_idx)[to + k] = c[k];
      if (f32) ((float *)values)[to + k] = (float)v[k];
      else ((double *)values)[to + k] = v[k];
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
  int64_t *start = NULL, *kept = NULL, *col = NULL;
  double *val = NULL;
  csr_arrays out = {{NULL}, {NULL}, {0}};
  if ((uint64_t)rows >= SIZE_MAX / sizeof(int64_t) - 1 ||
      (uint64_t)expanded >= SIZE_MAX / sizeof(int64_t)) {
    s = gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %s: %lld rows, %lld entries: too many for memory", fn,
                path, (long long)rows, (long long)expanded);
    goto done;
  }
  start = calloc((size_t)rows + 1, sizeof *start);
  kept = malloc(((size_t)rows + 1) * sizeof *kept);
  col = malloc((size_t)(expanded ? expanded : 1) * sizeof *col);
  val = malloc((size_t)(expanded ? expanded : 1) * sizeof *val);
  if (!start || !kept || !col || !val) {
    s = gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %s: %lld rows, %lld entries", fn, path,
                (long long)rows, (long long)expanded);
    goto done;
  }
  scatter_rows(coo, rows, mirror, skew, start, col, val);
  gp_mm_coo_free(coo);
  if (!merge_rows(rows, start, col, val, f32, kept)) {
    s = gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %s: room to sort a row", fn, path);
    goto done;
  }
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
  free(col);
  free(val);
  return s;
}
