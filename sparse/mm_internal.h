/*
 * The Matrix Market reader's pieces, in the order a read uses them:
 * the file's bytes (mm_file.c), the banner and size line (mm_header.c), the
 * entries, parsed in parallel into coordinate form (mm_entries.c, numbers in
 * mm_number.h), and the CSR built from them in backend memory (csr_build.c).
 * gpu_csr_read_mm (mm_read.c) strings them together.
 */
#ifndef GP_MM_INTERNAL_H
#define GP_MM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

/* The whole file in memory: mapped where possible, else read into a buffer. */
typedef struct {
  const char *data;
  size_t size;
  void *mapping; /* non-NULL: munmap(mapping, size) */
  char *buffer;  /* non-NULL: free(buffer) */
} gp_mm_file;

/* The cap on the bytes a read may demand, from GPUPRIM_MM_MAX_BYTES (a count
 * of bytes, with an optional K, M, G or T suffix for powers of 1024); 0 when
 * the variable is unset or empty: no cap. INVALID_ARGUMENT when it holds
 * anything else. */
gpu_status gp_mm_max_bytes(uint64_t *cap);

/* GPU_ERR_IO with "gpu_csr_read_mm: path: why" when it cannot be opened or
 * read, or is neither a regular file nor a pipe; OUT_OF_MEMORY when a pipe
 * gives more than max_bytes (0: no cap). */
gpu_status gp_mm_file_open(const char *path, uint64_t max_bytes, gp_mm_file *f);
void gp_mm_file_close(gp_mm_file *f);

typedef enum { GP_MM_REAL, GP_MM_INTEGER, GP_MM_PATTERN } gp_mm_field;
typedef enum { GP_MM_GENERAL, GP_MM_SYMMETRIC, GP_MM_SKEW_SYMMETRIC } gp_mm_symmetry;

/* What the banner and size line say, and where the entries start. */
typedef struct {
  gp_mm_field field;
  gp_mm_symmetry symmetry;
  int64_t rows, cols, nnz; /* as declared on the size line */
  size_t body;             /* offset of the line after the size line */
  int64_t body_line;       /* its 1-based line number */
  int64_t size_line;       /* the size line's number */
} gp_mm_header;

/* PARSE ("path:line: why") for a malformed banner or size line, UNSUPPORTED
 * for array, complex and hermitian files. */
gpu_status gp_mm_read_header(const char *path, const gp_mm_file *f, gp_mm_header *h);

/* The entries as the file stores them, 0-based, in file order. Values are
 * doubles holding values of the requested type exactly (an f32 value is
 * rounded to float once, from its decimal text). */
typedef struct {
  int64_t n;            /* entries in the file (== the declared nnz) */
  int64_t off_diagonal; /* how many have row != col */
  int64_t *row, *col;
  double *val;
} gp_mm_coo;

/* PARSE for any malformed entry line, a count that differs from the size
 * line's, or a value outside value_type's range; OUT_OF_MEMORY. On error
 * coo holds nothing. */
gpu_status gp_mm_read_entries(const char *path, const gp_mm_file *f, const gp_mm_header *h,
                              gpu_dtype value_type, gp_mm_coo *coo);
void gp_mm_coo_free(gp_mm_coo *coo);

/* Builds A in the current backend's memory from coo (which it frees as soon
 * as it is no longer needed): symmetric entries mirrored, rows sorted by
 * column, duplicates summed in value_type. On error nothing stays allocated
 * and A is untouched. */
gpu_status gp_csr_build(const char *path, gp_mm_coo *coo, const gp_mm_header *h,
                        gpu_dtype value_type, gpu_dtype index_type, gpu_backend b, gpu_csr *A);

#endif
