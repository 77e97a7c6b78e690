/*
 * One CSR row: entries sorted by column, stably, and duplicates summed.
 * Rows from a Matrix Market file usually arrive sorted (files are mostly
 * written column by column, and the build keeps file order), so a row is
 * first only checked; short rows get an insertion sort, long ones a merge
 * sort, both stable so that equal columns are summed in file order.
 */
#include "csr_rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { INSERTION_SORT_MAX = 16 };

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

static bool scratch_reserve(gp_row_scratch *s, int64_t n) {
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
static void merge_sort(int64_t *col, double *val, int64_t n, gp_row_scratch *s) {
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
    int64_t *tc = src_c;
    src_c = dst_c;
    dst_c = tc;
    double *tv = src_v;
    src_v = dst_v;
    dst_v = tv;
  }
  if (src_c != col) {
    memcpy(col, src_c, (size_t)n * sizeof *col);
    memcpy(val, src_v, (size_t)n * sizeof *val);
  }
}

int64_t gp_csr_sort_and_merge_row(int64_t *col, double *val, int64_t n, bool f32,
                                  gp_row_scratch *s, int64_t *overflow_col) {
  bool sorted = true;
  for (int64_t k = 1; k < n && sorted; k++) sorted = col[k - 1] <= col[k];
  if (!sorted) {
    if (n <= INSERTION_SORT_MAX)
      insertion_sort(col, val, n);
    else if (scratch_reserve(s, n))
      merge_sort(col, val, n, s);
    else
      return GP_ROW_NO_MEMORY;
  }
  int64_t kept = 0;
  for (int64_t k = 0; k < n; k++) {
    if (kept > 0 && col[kept - 1] == col[k]) {
      double sum = val[kept - 1] + val[k];
      val[kept - 1] = f32 ? (double)(float)sum : sum;
      if (isinf(val[kept - 1])) {
        *overflow_col = col[k];
        return GP_ROW_OVERFLOW;
      }
    } else {
      col[kept] = col[k];
      val[kept++] = val[k];
    }
  }
  return kept;
}

void gp_row_scratch_free(gp_row_scratch *s) {
  free(s->col);
  free(s->val);
  memset(s, 0, sizeof *s);
}
