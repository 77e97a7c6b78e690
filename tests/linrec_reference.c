#include "linrec_reference.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "test_util.h"

lr_seq lr_seq_of(size_t s, size_t len, size_t count, const int64_t *offsets, bool time_major,
                 bool reverse) {
  size_t first = s * len, l = len;
  ptrdiff_t step = 1;
  if (offsets) {
    first = (size_t)offsets[s];
    l = (size_t)(offsets[s + 1] - offsets[s]);
  } else if (time_major) {
    first = s;
    step = (ptrdiff_t)count;
  }
  if (reverse && l > 0) return (lr_seq){first + (l - 1) * (size_t)step, -step, l};
  return (lr_seq){first, step, l};
}

void lr_reference(const void *a, const void *b, gpu_dtype t, lr_seq v, long double h0,
                  long double *ref, long double *bound) {
  const long double eps = t == GPU_F32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
  const long double tiny = t == GPU_F32 ? FLT_TRUE_MIN : DBL_TRUE_MIN;
  long double h = h0, sum_abs = fabsl(h0), weighted = fabsl(h0);
  for (size_t i = 0; i < v.len; i++) {
    const size_t p = (size_t)((ptrdiff_t)v.base + (ptrdiff_t)i * v.step);
    const long double ai = tu_get_f(a, p, t), bi = tu_get_f(b, p, t);
    h = ai * h + bi;
    weighted = fabsl(ai) * (weighted + sum_abs) + fabsl(bi);
    sum_abs = fabsl(ai) * sum_abs + fabsl(bi);
    ref[p] = h;
    bound[p] = 4 * eps * weighted + 8 * (long double)(i + 2) * tiny;
  }
}

void lr_check(const void *got, gpu_dtype t, const long double *ref, const long double *bound,
              size_t n, const char *what) {
  for (size_t p = 0; p < n; p++) {
    const long double g = tu_get_f(got, p, t), r = ref[p];
    bool ok;
    if (isnan(r)) ok = isnan(g);
    else if (isinf(r)) ok = g == r;
    else ok = !isnan(g) && fabsl(g - r) <= bound[p];
    /* ck_abort_msg only on failure: a passing ck_assert_msg writes a mark
     * point to Check's pipe, a system call per element. */
    if (!ok) ck_abort_msg("%s: index %zu of %zu: got %.17Lg, reference %.17Lg, bound %.3Lg", what, p, n, g, r, bound[p]);
  }
}

void lr_fill_uniform(void *p, size_t n, gpu_dtype t, double lo, double hi) {
  for (size_t i = 0; i < n; i++) {
    const double x = lo + (hi - lo) * tu_uniform();
    if (t == GPU_F32) ((float *)p)[i] = (float)x;
    else ((double *)p)[i] = x;
  }
}
