/*
 * Text made from a parsed formula: the canonical line (a cache key) and the
 * CUDA C++ source of gp_expr_pred for NVRTC.
 *
 * The CUDA function is straight-line code, one `const T vN = ...;` per node in
 * postorder, so the tree's depth never becomes nesting in the source. Every
 * operand of an operation is a variable, which lets the guarded forms (the
 * division by zero test) name an operand twice. Nothing the user typed is
 * copied: names come from tables, numbers are re-printed (floats as exact
 * hexadecimal literals).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_lex.h"

/* A growing string; after a failed allocation it stays failed. */
typedef struct {
  char *p;
  size_t len, cap;
  bool oom;
} gp_str;

static void str_printf(gp_str *s, const char *fmt, ...) GP_PRINTF(2, 3);
static void str_printf(gp_str *s, const char *fmt, ...) {
  if (s->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->p ? s->p + s->len : NULL, s->p ? s->cap - s->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      s->oom = true;
      return;
    }
    if (s->p && s->len + (size_t)n < s->cap) {
      s->len += (size_t)n;
      return;
    }
    size_t cap = s->cap ? s->cap * 2 : 256;
    while (cap <= s->len + (size_t)n) cap *= 2;
    char *q = realloc(s->p, cap);
    if (!q) {
      s->oom = true;
      return;
    }
    s->p = q;
    s->cap = cap;
  }
}

static char *str_take(gp_str *s) {
  if (s->oom) {
    free(s->p);
    return NULL;
  }
  return s->p;
}

/* ------------------------------------------------------------- numbers */

static const char *const int_suffix[] = {"", "u", "ll", "ull"};

/* The shortest decimal that reads back as d, with '.' whatever the locale, and
 * always recognisable as a floating literal ("2.0", not "2"). */
static void print_decimal(gp_str *s, double d) {
  char tmp[64];
  int prec = 1;
  for (; prec < 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, d);
    if (strtod(tmp, NULL) == d) break;
  }
  /* %g turns 100 into "1e+02" when 1 digit is enough: below 1e17 print all
   * the integer digits instead. */
  snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
  int exp10 = atoi(strchr(tmp, 'e') + 1);
  if (exp10 >= prec && exp10 < 17) prec = exp10 + 1;
  snprintf(tmp, sizeof tmp, "%.*g", prec, d);
  const char *dp = gp_lex_decimal_point();
  size_t dplen = strlen(dp);
  char out[64];
  size_t k = 0;
  bool floating = false;
  for (const char *c = tmp; *c && k < sizeof out - 3;) {
    if (strncmp(c, dp, dplen) == 0) {
      out[k++] = '.';
      c += dplen;
      floating = true;
    } else {
      if (*c == 'e') floating = true;
      out[k++] = *c++;
    }
  }
  if (!floating) out[k++] = '.', out[k++] = '0';
  out[k] = '\0';
  str_printf(s, "%s", out);
}

/* An exact C99/C++17 hexadecimal floating literal, printed from the bits. */
static void print_hex_double(gp_str *s, double d) {
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  const char *sign = bits >> 63 ? "-" : "";
  uint64_t mant = bits & ((1ull << 52) - 1);
  int exp = (int)((bits >> 52) & 0x7ff);
  if (exp == 0 && mant == 0) str_printf(s, "%s0x0p+0", sign);
  else if (exp == 0) str_printf(s, "%s0x0.%013llxp-1022", sign, (unsigned long long)mant);
  else str_printf(s, "%s0x1.%013llxp%+d", sign, (unsigned long long)mant, exp - 1023);
}

/* ------------------------------------------------------------ canonical */

/* An in-order walk with an explicit stack (the tree may be thousands deep):
 * each node prints "pre", its first operand, "mid", its second, "post". */
gpu_status gp_expr_build_canonical(gp_expr *e) {
  gp_str s = {0};
  struct frame {
    int node, stage;
  } *stack = malloc((size_t)(2 * e->nnodes + 2) * sizeof *stack);
  int top = 0;
  if (stack) stack[top++] = (struct frame){e->root, 0};
  while (stack && top > 0) {
    struct frame f = stack[--top];
    const gp_expr_node *nd = &e->nodes[f.node];
    const char *op = gp_expr_kind_text(nd->kind);
    bool call = gp_expr_kind_is_call(nd->kind);
    if (f.stage == 0) {
      if (nd->kind == GP_N_INT) str_printf(&s, "%llu%s", (unsigned long long)nd->v.i, int_suffix[nd->type]);
      else if (nd->kind == GP_N_FLT) print_decimal(&s, nd->v.f);
      else if (nd->kind == GP_N_X) str_printf(&s, "x");
      else if (call) str_printf(&s, "%s(", op);
      else str_printf(&s, nd->b < 0 ? "(%s" : "(", op);
      if (nd->a >= 0) {
        stack[top++] = (struct frame){f.node, 1};
        stack[top++] = (struct frame){nd->a, 0};
      }
    } else if (f.stage == 1 && nd->b >= 0) {
      str_printf(&s, "%s", call ? "," : op);
      stack[top++] = (struct frame){f.node, 2};
      stack[top++] = (struct frame){nd->b, 0};
    } else {
      str_printf(&s, ")");
    }
  }
  e->canonical = stack ? str_take(&s) : NULL;
  if (!stack) free(s.p);
  free(stack);
  if (!e->canonical) return gp_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_pred_expr: no memory for the formula's text");
  return GPU_OK;
}

/* ------------------------------------------------------------ CUDA source */

static const char *const cuda_type[] = {"int", "unsigned int", "long long", "unsigned long long",
                                        "float", "double"};
static const char *const cuda_utype[] = {"unsigned int", "unsigned int", "unsigned long long",
                                         "unsigned long long", "", ""};

/* The operand `which` of node n, converted to the type the operation works in:
 * a variable name, declared first when a conversion is needed. */
static const char *operand(gp_str *s, const gp_expr *e, int n, int which, char name[32]) {
  int src = which ? e->nodes[n].b : e->nodes[n].a;
  gpu_dtype from = e->nodes[src].type, to = gp_expr_operand_type(e, n, which);
  snprintf(name, 32, "v%d", src);
  if (from == to) return name;
  static const char *const to_f32[] = {"__int2float_rn", "__uint2float_rn", "__ll2float_rn", "__ull2float_rn"};
  static const char *const to_f64[] = {"__int2double_rn", "__uint2double_rn", "__ll2double_rn",
                                       "__ull2double_rn"};
  const char *conv = to == GPU_F32 ? to_f32[from] : to == GPU_F64 && from != GPU_F32 ? to_f64[from] : NULL;
  if (conv) str_printf(s, "  const %s v%d%c = %s(v%d);\n", cuda_type[to], n, "ab"[which], conv, src);
  else str_printf(s, "  const %s v%d%c = (%s)v%d;\n", cuda_type[to], n, "ab"[which], cuda_type[to], src);
  snprintf(name, 32, "v%d%c", n, "ab"[which]);
  return name;
}

/* The IEEE class tests on the bits, immune to any fast-math flag. */
static void print_class_test(gp_str *s, gpu_dtype t, const char *a, const char *cmp) {
  if (t == GPU_F32) str_printf(s, "(__float_as_uint(%s) & 0x7fffffffu) %s 0x7f800000u", a, cmp);
  else
    str_printf(s, "((unsigned long long)__double_as_longlong(%s) & 0x7fffffffffffffffull) %s 0x7ff0000000000000ull",
               a, cmp);
}

static void print_node(gp_str *s, const gp_expr *e, int n) {
  const gp_expr_node *nd = &e->nodes[n];
  char an[32], bn[32];
  const char *A = nd->a >= 0 ? operand(s, e, n, 0, an) : "", *B = nd->b >= 0 ? operand(s, e, n, 1, bn) : "";
  gpu_dtype t = nd->optype; /* the operation's type (equal to the operand's for unary ones) */
  const char *T = cuda_type[t], *U = cuda_utype[t], *op = gp_expr_kind_text(nd->kind);
  bool flt = gp_dtype_is_float(t), sgn = gp_dtype_is_signed(t) && !flt;
  const char *fs = t == GPU_F32 ? "f" : "", *fd = t == GPU_F32 ? "__f" : "__d";
  str_printf(s, "  const %s v%d = ", cuda_type[nd->type], n);
  switch (nd->kind) {
    case GP_N_X: str_printf(s, "x"); break;
    case GP_N_INT: str_printf(s, "%llu%s", (unsigned long long)nd->v.i, int_suffix[nd->type]); break;
    case GP_N_FLT: print_hex_double(s, nd->v.f); break;
    case GP_N_PLUS: str_printf(s, "%s", A); break;
    case GP_N_NEG:
      if (flt) str_printf(s, "-%s", A);
      else str_printf(s, "(%s)((%s)0 - (%s)%s)", T, U, U, A);
      break;
    case GP_N_BITNOT: str_printf(s, "(%s)~%s", T, A); break;
    case GP_N_LNOT: str_printf(s, "(int)(%s == (%s)0)", A, T); break;
    case GP_N_ADD: case GP_N_SUB: case GP_N_MUL: {
      const char *name = nd->kind == GP_N_ADD ? "add" : nd->kind == GP_N_SUB ? "sub" : "mul";
      if (flt) str_printf(s, "%s%s_rn(%s, %s)", fd, name, A, B);
      else str_printf(s, "(%s)((%s)%s %s (%s)%s)", T, U, A, op, U, B);
      break;
    }
    case GP_N_DIV:
      if (flt) str_printf(s, "%sdiv_rn(%s, %s)", fd, A, B);
      else if (sgn) /* MIN / -1 wraps to MIN: negate through the unsigned type */
        str_printf(s, "%s == (%s)0 ? (%s)0 : %s == (%s)-1 ? (%s)((%s)0 - (%s)%s) : (%s)(%s / %s)", B, T, T, B,
                   T, T, U, U, A, T, A, B);
      else str_printf(s, "%s == (%s)0 ? (%s)0 : (%s)(%s / %s)", B, T, T, T, A, B);
      break;
    case GP_N_MOD:
      if (sgn) str_printf(s, "(%s == (%s)0 || %s == (%s)-1) ? (%s)0 : (%s)(%s %% %s)", B, T, B, T, T, T, A, B);
      else str_printf(s, "%s == (%s)0 ? (%s)0 : (%s)(%s %% %s)", B, T, T, T, A, B);
      break;
    case GP_N_SHL:
      str_printf(s, "(%s)((%s)%s << (%s & %du))", T, U, A, B, (int)gpu_dtype_size(t) * 8 - 1);
      break;
    case GP_N_SHR: /* arithmetic for signed types, as in C on every CUDA target */
      str_printf(s, "(%s)(%s >> (%s & %du))", T, A, B, (int)gpu_dtype_size(t) * 8 - 1);
      break;
    case GP_N_LT: case GP_N_LE: case GP_N_GT: case GP_N_GE: case GP_N_EQ: case GP_N_NE:
      str_printf(s, "(int)(%s %s %s)", A, op, B);
      break;
    case GP_N_BAND: case GP_N_BXOR: case GP_N_BOR: str_printf(s, "(%s)(%s %s %s)", T, A, op, B); break;
    case GP_N_LAND: case GP_N_LOR: /* both sides: nothing can fault */
      str_printf(s, "(int)((%s != (%s)0) %s (%s != (%s)0))", A, cuda_type[e->nodes[nd->a].type],
                 nd->kind == GP_N_LAND ? "&" : "|", B, cuda_type[e->nodes[nd->b].type]);
      break;
    case GP_N_ABS:
      if (flt) str_printf(s, "fabs%s(%s)", fs, A);
      else if (sgn) str_printf(s, "%s < (%s)0 ? (%s)((%s)0 - (%s)%s) : %s", A, T, T, U, U, A, A);
      else str_printf(s, "%s", A);
      break;
    case GP_N_FABS: case GP_N_FLOOR: case GP_N_CEIL: str_printf(s, "%s%s(%s)", op, fs, A); break;
    case GP_N_SQRT: str_printf(s, "%ssqrt_rn(%s)", fd, A); break;
    case GP_N_ISNAN: case GP_N_ISINF: case GP_N_ISFINITE:
      if (!flt) { /* an integer is a finite number; the operand stays "used" */
        str_printf(s, "((void)%s, %d)", A, nd->kind == GP_N_ISFINITE);
        break;
      }
      str_printf(s, "(int)(");
      print_class_test(s, t, A, nd->kind == GP_N_ISNAN ? ">" : nd->kind == GP_N_ISINF ? "==" : "<");
      str_printf(s, ")");
      break;
    case GP_N_MIN: case GP_N_MAX: {
      /* a tie returns the first operand; for floats a NaN operand wins */
      const char *lo = nd->kind == GP_N_MIN ? B : A, *hi = nd->kind == GP_N_MIN ? A : B;
      if (flt) {
        print_class_test(s, t, A, ">");
        str_printf(s, " ? %s : ", A);
        print_class_test(s, t, B, ">");
        str_printf(s, " ? %s : ", B);
      }
      str_printf(s, "(%s < %s ? %s : %s)", lo, hi, B, A);
      break;
    }
    case GP_N_COUNT: break;
  }
  str_printf(s, ";\n");
}

char *gp_expr_cuda_source(const gp_expr *e) {
  gp_str s = {0};
  str_printf(&s, "// gpuprim expression: %s\n", e->canonical);
  str_printf(&s, "__device__ __forceinline__ bool gp_expr_pred(%s x)\n{\n", cuda_type[e->t]);
  for (int n = 0; n < e->nnodes; n++) print_node(&s, e, n);
  str_printf(&s, "  return v%d != (%s)0;\n}\n", e->root, cuda_type[e->nodes[e->root].type]);
  return str_take(&s);
}
