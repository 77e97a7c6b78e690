/*
 * Decimal reals, correctly rounded.
 *
 * Fast path (Clinger): when the significant digits fit the target's mantissa
 * exactly (m <= 2^53 for double, 2^24 for float) and the power of ten is
 * exact too (10^22 in double, 10^10 in float), m * 10^e or m / 10^-e is one
 * IEEE operation on exact operands, hence correctly rounded. Values like
 * "3.5" or "-0.25e-3" take it. Longer ones ("0.12345678901234567") go to
 * strtod/strtof, which glibc and the BSDs round correctly, under the "C"
 * locale so that a caller's setlocale cannot turn '.' into a stranger.
 * Parsing a float through double and then rounding to float would round
 * twice, which is wrong for some inputs; f32 never does that.
 */
#define _POSIX_C_SOURCE 200809L
#include "mm_number.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale = (locale_t)0;

static void make_c_locale(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

/* strtod or strtof of a NUL-terminated copy of the token, in the C locale. */
static gp_num_result convert_slow(const char *s, size_t len, bool f32, double *v) {
  char small[128];
  char *buf = len < sizeof small ? small : malloc(len + 1);
  if (!buf) return GP_NUM_OUT_OF_RANGE; /* a token of gigabytes: no number we could hold */
  memcpy(buf, s, len);
  buf[len] = '\0';
  pthread_once(&c_locale_once, make_c_locale);
  locale_t old = c_locale ? uselocale(c_locale) : (locale_t)0;
  double x = f32 ? (double)strtof(buf, NULL) : strtod(buf, NULL);
  if (c_locale) uselocale(old);
  if (buf != small) free(buf);
  if (isinf(x)) return GP_NUM_OUT_OF_RANGE;
  *v = x;
  return GP_NUM_OK;
}

static const double pow10_double[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static const float pow10_float[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                      1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

static inline bool is_digit(char c) { return (unsigned)(c - '0') < 10; }

gp_num_result gp_mm_parse_real(const char *p, const char *end, bool integer_only, bool f32,
                               double *v, const char **next) {
  const char *start = p;
  bool negative = false;
  if (p < end && (*p == '+' || *p == '-')) negative = *p++ == '-';

  /* Up to 19 significant digits in m, value = m * 10^exp10; later digits
   * make the fast path inexact (`dropped`), so the slow path decides. */
  uint64_t m = 0;
  int significant = 0;
  int64_t exp10 = 0;
  bool dropped = false, any_digit = false;
  for (; p < end && is_digit(*p); p++) {
    any_digit = true;
    if (significant < 19) {
      m = m * 10 + (uint64_t)(*p - '0');
      significant += m != 0;
    } else {
      exp10++;
      dropped |= *p != '0';
    }
  }
  if (!integer_only && p < end && *p == '.') {
    for (p++; p < end && is_digit(*p); p++) {
      any_digit = true;
      if (significant < 19) {
        m = m * 10 + (uint64_t)(*p - '0');
        significant += m != 0;
        exp10--;
      } else {
        dropped |= *p != '0';
      }
    }
  }
  if (!any_digit) {
    *next = p;
    return GP_NUM_NOT_A_NUMBER;
  }
  if (!integer_only && p < end && (*p == 'e' || *p == 'E')) {
    p++;
    bool exp_negative = false;
    if (p < end && (*p == '+' || *p == '-')) exp_negative = *p++ == '-';
    const char *exp_digits = p;
    int64_t e = 0;
    for (; p < end && is_digit(*p); p++)
      if (e < 100000000) e = e * 10 + (*p - '0'); /* far past any double; keeps e finite */
    if (p == exp_digits) {
      *next = p;
      return GP_NUM_NOT_A_NUMBER;
    }
    exp10 += exp_negative ? -e : e;
  }
  *next = p;
  if (!gp_mm_token_ends(p, end)) return GP_NUM_NOT_A_NUMBER;

  if (m == 0 && !dropped) { /* zero, whatever the exponent */
    *v = negative ? -0.0 : 0.0;
    return GP_NUM_OK;
  }
#if FLT_EVAL_METHOD == 0 /* float and double operations round to their own type */
  if (!dropped && f32 && m <= (UINT64_C(1) << 24) && exp10 >= -10 && exp10 <= 10) {
    float x = (float)m;
    x = exp10 < 0 ? x / pow10_float[-exp10] : x * pow10_float[exp10];
    *v = negative ? -(double)x : (double)x;
    return GP_NUM_OK;
  }
  if (!dropped && !f32 && m <= (UINT64_C(1) << 53) && exp10 >= -22 && exp10 <= 22) {
    double x = (double)m;
    x = exp10 < 0 ? x / pow10_double[-exp10] : x * pow10_double[exp10];
    *v = negative ? -x : x;
    return GP_NUM_OK;
  }
#endif
  return convert_slow(start, (size_t)(p - start), f32, v);
}
