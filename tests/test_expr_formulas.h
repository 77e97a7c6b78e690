/*
 * Formulas of the expression language, as X-macro lists shared by the host
 * evaluation test (test_expr_eval.c, which also compiles each one as C to get
 * its reference) and the NVRTC test (test_expr_nvrtc.c).
 *
 * EXPR_*_C(X): X(formula) where the formula, read as C with x a variable of
 * the element type, is the reference: the C compiler itself applies C's
 * literal types and usual arithmetic conversions. They avoid what C leaves
 * undefined (the reference file is built with -fwrapv for wrapping + - *;
 * no division by 0 or -1, no shift by the width or more); functions are
 * macros in test_expr_eval.c.
 *
 * EXPR_INT_UB(Y): Y(formula, reference) for what C leaves undefined and the
 * language defines: division and remainder by 0 and -1, shifts by any count.
 */
#ifndef GP_TEST_EXPR_FORMULAS_H
#define GP_TEST_EXPR_FORMULAS_H

#include <stddef.h>

#include "gpuprim.h"

/* Fills buf with n random elements of type t, the awkward values mixed in
 * (test_expr_inputs.c). */
void expr_fill_inputs(void *buf, size_t n, gpu_dtype t);
/* Element i of in, as text (floats in hexadecimal, exact). */
const char *expr_value_text(gpu_dtype t, const void *in, size_t i, char buf[64]);

/* Every element type. */
#define EXPR_COMMON_C(X)                     \
  X(x > 3)                                   \
  X(x * 3 + 1 > 7)                           \
  X(x - 5 <= x / 2)                          \
  X((x + 1) * (x - 1) != 0)                  \
  X(!(x < 0) && x != 4 || x == -3)           \
  X(x == x)                                  \
  X(x != x)                                  \
  X(-x > 2)                                  \
  X(+x < 1.5)                                \
  X(x * 2.5 > 1.25)                          \
  X(x / 3 < 1)                               \
  X(x < 0xFFFFFFFF)                          \
  X(x > -1)                                  \
  X(x < 4294967295)                          \
  X(x * 0x80000000 != 0)                     \
  X(x + 0x7FFFFFFFFFFFFFFF < 0)              \
  X(x - 0xFFFFFFFFFFFFFFFF > 5)              \
  X(x >= 2147483648 || x <= -2147483647)     \
  X(abs(x) > 3)                              \
  X(abs(x) < 0)                              \
  X(fabs(x) < 0.5)                           \
  X(floor(x / 2) == ceil(x / 2))             \
  X(floor(x * 0.25) + ceil(-x) > 1)          \
  X(sqrt(fabs(x)) > 1.5)                     \
  X(sqrt(x) == sqrt(x))                      \
  X(isnan(x) || isinf(x))                    \
  X(isfinite(x) && x > 0)                    \
  X(isnan(x * 0) + isinf(x) * 2 == 2)        \
  X(min(x, 3) == 3)                          \
  X(max(x, -2) > 0)                          \
  X(min(x, 1.5) < 1)                         \
  X(max(x, 0x7FFFFFFF) != 0x7FFFFFFF)        \
  X(min(x, 0xFFFFFFFF) < 7)                  \
  X(max(min(x, 10), -10) * 2 > 3)            \
  X(x > 1e300 || x < -1e-300)                \
  X((x > 0) + (x < 0) * 2 == 1)              \
  X(!!x)                                     \
  X(!x)                                      \
  X(x)                                       \
  X(1)                                       \
  X(0.0)                                     \
  X(.5 + 2. + 1e-3 + 1.5E+2 < x)             \
  X(x * x * x - 2 * x * x + x > 0.1)         \
  X(x / 7 * 7 + 1 == x)

/* Integer element types only. */
#define EXPR_INT_C(X)                        \
  X((x & 0xFF) == 0x7F)                      \
  X(((x | 1) ^ (x >> 3)) > 100)              \
  X(~x < 0)                                  \
  X(~x + 1 == -x)                            \
  X(x % 7 == 3)                              \
  X(x % 7 < -3)                              \
  X((x << 3) > x)                            \
  X((x << 31) != 0)                          \
  X(x >> 5 < 3)                              \
  X(x >> 31)                                 \
  X((x ^ 0x5555) & 0xFF00)                   \
  X(x / 1000 % 10 > 4)                       \
  X((x & 1) == 0 && (x | 2) != 3 || (x ^ 4) > 8) \
  X(x * 0xFFFFFFFFFFFFFFFF > 0)              \
  X((x >> 1) + 0x80000000 > 0)               \
  X(abs(x) % 3 == 1)                         \
  X(min(x, 0x80000000) > 100)                \
  X(x * 1.0 == x)                            \
  X(x * 0.5 > 1e15)

/* Float element types only. */
#define EXPR_FLOAT_C(X)                      \
  X(x * x - 2 * x + 1 > 0.25)                \
  X(x / 0 > 0)                               \
  X(1 / x < -1e10)                           \
  X(sqrt(x) >= 0)                            \
  X(floor(x * 10) == 3)                      \
  X(min(x, 0.5) != min(x, 0.5))              \
  X(max(x, x) == x)                          \
  X(max(x, -x) == fabs(x))                   \
  X(isinf(x * 1e30))                         \
  X(x + 1e-8 > x)                            \
  X(x * 16777217 == x * 16777216)            \
  X(x < 0x7FFFFFFFFFFFFFFF && x > 0xFFFFFFFFFFFFFFFF) \
  X(x + 0.1 == x + 0.1 && x + 0.1 > 0.3)     \
  X(x * 3 == x + x + x)                      \
  X(x / 3 * 3 == x)                          \
  X(fabs(x - floor(x)) < 0.5)                \
  X(sqrt(x * x) == fabs(x))                  \
  X(isnan(min(x, 2)) == isnan(x))            \
  X(max(x, 1) + min(x, -1) > 0)              \
  X(abs(x) == fabs(x))                       \
  X(1 / min(x, -0.0) > 0)                    \
  X(1 / max(x, 0.0) < 0)                     \
  X(1 / min(-0.0, x) > 0)                    \
  X(1 / abs(x) > 0 && 1 / fabs(x) > 0)       \
  X(1 / -x < 0)

/* Integer element types: Y(formula, reference in C with the helpers of
 * test_expr_eval.c: DIV, MOD, SHL, SHR give the language's meaning). */
#define EXPR_INT_UB(Y)                                              \
  Y("x / (x & 3) > 0", DIV(x, x & 3) > 0)                           \
  Y("x % (x >> 4 & 7) != 1", MOD(x, x >> 4 & 7) != 1)               \
  Y("x / 0 == 0", DIV(x, 0) == 0)                                   \
  Y("x % 0", MOD(x, 0))                                             \
  Y("x / -1 < 0", DIV(x, -1) < 0)                                   \
  Y("x / -1 == x", DIV(x, -1) == x)                                 \
  Y("x % -1 == 0", MOD(x, -1) == 0)                                 \
  Y("(x | 1) / (x & 7 - 1) > 3", DIV(x | 1, x & 7 - 1) > 3)         \
  Y("(x >> 2) % ((x & 3) - 2) == 1", MOD(x >> 2, (x & 3) - 2) == 1) \
  Y("(x >> 2) / ((x & 3) - 2) > 2", DIV(x >> 2, (x & 3) - 2) > 2)   \
  Y("x / ((x >> 4 & 1) - 1) < 0", DIV(x, (x >> 4 & 1) - 1) < 0)     \
  Y("x % ((x >> 4 & 1) - 1) < 0", MOD(x, (x >> 4 & 1) - 1) < 0)     \
  Y("x << 33 > 0", SHL(x, 33) > 0)                                  \
  Y("x << -1 < 0", SHL(x, -1) < 0)                                  \
  Y("x >> 40 > 1", SHR(x, 40) > 1)                                  \
  Y("x >> -1 != 0", SHR(x, -1) != 0)                                \
  Y("(x << (x & 127)) > 7", SHL(x, x & 127) > 7)                    \
  Y("x >> x < 2", SHR(x, x) < 2)                                    \
  Y("1 << x > 1000", SHL(1, x) > 1000)                              \
  Y("0x80000000 >> x & 1", SHR(0x80000000, x) & 1)                  \
  Y("-1 >> 0x100000003 == -1", SHR(-1, 0x100000003) == -1)           \
  Y("x << 0xFFFFFFFFFFFFFFFF", SHL(x, 0xFFFFFFFFFFFFFFFF))

/* More formulas, as strings, for the tests that need no C reference
 * (acceptance, NVRTC, the emulated CUDA text): S("formula"). */
#define EXPR_MORE_COMMON(S)                                                    \
  S("-+-+x") S("!~0 < x") S("min(2, x) + max(x, 1)") S("x > 4.9e-324")         \
  S("(((x)))") S(" x\t+\n1 ") S("max(max(x, 1), min(2, x))") S("abs(-x) >= 0")  \
  S("0x0 + 0X7fffFFFF + 00.5e0 + 1E5 < x") S("2.") S("1.e3 < x")               \
  S("sqrt(x) * x > 1e10 || floor(x / 3.0) == x / 3") S("x * 0.1 + 1 > x / 7.0") \
  S("isfinite(x) + isnan(x) + isinf(x) == 1 && fabs(x) > 2")                   \
  S("x < 1e308 * 10") S("x * 0xFFFFFFFF != x * 4294967295")
#define EXPR_MORE_INT(S)                                                       \
  S("~~x & 1") S("x >> 1 << 1 == x") S("0xFFFFFFFFFFFFFFFF / x % 3 << 2 >> 1")   \
  S("x / (x >> 3) + x % (x & 0xF0) > x << (x >> 60)")                          \
  S("-x / -1 % -7 < abs(x) >> 2")                                              \
  S("(x * 0x9E3779B97F4A7C15 >> 7 ^ x) % 1000 < 500")                          \
  S("min(x, -x) / (x % 5 - 2) > max(x * 3, 1 << x)")                           \
  S("x % 0x80000000 + x / 0xFFFFFFFF > 7")
#define EXPR_MORE_FLOAT(S)                                                     \
  S("x != 0.0") S("x * 3.3 + x * x / 7 - sqrt(fabs(x)) > 1")                   \
  S("floor(x) + ceil(x) * 0x7FFFFFFFFFFFFFFF < 0")                             \
  S("(x * x - 1) / (x + 1) == x - 1") S("min(x * 1e30, x) + max(x / 1e-30, -x) > 0") \
  S("x + 16777217 > x + 16777216")

/* Every formula valid on all types, on integer types, on float types, as
 * string initialisers: `static const char *const f[] = {EXPR_TEXTS_COMMON};`. */
#define EXPR_TEXT_(E) #E,
#define EXPR_TEXT_UB_(F, E) F,
#define EXPR_TEXT_MORE_(F) F,
#define EXPR_TEXTS_COMMON EXPR_COMMON_C(EXPR_TEXT_) EXPR_MORE_COMMON(EXPR_TEXT_MORE_)
#define EXPR_TEXTS_INT EXPR_INT_C(EXPR_TEXT_) EXPR_INT_UB(EXPR_TEXT_UB_) EXPR_MORE_INT(EXPR_TEXT_MORE_)
#define EXPR_TEXTS_FLOAT EXPR_FLOAT_C(EXPR_TEXT_) EXPR_MORE_FLOAT(EXPR_TEXT_MORE_)

#endif /* GP_TEST_EXPR_FORMULAS_H */
