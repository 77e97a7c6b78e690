/*
 * What the compaction module's parts share: the meaning of gpu_pred's private
 * fields, the formula cache behind gpu_pred_expr, and the backends' entry
 * points (called with arguments already validated by compact.c).
 */
#ifndef GP_COMPACT_INTERNAL_H
#define GP_COMPACT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprim.h"
#include "expr.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * gpu_pred.private_:
 *   kind    one of gp_pred_kind (0: not made by a constructor: invalid)
 *   type    the element type (gpu_dtype)
 *   cmp     GP_PRED_CMP: the gpu_cmp
 *   status  GPU_OK, or why the constructor failed (gpu_compact returns it)
 *   a       GP_PRED_CMP: the value's bits; GP_PRED_RANGE: lo's bits
 *   b       GP_PRED_RANGE: hi's bits
 *           (bits: the element's bytes in the low bytes of a uint64_t, rest 0)
 *   ptr     GP_PRED_FLAGS: the flags array; GP_PRED_EXPR: a const gp_formula *
 */
typedef enum { GP_PRED_NONE = 0, GP_PRED_CMP, GP_PRED_RANGE, GP_PRED_FLAGS, GP_PRED_EXPR } gp_pred_kind;

/*
 * An interned formula: one entry per (type, canonical text), so "x>1" and
 * "x > (1)" share it and the CUDA backend compiles it once. The cache is
 * bounded (compact_formula.h): a call holds its formula while it runs; the
 * CUDA backend keeps its compiled module in cuda_cache.
 */
typedef struct gp_formula {
  gpu_dtype type;
  gp_expr *expr;     /* parsed and type-checked */
  void *cuda_cache;  /* owned by compact_nvrtc: compiled kernels, set once under its lock */
} gp_formula;

/* Backends. in and out hold n elements of pred's type, checked and disjoint;
 * n > 0. They return the kept count, or -(int64_t)status (message recorded). */
int64_t gp_compact_host(const void *in, size_t n, const gpu_pred *pred, void *out, bool partition);
int64_t gp_compact_cuda(const void *in, size_t n, const gpu_pred *pred, void *out, bool partition);

/* How many formulas the CUDA backend has compiled with NVRTC in this process
 * (the formula cache test counts them). */
uint64_t gp_compact_nvrtc_compiles(void);
/* Builds formula f's kernels for sm_<sm> with NVRTC without loading them
 * (needs no GPU): a test that the embedded kernel source compiles. */
gpu_status gp_compact_nvrtc_build(const gp_formula *f, int sm);

#ifdef __cplusplus
}
#endif

#endif /* GP_COMPACT_INTERNAL_H */
