/* gpu_csr_read_mm: argument checks, then file -> header -> entries -> CSR. */
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

  gp_mm_file f;
  s = gp_mm_file_open(path, &f);
  if (s != GPU_OK) return s;
  gp_mm_header h;
  memset(&h, 0, sizeof h);
  s = gp_mm_read_header(path, &f, &h);
  if (s == GPU_OK && index_type == GPU_I32) s = check_i32_limits(path, &h);
  gp_mm_coo coo;
  memset(&coo, 0, sizeof coo);
  if (s == GPU_OK) s = gp_mm_read_entries(path, &f, &h, value_type, &coo);
  gp_mm_file_close(&f); /* the text is parsed: give its memory back before building */
  if (s == GPU_OK) s = gp_csr_build(path, &coo, &h, value_type, index_type, b, A);
  gp_mm_coo_free(&coo);
  return s;
}
