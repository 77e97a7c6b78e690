/*
 * Host evaluation of a parsed formula. The tree is compiled once into a list
 * of instructions, each a typed loop over a block of elements
 * (out[i] = a[i] op b[i]); evaluating a block runs the list, so the per-node
 * dispatch is paid once per block, not once per element, and the loops
 * vectorise where the operation allows.
 *
 * Intermediate blocks live in "slots" of scratch memory, reused as soon as
 * their value is consumed (register allocation over the postorder), so the
 * scratch a thread needs is a few slots, not one per node. An instruction
 * never writes a slot it reads, which makes the restrict qualifiers true.
 *
 * The semantics are those of expr.h, written to match the CUDA text of
 * expr_text.c operation by operation. This file is compiled with
 * -ffp-contract=off: no a * b + c may become a fused multiply-add.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/host_parallel.h"
#include "expr_internal.h"

typedef void (*gp_kernel)(const void *restrict a, const void *restrict b, void *restrict out, size_t n,
                          gp_expr_value v);

enum { REF_NONE = -3, REF_KEEP = -2, REF_X = -1 }; /* else a slot index */
enum { MAX_SLOTS = 1024, BLOCK = 1024, SCRATCH_ELEMS = 128 * 1024 };

typedef struct {
  gp_kernel run;
  int a, b, out;
  gp_expr_value v; /* fills: the constant */
} gp_instr;

struct gp_expr_prog {
  gp_instr *ins;
  int nins, nslots;
  size_t block;
};

/* ------------------------------------------------------------- kernels */

#define K2(NAME, TA, TB, TO, EXPR)                                                              \
  static void NAME(const void *restrict va, const void *restrict vb, void *restrict vo, size_t n, \
                   gp_expr_value v) {                                                           \
    const TA *restrict A = va;                                                                  \
    const TB *restrict B = vb;                                                                  \
    TO *restrict O = vo;                                                                        \
    (void)v;                                                                                    \
    for (size_t i = 0; i < n; i++) {                                                            \
      TA a = A[i];                                                                              \
      TB b = B[i];                                                                              \
      O[i] = (TO)(EXPR);                                                                        \
    }                                                                                           \
  }
#define K1(NAME, TA, TO, EXPR)                                                                  \
  static void NAME(const void *restrict va, const void *restrict vb, void *restrict vo, size_t n, \
                   gp_expr_value v) {                                                           \
    const TA *restrict A = va;                                                                  \
    TO *restrict O = vo;                                                                        \
    (void)vb;                                                                                   \
    (void)v;                                                                                    \
    for (size_t i = 0; i < n; i++) {                                                            \
      TA a = A[i];                                                                              \
      O[i] = (TO)(EXPR);                                                                        \
    }                                                                                           \
  }
#define FILL(NAME, TO, VALUE)                                                                   \
  static void NAME(const void *restrict va, const void *restrict vb, void *restrict vo, size_t n, \
                   gp_expr_value v) {                                                           \
    TO *restrict O = vo;                                                                        \
    (void)va;                                                                                   \
    (void)vb;                                                                                   \
    for (size_t i = 0; i < n; i++) O[i] = (TO)(VALUE);                                          \
  }

/* Integers: + - * and negation wrap through the unsigned type U; shift counts
 * arrive as uint32 and are taken modulo the width W. */
#define INT_KERNELS(S, T, U, W)                                \
  K2(k_add_##S, T, T, T, (U)a + (U)b)                          \
  K2(k_sub_##S, T, T, T, (U)a - (U)b)                          \
  K2(k_mul_##S, T, T, T, (U)a * (U)b)                          \
  K2(k_band_##S, T, T, T, a & b)                               \
  K2(k_bor_##S, T, T, T, a | b)                                \
  K2(k_bxor_##S, T, T, T, a ^ b)                               \
  K2(k_shl_##S, T, uint32_t, T, (U)a << (b & (W - 1)))         \
  K2(k_shr_##S, T, uint32_t, T, a >> (b & (W - 1)))            \
  K2(k_min_##S, T, T, T, b < a ? b : a)                        \
  K2(k_max_##S, T, T, T, a < b ? b : a)                        \
  K1(k_neg_##S, T, T, (U)0 - (U)a)                             \
  K1(k_bitnot_##S, T, T, ~a)                                   \
  FILL(k_fill_##S, T, v.i)
/* Division and remainder never fault: by 0 gives 0, MIN / -1 wraps to MIN. */
#define SIGNED_KERNELS(S, T, U)                                                   \
  K2(k_div_##S, T, T, T, b == 0 ? 0 : b == -1 ? (T)((U)0 - (U)a) : a / b)         \
  K2(k_mod_##S, T, T, T, b == 0 || b == -1 ? 0 : a % b)                           \
  K1(k_abs_##S, T, T, a < 0 ? (T)((U)0 - (U)a) : a)
#define UNSIGNED_KERNELS(S, T)                     \
  K2(k_div_##S, T, T, T, b == 0 ? 0 : a / b)       \
  K2(k_mod_##S, T, T, T, b == 0 ? 0 : a % b)       \
  K1(k_abs_##S, T, T, a)
/* Floats: IEEE in their own precision; min/max let a NaN through and keep the
 * first operand on a tie. F is the C function suffix ("f" for float). */
#define FLOAT_KERNELS(S, T, F)                                                  \
  K2(k_add_##S, T, T, T, a + b)                                                 \
  K2(k_sub_##S, T, T, T, a - b)                                                 \
  K2(k_mul_##S, T, T, T, a * b)                                                 \
  K2(k_div_##S, T, T, T, a / b)                                                 \
  K2(k_min_##S, T, T, T, isnan(a) ? a : isnan(b) ? b : b < a ? b : a)           \
  K2(k_max_##S, T, T, T, isnan(a) ? a : isnan(b) ? b : a < b ? b : a)           \
  K1(k_neg_##S, T, T, -a)                                                       \
  K1(k_abs_##S, T, T, fabs##F(a))                                               \
  K1(k_floor_##S, T, T, floor##F(a))                                            \
  K1(k_ceil_##S, T, T, ceil##F(a))                                              \
  K1(k_sqrt_##S, T, T, sqrt##F(a))                                              \
  K1(k_isnan_##S, T, int32_t, isnan(a) != 0)                                    \
  K1(k_isinf_##S, T, int32_t, isinf(a) != 0)                                    \
  K1(k_isfinite_##S, T, int32_t, isfinite(a) != 0)
/* Every type: comparisons and truth values give int 0/1. */
#define ALL_KERNELS(S, T)                       \
  K2(k_lt_##S, T, T, int32_t, a < b)            \
  K2(k_le_##S, T, T, int32_t, a <= b)           \
  K2(k_gt_##S, T, T, int32_t, a > b)            \
  K2(k_ge_##S, T, T, int32_t, a >= b)           \
  K2(k_eq_##S, T, T, int32_t, a == b)           \
  K2(k_ne_##S, T, T, int32_t, a != b)           \
  K1(k_lnot_##S, T, int32_t, a == 0)            \
  K1(k_truth_##S, T, int32_t, a != 0)           \
  K1(k_store_##S, T, uint8_t, a != 0)

INT_KERNELS(i32, int32_t, uint32_t, 32)
INT_KERNELS(u32, uint32_t, uint32_t, 32)
INT_KERNELS(i64, int64_t, uint64_t, 64)
INT_KERNELS(u64, uint64_t, uint64_t, 64)
SIGNED_KERNELS(i32, int32_t, uint32_t)
SIGNED_KERNELS(i64, int64_t, uint64_t)
UNSIGNED_KERNELS(u32, uint32_t)
UNSIGNED_KERNELS(u64, uint64_t)
FLOAT_KERNELS(f32, float, f)
FLOAT_KERNELS(f64, double, )
FILL(k_fill_f64, double, v.f)
ALL_KERNELS(i32, int32_t)
ALL_KERNELS(u32, uint32_t)
ALL_KERNELS(i64, int64_t)
ALL_KERNELS(u64, uint64_t)
ALL_KERNELS(f32, float)
ALL_KERNELS(f64, double)

/* Conversions: integer to integer (modulo), integer to float (round to
 * nearest, C's cast), float to double (exact). Named k_<from>_<to>. */
#define CONV_FROM_INT(S, T)                                                     \
  K1(k_##S##_i32, T, int32_t, a) K1(k_##S##_u32, T, uint32_t, a)                \
  K1(k_##S##_i64, T, int64_t, a) K1(k_##S##_u64, T, uint64_t, a)                \
  K1(k_##S##_f32, T, float, a) K1(k_##S##_f64, T, double, a)
CONV_FROM_INT(i32, int32_t)
CONV_FROM_INT(u32, uint32_t)
CONV_FROM_INT(i64, int64_t)
CONV_FROM_INT(u64, uint64_t)
K1(k_f32_f64, float, double, a)

#define ROW_ALL(K) {k_##K##_i32, k_##K##_u32, k_##K##_i64, k_##K##_u64, k_##K##_f32, k_##K##_f64}
#define ROW_INT(K) {k_##K##_i32, k_##K##_u32, k_##K##_i64, k_##K##_u64, NULL, NULL}
#define ROW_FLT(K) {NULL, NULL, NULL, NULL, k_##K##_f32, k_##K##_f64}

/* The loop of each operation, by node kind and the type it works in. */
static const gp_kernel op_kernels[GP_N_COUNT][6] = {
    [GP_N_NEG] = ROW_ALL(neg),     [GP_N_BITNOT] = ROW_INT(bitnot), [GP_N_LNOT] = ROW_ALL(lnot),
    [GP_N_MUL] = ROW_ALL(mul),     [GP_N_DIV] = ROW_ALL(div),       [GP_N_MOD] = ROW_INT(mod),
    [GP_N_ADD] = ROW_ALL(add),     [GP_N_SUB] = ROW_ALL(sub),       [GP_N_SHL] = ROW_INT(shl),
    [GP_N_SHR] = ROW_INT(shr),     [GP_N_LT] = ROW_ALL(lt),         [GP_N_LE] = ROW_ALL(le),
    [GP_N_GT] = ROW_ALL(gt),       [GP_N_GE] = ROW_ALL(ge),         [GP_N_EQ] = ROW_ALL(eq),
    [GP_N_NE] = ROW_ALL(ne),       [GP_N_BAND] = ROW_INT(band),     [GP_N_BXOR] = ROW_INT(bxor),
    [GP_N_BOR] = ROW_INT(bor),     [GP_N_ABS] = ROW_ALL(abs),       [GP_N_FABS] = ROW_FLT(abs),
    [GP_N_FLOOR] = ROW_FLT(floor), [GP_N_CEIL] = ROW_FLT(ceil),     [GP_N_SQRT] = ROW_FLT(sqrt),
    [GP_N_ISNAN] = ROW_FLT(isnan), [GP_N_ISINF] = ROW_FLT(isinf),   [GP_N_ISFINITE] = ROW_FLT(isfinite),
    [GP_N_MIN] = ROW_ALL(min),     [GP_N_MAX] = ROW_ALL(max),
};
static const gp_kernel truth_kernels[6] = ROW_ALL(truth);
static const gp_kernel store_kernels[6] = ROW_ALL(store);
static const gp_kernel fill_kernels[6] = {k_fill_i32, k_fill_u32, k_fill_i64, k_fill_u64, NULL, k_fill_f64};
static const gp_kernel conv_kernels[6][6] = {
    ROW_ALL(i32), ROW_ALL(u32), ROW_ALL(i64), ROW_ALL(u64),
    {NULL, NULL, NULL, NULL, NULL, k_f32_f64},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

/* ------------------------------------------------------------- compiler */

typedef struct {
  gp_expr_prog *p;
  int free_slots[MAX_SLOTS], nfree;
  bool failed;
} builder;

static int take_slot(builder *bd) {
  if (bd->nfree > 0) return bd->free_slots[--bd->nfree];
  if (bd->p->nslots < MAX_SLOTS) return bd->p->nslots++;
  bd->failed = true;
  return 0;
}

static void give_slot(builder *bd, int ref) {
  if (ref >= 0 && bd->nfree < MAX_SLOTS) bd->free_slots[bd->nfree++] = ref;
}

static void emit(builder *bd, gp_kernel run, int a, int b, int out, gp_expr_value v) {
  if (!run) bd->failed = true; /* cannot happen after type checking */
  bd->p->ins[bd->p->nins++] = (gp_instr){run, a, b, out, v};
}

/* A value of type `from` at ref, as a value of type `to`: ref itself, or a
 * new slot holding the converted value (ref is released). */
static int convert(builder *bd, int ref, gpu_dtype from, gpu_dtype to) {
  if (from == to) return ref;
  int out = take_slot(bd);
  emit(bd, conv_kernels[from][to], ref, REF_NONE, out, (gp_expr_value){0});
  give_slot(bd, ref);
  return out;
}

/* One operation: operands converted, the result in a fresh slot. */
static int operation(builder *bd, gp_kernel run, int a, int b, gp_expr_value v) {
  int out = take_slot(bd);
  emit(bd, run, a, b, out, v);
  give_slot(bd, a);
  give_slot(bd, b);
  return out;
}

/* Whether the node's value is already 0 or 1 (an int), as && and || need. */
static bool is_truth_value(const gp_expr_node *nd) {
  switch (nd->kind) {
    case GP_N_LNOT: case GP_N_LT: case GP_N_LE: case GP_N_GT: case GP_N_GE: case GP_N_EQ: case GP_N_NE:
    case GP_N_LAND: case GP_N_LOR: case GP_N_ISNAN: case GP_N_ISINF: case GP_N_ISFINITE:
      return true;
    default:
      return false;
  }
}

gpu_status gp_expr_build_prog(gp_expr *e) {
  builder *bd = calloc(1, sizeof *bd);
  gp_expr_prog *p = calloc(1, sizeof *p);
  int *ref = malloc((size_t)e->nnodes * sizeof *ref);
  if (p) p->ins = malloc((size_t)(3 * e->nnodes + 1) * sizeof *p->ins);
  if (!bd || !p || !ref || !p->ins) {
    free(bd);
    free(ref);
    gp_expr_free_prog(p);
    return gp_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_pred_expr: no memory to compile the formula");
  }
  bd->p = p;
  const gp_expr_value none = {0};
  for (int n = 0; n < e->nnodes; n++) {
    const gp_expr_node *nd = &e->nodes[n];
    int a = nd->a >= 0 ? ref[nd->a] : REF_NONE, b = nd->b >= 0 ? ref[nd->b] : REF_NONE;
    gpu_dtype ta = nd->a >= 0 ? e->nodes[nd->a].type : nd->type;
    switch (nd->kind) {
      case GP_N_X: ref[n] = REF_X; break;
      case GP_N_INT: case GP_N_FLT: ref[n] = operation(bd, fill_kernels[nd->type], REF_NONE, REF_NONE, nd->v); break;
      case GP_N_PLUS: ref[n] = a; break;
      case GP_N_LAND: case GP_N_LOR: /* & or | of the operands' truth values (0/1) */
        a = is_truth_value(&e->nodes[nd->a]) ? a : operation(bd, truth_kernels[ta], a, REF_NONE, none);
        b = is_truth_value(&e->nodes[nd->b]) ? b
                                             : operation(bd, truth_kernels[e->nodes[nd->b].type], b, REF_NONE, none);
        ref[n] = operation(bd, op_kernels[nd->kind == GP_N_LAND ? GP_N_BAND : GP_N_BOR][GPU_I32], a, b, none);
        break;
      case GP_N_ISNAN: case GP_N_ISINF: case GP_N_ISFINITE:
        if (!gp_dtype_is_float(ta)) { /* an integer is a finite number */
          give_slot(bd, a);
          ref[n] = operation(bd, k_fill_i32, REF_NONE, REF_NONE, (gp_expr_value){.i = nd->kind == GP_N_ISFINITE});
          break;
        }
        /* fall through */
      default:
        a = convert(bd, a, ta, gp_expr_operand_type(e, n, 0));
        if (nd->b >= 0) b = convert(bd, b, e->nodes[nd->b].type, gp_expr_operand_type(e, n, 1));
        ref[n] = operation(bd, op_kernels[nd->kind][nd->optype], a, b, none);
    }
  }
  emit(bd, store_kernels[e->nodes[e->root].type], ref[e->root], REF_NONE, REF_KEEP, none);
  bool failed = bd->failed;
  free(bd);
  free(ref);
  e->prog = p;
  if (failed)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "gpu_pred_expr: column 1: the formula needs more than %d "
                   "intermediate values", MAX_SLOTS);
  /* Blocks of BLOCK elements, fewer when many slots would make the scratch large. */
  p->block = BLOCK;
  if ((size_t)p->nslots * BLOCK > SCRATCH_ELEMS) p->block = (SCRATCH_ELEMS / (size_t)p->nslots) & ~(size_t)63;
  return GPU_OK;
}

void gp_expr_free_prog(gp_expr_prog *p) {
  if (!p) return;
  free(p->ins);
  free(p);
}

/* ------------------------------------------------------------- evaluation */

static void run_block(const gp_expr_prog *p, const void *x, size_t m, uint64_t *scratch, size_t stride,
                      uint8_t *keep) {
  for (int k = 0; k < p->nins; k++) {
    const gp_instr *in = &p->ins[k];
    const void *a = in->a == REF_X ? x : in->a >= 0 ? (const void *)(scratch + (size_t)in->a * stride) : NULL;
    const void *b = in->b == REF_X ? x : in->b >= 0 ? (const void *)(scratch + (size_t)in->b * stride) : NULL;
    void *out = in->out == REF_KEEP ? (void *)keep : (void *)(scratch + (size_t)in->out * stride);
    in->run(a, b, out, m, in->v);
  }
}

void gp_expr_eval_host(const gp_expr *e, const void *in, size_t n, uint8_t *keep) {
  if (n == 0) return;
  const gp_expr_prog *p = e->prog;
  size_t w = gpu_dtype_size(e->t), block = p->block, nblocks = (n + block - 1) / block;
#pragma omp parallel if (nblocks >= 4 && gp_host_parallel(n))
  {
    /* Without memory for whole blocks, one element at a time in a stack buffer. */
    uint64_t one[MAX_SLOTS];
    size_t step = block;
    uint64_t *scratch = p->nslots ? malloc((size_t)p->nslots * block * sizeof(uint64_t)) : one;
    if (!scratch) scratch = one, step = 1;
#pragma omp for schedule(static)
    for (size_t blk = 0; blk < nblocks; blk++) {
      size_t lo = blk * block, hi = lo + block < n ? lo + block : n;
      for (size_t s = lo; s < hi; s += step)
        run_block(p, (const char *)in + s * w, hi - s < step ? hi - s : step, scratch, step, keep + s);
    }
    if (scratch != one) free(scratch);
  }
}
