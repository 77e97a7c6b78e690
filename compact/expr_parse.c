/*
 * The expression parser: recursive descent with precedence climbing for the
 * binary operators, type checking as each node is built.
 *
 * The C stack stays small whatever the input: a chain of left-associative
 * operators is a loop, the right operand of a binary operator is parsed at a
 * strictly higher precedence level (at most 10 frames), and only parentheses,
 * calls and prefix operators start over at the lowest level; they count
 * against GP_EXPR_MAX_NESTING.
 */
#include <stdlib.h>
#include <string.h>

#include "expr_lex.h"

typedef struct {
  gp_lexer lx;
  gp_expr_node *nodes;
  int n;
  int depth;
  gpu_dtype t; /* the type of x */
} parser;

static const char *const kind_text[GP_N_COUNT] = {
    [GP_N_X] = "x",        [GP_N_INT] = "",       [GP_N_FLT] = "",          [GP_N_NEG] = "-",
    [GP_N_PLUS] = "+",     [GP_N_BITNOT] = "~",   [GP_N_LNOT] = "!",        [GP_N_MUL] = "*",
    [GP_N_DIV] = "/",      [GP_N_MOD] = "%",      [GP_N_ADD] = "+",         [GP_N_SUB] = "-",
    [GP_N_SHL] = "<<",     [GP_N_SHR] = ">>",     [GP_N_LT] = "<",          [GP_N_LE] = "<=",
    [GP_N_GT] = ">",       [GP_N_GE] = ">=",      [GP_N_EQ] = "==",         [GP_N_NE] = "!=",
    [GP_N_BAND] = "&",     [GP_N_BXOR] = "^",     [GP_N_BOR] = "|",         [GP_N_LAND] = "&&",
    [GP_N_LOR] = "||",     [GP_N_ABS] = "abs",    [GP_N_FABS] = "fabs",     [GP_N_FLOOR] = "floor",
    [GP_N_CEIL] = "ceil",  [GP_N_SQRT] = "sqrt",  [GP_N_ISNAN] = "isnan",   [GP_N_ISINF] = "isinf",
    [GP_N_ISFINITE] = "isfinite", [GP_N_MIN] = "min", [GP_N_MAX] = "max",
};

const char *gp_expr_kind_text(gp_expr_kind k) { return kind_text[k]; }
bool gp_expr_kind_is_call(gp_expr_kind k) { return k >= GP_N_ABS && k <= GP_N_MAX; }

static const char *c_type_name(gpu_dtype t) {
  static const char *const names[] = {"int", "unsigned int", "long long", "unsigned long long",
                                      "float", "double"};
  return names[t];
}

gpu_dtype gp_expr_common_type(gpu_dtype a, gpu_dtype b) {
  if (a == GPU_F64 || b == GPU_F64) return GPU_F64;
  if (a == GPU_F32 || b == GPU_F32) return GPU_F32;
  if (gp_dtype_is_signed(a) == gp_dtype_is_signed(b)) return gpu_dtype_size(a) >= gpu_dtype_size(b) ? a : b;
  gpu_dtype s = gp_dtype_is_signed(a) ? a : b, u = gp_dtype_is_signed(a) ? b : a;
  /* The unsigned type wins unless the signed one is wider (long long vs unsigned). */
  return gpu_dtype_size(u) >= gpu_dtype_size(s) ? u : s;
}

gpu_dtype gp_expr_operand_type(const gp_expr *e, int n, int which) {
  const gp_expr_node *nd = &e->nodes[n];
  gpu_dtype own = e->nodes[which ? nd->b : nd->a].type;
  switch (nd->kind) {
    case GP_N_MUL: case GP_N_DIV: case GP_N_MOD: case GP_N_ADD: case GP_N_SUB:
    case GP_N_LT: case GP_N_LE: case GP_N_GT: case GP_N_GE: case GP_N_EQ: case GP_N_NE:
    case GP_N_BAND: case GP_N_BXOR: case GP_N_BOR: case GP_N_MIN: case GP_N_MAX:
    case GP_N_FABS: case GP_N_FLOOR: case GP_N_CEIL: case GP_N_SQRT:
      return nd->optype;
    case GP_N_SHL: case GP_N_SHR:
      return which ? GPU_U32 : own;
    default:
      return own;
  }
}

static int add_node(parser *p, gp_expr_kind kind, gpu_dtype type, gpu_dtype optype, int a, int b,
                    size_t pos) {
  /* The array holds one node per token, allocated up front: no overflow. */
  gp_expr_node *nd = &p->nodes[p->n];
  memset(nd, 0, sizeof *nd);
  nd->kind = kind;
  nd->type = type;
  nd->optype = optype;
  nd->a = a;
  nd->b = b;
  nd->col = (int)pos + 1;
  return p->n++;
}

static bool is_float(parser *p, int node) { return gp_dtype_is_float(p->nodes[node].type); }

static int integer_only(parser *p, size_t pos, gp_expr_kind kind, int node) {
  return gp_lex_error(&p->lx, pos, "'%s' needs integer operands, not %s", kind_text[kind],
                      c_type_name(p->nodes[node].type));
}

/* Builds the node of a binary operator, with C's result type. */
static int binary(parser *p, gp_expr_kind kind, int a, int b, size_t pos) {
  gpu_dtype ta = p->nodes[a].type, tb = p->nodes[b].type, common = gp_expr_common_type(ta, tb);
  switch (kind) {
    case GP_N_MOD: case GP_N_BAND: case GP_N_BXOR: case GP_N_BOR:
      if (is_float(p, a) || is_float(p, b)) return integer_only(p, pos, kind, is_float(p, a) ? a : b);
      return add_node(p, kind, common, common, a, b, pos);
    case GP_N_SHL: case GP_N_SHR:
      if (is_float(p, a) || is_float(p, b)) return integer_only(p, pos, kind, is_float(p, a) ? a : b);
      return add_node(p, kind, ta, ta, a, b, pos);
    case GP_N_LT: case GP_N_LE: case GP_N_GT: case GP_N_GE: case GP_N_EQ: case GP_N_NE:
      return add_node(p, kind, GPU_I32, common, a, b, pos);
    case GP_N_LAND: case GP_N_LOR:
      return add_node(p, kind, GPU_I32, GPU_I32, a, b, pos);
    default: /* + - * / */
      return add_node(p, kind, common, common, a, b, pos);
  }
}

static int prefix(parser *p, gp_expr_kind kind, int a, size_t pos) {
  gpu_dtype ta = p->nodes[a].type;
  if (kind == GP_N_BITNOT && is_float(p, a)) return integer_only(p, pos, kind, a);
  return add_node(p, kind, kind == GP_N_LNOT ? GPU_I32 : ta, ta, a, -1, pos);
}

static int call(parser *p, gp_expr_kind kind, int a, int b, size_t pos) {
  gpu_dtype ta = p->nodes[a].type;
  switch (kind) {
    case GP_N_FABS: case GP_N_FLOOR: case GP_N_CEIL: case GP_N_SQRT: {
      gpu_dtype t = ta == GPU_F32 ? GPU_F32 : GPU_F64; /* C: double functions, float twins */
      return add_node(p, kind, t, t, a, -1, pos);
    }
    case GP_N_ISNAN: case GP_N_ISINF: case GP_N_ISFINITE:
      return add_node(p, kind, GPU_I32, ta, a, -1, pos);
    case GP_N_MIN: case GP_N_MAX: {
      gpu_dtype common = gp_expr_common_type(ta, p->nodes[b].type);
      return add_node(p, kind, common, common, a, b, pos);
    }
    default: /* abs */
      return add_node(p, kind, ta, ta, a, -1, pos);
  }
}

/* Parentheses, calls and prefix operators nest; deeper than the limit is an error. */
static bool enter(parser *p, size_t pos) {
  if (++p->depth <= GP_EXPR_MAX_NESTING) return true;
  gp_lex_error(&p->lx, pos, "nested deeper than %d levels", GP_EXPR_MAX_NESTING);
  return false;
}

static int parse_binary(parser *p, int min_level);

static int expect_rparen(parser *p, const char *what) {
  if (p->lx.tok.kind == GP_TK_RPAREN) return gp_lex_next(&p->lx) ? 0 : -1;
  return gp_lex_error(&p->lx, p->lx.tok.pos, "expected %s", what);
}

static int parse_call(parser *p) {
  gp_token name = p->lx.tok;
  if (!gp_lex_next(&p->lx)) return -1;
  if (p->lx.tok.kind != GP_TK_LPAREN)
    return gp_lex_error(&p->lx, p->lx.tok.pos, "expected '(' after '%s'", kind_text[name.name]);
  if (!enter(p, name.pos) || !gp_lex_next(&p->lx)) return -1;
  int args[2] = {-1, -1}, nargs = 0;
  if (p->lx.tok.kind != GP_TK_RPAREN) {
    for (;;) {
      int arg = parse_binary(p, 1);
      if (arg < 0) return -1;
      if (nargs < 2) args[nargs] = arg;
      nargs++;
      if (p->lx.tok.kind != GP_TK_COMMA) break;
      if (!gp_lex_next(&p->lx)) return -1;
    }
  }
  if (expect_rparen(p, "',' or ')'") < 0) return -1;
  p->depth--;
  if (nargs != name.arity)
    return gp_lex_error(&p->lx, name.pos, "'%s' takes %d argument%s, not %d", kind_text[name.name],
                        name.arity, name.arity == 1 ? "" : "s", nargs);
  return call(p, name.name, args[0], args[1], name.pos);
}

static int parse_primary(parser *p) {
  gp_token t = p->lx.tok;
  switch (t.kind) {
    case GP_TK_NUM: {
      int n = add_node(p, t.numtype == GPU_F64 ? GP_N_FLT : GP_N_INT, t.numtype, t.numtype, -1, -1, t.pos);
      p->nodes[n].v = t.v;
      return gp_lex_next(&p->lx) ? n : -1;
    }
    case GP_TK_NAME:
      if (t.name != GP_N_X) return parse_call(p);
      return gp_lex_next(&p->lx) ? add_node(p, GP_N_X, p->t, p->t, -1, -1, t.pos) : -1;
    case GP_TK_LPAREN: {
      if (!enter(p, t.pos) || !gp_lex_next(&p->lx)) return -1;
      int inner = parse_binary(p, 1);
      if (inner < 0 || expect_rparen(p, "')'") < 0) return -1;
      p->depth--;
      return inner;
    }
    case GP_TK_END:
      return gp_lex_error(&p->lx, t.pos, "the formula ends where an operand is expected");
    default:
      return gp_lex_error(&p->lx, t.pos, "expected an operand");
  }
}

static int parse_unary(parser *p) {
  gp_token t = p->lx.tok;
  if (t.kind != GP_TK_OP || t.prefix < 0) return parse_primary(p);
  if (!enter(p, t.pos) || !gp_lex_next(&p->lx)) return -1;
  int a = parse_unary(p);
  if (a < 0) return -1;
  p->depth--;
  return prefix(p, t.prefix, a, t.pos);
}

/* Precedence climbing: operators of level >= min_level, left-associative. */
static int parse_binary(parser *p, int min_level) {
  int lhs = parse_unary(p);
  while (lhs >= 0 && p->lx.tok.kind == GP_TK_OP && p->lx.tok.binary >= 0 && p->lx.tok.level >= min_level) {
    gp_token op = p->lx.tok;
    if (!gp_lex_next(&p->lx)) return -1;
    int rhs = parse_binary(p, op.level + 1);
    if (rhs < 0) return -1;
    lhs = binary(p, op.binary, lhs, rhs, op.pos);
  }
  return lhs;
}

gpu_status gp_expr_compile(const char *src, gpu_dtype t, gp_expr **out) {
  static const char fn[] = "gpu_pred_expr";
  if (!out) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: out is NULL", fn);
  *out = NULL;
  if (!src) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: expression is NULL", fn);
  if (!gp_dtype_valid(t)) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown element type %d", fn, (int)t);
  size_t len = strnlen(src, GP_EXPR_MAX_LENGTH + 1);
  if (len > GP_EXPR_MAX_LENGTH)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: column %d: the formula is longer than %d characters",
                   fn, GP_EXPR_MAX_LENGTH + 1, GP_EXPR_MAX_LENGTH);
  parser p = {.lx = {.src = src, .len = len}, .t = t};
  p.nodes = malloc((len + 1) * sizeof *p.nodes);
  gp_expr *e = calloc(1, sizeof *e);
  if (!p.nodes || !e) {
    free(p.nodes);
    free(e);
    return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: no memory to parse the formula", fn);
  }
  int root = -1;
  if (gp_lex_next(&p.lx)) {
    if (p.lx.tok.kind == GP_TK_END) gp_lex_error(&p.lx, 0, "empty formula");
    else root = parse_binary(&p, 1);
  }
  if (root >= 0 && p.lx.tok.kind != GP_TK_END) {
    gp_token tk = p.lx.tok;
    root = gp_lex_error(&p.lx, tk.pos, tk.kind == GP_TK_RPAREN ? "unbalanced ')'"
                                       : tk.kind == GP_TK_COMMA ? "',' outside a function call"
                                                                : "expected an operator");
  }
  if (root < 0) {
    free(p.nodes);
    free(e);
    return GPU_ERR_INVALID_ARGUMENT;
  }
  e->t = t;
  e->nodes = p.nodes;
  e->nnodes = p.n;
  e->root = root;
  gpu_status s = gp_expr_build_canonical(e);
  if (s == GPU_OK) s = gp_expr_build_prog(e);
  if (s != GPU_OK) {
    gp_expr_free(e);
    return s;
  }
  *out = e;
  return GPU_OK;
}

void gp_expr_free(gp_expr *e) {
  if (!e) return;
  gp_expr_free_prog(e->prog);
  free(e->canonical);
  free(e->nodes);
  free(e);
}

gpu_dtype gp_expr_dtype(const gp_expr *e) { return e->t; }
const char *gp_expr_canonical(const gp_expr *e) { return e->canonical; }
