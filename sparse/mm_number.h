/*
 * Numbers in Matrix Market text. Indices and sizes go through a plain
 * decimal integer parser (most of a file's bytes); values through a decimal
 * real parser that is exact where it can be cheap and falls back to
 * strtod/strtof (correctly rounded) where it cannot.
 *
 * Every parser stops at `end`: the input need not be NUL-terminated.
 */
#ifndef GP_MM_NUMBER_H
#define GP_MM_NUMBER_H

#include <stdbool.h>
#include <stdint.h>

/* Separators inside a line. '\r' counts, so that CRLF files read as LF ones. */
static inline bool gp_mm_is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static inline const char *gp_mm_skip_space(const char *p, const char *end) {
  while (p < end && gp_mm_is_space(*p)) p++;
  return p;
}

/* Whether a number may end at p: at a separator or at the end of the line. */
static inline bool gp_mm_token_ends(const char *p, const char *end) {
  return p == end || gp_mm_is_space(*p) || *p == '\n';
}

typedef enum {
  GP_NUM_OK,
  GP_NUM_NOT_A_NUMBER, /* not the grammar, or not followed by a separator */
  GP_NUM_OUT_OF_RANGE  /* too large for the type */
} gp_num_result;

/*
 * [+-]?[0-9]+ followed by a separator or the end. On GP_NUM_OK *v holds the
 * value; values beyond +-(10^18 - 1) give GP_NUM_OUT_OF_RANGE (every caller
 * wants far less). *next is where the token ended (for messages).
 */
static inline gp_num_result gp_mm_parse_int(const char *p, const char *end, int64_t *v,
                                            const char **next) {
  bool negative = false;
  if (p < end && (*p == '+' || *p == '-')) negative = *p++ == '-';
  const char *digits = p;
  uint64_t x = 0;
  bool too_big = false;
  while (p < end && (unsigned)(*p - '0') < 10) {
    x = x * 10 + (uint64_t)(*p - '0');
    if (x >= UINT64_C(1000000000000000000)) { /* stop before x could wrap */
      too_big = true;
      x = 0;
    }
    p++;
  }
  *next = p;
  if (p == digits || !gp_mm_token_ends(p, end)) return GP_NUM_NOT_A_NUMBER;
  if (too_big) return GP_NUM_OUT_OF_RANGE;
  *v = negative ? -(int64_t)x : (int64_t)x;
  return GP_NUM_OK;
}

/*
 * A decimal real, [+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?, or with
 * integer_only just [+-]?[0-9]+, followed by a separator or the end. No inf,
 * nan or hexadecimal: Matrix Market values are decimal. The value is rounded
 * once, correctly, to float when f32 (and stored in *v exactly) or to double.
 * GP_NUM_OUT_OF_RANGE when it overflows that type; underflow to a subnormal
 * or zero is fine.
 */
gp_num_result gp_mm_parse_real(const char *p, const char *end, bool integer_only, bool f32,
                               double *v, const char **next);

#endif
