#define _POSIX_C_SOURCE 200809L
#include "mm_ref.h"

#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "test_util.h"

typedef struct {
  int64_t row, col, order;
  double value;
} triple;

static int by_row_col_order(const void *a, const void *b) {
  const triple *x = a, *y = b;
  if (x->row != y->row) return x->row < y->row ? -1 : 1;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static bool blank_or_comment(const char *line) {
  while (*line == ' ' || *line == '\t' || *line == '\r' || *line == '\n') line++;
  return *line == '\0' || *line == '%';
}

bool ref_read_mm(const char *path, gpu_dtype value_type, ref_csr *out, char *why, size_t why_size) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(why, why_size, "cannot open %s", path);
    return false;
  }
  char *line = NULL;
  size_t cap = 0;
  char magic[64], object[64], format[64], field[64], symmetry[64];
  bool ok = getline(&line, &cap, f) > 0 &&
            sscanf(line, "%63s %63s %63s %63s %63s", magic, object, format, field, symmetry) == 5 &&
            !strcasecmp(magic, "%%MatrixMarket") && !strcasecmp(object, "matrix") &&
            !strcasecmp(format, "coordinate");
  bool pattern = ok && !strcasecmp(field, "pattern");
  bool symmetric = ok && !strcasecmp(symmetry, "symmetric");
  bool skew = ok && !strcasecmp(symmetry, "skew-symmetric");
  ok = ok && (pattern || !strcasecmp(field, "real") || !strcasecmp(field, "integer")) &&
       (symmetric || skew || !strcasecmp(symmetry, "general"));
  long long rows = -1, cols = -1, declared = -1;
  while (ok && getline(&line, &cap, f) > 0) {
    if (blank_or_comment(line)) continue;
    ok = sscanf(line, "%lld %lld %lld", &rows, &cols, &declared) == 3;
    break;
  }
  ok = ok && rows >= 0 && cols >= 0 && declared >= 0;
  size_t most = ok ? (size_t)declared * 2 : 0;
  triple *t = tu_xmalloc((most ? most : 1) * sizeof *t);
  size_t n = 0;
  long long seen = 0;
  while (ok && getline(&line, &cap, f) > 0) {
    if (blank_or_comment(line)) continue;
    char *p = line, *e;
    long long i = strtoll(p, &e, 10), j = strtoll(e, &e, 10);
    double v = 1;
    if (!pattern) v = value_type == GPU_F32 ? (double)strtof(e, &e) : strtod(e, &e);
    ok = seen < declared && i >= 1 && i <= rows && j >= 1 && j <= cols;
    if (!ok) break;
    /* order: the entry's place in the expanded list (its mirror right after it). */
    t[n] = (triple){i - 1, j - 1, (int64_t)n, v};
    n++;
    if ((symmetric || skew) && i != j) {
      t[n] = (triple){j - 1, i - 1, (int64_t)n, skew ? -v : v};
      n++;
    }
    seen++;
  }
  free(line);
  fclose(f);
  if (!ok || seen != declared) {
    snprintf(why, why_size, "the reference reader cannot read %s", path);
    free(t);
    return false;
  }
  qsort(t, n, sizeof *t, by_row_col_order);
  out->rows = rows;
  out->cols = cols;
  out->row_ptr = calloc((size_t)rows + 1, sizeof *out->row_ptr);
  out->col_idx = tu_xmalloc((n ? n : 1) * sizeof *out->col_idx);
  out->values = tu_xmalloc((n ? n : 1) * sizeof *out->values);
  int64_t nnz = 0;
  for (size_t k = 0; k < n; k++) {
    bool same = nnz > 0 && k > 0 && t[k].row == t[k - 1].row && t[k].col == t[k - 1].col;
    if (same) {
      if (value_type == GPU_F32) {
        float sum = (float)out->values[nnz - 1];
        sum += (float)t[k].value;
        out->values[nnz - 1] = sum;
      } else {
        out->values[nnz - 1] += t[k].value;
      }
      continue;
    }
    out->col_idx[nnz] = t[k].col;
    out->values[nnz] = t[k].value;
    out->row_ptr[t[k].row + 1]++;
    nnz++;
  }
  for (int64_t r = 0; r < rows; r++) out->row_ptr[r + 1] += out->row_ptr[r];
  out->nnz = nnz;
  free(t);
  return true;
}

void ref_free(ref_csr *r) {
  free(r->row_ptr);
  free(r->col_idx);
  free(r->values);
  memset(r, 0, sizeof *r);
}

void ref_download(const gpu_csr *A, ref_csr *out) {
  size_t isize = gpu_dtype_size(A->index_type), vsize = gpu_dtype_size(A->value_type);
  size_t np = (size_t)A->rows + 1, nz = (size_t)A->nnz;
  void *rp = tu_xmalloc(np * isize), *ci = tu_xmalloc((nz ? nz : 1) * isize);
  void *va = tu_xmalloc((nz ? nz : 1) * vsize);
  tu_download(rp, A->row_ptr, np * isize);
  tu_download(ci, A->col_idx, nz * isize);
  tu_download(va, A->values, nz * vsize);
  out->rows = A->rows;
  out->cols = A->cols;
  out->nnz = A->nnz;
  out->row_ptr = tu_xmalloc(np * sizeof(int64_t));
  out->col_idx = tu_xmalloc((nz ? nz : 1) * sizeof(int64_t));
  out->values = tu_xmalloc((nz ? nz : 1) * sizeof(double));
  for (size_t k = 0; k < np; k++)
    out->row_ptr[k] = A->index_type == GPU_I32 ? ((int32_t *)rp)[k] : ((int64_t *)rp)[k];
  for (size_t k = 0; k < nz; k++) {
    out->col_idx[k] = A->index_type == GPU_I32 ? ((int32_t *)ci)[k] : ((int64_t *)ci)[k];
    out->values[k] = tu_get_f(va, k, A->value_type);
  }
  free(rp);
  free(ci);
  free(va);
}

bool ref_equal(const ref_csr *got, const ref_csr *want, char *where, size_t where_size) {
  if (got->rows != want->rows || got->cols != want->cols || got->nnz != want->nnz) {
    snprintf(where, where_size, "shape %lld x %lld, %lld entries; want %lld x %lld, %lld",
             (long long)got->rows, (long long)got->cols, (long long)got->nnz, (long long)want->rows,
             (long long)want->cols, (long long)want->nnz);
    return false;
  }
  for (int64_t r = 0; r <= got->rows; r++)
    if (got->row_ptr[r] != want->row_ptr[r]) {
      snprintf(where, where_size, "row_ptr[%lld] = %lld, want %lld", (long long)r,
               (long long)got->row_ptr[r], (long long)want->row_ptr[r]);
      return false;
    }
  for (int64_t k = 0; k < got->nnz; k++) {
    if (got->col_idx[k] != want->col_idx[k]) {
      snprintf(where, where_size, "col_idx[%lld] = %lld, want %lld", (long long)k,
               (long long)got->col_idx[k], (long long)want->col_idx[k]);
      return false;
    }
    if (memcmp(&got->values[k], &want->values[k], sizeof(double)) != 0) {
      snprintf(where, where_size, "values[%lld] = %.17g, want %.17g", (long long)k, got->values[k],
               want->values[k]);
      return false;
    }
  }
  return true;
}

/* ------------------------------------------------------ temporary files */

enum { MAX_TMP_FILES = 256 };
static char tmp_dir[256];
static char tmp_paths[MAX_TMP_FILES][512];
static int tmp_count;

/* In memory (tmpfs) where there is one: the fuzz suite writes thousands of
 * small files, which a busy disk makes slow. */
void ref_tmp_begin(void) {
  snprintf(tmp_dir, sizeof tmp_dir, "/dev/shm/gpuprim_mm_XXXXXX");
  if (!mkdtemp(tmp_dir)) {
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/gpuprim_mm_XXXXXX");
    ck_assert_msg(mkdtemp(tmp_dir) != NULL, "mkdtemp failed");
  }
  tmp_count = 0;
}

const char *ref_tmp_write(const char *name, const char *text, size_t len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  ck_assert(fwrite(text, 1, len, f) == len);
  ck_assert(fclose(f) == 0);
  for (int k = 0; k < tmp_count; k++)
    if (!strcmp(tmp_paths[k], path)) return tmp_paths[k];
  ck_assert(tmp_count < MAX_TMP_FILES);
  strcpy(tmp_paths[tmp_count], path);
  return tmp_paths[tmp_count++];
}

const char *ref_tmp_dir(void) { return tmp_dir; }

void ref_tmp_end(void) {
  for (int k = 0; k < tmp_count; k++) remove(tmp_paths[k]);
  tmp_count = 0;
  if (tmp_dir[0]) remove(tmp_dir);
  tmp_dir[0] = '\0';
}
