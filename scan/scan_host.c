/*
 * Host scan and reduce: chunks of a fixed size (not one per thread), so the
 * combination order, and with it every float result, does not depend on how
 * many threads OpenMP runs.
 *
 *   1. fold each chunk (parallel)
 *   2. exclusive scan of the chunk totals (serial, in order)
 *   3. scan each chunk starting from its prefix (parallel)
 *
 * REVERSE reads logical element j at physical index n-1-j.
 */
#include <stdlib.h>
#include <string.h>

#include "core/host_parallel.h"
#include "scan_host.h"
#include "scan_host_ops.h"

enum { CHUNK = 1 << 16 };

#define PHYS(j) (reverse ? n - 1 - (j) : (j))

#define GP_DEFINE_HOST_SCAN(D, T, S, OP, NAME)                                               \
  static gpu_status scan_##NAME##_##S(const void *vin, void *vout, size_t n, unsigned flags) { \
    const T *in = vin;                                                                       \
    T *out = vout;                                                                           \
    const int reverse = (flags & GPU_REVERSE) != 0, exclusive = (flags & GPU_EXCLUSIVE) != 0; \
    T identity;                                                                              \
    gp_identity(D, OP, &identity);                                                           \
    size_t chunks = (n + CHUNK - 1) / CHUNK;                                                 \
    T *prefix = malloc((chunks ? chunks : 1) * sizeof(T));                                   \
    if (!prefix)                                                                             \
      return gp_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_scan: %zu chunk totals", chunks);          \
    _Pragma("omp parallel for schedule(static) if (chunks > 1 && gp_host_parallel(n))")       \
    for (size_t c = 0; c < chunks; c++) {                                                    \
      size_t lo = c * CHUNK, hi = lo + CHUNK < n ? lo + CHUNK : n;                           \
      T acc = in[PHYS(lo)];                                                                  \
      for (size_t j = lo + 1; j < hi; j++) acc = gp_##NAME##_##S(acc, in[PHYS(j)]);          \
      prefix[c] = acc;                                                                       \
    }                                                                                        \
    T run = identity;                                                                        \
    for (size_t c = 0; c < chunks; c++) {                                                    \
      T total = prefix[c];                                                                   \
      prefix[c] = run;                                                                       \
      run = c == 0 ? total : gp_##NAME##_##S(run, total);                                    \
    }                                                                                        \
    _Pragma("omp parallel for schedule(static) if (chunks > 1 && gp_host_parallel(n))")       \
    for (size_t c = 0; c < chunks; c++) {                                                    \
      size_t lo = c * CHUNK, hi = lo + CHUNK < n ? lo + CHUNK : n;                           \
      T acc = prefix[c];                                                                     \
      for (size_t j = lo; j < hi; j++) {                                                     \
        size_t p = PHYS(j);                                                                  \
        T x = in[p];                                                                         \
        T next = j == 0 ? x : gp_##NAME##_##S(acc, x);                                       \
        out[p] = exclusive ? acc : next;                                                     \
        acc = next;                                                                          \
      }                                                                                      \
    }                                                                                        \
    free(prefix);                                                                            \
    return GPU_OK;                                                                           \
  }                                                                                          \
  static void reduce_##NAME##_##S(const void *vin, size_t n, void *result) {                 \
    const T *in = vin;                                                                       \
    size_t chunks = (n + CHUNK - 1) / CHUNK;                                                 \
    T total;                                                                                 \
    gp_identity(D, OP, &total);                                                              \
    T partial[64];                                                                           \
    /* Fold groups of up to 64 chunks in parallel, then the groups in order. */             \
    for (size_t g = 0; g < chunks; g += 64) {                                                \
      size_t m = chunks - g < 64 ? chunks - g : 64;                                          \
      _Pragma("omp parallel for schedule(static) if (m > 1 && gp_host_parallel(n))")          \
      for (size_t c = 0; c < m; c++) {                                                       \
        size_t lo = (g + c) * CHUNK, hi = lo + CHUNK < n ? lo + CHUNK : n;                   \
        T acc = in[lo];                                                                      \
        for (size_t j = lo + 1; j < hi; j++) acc = gp_##NAME##_##S(acc, in[j]);              \
        partial[c] = acc;                                                                    \
      }                                                                                      \
      for (size_t c = 0; c < m; c++)                                                         \
        total = (g == 0 && c == 0) ? partial[0] : gp_##NAME##_##S(total, partial[c]);        \
    }                                                                                        \
    memcpy(result, &total, sizeof total);                                                    \
  }
GP_HOST_TYPE_OPS(GP_DEFINE_HOST_SCAN)
#undef GP_DEFINE_HOST_SCAN

typedef gpu_status (*scan_fn)(const void *, void *, size_t, unsigned);
typedef void (*reduce_fn)(const void *, size_t, void *);

#define GP_SCAN_ENTRY(D, T, S, OP, NAME) [D][OP] = scan_##NAME##_##S,
#define GP_REDUCE_ENTRY(D, T, S, OP, NAME) [D][OP] = reduce_##NAME##_##S,
static const scan_fn scan_table[GPU_F64 + 1][GPU_XOR + 1] = {GP_HOST_TYPE_OPS(GP_SCAN_ENTRY)};
static const reduce_fn reduce_table[GPU_F64 + 1][GPU_XOR + 1] = {GP_HOST_TYPE_OPS(GP_REDUCE_ENTRY)};

gpu_status gp_scan_host(const void *in, void *out, size_t n, gpu_dtype t, gpu_op op,
                        unsigned flags) {
  if (n == 0) return GPU_OK;
  return scan_table[t][op](in, out, n, flags);
}

void gp_reduce_host(const void *in, size_t n, gpu_dtype t, gpu_op op, void *result) {
  if (n == 0) {
    gp_identity(t, op, result);
    return;
  }
  reduce_table[t][op](in, n, result);
}
