/* Sorting and merging the entries of one CSR row (csr_rows.c). */
#ifndef GP_CSR_ROWS_H
#define GP_CSR_ROWS_H

#include <stdbool.h>
#include <stdint.h>

/* Per-thread room for merge-sorting one long row; starts zeroed. */
typedef struct {
  int64_t *col;
  double *val;
  int64_t capacity;
} gp_row_scratch;

void gp_row_scratch_free(gp_row_scratch *s);

enum {
  GP_ROW_NO_MEMORY = -1, /* no room to sort the row */
  GP_ROW_OVERFLOW = -2   /* a sum left the value type's range */
};

/* Sorts the n entries (col[k], val[k]) by column, stably, and sums each run
 * of equal columns into its first, in order; returns the entries left, or
 * GP_ROW_NO_MEMORY, or GP_ROW_OVERFLOW with *overflow_col the column whose
 * sum became infinite (the values are finite, so only a sum past the range
 * can). f32: every partial sum is rounded to float, which gives exactly float
 * arithmetic (a double sum of two floats rounded to float is the float sum:
 * 53 >= 2 * 24 + 2 bits). */
int64_t gp_csr_sort_and_merge_row(int64_t *col, double *val, int64_t n, bool f32,
                                  gp_row_scratch *s, int64_t *overflow_col);

#endif
