/*
 * The expression language of gpu_pred_expr: a C-like formula in x, parsed
 * and type-checked once, then evaluated over host arrays or turned into the
 * CUDA source of one device function for NVRTC. Host-side only.
 *
 * The language
 *   - Numbers: decimal integers (123), hex integers (0x7f), decimal floats
 *     (1.5 .5 2. 1e-3 1.5E+2). No suffixes, no octal (0123), no hex floats.
 *     A float literal beyond the double range is refused.
 *   - The variable x, of the element type. No other identifiers.
 *   - Operators, with C's precedence and associativity, lowest first:
 *       ||   &&   |   ^   &   == !=   < <= > >=   << >>   + -   * / %
 *     and the prefix operators - + ~ !. Parentheses group.
 *   - Functions: abs fabs floor ceil sqrt isnan isinf isfinite (one argument),
 *     min max (two).
 *   - Anything else is refused with GPU_ERR_INVALID_ARGUMENT and the 1-based
 *     column in gpu_last_error(): other names, wrong arity, = ?: ++ --,
 *     commas outside calls, stray characters, an empty formula, unbalanced
 *     parentheses, trailing junk, an integer literal too large, a formula
 *     longer than 4096 characters, parentheses, calls and prefix operators
 *     nested deeper than 64. Columns count bytes from 1; whitespace (space,
 *     tab, newline, CR, FF, VT) separates tokens and is otherwise ignored.
 *
 * Types and evaluation (C, with x of the element type; the host evaluator and
 * the generated CUDA code agree bit for bit)
 *   - Types: int32 (int), uint32 (unsigned), int64 (long long), uint64
 *     (unsigned long long), float, double. Integer literals: decimal is int,
 *     else long long (else refused); hex is int, unsigned, long long, unsigned
 *     long long, the first that holds it. Float literals are double.
 *   - C's usual arithmetic conversions for binary operators, comparisons and
 *     min/max (e.g. an int32 x compared with 0xFFFFFFFF compares as unsigned;
 *     float x times 2.5 is computed in double). Comparisons, && || ! give int
 *     0/1. A value is true when it is != 0 (NaN is true). && and || evaluate
 *     both sides, which is harmless since nothing faults.
 *   - Integer + - * and unary - wrap modulo 2^bits (computed through the
 *     unsigned type). / and % truncate toward zero; division or remainder by 0
 *     gives 0; MIN / -1 gives MIN, MIN % -1 gives 0.
 *   - Shifts: the result has the left operand's type; the count is taken
 *     modulo that type's width (count & (width - 1), so -1 means width - 1);
 *     >> is arithmetic on signed types, logical on unsigned ones.
 *   - & | ^ ~ << >> % on a floating operand are type errors, reported at the
 *     operator's column.
 *   - abs: integers wrap (abs(INT_MIN) = INT_MIN), unsigned is unchanged,
 *     floats as fabs. fabs floor ceil sqrt: float argument -> the float
 *     function (fabsf ...), any other argument is converted to double.
 *     isnan isinf isfinite give int; for an integer argument (a finite number)
 *     isnan and isinf are 0 and isfinite is 1. min/max: usual conversions;
 *     for floats a NaN operand makes the result NaN; on a tie (including
 *     -0.0 vs +0.0) the first operand is returned.
 *   - Floating arithmetic in the operands' precision (float stays float),
 *     IEEE round-to-nearest, never contracted into fused multiply-add (host
 *     files build with -ffp-contract=off; the CUDA code uses __fadd_rn etc.).
 *     Integer -> float conversions round to nearest. There is no float -> int
 *     conversion. Denormals are kept (do not compile the CUDA code with
 *     -ftz=true or --use_fast_math).
 */
#ifndef GP_COMPACT_EXPR_H
#define GP_COMPACT_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "gpuprim.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { GP_EXPR_MAX_LENGTH = 4096, GP_EXPR_MAX_NESTING = 64 };

typedef struct gp_expr gp_expr;

/* Parses and type-checks src for elements of type t. On any error returns
 * GPU_ERR_INVALID_ARGUMENT (GPU_ERR_OUT_OF_MEMORY when memory runs out) via
 * gp_fail, with a message such as
 *   "gpu_pred_expr: column 7: expected ')'" followed by the formula and a caret. */
gpu_status gp_expr_compile(const char *src, gpu_dtype t, gp_expr **out);
void gp_expr_free(gp_expr *e);
gpu_dtype gp_expr_dtype(const gp_expr *e);

/* keep[i] = (formula(in[i]) != 0) for i < n, host memory. Thread-safe (e is
 * read-only); evaluates blocks of elements through a compiled instruction list,
 * in parallel with OpenMP. */
void gp_expr_eval_host(const gp_expr *e, const void *in, size_t n, uint8_t *keep);

/* CUDA C++ source of one device function
 *   __device__ __forceinline__ bool gp_expr_pred(T x)
 * with T the element's C type, built from the parsed tree only. Self-contained
 * (no #include). malloc'd, the caller frees; NULL when memory runs out. */
char *gp_expr_cuda_source(const gp_expr *e);

/* The formula as one canonical line: no spaces, every operation parenthesised,
 * numbers re-printed (integers with their type's suffix: 7, 7u, 7ll, 7ull).
 * Equal for formulas that differ only in spacing or redundant parentheses; it
 * does not include the element type. Owned by e. */
const char *gp_expr_canonical(const gp_expr *e);

#ifdef __cplusplus
}
#endif

#endif /* GP_COMPACT_EXPR_H */
