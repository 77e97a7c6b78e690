/*
 * Host linear recurrences. A sequence is walked in scan order i = 0, 1, ...
 * (under GPU_REVERSE from its last element back), through a view: physical
 * index base + i * step.
 *
 * A sequence of at most CHUNK steps runs as the plain loop
 * h = a * h + b. A longer one is cut into chunks of CHUNK steps (a fixed
 * size, not one per thread), as segmented_host.c does, so that every float
 * result has the same bits whatever the number of OpenMP threads:
 *   1. per chunk (parallel): the chunk's pair (A, B), its steps folded in
 *      order: (A, B) then (a, b) = (A * a, a * B + b)
 *   2. in chunk order (serial): each chunk's incoming state,
 *      carry[k + 1] = A[k] * carry[k] + B[k], carry[0] = h0
 *   3. per chunk (parallel): the loop from its incoming state
 * Time-major batches walk time once for a block of adjacent channels (the
 * plain loop of each channel, rows read contiguously).
 *
 * The backward pass is the same recurrence on (a shifted one step, dh), in
 * the opposite direction, with a store that also writes da.
 *
 * Products and sums are never fused (linrec/CMakeLists.txt builds this file
 * with -ffp-contract=off): the CUDA kernels round each step the same way.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "linrec_host.h"

enum {
  CHUNK = 1 << 16,             /* steps a chunk of a long sequence */
  PARALLEL_MIN = 1 << 15,      /* elements below which a call runs on one thread */
  TIME_MAJOR_BLOCK = 256       /* channels a time-major block walks together */
};

/* One sequence in scan order: step i at physical index base + i * step. */
typedef struct {
  size_t base;
  ptrdiff_t step;
  size_t len;
} lr_view;

static size_t phys(const lr_view *v, size_t i) { return (size_t)((ptrdiff_t)v->base + (ptrdiff_t)i * v->step); }

/* What the loops read and write. Forward: coefficient a[i], input b[i],
 * out = h. Backward: coefficient a one step earlier in the backward's scan
 * order (0 at its first step), input dh, out = db, and da[i] = g[i] times
 * the forward's h one step later in the backward's order (edge past the
 * end). */
typedef struct {
  const void *a, *b;
  void *out;
  void *da;
  const void *h_fwd;
  double edge;
  bool backward;
} lr_arrays;

/* The least subnormal with p's sign. */
static float least_subnormal_f32(float p) { return copysignf(FLT_TRUE_MIN, p); }
static double least_subnormal_f64(double p) { return copysign(DBL_TRUE_MIN, p); }

#define GP_LINREC_HOST_TYPE(T, S)                                                                   \
  static T coef_##S(const lr_arrays *x, const lr_view *v, size_t i) {                               \
    const T *a = x->a;                                                                              \
    if (!x->backward) return a[phys(v, i)];                                                         \
    return i == 0 ? (T)0 : a[phys(v, i - 1)];                                                       \
  }                                                                                                 \
  /* A product of coefficients that underflows keeps the least subnormal of  \
   * its sign (an infinite h times it stays infinite, as in the loop); a     \
   * zero coefficient still gives zero. */                                   \
  static T coef_product_##S(T x, T y) {                                                             \
    const T p = x * y;                                                                              \
    if (p != 0 || x == 0 || y == 0) return p;                                                       \
    return least_subnormal_##S(p);                                                                   \
  }                                                                                                 \
  /* Steps [lo, hi) folded into one pair (hi > lo). */                                              \
  static void fold_##S(const lr_arrays *x, const lr_view *v, size_t lo, size_t hi, T *pa, T *pb) {  \
    const T *b = x->b;                                                                              \
    T A = coef_##S(x, v, lo), B = b[phys(v, lo)];                                                   \
    for (size_t i = lo + 1; i < hi; i++) {                                                          \
      const T c = coef_##S(x, v, i);                                                                \
      B = c * B + b[phys(v, i)];                                                                    \
      A = coef_product_##S(A, c);                                                                   \
    }                                                                                               \
    *pa = A;                                                                                        \
    *pb = B;                                                                                        \
  }                                                                                                 \
  /* Steps [lo, hi) from the state before lo. */                                                    \
  static void run_##S(const lr_arrays *x, const lr_view *v, size_t lo, size_t hi, T state) {        \
    const T *b = x->b, *hf = x->h_fwd;                                                              \
    T *out = x->out, *da = x->da;                                                                   \
    for (size_t i = lo; i < hi; i++) {                                                              \
      const size_t p = phys(v, i);                                                                  \
      state = coef_##S(x, v, i) * state + b[p];                                                     \
      out[p] = state;                                                                               \
      if (x->backward) da[p] = state * (i + 1 < v->len ? hf[phys(v, i + 1)] : (T)x->edge);          \
    }                                                                                               \
  }                                                                                                 \
  static gpu_status sequence_##S(const lr_arrays *x, const lr_view *v, T start) {                   \
    if (v->len <= CHUNK) {                                                                          \
      run_##S(x, v, 0, v->len, start);                                                              \
      return GPU_OK;                                                                                \
    }                                                                                               \
    const size_t chunks = (v->len + CHUNK - 1) / CHUNK;                                             \
    T *pair_a = malloc(chunks * sizeof(T)), *pair_b = malloc(chunks * sizeof(T));                   \
    T *carry = malloc(chunks * sizeof(T));                                                          \
    if (!pair_a || !pair_b || !carry) {                                                             \
      free(pair_a), free(pair_b), free(carry);                                                      \
      return gp_fail(GPU_ERR_OUT_OF_MEMORY, "linrec (host): no memory for %zu chunks", chunks);    \
    }                                                                                               \
    _Pragma("omp parallel for schedule(static)") for (size_t k = 0; k < chunks; k++) {              \
      const size_t lo = k * CHUNK, hi = lo + CHUNK < v->len ? lo + CHUNK : v->len;                  \
      fold_##S(x, v, lo, hi, &pair_a[k], &pair_b[k]);                                               \
    }                                                                                               \
    carry[0] = start;                                                                               \
    for (size_t k = 0; k + 1 < chunks; k++) carry[k + 1] = pair_a[k] * carry[k] + pair_b[k];        \
    _Pragma("omp parallel for schedule(static)") for (size_t k = 0; k < chunks; k++) {              \
      const size_t lo = k * CHUNK, hi = lo + CHUNK < v->len ? lo + CHUNK : v->len;                  \
      run_##S(x, v, lo, hi, carry[k]);                                                              \
    }                                                                                               \
    free(pair_a), free(pair_b), free(carry);                                                        \
    return GPU_OK;                                                                                  \
  }                                                                                                 \
  /* Channels [c0, c1) of a time-major batch, time walked once. */                                  \
  static void time_major_block_##S(const T *a, const T *b, T *h, size_t len, size_t count,          \
                                   const T *h0, bool reverse, size_t c0, size_t c1) {               \
    T state[TIME_MAJOR_BLOCK];                                                                      \
    for (size_t c = c0; c < c1; c++) state[c - c0] = h0 ? h0[c] : (T)0;                             \
    for (size_t i = 0; i < len; i++) {                                                              \
      const size_t row = (reverse ? len - 1 - i : i) * count;                                       \
      for (size_t c = c0; c < c1; c++) {                                                            \
        state[c - c0] = a[row + c] * state[c - c0] + b[row + c];                                    \
        h[row + c] = state[c - c0];                                                                 \
      }                                                                                             \
    }                                                                                               \
  }                                                                                                 \
  static void time_major_##S(const T *a, const T *b, T *h, const gp_linrec_shape *sh) {             \
    const size_t blocks = (sh->count + TIME_MAJOR_BLOCK - 1) / TIME_MAJOR_BLOCK;                    \
    _Pragma("omp parallel for schedule(static) if (sh->n >= PARALLEL_MIN)") for (size_t k = 0;      \
                                                                                 k < blocks; k++) { \
      const size_t c0 = k * TIME_MAJOR_BLOCK;                                                       \
      const size_t c1 = c0 + TIME_MAJOR_BLOCK < sh->count ? c0 + TIME_MAJOR_BLOCK : sh->count;      \
      time_major_block_##S(a, b, h, sh->len, sh->count, sh->h0, sh->reverse, c0, c1);               \
    }                                                                                               \
  }                                                                                                 \
  static T start_of_##S(const gp_linrec_shape *sh, size_t s) {                                      \
    const T *h0 = sh->h0;                                                                           \
    return h0 ? h0[sh->layout == GP_LINREC_SINGLE ? 0 : s] : (T)0;                                  \
  }
GP_LINREC_HOST_TYPE(float, f32)
GP_LINREC_HOST_TYPE(double, f64)
#undef GP_LINREC_HOST_TYPE

/* Sequence s of a single, sequence-major or offsets shape, in scan order. */
static lr_view view_of(const gp_linrec_shape *sh, size_t s) {
  size_t first = 0, len = sh->len;
  if (sh->layout == GP_LINREC_OFFSETS) {
    first = (size_t)sh->offsets[s];
    len = (size_t)sh->offsets[s + 1] - first;
  } else {
    first = s * sh->len;
  }
  if (sh->reverse && len > 0) return (lr_view){first + len - 1, -1, len};
  return (lr_view){first, 1, len};
}

/* Sequences of at most CHUNK steps, in parallel over sequences; then the
 * longer ones one at a time, in parallel over their chunks. */
static gpu_status sequences(const lr_arrays *x, const gp_linrec_shape *sh) {
  const bool f32 = sh->t == GPU_F32;
#pragma omp parallel for schedule(dynamic, 64) if (sh->n >= PARALLEL_MIN && sh->count > 1)
  for (size_t s = 0; s < sh->count; s++) {
    const lr_view v = view_of(sh, s);
    if (v.len == 0 || v.len > CHUNK) continue;
    if (f32) run_f32(x, &v, 0, v.len, start_of_f32(sh, s));
    else run_f64(x, &v, 0, v.len, start_of_f64(sh, s));
  }
  gpu_status st = GPU_OK;
  for (size_t s = 0; s < sh->count && st == GPU_OK; s++) {
    const lr_view v = view_of(sh, s);
    if (v.len <= CHUNK) continue;
    st = f32 ? sequence_f32(x, &v, start_of_f32(sh, s)) : sequence_f64(x, &v, start_of_f64(sh, s));
  }
  return st;
}

gpu_status gp_linrec_host(const void *a, const void *b, void *h, const gp_linrec_shape *shape) {
  if (shape->layout == GP_LINREC_TIME_MAJOR) {
    if (shape->t == GPU_F32) time_major_f32(a, b, h, shape);
    else time_major_f64(a, b, h, shape);
    return GPU_OK;
  }
  const lr_arrays x = {a, b, h, NULL, NULL, 0.0, false};
  return sequences(&x, shape);
}

/* Sequence s of a shape in the backward's scan order (the forward's
 * reversed): its last step in the forward's order first. */
static lr_view backward_view_of(const gp_linrec_shape *sh, size_t s) {
  const bool time_major = sh->layout == GP_LINREC_TIME_MAJOR;
  const size_t first = time_major ? s : s * sh->len, stride = time_major ? sh->count : 1;
  if (sh->reverse) return (lr_view){first, (ptrdiff_t)stride, sh->len};
  return (lr_view){first + (sh->len - 1) * stride, -(ptrdiff_t)stride, sh->len};
}

/* Sequence s's backward pass: g from 0, edge = the forward's initial state. */
static gpu_status backward_sequence(const void *a, const void *h, const void *dh, void *da, void *db,
                                    const gp_linrec_shape *sh, size_t s) {
  const bool f32 = sh->t == GPU_F32;
  const double edge = f32 ? (double)start_of_f32(sh, s) : start_of_f64(sh, s);
  const lr_arrays x = {a, dh, db, da, h, edge, true};
  const lr_view v = backward_view_of(sh, s);
  return f32 ? sequence_f32(&x, &v, 0.0f) : sequence_f64(&x, &v, 0.0);
}

gpu_status gp_linrec_backward_host(const void *a, const void *h, const void *dh, void *da, void *db,
                                   const gp_linrec_shape *sh) {
  /* Sequences of at most CHUNK steps in parallel over sequences (the plain
   * loop, no allocation); longer ones one at a time, parallel inside. */
  if (sh->len <= CHUNK) {
#pragma omp parallel for schedule(dynamic, 64) if (sh->n >= PARALLEL_MIN && sh->count > 1)
    for (size_t s = 0; s < sh->count; s++) (void)backward_sequence(a, h, dh, da, db, sh, s);
    return GPU_OK;
  }
  gpu_status st = GPU_OK;
  for (size_t s = 0; s < sh->count && st == GPU_OK; s++) st = backward_sequence(a, h, dh, da, db, sh, s);
  return st;
}
