/* Random elements for the expression tests: special values (MIN, MAX, -1, 0,
 * shift widths; NaN, +-inf, +-0, denormals), small numbers, random bits. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_expr_formulas.h"
#include "test_util.h"

static int64_t int_special(void) {
  static const int64_t v[] = {INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1, INT32_MIN,
                              INT32_MIN + 1, INT32_MAX, UINT32_MAX, -1, 0, 1, 2, 3, -2,
                              7, 31, 32, 33, 63, 64, 65, 127, 128, -32, -33, 1000, -1000};
  return v[tu_below(sizeof v / sizeof v[0])];
}

static double float_special(void) {
  static const double v[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5,
                             0.25, 0.3, 2.0, 3.0, 1.5, FLT_MAX, -FLT_MAX, FLT_MIN, 0x1p-149,
                             DBL_MAX, DBL_MIN, 0x1p-1074, 16777217.0, 1e-8, 1e10, -1e10, 1e30};
  return v[tu_below(sizeof v / sizeof v[0])];
}

/* Random elements of type t: special values, small numbers, random bits. */
void expr_fill_inputs(void *buf, size_t n, gpu_dtype t) {
  for (size_t i = 0; i < n; i++) {
    uint64_t r = tu_rand(), kind = r % 8;
    int64_t iv = kind == 0 ? int_special() : kind <= 2 ? (int64_t)tu_below(17) - 8
               : kind == 3 ? (int64_t)tu_below(2001) - 1000 : (int64_t)(tu_rand() >> (r >> 58));
    double fv = kind == 0 ? float_special() : kind == 1 ? (double)((int64_t)tu_below(17) - 8)
              : kind == 2 ? tu_uniform() * 20 - 10 : kind == 3 ? tu_uniform() * 2 - 1
              : kind == 4 ? (tu_uniform() - 0.5) * pow(10, (double)tu_below(81) - 40)
              : kind == 5 ? (double)tu_below(1u << 25) + 0.5 * (double)tu_below(2) : 0;
    uint64_t bits = tu_rand();
    switch (t) {
      case GPU_I32: ((int32_t *)buf)[i] = (int32_t)iv; break;
      case GPU_U32: ((uint32_t *)buf)[i] = (uint32_t)iv; break;
      case GPU_I64: ((int64_t *)buf)[i] = iv; break;
      case GPU_U64: ((uint64_t *)buf)[i] = (uint64_t)iv; break;
      case GPU_F32:
        if (kind >= 6) memcpy((float *)buf + i, &bits, sizeof(float));
        else ((float *)buf)[i] = (float)fv;
        break;
      case GPU_F64:
        if (kind >= 6) memcpy((double *)buf + i, &bits, sizeof(double));
        else ((double *)buf)[i] = fv;
        break;
    }
  }
}

const char *expr_value_text(gpu_dtype t, const void *in, size_t i, char buf[64]) {
  switch (t) {
    case GPU_I32: snprintf(buf, 64, "%d", ((const int32_t *)in)[i]); break;
    case GPU_U32: snprintf(buf, 64, "%u", ((const uint32_t *)in)[i]); break;
    case GPU_I64: snprintf(buf, 64, "%lld", (long long)((const int64_t *)in)[i]); break;
    case GPU_U64: snprintf(buf, 64, "%llu", (unsigned long long)((const uint64_t *)in)[i]); break;
    case GPU_F32: snprintf(buf, 64, "%a", (double)((const float *)in)[i]); break;
    case GPU_F64: snprintf(buf, 64, "%a", ((const double *)in)[i]); break;
  }
  return buf;
}
