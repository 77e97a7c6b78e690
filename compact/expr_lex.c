/*
 * The expression lexer. Numbers are read the way a C compiler does: first the
 * longest "preprocessing number" (digits, letters, '.', and a sign after an
 * exponent letter), which is then either a whole valid literal or refused, so
 * that "1.5f", "0x1e+1" and "12abc" are errors rather than two tokens.
 * Characters are classified by hand, not with <ctype.h>, so that the
 * language does not change with the locale.
 */
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_lex.h"

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
static int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

const char *gp_lex_decimal_point(void) {
  const char *dp = localeconv()->decimal_point;
  return dp && *dp ? dp : ".";
}

int gp_lex_error(gp_lexer *lx, size_t pos, const char *fmt, ...) {
  if (lx->failed) return -1;
  lx->failed = true;
  char why[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  /* A window of at most WIDTH characters around the column, "..." where cut,
   * control characters shown as spaces so that the caret lines up. */
  enum { WIDTH = 72 };
  size_t start = 0, end = lx->len;
  if (lx->len > WIDTH) {
    start = pos > WIDTH / 2 ? pos - WIDTH / 2 : 0;
    if (start > lx->len - WIDTH) start = lx->len - WIDTH;
    end = start + WIDTH;
  }
  char line[WIDTH + 8], caret[WIDTH + 8];
  size_t k = 0;
  if (start > 0) k += (size_t)snprintf(line, sizeof line, "...");
  size_t caret_at = k + (pos - start);
  for (size_t i = start; i < end; i++) {
    unsigned char c = (unsigned char)lx->src[i];
    line[k++] = c < 32 || c >= 127 ? ' ' : (char)c;
  }
  if (end < lx->len) k += (size_t)snprintf(line + k, sizeof line - k, "...");
  line[k] = '\0';
  memset(caret, ' ', caret_at);
  caret[caret_at] = '^';
  caret[caret_at + 1] = '\0';
  gp_fail(GPU_ERR_INVALID_ARGUMENT, "gpu_pred_expr: column %zu: %s\n  %s\n  %s", pos + 1, why, line,
          caret);
  return -1;
}

/* Operators, longest spellings first so that "<=" wins over "<". */
static const struct {
  const char *text;
  int binary, level, prefix;
} ops[] = {
    {"||", GP_N_LOR, 1, -1},   {"&&", GP_N_LAND, 2, -1}, {"==", GP_N_EQ, 6, -1},
    {"!=", GP_N_NE, 6, -1},    {"<=", GP_N_LE, 7, -1},   {">=", GP_N_GE, 7, -1},
    {"<<", GP_N_SHL, 8, -1},   {">>", GP_N_SHR, 8, -1},  {"|", GP_N_BOR, 3, -1},
    {"^", GP_N_BXOR, 4, -1},   {"&", GP_N_BAND, 5, -1},  {"<", GP_N_LT, 7, -1},
    {">", GP_N_GT, 7, -1},     {"+", GP_N_ADD, 9, GP_N_PLUS}, {"-", GP_N_SUB, 9, GP_N_NEG},
    {"*", GP_N_MUL, 10, -1},   {"/", GP_N_DIV, 10, -1},  {"%", GP_N_MOD, 10, -1},
    {"~", -1, 0, GP_N_BITNOT}, {"!", -1, 0, GP_N_LNOT},
};

static const struct {
  const char *name;
  int kind, arity;
} names[] = {
    {"x", GP_N_X, 0},          {"abs", GP_N_ABS, 1},     {"fabs", GP_N_FABS, 1},
    {"floor", GP_N_FLOOR, 1},  {"ceil", GP_N_CEIL, 1},   {"sqrt", GP_N_SQRT, 1},
    {"isnan", GP_N_ISNAN, 1},  {"isinf", GP_N_ISINF, 1}, {"isfinite", GP_N_ISFINITE, 1},
    {"min", GP_N_MIN, 2},      {"max", GP_N_MAX, 2},
};

static bool lex_int(gp_lexer *lx, const char *s, size_t len, int base) {
  gp_token *t = &lx->tok;
  uint64_t v = 0, limit = base == 16 ? UINT64_MAX : (uint64_t)INT64_MAX;
  for (size_t i = base == 16 ? 2 : 0; i < len; i++) {
    uint64_t d = (uint64_t)hex_value(s[i]);
    if (v > (limit - d) / (uint64_t)base)
      return gp_lex_error(lx, t->pos, "integer literal too large for %s",
                          base == 16 ? "unsigned long long" : "long long"), false;
    v = v * (uint64_t)base + d;
  }
  /* C's rules: decimal is int, then long long; hex may also be unsigned. */
  if (v <= INT32_MAX) t->numtype = GPU_I32;
  else if (base == 16 && v <= UINT32_MAX) t->numtype = GPU_U32;
  else if (v <= INT64_MAX) t->numtype = GPU_I64;
  else t->numtype = GPU_U64;
  t->v.i = v;
  return true;
}

/* digits [. digits] [e [+-] digits], with a digit somewhere before the exponent
 * and a '.' or an exponent present. */
static bool is_decimal_float(const char *s, size_t len) {
  size_t i = 0, mant = 0;
  bool point = false, exponent = false;
  while (i < len && is_digit(s[i])) i++, mant++;
  if (i < len && s[i] == '.') {
    point = true;
    i++;
    while (i < len && is_digit(s[i])) i++, mant++;
  }
  if (mant == 0) return false;
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    exponent = true;
    i++;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    size_t first = i;
    while (i < len && is_digit(s[i])) i++;
    if (i == first) return false;
  }
  return i == len && (point || exponent);
}

static bool lex_number(gp_lexer *lx) {
  gp_token *t = &lx->tok;
  const char *s = lx->src + t->pos;
  size_t len = t->len;
  if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    for (size_t i = 2; i < len; i++)
      if (hex_value(s[i]) < 0)
        return gp_lex_error(lx, t->pos, "invalid hexadecimal number '%.*s'", (int)(len < 40 ? len : 40),
                            s), false;
    return lex_int(lx, s, len, 16);
  }
  size_t digits = 0;
  while (digits < len && is_digit(s[digits])) digits++;
  if (digits == len) {
    if (len > 1 && s[0] == '0')
      return gp_lex_error(lx, t->pos, "octal numbers are not supported"), false;
    return lex_int(lx, s, len, 10);
  }
  if (!is_decimal_float(s, len)) {
    char last = s[len - 1];
    if (strchr("fFlLuU", last) && (is_decimal_float(s, len - 1) || len - 1 == digits))
      return gp_lex_error(lx, t->pos + len - 1, "number suffixes are not supported"), false;
    return gp_lex_error(lx, t->pos, "invalid number '%.*s'", (int)(len < 40 ? len : 40), s), false;
  }
  /* strtod reads the locale's decimal point: give it that one. */
  char buf[GP_EXPR_MAX_LENGTH + 16];
  const char *dp = gp_lex_decimal_point();
  size_t k = 0, dplen = strlen(dp);
  for (size_t i = 0; i < len && k + dplen < sizeof buf - 1; i++) {
    if (s[i] == '.') memcpy(buf + k, dp, dplen), k += dplen;
    else buf[k++] = s[i];
  }
  buf[k] = '\0';
  t->v.f = strtod(buf, NULL);
  t->numtype = GPU_F64;
  if (isinf(t->v.f)) return gp_lex_error(lx, t->pos, "floating literal out of range of double"), false;
  return true;
}

static bool lex_name(gp_lexer *lx) {
  gp_token *t = &lx->tok;
  const char *s = lx->src + t->pos;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (strlen(names[i].name) == t->len && memcmp(names[i].name, s, t->len) == 0) {
      t->name = names[i].kind;
      t->arity = names[i].arity;
      return true;
    }
  }
  return gp_lex_error(lx, t->pos,
                      "unknown name '%.*s' (the variable is x; the functions are abs fabs floor "
                      "ceil sqrt isnan isinf isfinite min max)",
                      (int)(t->len < 40 ? t->len : 40), s), false;
}

static bool lex_operator(gp_lexer *lx) {
  gp_token *t = &lx->tok;
  const char *s = lx->src + t->pos;
  if (s[0] == '=' && s[1] != '=') return gp_lex_error(lx, t->pos, "'=' is not supported (compare with '==')"), false;
  if (s[0] == '?' || s[0] == ':') return gp_lex_error(lx, t->pos, "'?:' is not supported"), false;
  if ((s[0] == '+' || s[0] == '-') && s[1] == s[0])
    return gp_lex_error(lx, t->pos, "'%c%c' is not supported", s[0], s[0]), false;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    size_t n = strlen(ops[i].text);
    if (strncmp(s, ops[i].text, n) != 0) continue;
    /* "+=", "<<=" ...: assignments, which C would accept and we do not. */
    bool assignable = (n == 1 && strchr("+-*/%&|^", s[0])) || ops[i].level == 8;
    if (assignable && s[n] == '=')
      return gp_lex_error(lx, t->pos, "'%s=' is not supported", ops[i].text), false;
    t->kind = GP_TK_OP;
    t->len = n;
    t->binary = ops[i].binary;
    t->level = ops[i].level;
    t->prefix = ops[i].prefix;
    return true;
  }
  unsigned char c = (unsigned char)s[0];
  if (c >= 32 && c < 127) return gp_lex_error(lx, t->pos, "unexpected character '%c'", c), false;
  return gp_lex_error(lx, t->pos, "unexpected byte 0x%02x", c), false;
}

bool gp_lex_next(gp_lexer *lx) {
  if (lx->failed) return false;
  size_t p = lx->pos;
  while (p < lx->len && is_space(lx->src[p])) p++;
  gp_token *t = &lx->tok;
  memset(t, 0, sizeof *t);
  t->pos = p;
  t->binary = t->prefix = -1;
  if (p == lx->len) {
    t->kind = GP_TK_END;
    lx->pos = p;
    return true;
  }
  const char *s = lx->src;
  char c = s[p];
  bool ok = true;
  if (is_digit(c) || (c == '.' && p + 1 < lx->len && is_digit(s[p + 1]))) {
    size_t e = p + 1;
    for (; e < lx->len; e++) {
      char d = s[e], prev = s[e - 1];
      bool sign = (d == '+' || d == '-') && (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P');
      if (!(is_digit(d) || is_alpha(d) || d == '.' || sign)) break;
    }
    t->kind = GP_TK_NUM;
    t->len = e - p;
    ok = lex_number(lx);
  } else if (is_alpha(c)) {
    size_t e = p + 1;
    while (e < lx->len && (is_alpha(s[e]) || is_digit(s[e]))) e++;
    t->kind = GP_TK_NAME;
    t->len = e - p;
    ok = lex_name(lx);
  } else if (c == '(' || c == ')' || c == ',') {
    t->kind = c == '(' ? GP_TK_LPAREN : c == ')' ? GP_TK_RPAREN : GP_TK_COMMA;
    t->len = 1;
  } else {
    ok = lex_operator(lx);
  }
  lx->pos = p + t->len;
  return ok;
}
