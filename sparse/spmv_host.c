/*
 * Host CSR SpMV. The rows are cut into chunks of about equal work (rows plus
 * entries, found by binary search on row_ptr), and each chunk is one task for
 * OpenMP. A row is always summed by one thread, entry by entry in storage
 * order, so every float result is the same whatever the thread count or the
 * cut. (Built with -ffp-contract=off: no fused multiply-add, so the results
 * do not depend on the compiler's target either.)
 */
#include <stdio.h>
#include <stdlib.h>

#include "spmv_host.h"
#include "core/host_parallel.h"

/* Units of work (rows + entries) per chunk: tens of microseconds each, many
 * chunks per thread for balance, few enough that scheduling costs nothing. */
enum { CHUNK_WORK = 1 << 15 };

static int64_t row_ptr_at(const gpu_csr *A, int64_t r) {
  return A->index_type == GPU_I32 ? ((const int32_t *)A->row_ptr)[r]
                                  : ((const int64_t *)A->row_ptr)[r];
}

/* The work before row r: r rows and row_ptr[r] entries, the latter clamped
 * into [0, nnz] so that a malformed row_ptr cannot send the search astray. */
static uint64_t work_before(const gpu_csr *A, int64_t r) {
  int64_t entries = row_ptr_at(A, r);
  entries = entries < 0 ? 0 : entries > A->nnz ? A->nnz : entries;
  return (uint64_t)r + (uint64_t)entries;
}

/* The last row r in [lo, rows] with work_before(r) <= target (lo if none). */
static int64_t row_at_work(const gpu_csr *A, int64_t lo, uint64_t target) {
  int64_t hi = A->rows;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (work_before(A, mid) <= target)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

gpu_status gp_spmv_host_partition_make(const char *fn, const gpu_csr *A,
                                       gp_spmv_host_partition *p) {
  uint64_t work = (uint64_t)A->rows + (uint64_t)A->nnz;
  size_t chunks = work > CHUNK_WORK ? (size_t)((work + CHUNK_WORK - 1) / CHUNK_WORK) : 1;
  p->chunks = chunks;
  p->row_bounds = malloc((chunks + 1) * sizeof *p->row_bounds);
  if (!p->row_bounds)
    return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %zu row bounds of the host partition", fn,
                   chunks + 1);
  p->row_bounds[0] = 0;
  /* Each search starts at the previous bound: bounds never decrease. */
  for (size_t c = 1; c < chunks; c++)
    p->row_bounds[c] = row_at_work(A, p->row_bounds[c - 1], (uint64_t)c * CHUNK_WORK);
  p->row_bounds[chunks] = A->rows;
  return GPU_OK;
}

void gp_spmv_host_partition_free(gp_spmv_host_partition *p) {
  free(p->row_bounds);
  p->row_bounds = NULL;
  p->chunks = 0;
}

typedef struct {
  const gpu_csr *A;
  const void *x;
  void *y;
  double alpha, beta;
} product;

/*
 * Rows [r0, r1) of one (index type I, value type T) instance. Returns the
 * first row whose row_ptr range or column indices fall outside A (INT64_MAX
 * if none); such a range is read as empty, such an entry is skipped. As
 * unsigned numbers, negative indices are huge: one comparison checks both ends.
 */
#define GP_DEFINE_SPMV_ROWS(NAME, I, T)                                                       \
  static int64_t rows_##NAME(const product *p, int64_t r0, int64_t r1) {                      \
    const I *row_ptr = p->A->row_ptr, *col_idx = p->A->col_idx;                               \
    const T *values = p->A->values, *x = p->x;                                                \
    T *y = p->y;                                                                              \
    const T alpha = (T)p->alpha, beta = (T)p->beta;                                           \
    const bool read_y = p->beta != 0;                                                         \
    const uint64_t nnz = (uint64_t)p->A->nnz, cols = (uint64_t)p->A->cols;                    \
    int64_t first_bad = INT64_MAX;                                                            \
    for (int64_t r = r0; r < r1; r++) {                                                       \
      uint64_t lo = (uint64_t)(int64_t)row_ptr[r], hi = (uint64_t)(int64_t)row_ptr[r + 1];    \
      bool inside = lo <= hi && hi <= nnz;                                                    \
      if (!inside) hi = lo;                                                                   \
      T sum = 0;                                                                              \
      for (uint64_t k = lo; k < hi; k++) {                                                    \
        uint64_t c = (uint64_t)(int64_t)col_idx[k];                                           \
        if (c < cols)                                                                         \
          sum += values[k] * x[c];                                                            \
        else                                                                                  \
          inside = false;                                                                     \
      }                                                                                       \
      if (!inside && first_bad == INT64_MAX) first_bad = r;                                   \
      T scaled_y = read_y ? beta * y[r] : (T)0;                                               \
      /* An empty row gives beta * y whatever alpha is (alpha * 0 could be NaN). */          \
      y[r] = lo == hi ? scaled_y : read_y ? alpha * sum + scaled_y : alpha * sum;             \
    }                                                                                         \
    return first_bad;                                                                         \
  }

GP_DEFINE_SPMV_ROWS(i32_f32, int32_t, float)
GP_DEFINE_SPMV_ROWS(i64_f32, int64_t, float)
GP_DEFINE_SPMV_ROWS(i32_f64, int32_t, double)
GP_DEFINE_SPMV_ROWS(i64_f64, int64_t, double)

typedef int64_t (*rows_fn)(const product *, int64_t, int64_t);

/* alpha == 0: y = beta * y, without reading A or x (BLAS's rule). */
static void scale_y(const gpu_csr *A, double beta, void *y) {
  const int64_t rows = A->rows;
  if (A->value_type == GPU_F32) {
    float *v = y, b = (float)beta;
#pragma omp parallel for schedule(static) if (gp_host_parallel((size_t)rows))
    for (int64_t r = 0; r < rows; r++) v[r] = beta == 0 ? 0.0f : b * v[r];
  } else {
    double *v = y;
#pragma omp parallel for schedule(static) if (gp_host_parallel((size_t)rows))
    for (int64_t r = 0; r < rows; r++) v[r] = beta == 0 ? 0.0 : beta * v[r];
  }
}

static gpu_status malformed(const char *fn, const gpu_csr *A, const char *what, bool y_written) {
  return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                 "%s: A is malformed: %s (nnz = %lld, cols = %lld); nothing outside A was read, "
                 "%s; gpu_csr_validate names the first bad entry",
                 fn, what, (long long)A->nnz, (long long)A->cols,
                 y_written ? "y is unspecified" : "y is unchanged");
}

gpu_status gp_spmv_host(const char *fn, const gpu_csr *A, const gp_spmv_host_partition *partition,
                        double alpha, const void *x, double beta, void *y) {
  if (alpha == 0) {
    scale_y(A, beta, y);
    return GPU_OK;
  }
  /* The ends of row_ptr are cheap to check before anything is written; the
   * rows in between are checked as they are read. */
  int64_t first = row_ptr_at(A, 0), last = row_ptr_at(A, A->rows);
  if (first != 0 || last != A->nnz) {
    char what[128];
    snprintf(what, sizeof what, "row_ptr[0] = %lld and row_ptr[rows] = %lld, not 0 and nnz",
             (long long)first, (long long)last);
    return malformed(fn, A, what, false);
  }
  gp_spmv_host_partition own = {NULL, 0};
  if (!partition) {
    gpu_status s = gp_spmv_host_partition_make(fn, A, &own);
    if (s != GPU_OK) return s;
    partition = &own;
  }
  static const rows_fn instances[2][2] = {{rows_i32_f32, rows_i64_f32},
                                          {rows_i32_f64, rows_i64_f64}};
  const rows_fn rows = instances[A->value_type == GPU_F64][A->index_type == GPU_I64];
  const product p = {A, x, y, alpha, beta};
  const size_t chunks = partition->chunks;
  const int64_t *bounds = partition->row_bounds;
  int64_t first_bad = INT64_MAX;
#pragma omp parallel for schedule(dynamic, 1) reduction(min : first_bad) \
    if (chunks > 1 && gp_host_parallel((size_t)A->rows + (size_t)A->nnz))
  for (size_t c = 0; c < chunks; c++) {
    int64_t bad = rows(&p, bounds[c], bounds[c + 1]);
    if (bad < first_bad) first_bad = bad;
  }
  gp_spmv_host_partition_free(&own);
  if (first_bad == INT64_MAX) return GPU_OK;
  char what[128];
  snprintf(what, sizeof what, "row %lld has a row_ptr range or a column index outside A",
           (long long)first_bad);
  return malformed(fn, A, what, true);
}
