/*
 * The expression lexer: splits a formula into tokens and reports errors with
 * the column and a caret. Used by the parser (expr_parse.c) only.
 */
#ifndef GP_COMPACT_EXPR_LEX_H
#define GP_COMPACT_EXPR_LEX_H

#include "expr_internal.h"

typedef enum { GP_TK_END, GP_TK_NUM, GP_TK_NAME, GP_TK_OP, GP_TK_LPAREN, GP_TK_RPAREN, GP_TK_COMMA } gp_token_kind;

typedef struct {
  gp_token_kind kind;
  size_t pos, len;    /* where it is in the formula (0-based) */
  int binary, level;  /* GP_TK_OP: binary node kind and C precedence level (1 = ||), or -1, 0 */
  int prefix;         /* GP_TK_OP: prefix node kind, or -1 */
  int name;           /* GP_TK_NAME: GP_N_X or a function's node kind */
  int arity;          /* GP_TK_NAME: a function's number of arguments */
  gpu_dtype numtype;  /* GP_TK_NUM: GPU_F64 for floats, else the literal's integer type */
  gp_expr_value v;    /* GP_TK_NUM */
} gp_token;

typedef struct {
  const char *src;
  size_t len;
  size_t pos;     /* where the next token starts to be looked for */
  gp_token tok;   /* the current token */
  bool failed;    /* an error has been recorded; stop */
} gp_lexer;

/* Reads the next token into lx->tok; false (with the error recorded) on a
 * malformed token. */
bool gp_lex_next(gp_lexer *lx);

/* Records "gpu_pred_expr: column pos+1: why" plus the formula and a caret
 * (only the first error of a parse is kept) and returns -1. */
int gp_lex_error(gp_lexer *lx, size_t pos, const char *fmt, ...) GP_PRINTF(3, 4);

/* The locale's decimal point, which strtod and printf use ("." in "C"). */
const char *gp_lex_decimal_point(void);

#endif /* GP_COMPACT_EXPR_LEX_H */
