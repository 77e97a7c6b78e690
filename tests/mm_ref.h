/*
 * A deliberately simple, slow Matrix Market reader for the tests: getline,
 * sscanf and strtod/strtof, a list of (row, col, value, order) triples sorted
 * with qsort, duplicates summed in the value type. It shares no code with the
 * library, so agreement between the two means something. Valid files only.
 */
#ifndef GP_TEST_MM_REF_H
#define GP_TEST_MM_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprim.h"

typedef struct {
  int64_t rows, cols, nnz;
  int64_t *row_ptr, *col_idx; /* rows + 1 and nnz entries */
  double *values;             /* nnz values, each exactly a float when read as f32 */
} ref_csr;

/* Reads path as value_type (GPU_F32 or GPU_F64); false with why on anything it
 * does not understand. */
bool ref_read_mm(const char *path, gpu_dtype value_type, ref_csr *out, char *why, size_t why_size);
void ref_free(ref_csr *r);

/* The library's matrix A (in backend memory) read back into host arrays of
 * int64 / double, for comparison with a ref_csr. */
void ref_download(const gpu_csr *A, ref_csr *out);

/* Compares A (downloaded) with the reference entry by entry: rows, cols, nnz,
 * row_ptr, col_idx, and values bit for bit. false with where on the first
 * difference. */
bool ref_equal(const ref_csr *got, const ref_csr *want, char *where, size_t where_size);

/* A private temporary folder for one test's files (mkdtemp under /dev/shm,
 * else /tmp).
 * ref_tmp_write writes name there (len bytes, NULs allowed) and returns its
 * path, valid until ref_tmp_end, which deletes the files and the folder. */
void ref_tmp_begin(void);
const char *ref_tmp_write(const char *name, const char *text, size_t len);
const char *ref_tmp_dir(void);
void ref_tmp_end(void);

#endif
