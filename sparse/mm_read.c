/* gpu_csr_read_mm: argument checks, then file -> header -> entries -> CSR. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"

static const char fn[] = "gpu_csr_read_mm";

/* With 32-bit indices every count must fit an int32_t; the declared ones are
 * checked here, before any entry is read, the count after symmetric
 * expansion once the entries are known (gp_csr_build). */
static gpu_status check_i32_limits(const char *path, const gp_mm_header *h) {
  static const char *const names[] = {"rows", "cols", "nnz"};
  const int64_t values[] = {h->rows, h->cols, h->nnz};
  for (int k = 0; k < 3; k++)
    if (values[k] > INT32_MAX)
      return gp_fail(GPU_ERR_UNSUPPORTED,
                     "%s: %s:%lld: %s = %lld exceeds INT32_MAX = %d, the limit of GPU_I32 "
                     "indices; read it with GPU_I64",
                     fn, path, (long long)h->size_line, names[k], (long long)values[k], INT32_MAX);
  return GPU_OK;
}

gpu_status gp_mm_max_bytes(uint64_t *cap) {
  *cap = 0;
  const char *text = getenv("GPUPRIM_MM_MAX_BYTES");
  if (!text || !*text) return GPU_OK;
  char *end = NULL;
  errno = 0;
  unsigned long long count = strtoull(text, &end, 10);
  int shift = 0;
  if (*end) {
    const char *suffix = strchr("KMGT", *end);
    shift = suffix && *suffix ? 10 * (int)(suffix - "KMGT" + 1) : -1;
    end++;
  }
  if (errno || end == text || !isdigit((unsigned char)text[0]) || *end || shift < 0 ||
      count > (UINT64_MAX >> shift))
    return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                   "%s: GPUPRIM_MM_MAX_BYTES = '%.40s' is not a byte count (such as 4000000000 or 4G)",
                   fn, text);
  *cap = (uint64_t)count << shift;
  return GPU_OK;
}

/* a * b + c, saturating at UINT64_MAX (a, b, c >= 0). */
static uint64_t demand_add(uint64_t total, uint64_t count, uint64_t bytes_each) {
  if (bytes_each && count > (UINT64_MAX - total) / bytes_each) return UINT64_MAX;
  return total + count * bytes_each;
}

/* About the most host or backend memory at once that the size line lets the
 * reader demand: the coordinates (24 bytes an entry), their buckets and the
 * final arrays (per entry after symmetric expansion), and two host and one
 * final array of row starts. Refused beyond max_bytes (0: no cap) before an
 * entry is read. */
static gpu_status check_demand(const char *path, const gp_mm_header *h, gpu_dtype value_type,
                               gpu_dtype index_type, uint64_t max_bytes) {
  if (!max_bytes) return GPU_OK;
  const uint64_t isize = gpu_dtype_size(index_type), vsize = gpu_dtype_size(value_type);
  const uint64_t nnz = (uint64_t)h->nnz, rows = (uint64_t)h->rows;
  const uint64_t expanded = h->symmetry == GP_MM_GENERAL ? nnz : demand_add(nnz, nnz, 1);
  uint64_t demand = demand_add(0, nnz, 24);
  demand = demand_add(demand, expanded, 24 + isize + vsize);
  demand = demand_add(demand, rows == UINT64_MAX ? rows : rows + 1, 16 + isize);
  if (demand > max_bytes)
    return gp_fail(GPU_ERR_OUT_OF_MEMORY,
                   "%s: %s:%lld: %lld x %lld with %lld entries would take about %llu bytes, more "
                   "than GPUPRIM_MM_MAX_BYTES = %llu",
                   fn, path, (long long)h->size_line, (long long)h->rows, (long long)h->cols,
                   (long long)h->nnz, (unsigned long long)demand, (unsigned long long)max_bytes);
  return GPU_OK;
}

gpu_status gpu_csr_read_mm(const char *path, gpu_dtype value_type, gpu_dtype index_type,
                           gpu_csr *A) {
  if (!path) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: path is NULL", fn);
  if (!A) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: A is NULL", fn);
  if (value_type != GPU_F32 && value_type != GPU_F64)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: value_type %d (%s) is not GPU_F32 or GPU_F64", fn,
                   (int)value_type, gp_dtype_name(value_type));
  if (index_type != GPU_I32 && index_type != GPU_I64)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: index_type %d (%s) is not GPU_I32 or GPU_I64", fn,
                   (int)index_type, gp_dtype_name(index_type));
  gpu_backend b;
  gpu_status s = gp_backend(fn, &b);
  if (s != GPU_OK) return s;

  uint64_t max_bytes = 0;
  s = gp_mm_max_bytes(&max_bytes);
  if (s != GPU_OK) return s;

  gp_mm_file f;
  s = gp_mm_file_open(path, max_bytes, &f);
  if (s != GPU_OK) return s;
  gp_mm_header h;
  memset(&h, 0, sizeof h);
  s = gp_mm_read_header(path, &f, &h);
  if (s == GPU_OK && index_type == GPU_I32) s = check_i32_limits(path, &h);
  if (s == GPU_OK) s = check_demand(path, &h, value_type, index_type, max_bytes);
  gp_mm_coo coo;
  memset(&coo, 0, sizeof coo);
  if (s == GPU_OK) s = gp_mm_read_entries(path, &f, &h, value_type, &coo);
  gp_mm_file_close(&f); /* the text is parsed: give its memory back before building */
  if (s == GPU_OK) s = gp_csr_build(path, &coo, &h, value_type, index_type, b, A);
  gp_mm_coo_free(&coo);
  return s;
}
