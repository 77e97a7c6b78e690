/*
 * gpu_compact and gpu_partition on the current backend (host, or CUDA when
 * built with TU_CUDA) against a plain sequential reference written here:
 * every predicate constructor on every type, selectivities from 0% to 100%,
 * NaN rules, partition order, DESIGN.md's sizes, misaligned pointers, bad
 * arguments, refused formulas and the formula cache. Outputs are poisoned
 * and followed by a guard zone: gpu_compact may write out[0, count) only,
 * gpu_partition out[0, n) only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact/compact_formula.h"
#include "compact/compact_internal.h"
#include "core/core.h"
#include "test_util.h"
#ifndef TU_CUDA
#  define TU_CUDA 0
#endif

/* The references below are the formulas' own text compiled as C (built with
 * -fwrapv -ffp-contract=off, as the language's semantics are C's), mixed
 * signedness and always-false unsigned comparisons included. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wtype-limits"
#ifdef __clang__
#pragma clang diagnostic ignored "-Wimplicit-const-int-float-conversion"
#else
#pragma GCC diagnostic ignored "-Wbool-compare"
#endif

/* The language's functions on a float argument are the float ones (sqrtf:
 * rounded to float before any comparison), as in compact/expr.h. */
#define sqrt(a) _Generic((a), float: sqrtf, default: sqrt)(a)
#define fabs(a) _Generic((a), float: fabsf, default: fabs)(a)

static const gpu_dtype TYPES[] = {GPU_I32, GPU_U32, GPU_I64, GPU_U64, GPU_F32, GPU_F64};
static const gpu_cmp CMPS[] = {GPU_EQ, GPU_NE, GPU_LT, GPU_LE, GPU_GT, GPU_GE};
static const double QUANTILES[] = {0, 0.01, 0.5, 0.99, 1};    /* cmp and range values */
static const double KEEP_RATES[] = {0, 0.01, 0.5, 0.99, 1};   /* flags */
enum { GUARD = 1024, POISON = 0xA5 };

static bool is_float(gpu_dtype t) { return t == GPU_F32 || t == GPU_F64; }

/* ------------------------------------------------------------ formulas */

/* Each: its text for gpu_pred_expr, and the same formula in C. */
#define COMMON_FORMULAS(X)                                   \
  X("x > 0", x > 0)                                          \
  X("  x >= -2 && (x < (3)) ", x >= -2 && x < 3)             \
  X("x == 1 || !(x != 5)", x == 1 || !(x != 5))              \
  X("x * 3 + 1 > x / 2", x * 3 + 1 > x / 2)                  \
  X("x == x", x == x)                                        \
  X("0", 0)                                                  \
  X("1", 1)
#define INT_FORMULAS(X)                                      \
  X("(x & 3) == 1", (x & 3) == 1)                            \
  X("x % 3 == 0 || (x ^ 5) < 2", x % 3 == 0 || (x ^ 5) < 2)  \
  X("(x >> 2 & 1) != 0", ((x >> 2) & 1) != 0)                \
  X("~x < x", ~x < x)
#define FLOAT_FORMULAS(X)                                    \
  X("isnan(x) || x < -0.5", isnan(x) || x < -0.5)            \
  X("!(x >= 0)", !(x >= 0))                                  \
  X("x != x", x != x)                                        \
  X("fabs(x) < 0.25 || isinf(x)", fabs(x) < 0.25 || isinf(x)) \
  X("sqrt(x) > 0.5", sqrt(x) > 0.5)                          \
  X("isfinite(x) && x * 2.5 > 1", isfinite(x) && x * 2.5 > 1)

#define TEXT(S, E) S,
static const char *const INT_TEXTS[] = {COMMON_FORMULAS(TEXT) INT_FORMULAS(TEXT)};
static const char *const FLOAT_TEXTS[] = {COMMON_FORMULAS(TEXT) FLOAT_FORMULAS(TEXT)};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *formula_text(gpu_dtype t, int f) { return is_float(t) ? FLOAT_TEXTS[f] : INT_TEXTS[f]; }
static int all_formulas(gpu_dtype t) { return is_float(t) ? (int)COUNT(FLOAT_TEXTS) : (int)COUNT(INT_TEXTS); }
/* Each formula costs the CUDA backend an NVRTC compile (about half a second
 * per kernel): quick CUDA runs try three per type, two of them type-specific. */
static bool few_formulas(void) { return TU_THIS_BACKEND_IS_CUDA && tu_quick(); }
static int formula_count(gpu_dtype t) { return few_formulas() ? 3 : all_formulas(t); }
static int formula_pick(gpu_dtype t, int f) { return few_formulas() ? (f == 0 ? 1 : all_formulas(t) - f) : f; }

#define EVAL(S, E) if (f == k++) return (E) != 0;
#define DEFINE_FORMULAS(S, T, LIST)    \
  static bool formula_##S(int f, T x) { \
    int k = 0;                         \
    COMMON_FORMULAS(EVAL)              \
    LIST(EVAL)                         \
    abort();                           \
  }
DEFINE_FORMULAS(i32, int32_t, INT_FORMULAS)
DEFINE_FORMULAS(u32, uint32_t, INT_FORMULAS)
DEFINE_FORMULAS(i64, int64_t, INT_FORMULAS)
DEFINE_FORMULAS(u64, uint64_t, INT_FORMULAS)
DEFINE_FORMULAS(f32, float, FLOAT_FORMULAS)
DEFINE_FORMULAS(f64, double, FLOAT_FORMULAS)

/* ---------------------------------------------------- predicate specs */

/* What a test case asks for; the gpu_pred is made from it when it runs. */
typedef struct {
  gp_pred_kind kind;
  gpu_cmp cmp;
  unsigned char a[8], b[8]; /* cmp value, or range lo and hi, as host bytes */
  double rate;              /* flags: the share of nonzero flags */
  int formula;              /* expr: index into the type's formula list */
  char what[96];            /* for failure messages */
} spec;

static double as_double(const void *v, gpu_dtype t) { return tu_get_f(v, 0, t); }

static spec cmp_spec(gpu_dtype t, gpu_cmp c, const void *value) {
  spec s = {.kind = GP_PRED_CMP, .cmp = c};
  memcpy(s.a, value, gpu_dtype_size(t));
  snprintf(s.what, sizeof s.what, "cmp %d value %.17g", (int)c, as_double(value, t));
  return s;
}

static spec range_spec(gpu_dtype t, const void *lo, const void *hi) {
  spec s = {.kind = GP_PRED_RANGE};
  memcpy(s.a, lo, gpu_dtype_size(t));
  memcpy(s.b, hi, gpu_dtype_size(t));
  snprintf(s.what, sizeof s.what, "range [%.17g, %.17g)", as_double(lo, t), as_double(hi, t));
  return s;
}

static spec flags_spec(double rate) {
  spec s = {.kind = GP_PRED_FLAGS, .rate = rate};
  snprintf(s.what, sizeof s.what, "flags at rate %g", rate);
  return s;
}

static spec expr_spec(gpu_dtype t, int f) {
  f = formula_pick(t, f);
  spec s = {.kind = GP_PRED_EXPR, .formula = f};
  snprintf(s.what, sizeof s.what, "expr \"%s\"", formula_text(t, f));
  return s;
}

/* keep[i] for the spec, computed plainly, one element at a time. */
#define DEFINE_REFERENCE(S, T)                                                           \
  static void reference_##S(const spec *p, const uint8_t *flags, const T *x, size_t n, uint8_t *keep) { \
    T v, hi;                                                                             \
    memcpy(&v, p->a, sizeof v);                                                          \
    memcpy(&hi, p->b, sizeof hi);                                                        \
    for (size_t i = 0; i < n; i++) {                                                     \
      bool k = false;                                                                    \
      switch (p->kind) {                                                                 \
        case GP_PRED_CMP:                                                                \
          switch (p->cmp) {                                                              \
            case GPU_EQ: k = x[i] == v; break;                                           \
            case GPU_NE: k = x[i] != v; break;                                           \
            case GPU_LT: k = x[i] < v; break;                                            \
            case GPU_LE: k = x[i] <= v; break;                                           \
            case GPU_GT: k = x[i] > v; break;                                            \
            case GPU_GE: k = x[i] >= v; break;                                           \
          }                                                                              \
          break;                                                                         \
        case GP_PRED_RANGE: k = v <= x[i] && x[i] < hi; break;                           \
        case GP_PRED_FLAGS: k = flags[i] != 0; break;                                    \
        default: k = formula_##S(p->formula, x[i]); break;                               \
      }                                                                                  \
      keep[i] = k;                                                                       \
    }                                                                                    \
  }
DEFINE_REFERENCE(i32, int32_t)
DEFINE_REFERENCE(u32, uint32_t)
DEFINE_REFERENCE(i64, int64_t)
DEFINE_REFERENCE(u64, uint64_t)
DEFINE_REFERENCE(f32, float)
DEFINE_REFERENCE(f64, double)

static void reference_keep(const spec *p, gpu_dtype t, const uint8_t *flags, const void *x, size_t n, uint8_t *keep) {
  switch (t) {
    case GPU_I32: reference_i32(p, flags, x, n, keep); break;
    case GPU_U32: reference_u32(p, flags, x, n, keep); break;
    case GPU_I64: reference_i64(p, flags, x, n, keep); break;
    case GPU_U64: reference_u64(p, flags, x, n, keep); break;
    case GPU_F32: reference_f32(p, flags, x, n, keep); break;
    case GPU_F64: reference_f64(p, flags, x, n, keep); break;
  }
}

/* The kept elements in order, then the others in order; returns the kept count. */
#define DEFINE_REFERENCE_PARTITION(U)                                                          \
  static size_t reference_partition_##U(const U *in, const uint8_t *keep, size_t n, U *out) { \
    size_t k = 0;                                                                              \
    for (size_t i = 0; i < n; i++)                                                             \
      if (keep[i]) out[k++] = in[i];                                                           \
    const size_t kept = k;                                                                     \
    for (size_t i = 0; i < n; i++)                                                             \
      if (!keep[i]) out[k++] = in[i];                                                          \
    return kept;                                                                               \
  }
DEFINE_REFERENCE_PARTITION(uint32_t)
DEFINE_REFERENCE_PARTITION(uint64_t)

static size_t reference_partition(const void *in, const uint8_t *keep, size_t n, size_t w, void *out) {
  return w == 4 ? reference_partition_uint32_t(in, keep, n, out) : reference_partition_uint64_t(in, keep, n, out);
}

/* ------------------------------------------------- thresholds from data */

#define DEFINE_ORDER(S, T)                                   \
  static int order_##S(const void *a, const void *b) {       \
    T x = *(const T *)a, y = *(const T *)b;                  \
    return (x > y) - (x < y);                                \
  }
DEFINE_ORDER(i32, int32_t)
DEFINE_ORDER(u32, uint32_t)
DEFINE_ORDER(i64, int64_t)
DEFINE_ORDER(u64, uint64_t)
DEFINE_ORDER(f32, float)
DEFINE_ORDER(f64, double)
static int (*const ORDER[])(const void *, const void *) = {order_i32, order_u32, order_i64,
                                                           order_u64, order_f32, order_f64};

/* A sorted sample of the data's non-NaN values in `sorted`: all of them up
 * to SAMPLE, else the smallest, the largest and SAMPLE - 2 drawn at random
 * (so 0% and 100% stay exact and large inputs need no full sort). Returns
 * how many. */
enum { SAMPLE = 4096 };
static size_t sort_values(const unsigned char *in, size_t n, gpu_dtype t, unsigned char *sorted) {
  const size_t w = gpu_dtype_size(t);
  size_t m = 0, lo = 0, hi = 0;
  for (size_t i = 0; i < n; i++) {
    if (is_float(t) && isnan(tu_get_f(in, i, t))) continue;
    if (m < SAMPLE) memcpy(sorted + w * m, in + w * i, w);
    if (m == 0 || ORDER[t](in + w * i, in + w * lo) < 0) lo = i;
    if (m == 0 || ORDER[t](in + w * i, in + w * hi) > 0) hi = i;
    m++;
  }
  if (m > SAMPLE) {
    m = SAMPLE;
    memcpy(sorted, in + w * lo, w);
    memcpy(sorted + w, in + w * hi, w);
    for (size_t k = 2; k < SAMPLE; k++) {
      size_t i;
      do i = tu_below(n);
      while (is_float(t) && isnan(tu_get_f(in, i, t)));
      memcpy(sorted + w * k, in + w * i, w);
    }
  }
  qsort(sorted, m, w, ORDER[t]);
  return m;
}

/* The q-quantile of the sorted values (a random value when there are none). */
static void quantile(const unsigned char *sorted, size_t m, gpu_dtype t, double q, void *value) {
  const size_t w = gpu_dtype_size(t);
  if (m == 0) tu_fill(value, 1, t, TU_SMALL);
  else memcpy(value, sorted + w * (size_t)(q * (double)(m - 1) + 0.5), w);
}

static void float_value(gpu_dtype t, double d, void *out) {
  if (t == GPU_F32) *(float *)out = (float)d;
  else *(double *)out = d;
}

/* Every predicate worth trying on this data: each comparison at each
 * quantile (0% to 100% kept, ties included), ranges (empty and reversed
 * ones too), flags at each rate, every formula, and for floats NaN and
 * infinite values and bounds. Returns how many specs it wrote (<= 80). */
static size_t all_specs(gpu_dtype t, const unsigned char *sorted, size_t m, spec *out) {
  size_t k = 0;
  unsigned char q[COUNT(QUANTILES)][8], v[3][8];
  for (size_t qi = 0; qi < COUNT(QUANTILES); qi++) quantile(sorted, m, t, QUANTILES[qi], q[qi]);
  for (size_t ci = 0; ci < COUNT(CMPS); ci++)
    for (size_t qi = 0; qi < COUNT(QUANTILES); qi++) out[k++] = cmp_spec(t, CMPS[ci], q[qi]);
  static const int RANGES[][2] = {{0, 1}, {1, 3}, {0, 4}, {2, 2}, {3, 1}};
  for (size_t ri = 0; ri < COUNT(RANGES); ri++) out[k++] = range_spec(t, q[RANGES[ri][0]], q[RANGES[ri][1]]);
  for (size_t fi = 0; fi < COUNT(KEEP_RATES); fi++) out[k++] = flags_spec(KEEP_RATES[fi]);
  for (int f = 0; f < formula_count(t); f++) out[k++] = expr_spec(t, f);
  if (is_float(t)) {
    float_value(t, NAN, v[0]);
    float_value(t, INFINITY, v[1]);
    float_value(t, -INFINITY, v[2]);
    for (size_t ci = 0; ci < COUNT(CMPS); ci++) out[k++] = cmp_spec(t, CMPS[ci], v[0]);
    out[k++] = cmp_spec(t, GPU_GE, v[2]);
    out[k++] = cmp_spec(t, GPU_LT, v[1]);
    out[k++] = range_spec(t, v[0], q[4]);
    out[k++] = range_spec(t, q[0], v[0]);
    out[k++] = range_spec(t, v[2], v[1]);
  }
  return k;
}

/* ------------------------------------------------------------ buffers */

typedef struct {
  size_t cap; /* elements: the largest n, a guard and a shift */
  unsigned char *in, *out, *flags;           /* backend memory */
  unsigned char *h_in, *h_out, *h_ref, *h_back, *h_sorted;
  uint8_t *h_flags, *h_keep;
} buffers;

static buffers make_buffers(size_t max_n) {
  buffers b;
  b.cap = max_n + GUARD + 8;
  b.in = tu_alloc(b.cap * 8);
  b.out = tu_alloc(b.cap * 8);
  b.flags = tu_alloc(b.cap);
  b.h_in = tu_xmalloc(b.cap * 8);
  b.h_out = tu_xmalloc(b.cap * 8);
  b.h_ref = tu_xmalloc(b.cap * 8);
  b.h_back = tu_xmalloc(b.cap * 8);
  b.h_sorted = tu_xmalloc(SAMPLE * 8);
  b.h_flags = tu_xmalloc(b.cap);
  b.h_keep = tu_xmalloc(b.cap);
  return b;
}

static void free_buffers(buffers *b) {
  tu_free(b->in);
  tu_free(b->out);
  tu_free(b->flags);
  free(b->h_in);
  free(b->h_out);
  free(b->h_ref);
  free(b->h_back);
  free(b->h_sorted);
  free(b->h_flags);
  free(b->h_keep);
}

/* Fresh data of n elements at element offset `shift` of b->in; returns how
 * many of its non-NaN values it sorted into h_sorted. Integers alternate between
 * the full range and small values (many ties); floats carry NaN and +-inf. */
static size_t fresh_input(buffers *b, gpu_dtype t, size_t n, size_t shift, size_t trial) {
  const size_t w = gpu_dtype_size(t);
  tu_fill(b->h_in, n, t, is_float(t) ? (trial % 3 ? TU_SPECIAL : TU_FULL) : (trial % 2 ? TU_SMALL : TU_FULL));
  tu_upload(b->in + shift * w, b->h_in, n * w);
  return sort_values(b->h_in, n, t, b->h_sorted);
}

static void expect_input_unchanged(buffers *b, gpu_dtype t, size_t n, size_t shift) {
  const size_t w = gpu_dtype_size(t);
  tu_download(b->h_back, b->in + shift * w, n * w);
  ck_assert_msg(memcmp(b->h_back, b->h_in, n * w) == 0, "%s n=%zu: the input changed", gp_dtype_name(t), n);
}

/* One call: the spec's predicate on the n elements at b->in + shift,
 * checked against the reference, the guard and the poison. */
static void check_case(buffers *b, const spec *p, gpu_dtype t, size_t n, size_t shift, bool partition) {
  const size_t w = gpu_dtype_size(t);
  unsigned char *in = b->in + shift * w, *out = b->out + shift * w;
  uint8_t *flags = b->flags + shift;
  gpu_pred pred;
  switch (p->kind) {
    case GP_PRED_CMP: pred = gpu_pred_cmp(t, p->cmp, p->a); break;
    case GP_PRED_RANGE: pred = gpu_pred_range(t, p->a, p->b); break;
    case GP_PRED_FLAGS:
      for (size_t i = 0; i < n; i++) b->h_flags[i] = tu_uniform() < p->rate ? (uint8_t)(1 + tu_below(255)) : 0;
      tu_upload(flags, b->h_flags, n);
      pred = gpu_pred_flags(t, flags);
      break;
    default: pred = gpu_pred_expr(t, formula_text(t, p->formula)); break;
  }
  ck_assert_msg(pred.private_.status == GPU_OK, "%s: %s", p->what, gpu_last_error());
  reference_keep(p, t, b->h_flags, b->h_in, n, b->h_keep);
  const size_t want = reference_partition(b->h_in, b->h_keep, n, w, b->h_ref);
  tu_poison(out, (n + GUARD) * w);
  int64_t got = partition ? gpu_partition(in, n, pred, out) : gpu_compact(in, n, pred, out);
  const char *fn = partition ? "gpu_partition" : "gpu_compact";
  ck_assert_msg(got == (int64_t)want, "%s %s %s n=%zu shift %zu: returned %lld, expected %zu (%s)", fn,
                gp_dtype_name(t), p->what, n, shift, (long long)got, want, got < 0 ? gpu_last_error() : "");
  const size_t written = partition ? n : want;
  tu_download(b->h_out, out, (n + GUARD) * w);
  if (memcmp(b->h_out, b->h_ref, written * w) != 0)
    for (size_t i = 0; i < written; i++)
      if (memcmp(b->h_out + i * w, b->h_ref + i * w, w) != 0)
        ck_abort_msg("%s %s %s n=%zu shift %zu (kept %zu): out[%zu] = %.17g (bits %llx), expected %.17g (bits %llx)",
                     fn, gp_dtype_name(t), p->what, n, shift, want, i, tu_get_f(b->h_out, i, t),
                     (unsigned long long)tu_get_bits(b->h_out, i, t), tu_get_f(b->h_ref, i, t),
                     (unsigned long long)tu_get_bits(b->h_ref, i, t));
  for (size_t i = written * w; i < (n + GUARD) * w; i++)
    if (b->h_out[i] != POISON)
      ck_abort_msg("%s %s %s n=%zu shift %zu: wrote byte %zu of out, past the %zu elements it may write", fn,
                   gp_dtype_name(t), p->what, n, shift, i, written);
}

/* --------------------------------------------------------- sweeps */

/* The GPU's tiles and look-back need the large sizes; the host's chunks
 * (2^14) are covered well below them, its segments (2^22) by one size just
 * above, and CI's two cores are slow. */
#if TU_CUDA
static size_t max_size(void) { return tu_quick() ? 70000 : 8388617; }
static size_t largest_of_design(void) { return max_size(); }
static const size_t EXTRA_SIZE = 0;
static const size_t PRED_SIZES[] = {0, 1, 2, 33, 1000, 4097, 70001, 1048577};
#else
static size_t max_size(void) { return tu_quick() ? 70000 : ((size_t)1 << 22) + 12345; }
static size_t largest_of_design(void) { return tu_quick() ? 70000 : 1048581; }
static const size_t EXTRA_SIZE = ((size_t)1 << 22) + 12345;
static const size_t PRED_SIZES[] = {0, 1, 2, 33, 1000, 4097, 70001};
#endif
static const size_t QUICK_SIZES[] = {0, 1, 31, 33, 1025, 4097, 65537, 69999};

/* Every spec (every `stride`-th) as compact and as partition on the n
 * elements now at b->in + shift, which must then be as they were. */
static void check_specs(buffers *b, gpu_dtype t, size_t n, size_t shift, const spec *specs, size_t count,
                        size_t stride) {
  for (size_t k = 0; k < count; k += stride) {
    check_case(b, &specs[k], t, n, shift, false);
    check_case(b, &specs[k], t, n, shift, true);
  }
  expect_input_unchanged(b, t, n, shift);
}

/* Every type, every spec of all_specs, at the given sizes, arrays `shift`
 * elements into their allocations. */
static void sweep_all_specs(const size_t *sizes, size_t nsizes, size_t shift) {
  buffers b = make_buffers(max_size());
  spec specs[80];
  size_t trial = 0;
  for (size_t ti = 0; ti < COUNT(TYPES); ti++)
    for (size_t si = 0; si < nsizes; si++) {
      const gpu_dtype t = TYPES[ti];
      const size_t n = sizes[si];
      if (n > max_size() || (tu_quick() && n > 5000)) continue;
      size_t m = fresh_input(&b, t, n, shift, trial++);
      size_t count = all_specs(t, b.h_sorted, m, specs);
      check_specs(&b, t, n, shift, specs, count, shift && n > 5000 ? 7 : 1);
    }
  free_buffers(&b);
}

START_TEST(every_predicate_on_every_type) { sweep_all_specs(PRED_SIZES, COUNT(PRED_SIZES), 0); }
END_TEST

/* Pointers one element (flags: one byte) into their allocation. */
START_TEST(misaligned_pointers) {
  static const size_t sizes[] = {1, 5, 4097, 70001};
  sweep_all_specs(sizes, COUNT(sizes), 1);
}
END_TEST

/* DESIGN.md's sizes (and, on the host, one past a segment), a comparison
 * near the median, a range, flags and a formula, rotating the flags' rate
 * and the formula. Every type up to 65537 elements; above, where the
 * host's chunks are long covered, one type per size (all on the GPU). */
START_TEST(every_size) {
  const bool quick = tu_quick();
  const size_t *sizes = quick ? QUICK_SIZES : tu_sizes;
  const size_t nsizes = quick ? COUNT(QUICK_SIZES) : tu_nsizes;
  buffers b = make_buffers(max_size());
  size_t trial = 0;
  for (size_t si = 0; si <= nsizes; si++) {
    const size_t n = si < nsizes ? sizes[si] : EXTRA_SIZE;
    if (si < nsizes ? n > largest_of_design() : n == 0 || n > max_size()) continue;
    for (size_t ti = 0; ti < COUNT(TYPES); ti++) {
      const gpu_dtype t = TYPES[ti];
      if (quick && t != GPU_I32 && t != GPU_F64) continue;
      if (!TU_CUDA && n > 65537 && ti != si % COUNT(TYPES)) continue;
      size_t m = fresh_input(&b, t, n, 0, trial++);
      unsigned char lo[8], mid[8], hi[8];
      quantile(b.h_sorted, m, t, 0.01, lo);
      quantile(b.h_sorted, m, t, 0.5, mid);
      quantile(b.h_sorted, m, t, 0.99, hi);
      spec specs[4] = {cmp_spec(t, GPU_GT, mid), range_spec(t, lo, hi), flags_spec(KEEP_RATES[trial % 5]),
                       expr_spec(t, (int)(trial % (size_t)formula_count(t)))};
      check_specs(&b, t, n, 0, specs, 4, 1);
    }
  }
  free_buffers(&b);
}
END_TEST


/* ------------------------------------------------- small exact cases */

/* Compacts and partitions the n (<= 32) host values h with pred and expects
 * exactly the elements whose bit is set in `keep`, in order (then, for
 * partition, the others in order). */
static void expect_kept(gpu_dtype t, const void *h, size_t n, gpu_pred pred, uint32_t keep, const char *what) {
  const size_t w = gpu_dtype_size(t);
  unsigned char want[32 * 8], got[(32 + 4) * 8];
  size_t k = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++)
      if (((keep >> i) & 1) == (pass == 0)) memcpy(want + w * k++, (const unsigned char *)h + w * i, w);
  const size_t kept = (size_t)__builtin_popcount(keep);
  unsigned char *in = tu_alloc(n * w), *out = tu_alloc((n + 4) * w);
  tu_upload(in, h, n * w);
  for (int partition = 0; partition < 2; partition++) {
    tu_poison(out, (n + 4) * w);
    int64_t r = partition ? gpu_partition(in, n, pred, out) : gpu_compact(in, n, pred, out);
    ck_assert_msg(r == (int64_t)kept, "%s %s (%s): returned %lld, expected %zu (%s)", gp_dtype_name(t), what,
                  partition ? "partition" : "compact", (long long)r, kept, r < 0 ? gpu_last_error() : "");
    tu_download(got, out, (n + 4) * w);
    size_t written = partition ? n : kept;
    /* ck_abort_msg only on failure: a passing ck_assert_msg writes a mark
     * point to Check's pipe, a system call per element. */
    for (size_t i = 0; i < written; i++)
      if (memcmp(got + w * i, want + w * i, w) != 0)
        ck_abort_msg("%s %s (%s): out[%zu] = %.17g, expected %.17g", gp_dtype_name(t), what,
                     partition ? "partition" : "compact", i, tu_get_f(got, i, t), tu_get_f(want, i, t));
    for (size_t i = written * w; i < (n + 4) * w; i++)
      if (got[i] != POISON) ck_abort_msg("%s %s: wrote past the elements it may write", gp_dtype_name(t), what);
  }
  tu_free(in);
  tu_free(out);
}

/* 64-bit values closer together than double can tell apart compare as
 * the integers they are, in every kind of predicate. */
START_TEST(integers_compare_exactly) {
  const int64_t big = ((int64_t)1 << 53) + 1;
  const int64_t s[8] = {big - 1, big, big + 1, -big, -big - 1, INT64_MAX, INT64_MIN, INT64_MAX - 1};
  const int64_t s_hi = big + 1, s_max1 = INT64_MAX - 1;
  expect_kept(GPU_I64, s, 8, gpu_pred_cmp(GPU_I64, GPU_EQ, &big), 0x02, "== 2^53+1");
  expect_kept(GPU_I64, s, 8, gpu_pred_cmp(GPU_I64, GPU_NE, &big), 0xfd, "!= 2^53+1");
  expect_kept(GPU_I64, s, 8, gpu_pred_cmp(GPU_I64, GPU_GT, &big), 0xa4, "> 2^53+1");
  expect_kept(GPU_I64, s, 8, gpu_pred_cmp(GPU_I64, GPU_LT, &big), 0x59, "< 2^53+1");
  expect_kept(GPU_I64, s, 8, gpu_pred_cmp(GPU_I64, GPU_GE, &s_max1), 0xa0, ">= INT64_MAX-1");
  expect_kept(GPU_I64, s, 8, gpu_pred_range(GPU_I64, &big, &s_hi), 0x02, "[2^53+1, 2^53+2)");
  expect_kept(GPU_I64, s, 8, gpu_pred_expr(GPU_I64, "x == 9007199254740993"), 0x02, "expr == 2^53+1");
  expect_kept(GPU_I64, s, 8, gpu_pred_expr(GPU_I64, "x > -9007199254740994"), 0xaf, "expr > -2^53-2");
  const uint64_t top = UINT64_MAX, top1 = UINT64_MAX - 1, half = (uint64_t)1 << 63;
  const uint64_t u[6] = {top, top1, half, half + 1, (uint64_t)big, (uint64_t)big - 1};
  expect_kept(GPU_U64, u, 6, gpu_pred_cmp(GPU_U64, GPU_EQ, &top1), 0x02, "== 2^64-2");
  expect_kept(GPU_U64, u, 6, gpu_pred_cmp(GPU_U64, GPU_GT, &half), 0x0b, "> 2^63");
  expect_kept(GPU_U64, u, 6, gpu_pred_cmp(GPU_U64, GPU_LE, &top1), 0x3e, "<= 2^64-2");
  expect_kept(GPU_U64, u, 6, gpu_pred_range(GPU_U64, &half, &top), 0x0e, "[2^63, 2^64-1)");
  expect_kept(GPU_U64, u, 6, gpu_pred_expr(GPU_U64, "x > 0xfffffffffffffffe"), 0x01, "expr > 2^64-2");
  /* 32-bit: unsigned compares as unsigned, the extremes included. */
  const int32_t i32[4] = {INT32_MIN, -1, 0, INT32_MAX}, zero = 0;
  expect_kept(GPU_I32, i32, 4, gpu_pred_cmp(GPU_I32, GPU_LT, &zero), 0x3, "< 0");
  const uint32_t u32[4] = {0, 1, 0x80000000u, UINT32_MAX}, mid = 0x7fffffff;
  expect_kept(GPU_U32, u32, 4, gpu_pred_cmp(GPU_U32, GPU_GT, &mid), 0xc, "> 2^31-1");
  expect_kept(GPU_U32, u32, 4, gpu_pred_expr(GPU_U32, "x >= -1"), 0x8, "expr >= -1 (as unsigned)");
}
END_TEST

/* IEEE rules: NaN fails every comparison but !=, -0.0 == +0.0, a NaN bound
 * keeps nothing. The data: NaN, -inf, -1, -0, +0, 1, inf, -NaN. */
enum { V_ZERO, V_NZERO, V_NAN, V_ONE, V_MONE, V_INF, V_NINF };
static const double NAN_VALUES[] = {0.0, -0.0, NAN, 1, -1, INFINITY, -INFINITY};
static const struct {
  bool range;
  gpu_cmp cmp;
  int a, b; /* the value, or lo and hi: indices into NAN_VALUES */
  uint32_t keep;
} NAN_CASES[] = {
    {false, GPU_EQ, V_ZERO, 0, 0x18},    {false, GPU_EQ, V_NZERO, 0, 0x18},   {false, GPU_NE, V_ZERO, 0, 0xe7},
    {false, GPU_LT, V_ZERO, 0, 0x06},    {false, GPU_LE, V_ZERO, 0, 0x1e},    {false, GPU_GT, V_ZERO, 0, 0x60},
    {false, GPU_GE, V_ZERO, 0, 0x78},    {false, GPU_EQ, V_NAN, 0, 0},        {false, GPU_NE, V_NAN, 0, 0xff},
    {false, GPU_LT, V_NAN, 0, 0},        {false, GPU_LE, V_NAN, 0, 0},        {false, GPU_GT, V_NAN, 0, 0},
    {false, GPU_GE, V_NAN, 0, 0},        {false, GPU_GE, V_NINF, 0, 0x7e},    {true, 0, V_MONE, V_INF, 0x3c},
    {true, 0, V_NINF, V_INF, 0x3e},      {true, 0, V_NAN, V_ONE, 0},          {true, 0, V_NINF, V_NAN, 0},
    {true, 0, V_ONE, V_MONE, 0},
};
static const struct {
  const char *formula;
  uint32_t keep;
} NAN_FORMULAS[] = {{"x != x", 0x81}, {"x < 0 || x >= 0", 0x7e}, {"x", 0xe7} /* NaN is true */};

START_TEST(nan_rules) {
  const double d[8] = {NAN, -INFINITY, -1, -0.0, 0.0, 1, INFINITY, -NAN};
  for (int k = 0; k < 2; k++) {
    const gpu_dtype t = k ? GPU_F64 : GPU_F32;
    const size_t w = gpu_dtype_size(t);
    unsigned char h[8 * 8], v[COUNT(NAN_VALUES)][8];
    for (int i = 0; i < 8; i++) float_value(t, d[i], h + i * w);
    for (size_t i = 0; i < COUNT(NAN_VALUES); i++) float_value(t, NAN_VALUES[i], v[i]);
    for (size_t c = 0; c < COUNT(NAN_CASES); c++) {
      char what[64];
      const double a = NAN_VALUES[NAN_CASES[c].a], b = NAN_VALUES[NAN_CASES[c].b];
      if (NAN_CASES[c].range) snprintf(what, sizeof what, "range [%g, %g)", a, b);
      else snprintf(what, sizeof what, "cmp %d %g", (int)NAN_CASES[c].cmp, a);
      gpu_pred p = NAN_CASES[c].range ? gpu_pred_range(t, v[NAN_CASES[c].a], v[NAN_CASES[c].b])
                                      : gpu_pred_cmp(t, NAN_CASES[c].cmp, v[NAN_CASES[c].a]);
      expect_kept(t, h, 8, p, NAN_CASES[c].keep, what);
    }
    for (size_t f = 0; f < COUNT(NAN_FORMULAS); f++)
      expect_kept(t, h, 8, gpu_pred_expr(t, NAN_FORMULAS[f].formula), NAN_FORMULAS[f].keep, NAN_FORMULAS[f].formula);
  }
}
END_TEST

/* Kept ones first, then the others, each in their original order. */
START_TEST(partition_order) {
  const int32_t h[7] = {5, 1, 4, 2, 3, 6, 0}, two = 2;
  const int32_t want[7] = {5, 4, 3, 6, 1, 2, 0};
  int32_t *in = tu_alloc(sizeof h), *out = tu_alloc(sizeof h), got[7];
  tu_upload(in, h, sizeof h);
  ck_assert_int_eq(gpu_partition(in, 7, gpu_pred_cmp(GPU_I32, GPU_GT, &two), out), 4);
  tu_download(got, out, sizeof got);
  ck_assert_mem_eq(got, want, sizeof want);
  tu_free(in);
  tu_free(out);
  expect_kept(GPU_I32, h, 7, gpu_pred_expr(GPU_I32, "x > 2"), 0x35, "expr x > 2");
  const uint8_t flags_h[7] = {0, 1, 0, 255, 0, 0, 7};
  uint8_t *flags = tu_alloc(sizeof flags_h);
  tu_upload(flags, flags_h, sizeof flags_h);
  expect_kept(GPU_I32, h, 7, gpu_pred_flags(GPU_I32, flags), 0x4a, "flags");
  tu_free(flags);
}
END_TEST

/* ------------------------------------------------------ bad arguments */

typedef int64_t (*entry_point)(const void *, size_t, gpu_pred, void *);
static const entry_point ENTRIES[2] = {gpu_compact, gpu_partition};
static const char *const ENTRY_NAMES[2] = {"gpu_compact", "gpu_partition"};

/* The call fails with status and a message holding `words`, and neither the
 * input (h) nor the poisoned output changed. */
static void expect_refused(int e, const void *in, size_t n, gpu_pred pred, void *out, gpu_status status,
                           const char *words, const int32_t *dev_in, const int32_t *h, const int32_t *dev_out) {
  int64_t r = ENTRIES[e](in, n, pred, out);
  ck_assert_msg(r == -(int64_t)status, "%s (%s): returned %lld, expected %d", ENTRY_NAMES[e], words, (long long)r,
                -(int)status);
  ck_assert_msg(strncmp(gpu_last_error(), ENTRY_NAMES[e], strlen(ENTRY_NAMES[e])) == 0 &&
                    strstr(gpu_last_error(), words),
                "%s: message \"%s\" does not hold \"%s\"", ENTRY_NAMES[e], gpu_last_error(), words);
  int32_t back[100], outs[100];
  tu_download(back, dev_in, sizeof back);
  ck_assert_msg(memcmp(back, h, sizeof back) == 0, "%s (%s): the input changed", ENTRY_NAMES[e], words);
  tu_download(outs, dev_out, sizeof outs);
  for (size_t i = 0; i < sizeof outs; i++)
    ck_assert_msg(((unsigned char *)outs)[i] == POISON, "%s (%s): out was written", ENTRY_NAMES[e], words);
}

START_TEST(bad_arguments) {
  enum { N = 100 };
  int32_t *in = tu_alloc(N * 4), *out = tu_alloc(N * 4);
  uint8_t *flags = tu_alloc(N);
  int32_t h[N];
  for (int i = 0; i < N; i++) h[i] = i;
  tu_upload(in, h, sizeof h);
  tu_poison(out, N * 4);
  tu_poison(flags, N);
  const int32_t v = 50;
  const gpu_pred good = gpu_pred_cmp(GPU_I32, GPU_GT, &v);

  /* The constructor's words at once, and again from gpu_compact later. */
  gpu_pred p = gpu_pred_cmp(GPU_I32, GPU_EQ, NULL);
  ck_assert_int_eq(p.private_.status, GPU_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(gpu_last_error(), "gpu_pred_cmp: value is NULL");
  gpu_pred zeroed;
  memset(&zeroed, 0, sizeof zeroed);
  const struct {
    gpu_pred pred;
    const char *words;
  } bad_preds[] = {
      {zeroed, "not made by a gpu_pred_* constructor"},
      {gpu_pred_cmp((gpu_dtype)6, GPU_GT, &v), ": invalid predicate: gpu_pred_cmp: unknown element type 6"},
      {gpu_pred_cmp((gpu_dtype)-1, GPU_GT, &v), "gpu_pred_cmp: unknown element type -1"},
      {gpu_pred_cmp(GPU_I32, (gpu_cmp)6, &v), "gpu_pred_cmp: unknown comparison 6"},
      {gpu_pred_cmp(GPU_I32, (gpu_cmp)-1, &v), "gpu_pred_cmp: unknown comparison -1"},
      {gpu_pred_cmp(GPU_I32, GPU_EQ, NULL), ": invalid predicate: gpu_pred_cmp: value is NULL"},
      {gpu_pred_range(GPU_I32, NULL, &v), "gpu_pred_range: lo is NULL"},
      {gpu_pred_range(GPU_I32, &v, NULL), "gpu_pred_range: hi is NULL"},
      {gpu_pred_range((gpu_dtype)9, &v, &v), "gpu_pred_range: unknown element type 9"},
      {gpu_pred_flags((gpu_dtype)7, flags), "gpu_pred_flags: unknown element type 7"},
      {gpu_pred_flags(GPU_I32, NULL), "flags is NULL with n = 100"},
      {gpu_pred_flags(GPU_I32, (const uint8_t *)out), "flags and out overlap"},
      {gpu_pred_expr(GPU_I32, NULL), "gpu_pred_expr: expression is NULL"},
      {gpu_pred_expr((gpu_dtype)12, "x > 1"), "gpu_pred_expr: unknown element type 12"},
      {gpu_pred_expr(GPU_I32, "x >"), ": invalid predicate: gpu_pred_expr: column 4:"},
  };
  for (int e = 0; e < 2; e++)
    for (size_t k = 0; k < COUNT(bad_preds); k++)
      expect_refused(e, in, N, bad_preds[k].pred, out, GPU_ERR_INVALID_ARGUMENT, bad_preds[k].words, in, h, out);

  /* Predicates whose bytes were changed after their constructor. */
  gpu_pred damaged[5] = {good, good, good, gpu_pred_expr(GPU_I32, "x > 1"), good};
  damaged[0].private_.kind = 99;
  damaged[1].private_.type = 17;
  damaged[2].private_.cmp = 9;
  damaged[3].private_.ptr = &v;
  damaged[4].private_.status = 1000;
  static const char *const damage_words[5] = {"not made by", "damaged", "damaged", "damaged",
                                              "invalid predicate (its constructor failed"};
  for (int e = 0; e < 2; e++)
    for (int k = 0; k < 5; k++)
      expect_refused(e, in, N, damaged[k], out, GPU_ERR_INVALID_ARGUMENT, damage_words[k], in, h, out);

  /* The arrays. */
  for (int e = 0; e < 2; e++) {
    expect_refused(e, NULL, N, good, out, GPU_ERR_INVALID_ARGUMENT, "in is NULL", in, h, out);
    expect_refused(e, in, N, good, NULL, GPU_ERR_INVALID_ARGUMENT, "out is NULL", in, h, out);
    expect_refused(e, (char *)in + 1, 10, good, out, GPU_ERR_INVALID_ARGUMENT, "aligned", in, h, out);
    expect_refused(e, in, 10, good, (char *)out + 2, GPU_ERR_INVALID_ARGUMENT, "aligned", in, h, out);
    expect_refused(e, in, SIZE_MAX / 2, good, out, GPU_ERR_INVALID_ARGUMENT, "overflow", in, h, out);
    /* In place, and overlapping either way, is refused. */
    expect_refused(e, in, N, good, in, GPU_ERR_INVALID_ARGUMENT, "in and out overlap", in, h, out);
    expect_refused(e, in, N - 1, good, in + 1, GPU_ERR_INVALID_ARGUMENT, "in and out overlap", in, h, out);
    expect_refused(e, in + 1, N - 1, good, in, GPU_ERR_INVALID_ARGUMENT, "in and out overlap", in, h, out);
    expect_refused(e, in, N, gpu_pred_flags(GPU_I32, (const uint8_t *)out + 3 * N), out,
                   GPU_ERR_INVALID_ARGUMENT, "flags and out overlap", in, h, out);
    /* The type comes from the predicate: i64 elements need 8-byte alignment. */
    const int64_t v64 = 1;
    expect_refused(e, in + 1, 10, gpu_pred_cmp(GPU_I64, GPU_GT, &v64), out, GPU_ERR_INVALID_ARGUMENT, "aligned", in,
                   h, out);
#if TU_CUDA
    /* Host memory, and ranges past the end of their allocation, on the CUDA backend. */
    expect_refused(e, h, N, good, out, GPU_ERR_INVALID_ARGUMENT, "in", in, h, out);
    expect_refused(e, in, 2 * N, good, out + N / 2, GPU_ERR_INVALID_ARGUMENT, "past the end", in, h, out);
    uint8_t host_flags[N] = {0};
    expect_refused(e, in, N, gpu_pred_flags(GPU_I32, host_flags), out, GPU_ERR_INVALID_ARGUMENT, "flags", in, h, out);
    expect_refused(e, in, N, gpu_pred_flags(GPU_I32, flags + 1), out, GPU_ERR_INVALID_ARGUMENT, "past the end", in,
                   h, out);
#endif
    /* n == 0: nothing to do, NULL arrays are fine, but the predicate is still checked. */
    ck_assert_int_eq(ENTRIES[e](NULL, 0, good, NULL), 0);
    ck_assert_int_eq(ENTRIES[e](NULL, 0, gpu_pred_flags(GPU_F64, NULL), NULL), 0);
    ck_assert_int_eq(ENTRIES[e](in, 0, gpu_pred_expr(GPU_U64, "x & 1"), in), 0);
    ck_assert_int_eq(ENTRIES[e](NULL, 0, zeroed, NULL), -(int64_t)GPU_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(ENTRIES[e](NULL, 0, gpu_pred_cmp(GPU_I32, GPU_EQ, NULL), NULL), -(int64_t)GPU_ERR_INVALID_ARGUMENT);
  }
  tu_free(in);
  tu_free(out);
  tu_free(flags);
}
END_TEST

/* Refused formulas: the column at once, and again from gpu_compact after
 * other failures have replaced this thread's last error. */
static const struct {
  gpu_dtype t;
  const char *formula;
  int column;
} BAD_FORMULAS[] = {
    {GPU_I32, "", 1},          {GPU_U64, "   ", 1},       {GPU_I64, "(x + 1", 7},   {GPU_F32, "x + 1)", 6},
    {GPU_F64, "x >", 4},       {GPU_U32, "y > 1", 1},     {GPU_I32, "x = 1", 3},    {GPU_I32, "x ? 1 : 0", 3},
    {GPU_F64, "sin(x)", 1},    {GPU_I32, "min(x)", 1},    {GPU_F32, "1e999 > x", 1}, {GPU_I64, "x @ 1", 3},
    {GPU_U32, "x++", 2},       {GPU_I32, "0123", 1},      {GPU_I32, "x && || x", 6},
    /* type errors: bitwise operators and % on floats */
    {GPU_F32, "x & 1", 3},     {GPU_F64, "x % 2", 3},     {GPU_F32, "~x", 1},       {GPU_F64, "x << 1", 3},
    {GPU_F32, "(x > 0) | (x % 3)", 14},                   {GPU_I32, "x & 1.5", 3},
};

START_TEST(refused_formulas) {
  const size_t n = 16;
  int32_t h[100] = {0};
  unsigned char *in = tu_alloc(sizeof h), *out = tu_alloc(100 * 4);
  tu_upload(in, h, sizeof h);
  tu_poison(out, 100 * 4);
  for (size_t k = 0; k < COUNT(BAD_FORMULAS); k++) {
    char want[64];
    snprintf(want, sizeof want, "gpu_pred_expr: column %d:", BAD_FORMULAS[k].column);
    gpu_pred p = gpu_pred_expr(BAD_FORMULAS[k].t, BAD_FORMULAS[k].formula);
    ck_assert_int_eq(p.private_.status, GPU_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strncmp(gpu_last_error(), want, strlen(want)) == 0, "\"%s\": wanted \"%s\", got \"%s\"",
                  BAD_FORMULAS[k].formula, want, gpu_last_error());
    gpu_pred_range(GPU_I32, NULL, NULL); /* another failure in between */
    for (int e = 0; e < 2; e++) {
      char words[96];
      snprintf(words, sizeof words, ": invalid predicate: %s", want);
      expect_refused(e, in, n, p, out, GPU_ERR_INVALID_ARGUMENT, words, (const int32_t *)in, h, (const int32_t *)out);
    }
  }
  /* Longer than 4096 characters. */
  char *f = tu_xmalloc(GP_EXPR_MAX_LENGTH + 2);
  memset(f, ' ', GP_EXPR_MAX_LENGTH + 1);
  f[0] = 'x';
  f[GP_EXPR_MAX_LENGTH + 1] = '\0';
  gpu_pred p = gpu_pred_expr(GPU_I32, f);
  ck_assert_int_eq(p.private_.status, GPU_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(gpu_last_error(), "column 4097"));
  ck_assert_int_eq(gpu_compact(in, n, p, out), -(int64_t)GPU_ERR_INVALID_ARGUMENT);
  free(f);
  tu_free(in);
  tu_free(out);
}
END_TEST

/* ------------------------------------------------------ formula cache */

START_TEST(formula_cache) {
  /* One entry per (type, formula up to spacing and redundant parentheses). */
  gpu_pred a = gpu_pred_expr(GPU_I32, "x>1"), b = gpu_pred_expr(GPU_I32, " x > (1) ");
  ck_assert_int_eq(a.private_.status, GPU_OK);
  ck_assert_ptr_nonnull(a.private_.ptr);
  ck_assert_ptr_eq(a.private_.ptr, b.private_.ptr);
  ck_assert_ptr_ne(a.private_.ptr, gpu_pred_expr(GPU_F32, "x>1").private_.ptr);
  ck_assert_ptr_ne(a.private_.ptr, gpu_pred_expr(GPU_U32, "x>1").private_.ptr);
  ck_assert_ptr_ne(a.private_.ptr, gpu_pred_expr(GPU_I32, "x>2").private_.ptr);
  const gp_formula *f = a.private_.ptr;
  ck_assert_int_eq(f->type, GPU_I32);
  ck_assert_str_eq(gp_expr_canonical(f->expr), gp_expr_canonical(((const gp_formula *)b.private_.ptr)->expr));
  /* Threads interning the same formulas at once share one entry each. */
  enum { THREADS_WORK = 96 };
  const void *seen[THREADS_WORK];
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < THREADS_WORK; i++) {
    char text[64];
    snprintf(text, sizeof text, "%*s(x * %d) > %*s3", i % 5, "", 1000 + i % 6, i % 3, "");
    seen[i] = gpu_pred_expr(i % 2 ? GPU_F64 : GPU_I64, text).private_.ptr;
  }
  for (int i = 0; i < THREADS_WORK; i++)
    for (int j = 0; j < THREADS_WORK; j++) {
      ck_assert_ptr_nonnull(seen[i]);
      ck_assert_msg((seen[i] == seen[j]) == (i % 6 == j % 6), "formulas %d and %d", i, j);
    }
#if TU_CUDA
  /* NVRTC compiles a formula once per (type, canonical text). A formula no
   * other test uses, so that the counts start from nothing. */
  const size_t n = 1000;
  int64_t *in = tu_alloc(n * 8), *out = tu_alloc(n * 8);
  int64_t *h = tu_xmalloc(n * 8);
  tu_fill(h, n, GPU_I64, TU_SMALL);
  tu_upload(in, h, n * 8);
  const uint64_t before = gp_compact_nvrtc_compiles();
  ck_assert_msg(gpu_compact(in, n, gpu_pred_expr(GPU_I32, "x>424242"), out) == 0, "%s", gpu_last_error());
  ck_assert_uint_eq(gp_compact_nvrtc_compiles(), before + 1);
  ck_assert_msg(gpu_compact(in, n, gpu_pred_expr(GPU_I32, "x > (424242)"), out) == 0, "%s", gpu_last_error());
  ck_assert_uint_eq(gp_compact_nvrtc_compiles(), before + 1);
  ck_assert_msg(gpu_compact(in, n, gpu_pred_expr(GPU_I64, " x>424242"), out) == 0, "%s", gpu_last_error());
  ck_assert_uint_eq(gp_compact_nvrtc_compiles(), before + 2);
  ck_assert_msg(gpu_compact(in, n, gpu_pred_expr(GPU_I64, "(x)>424242"), out) == 0, "%s", gpu_last_error());
  ck_assert_uint_eq(gp_compact_nvrtc_compiles(), before + 2);
  tu_free(in);
  tu_free(out);
  free(h);
#endif
}
END_TEST

/* Thousands of distinct refused formulas: the messages kept for gpu_compact
 * are bounded, the oldest give way, and a predicate whose message gave way
 * still names the column. A message made after thousands of others is kept
 * whole (once it was cut short past the 4,096th). */
START_TEST(refused_formula_messages_are_bounded) {
  int32_t h[4] = {1, 2, 3, 4}, *in = tu_alloc(sizeof h), *out = tu_alloc(sizeof h);
  tu_upload(in, h, sizeof h);
  char text[64];
  gpu_pred first = gpu_pred_expr(GPU_I32, "x > y0"), p = first;
  for (int i = 1; i < 6000; i++) {
    snprintf(text, sizeof text, "x > y%d", i);
    p = gpu_pred_expr(GPU_I32, text);
  }
  ck_assert_int_eq(gpu_compact(in, 4, p, out), -(int64_t)GPU_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(gpu_last_error(), "gpu_compact: invalid predicate: gpu_pred_expr: column 5:"), "%s",
                gpu_last_error());
  ck_assert_int_eq(gpu_partition(in, 4, first, out), -(int64_t)GPU_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(gpu_last_error(), "gpu_partition: invalid predicate (its constructor failed with "
                                         "GPU_ERR_INVALID_ARGUMENT") &&
                    strstr(gpu_last_error(), " at column 5)"),
                "%s", gpu_last_error());
  ck_assert_int_eq(gpu_partition(in, 4, gpu_pred_expr(GPU_I32, "x > y0"), out), -(int64_t)GPU_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(gpu_last_error(), "gpu_partition: invalid predicate: gpu_pred_expr: column 5:"));
  tu_free(in);
  tu_free(out);
}
END_TEST

/* The parsed formulas are bounded: beyond GP_CACHED_FORMULAS the least
 * recently used give way, and gpu_release_cached_memory frees every idle one
 * (once each distinct formula stayed for the life of the process). A
 * predicate whose formula gave way is refused with a message that says so;
 * one made again works. */
START_TEST(formula_cache_is_bounded) {
  enum { N = 8 };
  int32_t h[N] = {5, -3, 8, 0, 12, 7, -1, 9}, got[N];
  int32_t *in = tu_alloc(sizeof h), *out = tu_alloc(sizeof h);
  tu_upload(in, h, sizeof h);
  gpu_pred first = gpu_pred_expr(GPU_I32, "x > 6 + 0*1000000");
  gpu_pred used = gpu_pred_expr(GPU_I32, "x > 6 + 0*1000001");
  char text[64];
  for (int i = 0; i < 3 * GP_CACHED_FORMULAS; i++) {
    snprintf(text, sizeof text, "x > %d", 1000 + i);
    ck_assert_int_eq(gpu_pred_expr(GPU_I32, text).private_.status, GPU_OK);
    if (i % 64 == 0) ck_assert_int_eq(gpu_compact(in, N, used, out), 4); /* kept recent */
  }
  ck_assert_int_eq(gpu_compact(in, N, first, out), -(int64_t)GPU_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(gpu_last_error(), "gpu_compact: pred's formula is no longer cached"), "%s", gpu_last_error());
  ck_assert_int_eq(gpu_compact(in, 0, first, out), -(int64_t)GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_compact(in, N, used, out), 4);
  ck_assert_int_eq(gpu_compact(in, N, gpu_pred_expr(GPU_I32, "x > 6 + 0*1000000"), out), 4);
  tu_download(got, out, 4 * sizeof *got);
  ck_assert(got[0] == 8 && got[1] == 12 && got[2] == 7 && got[3] == 9);
  /* gpu_release_cached_memory frees the idle formulas. */
  ck_assert_int_eq(gpu_release_cached_memory(), GPU_OK);
  ck_assert_int_eq(gpu_partition(in, N, used, out), -(int64_t)GPU_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(gpu_partition(in, N, gpu_pred_expr(GPU_I32, "x > 6 + 0*1000001"), out), 4);
  tu_free(in);
  tu_free(out);
}
END_TEST

#if TU_CUDA
void compact_cuda_tests(TCase *tc); /* test_compact_cuda.c: n > 2^32 */
#endif

static Suite *compact_suite(void) {
  Suite *s = suite_create("compact");
  /* One case per group, so that CK_RUN_CASE=... runs one group alone
   * (compute-sanitizer runs the groups side by side). The formula cache's
   * bounds come last: they evict what the others interned. */
  TCase *args = tu_tcase("arguments"), *rules = tu_tcase("rules"), *types = tu_tcase("types"),
        *sizes = tu_tcase("sizes"), *formulas = tu_tcase("formulas");
  tcase_add_test(args, bad_arguments);
  tcase_add_test(args, refused_formulas);
  tcase_add_test(rules, integers_compare_exactly);
  tcase_add_test(rules, nan_rules);
  tcase_add_test(rules, partition_order);
  tcase_add_test(types, every_predicate_on_every_type);
  tcase_add_test(sizes, every_size);
  tcase_add_test(sizes, misaligned_pointers);
#if TU_CUDA
  compact_cuda_tests(sizes);
#endif
  tcase_add_test(formulas, formula_cache);
  tcase_add_test(formulas, formula_cache_is_bounded);
  tcase_add_test(formulas, refused_formula_messages_are_bounded);
  suite_add_tcase(s, args);
  suite_add_tcase(s, rules);
  suite_add_tcase(s, types);
  suite_add_tcase(s, sizes);
  suite_add_tcase(s, formulas);
  return s;
}

int main(void) {
  return tu_main(TU_CUDA ? "compact (CUDA backend)" : "compact (host backend)", TU_THIS_BACKEND_IS_CUDA,
                 compact_suite);
}
