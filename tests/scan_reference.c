#include "scan_reference.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One step of op in the wide type W; NaN-propagating MIN/MAX, earlier wins ties. */
#define WIDE_STEP(W, a, b, op)                                              \
  ((op) == GPU_ADD ? (W)((a) + (b))                                         \
   : (op) == GPU_MUL ? (W)((a) * (b))                                       \
   : (op) == GPU_MIN ? ((a) != (a) ? (a) : (b) != (b) ? (b) : (b) < (a) ? (b) : (a)) \
                     : ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) < (b) ? (b) : (a)))

static uint64_t int_step(uint64_t a, uint64_t b, gpu_op op, bool is_signed, int bits) {
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  /* Sign-extend to compare signed values. */
  int64_t sa = (int64_t)(a << (64 - bits)) >> (64 - bits), sb = (int64_t)(b << (64 - bits)) >> (64 - bits);
  switch (op) {
    case GPU_ADD: return (a + b) & mask;
    case GPU_MUL: return (a * b) & mask;
    case GPU_MIN: return is_signed ? (sb < sa ? b : a) : (b < a ? b : a);
    case GPU_MAX: return is_signed ? (sa < sb ? b : a) : (a < b ? b : a);
    case GPU_AND: return a & b;
    case GPU_OR: return a | b;
    case GPU_XOR: return a ^ b;
  }
  return 0;
}

static uint64_t int_identity(gpu_op op, bool is_signed, int bits) {
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  switch (op) {
    case GPU_ADD: case GPU_OR: case GPU_XOR: return 0;
    case GPU_MUL: return 1;
    case GPU_AND: return mask;
    case GPU_MIN: return is_signed ? mask >> 1 : mask;
    case GPU_MAX: return is_signed ? (mask >> 1) + 1 : 0;
  }
  return 0;
}

static uint64_t load_bits(const void *p, size_t i, int bits) {
  if (bits == 32) {
    uint32_t v;
    memcpy(&v, (const char *)p + 4 * i, 4);
    return v;
  }
  uint64_t v;
  memcpy(&v, (const char *)p + 8 * i, 8);
  return v;
}

static void store_bits(void *p, size_t i, int bits, uint64_t v) {
  if (bits == 32) {
    uint32_t w = (uint32_t)v;
    memcpy((char *)p + 4 * i, &w, 4);
  } else {
    memcpy((char *)p + 8 * i, &v, 8);
  }
}

void ref_scan(const void *in, void *out, size_t n, gpu_dtype t, gpu_op op, unsigned flags, double *scale) {
  const bool excl = flags & GPU_EXCLUSIVE, rev = flags & GPU_REVERSE;
  if (t == GPU_F32 || t == GPU_F64) {
    long double acc = 0, mag = 0;
    long double id = op == GPU_ADD ? 0 : op == GPU_MUL ? 1 : op == GPU_MIN ? INFINITY : -INFINITY;
    for (size_t j = 0; j < n; j++) {
      size_t p = rev ? n - 1 - j : j;
      long double x = t == GPU_F32 ? (long double)((const float *)in)[p] : (long double)((const double *)in)[p];
      long double before = j == 0 ? id : acc, before_mag = mag;
      if (t == GPU_F32) {
        double a = (double)acc, b = (double)x; /* f32 reference in double */
        acc = j == 0 ? x : (long double)WIDE_STEP(double, a, b, op);
      } else {
        acc = j == 0 ? x : WIDE_STEP(long double, acc, x, op);
      }
      mag = op == GPU_ADD ? mag + fabsl(x) : fabsl(acc);
      long double v = excl ? before : acc;
      if (scale) scale[p] = (double)(excl ? before_mag : mag);
      if (t == GPU_F32) ((float *)out)[p] = (float)v;
      else ((double *)out)[p] = (double)v;
    }
    return;
  }
  const int bits = (int)gpu_dtype_size(t) * 8;
  const bool sgn = t == GPU_I32 || t == GPU_I64;
  uint64_t acc = int_identity(op, sgn, bits);
  for (size_t j = 0; j < n; j++) {
    size_t p = rev ? n - 1 - j : j;
    uint64_t x = load_bits(in, p, bits), before = acc;
    acc = j == 0 ? x : int_step(acc, x, op, sgn, bits);
    store_bits(out, p, bits, excl ? before : acc);
    if (scale) scale[p] = 0;
  }
}

void ref_reduce(const void *in, size_t n, gpu_dtype t, gpu_op op, void *result, double *scale) {
  if (n == 0) {
    /* The identity: an exclusive scan's first element of a one-element input. */
    unsigned char one[8] = {0}, out[8];
    ref_scan(one, out, 1, t, op, GPU_EXCLUSIVE, NULL);
    memcpy(result, out, gpu_dtype_size(t));
    if (scale) *scale = 0;
    return;
  }
  size_t w = gpu_dtype_size(t);
  unsigned char *tmp = malloc(n * w);
  double *sc = scale ? malloc(n * sizeof(double)) : NULL;
  ref_scan(in, tmp, n, t, op, GPU_INCLUSIVE, sc);
  memcpy(result, tmp + (n - 1) * w, w);
  if (scale) *scale = sc[n - 1];
  free(sc);
  free(tmp);
}

double ref_tolerance(gpu_dtype t, gpu_op op, size_t n) {
  if (t != GPU_F32 && t != GPU_F64) return 0;
  /* MIN, MAX are exact; the tests multiply +-1, 2 and 1/2 only, so products are exact too. */
  if (op != GPU_ADD) return 0;
  double eps = t == GPU_F32 ? 0x1.0p-24 : 0x1.0p-53;
  /* Tree-ordered sums err by about log2(n) roundings of the magnitude.
   * Generous constant factor: a wrong element is off by far more. */
  double lg = 1;
  for (size_t m = n; m > 1; m >>= 1) lg++;
  return 8 * lg * eps;
}
