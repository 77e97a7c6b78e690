/*
 * What the expression files share: the parsed tree and the gp_expr object.
 *
 * The tree is an array of nodes in postorder (the parser appends a node after
 * its operands), so every operand has a smaller index than its user and a
 * single forward loop visits operands before users: the host compiler and the
 * CUDA generator need no recursion however deep the tree is.
 */
#ifndef GP_COMPACT_EXPR_INTERNAL_H
#define GP_COMPACT_EXPR_INTERNAL_H

#include <stdbool.h>

#include "core/core.h"
#include "expr.h"

typedef enum {
  /* leaves */
  GP_N_X, GP_N_INT, GP_N_FLT,
  /* prefix operators */
  GP_N_NEG, GP_N_PLUS, GP_N_BITNOT, GP_N_LNOT,
  /* binary operators */
  GP_N_MUL, GP_N_DIV, GP_N_MOD, GP_N_ADD, GP_N_SUB, GP_N_SHL, GP_N_SHR,
  GP_N_LT, GP_N_LE, GP_N_GT, GP_N_GE, GP_N_EQ, GP_N_NE,
  GP_N_BAND, GP_N_BXOR, GP_N_BOR, GP_N_LAND, GP_N_LOR,
  /* functions */
  GP_N_ABS, GP_N_FABS, GP_N_FLOOR, GP_N_CEIL, GP_N_SQRT,
  GP_N_ISNAN, GP_N_ISINF, GP_N_ISFINITE, GP_N_MIN, GP_N_MAX,
  GP_N_COUNT
} gp_expr_kind;

typedef union {
  uint64_t i; /* GP_N_INT: the value, as unsigned bits */
  double f;   /* GP_N_FLT */
} gp_expr_value;

typedef struct {
  gp_expr_kind kind;
  gpu_dtype type;   /* the type of the node's value */
  gpu_dtype optype; /* the type the operation works in; see gp_expr_operand_type */
  int a, b;         /* operand nodes, -1 when absent */
  int col;          /* 1-based column of the operator, name or literal */
  gp_expr_value v;
} gp_expr_node;

typedef struct gp_expr_prog gp_expr_prog; /* the host instruction list (expr_host.c) */

struct gp_expr {
  gpu_dtype t;
  int nnodes, root;
  gp_expr_node *nodes;
  char *canonical;
  gp_expr_prog *prog;
};

/* The operator's spelling in C: "+", "<=", "abs"; "" for leaves. */
const char *gp_expr_kind_text(gp_expr_kind k);
bool gp_expr_kind_is_call(gp_expr_kind k);

/* C's usual arithmetic conversions: the common type of two operands. */
gpu_dtype gp_expr_common_type(gpu_dtype a, gpu_dtype b);

/* The type operand `which` (0: a, 1: b) of node n is converted to before the
 * operation; equal to the operand's own type when there is no conversion.
 * Shift counts go to uint32 (only their low bits matter). */
gpu_dtype gp_expr_operand_type(const gp_expr *e, int n, int which);

/* The canonical text (expr_text.c) and the host program (expr_host.c), built
 * by gp_expr_compile from a checked tree. */
gpu_status gp_expr_build_canonical(gp_expr *e);
gpu_status gp_expr_build_prog(gp_expr *e);
void gp_expr_free_prog(gp_expr_prog *p);

#endif /* GP_COMPACT_EXPR_INTERNAL_H */
