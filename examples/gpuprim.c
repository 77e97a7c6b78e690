/*
 * gpuprim, the command-line tool.
 *
 *   gpuprim demo [-n N] [--host]   scan, reduce, compaction and partition at a
 *                                  real size, each result checked against the
 *                                  host backend, and a throughput table
 *   gpuprim spmv FILE.mtx [--f32] [--i64] [-r REPS] [--host]
 *                                  a Matrix Market file read, validated and
 *                                  multiplied (y = A x) without and with a
 *                                  plan: ms and GFLOP/s; on CUDA the result is
 *                                  checked against the host backend
 *   gpuprim version
 *
 * The demo runs on the GPU where there is one (GPUPRIM_BACKEND or --host
 * choose otherwise): by default 2^28 elements there, 2^24 on the host.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuprim.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(const char *what, gpu_status s) {
  fprintf(stderr, "gpuprim: %s: %s (%s)\n", what, gpu_status_string(s), gpu_last_error());
  exit(1);
}
#define CHECK(call)                     \
  do {                                  \
    gpu_status s_ = (call);             \
    if (s_ != GPU_OK) die(#call, s_);   \
  } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* Random contents: small integers (sums stay readable), floats in [-1, 1). */
static void fill(void *p, size_t n, gpu_dtype t) {
  for (size_t i = 0; i < n; i++) {
    uint64_t r = next_random();
    double f = (double)(r >> 11) * 0x1.0p-52 - 1.0;
    switch (t) {
      case GPU_I32: ((int32_t *)p)[i] = (int32_t)(r % 1000) - 500; break;
      case GPU_U32: ((uint32_t *)p)[i] = (uint32_t)r; break;
      case GPU_I64: ((int64_t *)p)[i] = (int64_t)(r % 1000000) - 500000; break;
      case GPU_U64: ((uint64_t *)p)[i] = r; break;
      case GPU_F32: ((float *)p)[i] = (float)f; break;
      case GPU_F64: ((double *)p)[i] = f; break;
    }
  }
}

/* Integers must match exactly; float sums within a relative 1e-5 (f32) or
 * 1e-12 (f64) of the running magnitude; MIN/MAX exactly. */
static size_t mismatches(const void *a, const void *b, size_t n, gpu_dtype t, gpu_op op) {
  size_t bad = 0;
  double mag = 0;
  for (size_t i = 0; i < n; i++) {
    if (t == GPU_F32 || t == GPU_F64) {
      double x = t == GPU_F32 ? ((const float *)a)[i] : ((const double *)a)[i];
      double y = t == GPU_F32 ? ((const float *)b)[i] : ((const double *)b)[i];
      mag += fabs(y);
      double tol = op == GPU_ADD ? (t == GPU_F32 ? 1e-5 : 1e-12) * (mag + 1) : 0;
      if (!(x == y || fabs(x - y) <= tol || (isnan(x) && isnan(y)))) bad++;
    } else if (memcmp((const char *)a + i * gpu_dtype_size(t), (const char *)b + i * gpu_dtype_size(t),
                      gpu_dtype_size(t)) != 0) {
      bad++;
    }
  }
  return bad;
}

typedef struct {
  const char *name;
  gpu_dtype type;
  gpu_op op;
  unsigned flags;
} scan_case;

static const char *type_name(gpu_dtype t) {
  static const char *names[] = {"i32", "u32", "i64", "u64", "f32", "f64"};
  return names[t];
}

static void row(const char *primitive, const char *variant, size_t n, double seconds, double bytes, const char *check) {
  printf("%-10s %-26s %12zu %10.3f %10.1f %10.1f   %s\n", primitive, variant, n, seconds * 1e3, bytes / seconds * 1e-9,
         (double)n / seconds * 1e-9, check);
  fflush(stdout);
}

/* Times one call (after a warm-up call) on the current backend. */
#define TIME_CALL(seconds, call)     \
  do {                               \
    CHECK(call);                     \
    CHECK(gpu_synchronize());        \
    double t0_ = now();              \
    CHECK(call);                     \
    CHECK(gpu_synchronize());        \
    (seconds) = now() - t0_;         \
  } while (0)

/* Stream compaction cases: a predicate kind ('c' gpu_pred_cmp, 'r'
 * gpu_pred_range, 'f' gpu_pred_flags, 'e' gpu_pred_expr) and its values. */
typedef struct {
  const char *name;
  gpu_dtype type;
  char kind;
  gpu_cmp cmp;
  double a, b; /* cmp: the value; range: lo, hi */
  const char *expression;
  int partition;
} compact_case;

/* v as one element of type t (the cases' values fit the types they go with). */
static void element_from(gpu_dtype t, double v, unsigned char *out) {
  union {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
  } e = {0};
  switch (t) {
    case GPU_I32: e.i32 = (int32_t)v; break;
    case GPU_U32: e.u32 = (uint32_t)v; break;
    case GPU_I64: e.i64 = (int64_t)v; break;
    case GPU_U64: e.u64 = (uint64_t)v; break;
    case GPU_F32: e.f32 = (float)v; break;
    case GPU_F64: e.f64 = v; break;
  }
  memcpy(out, &e, gpu_dtype_size(t));
}

/* The case's predicate for the current backend (flags: that backend's copy). */
static gpu_pred make_pred(const compact_case *cc, const uint8_t *flags) {
  unsigned char a[8], b[8];
  element_from(cc->type, cc->a, a);
  element_from(cc->type, cc->b, b);
  switch (cc->kind) {
    case 'c': return gpu_pred_cmp(cc->type, cc->cmp, a);
    case 'r': return gpu_pred_range(cc->type, a, b);
    case 'f': return gpu_pred_flags(cc->type, flags);
    default: return gpu_pred_expr(cc->type, cc->expression);
  }
}

static int64_t compact_or_partition(const compact_case *cc, const void *in, size_t n, gpu_pred pred, void *out) {
  int64_t k = cc->partition ? gpu_partition(in, n, pred, out) : gpu_compact(in, n, pred, out);
  if (k < 0) die(cc->partition ? "gpu_partition" : "gpu_compact", (gpu_status)-k);
  return k;
}

/* Compaction and partition: timed on the demo's backend (after a warm-up
 * call, which also compiles a formula on CUDA), then checked element by
 * element against the host backend. Float data holds a NaN every 1024
 * elements, which fails every comparison. Returns the number of failures. */
static int demo_compaction(size_t n, gpu_backend backend, void *h_in, void *h_out, void *h_ref, void *d_in,
                           void *d_out) {
  const compact_case cases[] = {
      {"x < 0", GPU_I32, 'c', GPU_LT, 0, 0, NULL, 0},
      {"-0.5 <= x < 0.5", GPU_F32, 'r', GPU_LT, -0.5, 0.5, NULL, 0},
      {"x >= 0.9", GPU_F64, 'c', GPU_GE, 0.9, 0, NULL, 0},
      {"flags (1 in 3)", GPU_U64, 'f', GPU_LT, 0, 0, NULL, 0},
      {"x > 0.5 && !isnan(x)", GPU_F32, 'e', GPU_LT, 0, 0, "x > 0.5 && !isnan(x)", 0},
      {"(x&7)==3 || x<-400000", GPU_I64, 'e', GPU_LT, 0, 0, "(x & 7) == 3 || x < -400000", 0},
      {"x < 0", GPU_I32, 'c', GPU_LT, 0, 0, NULL, 1},
      {"fabs(x) < 0.1", GPU_F64, 'e', GPU_LT, 0, 0, "fabs(x) < 0.1", 1},
  };
  uint8_t *h_flags = malloc(n), *d_flags = NULL;
  if (!h_flags) {
    fprintf(stderr, "gpuprim: out of host memory for n = %zu\n", n);
    exit(1);
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t r = next_random();
    h_flags[i] = r % 3 == 0 ? (uint8_t)(1 + (r >> 8) % 255) : 0; /* any nonzero byte keeps */
  }
  CHECK(gpu_alloc((void **)&d_flags, n));
  CHECK(gpu_upload(d_flags, h_flags, n));

  int failures = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const compact_case *cc = &cases[c];
    const char *primitive = cc->partition ? "partition" : "compact";
    const size_t w = gpu_dtype_size(cc->type);
    char name[64];
    snprintf(name, sizeof name, "%s %s", type_name(cc->type), cc->name);
    fprintf(stderr, "... %s %s\n", primitive, name);
    fill(h_in, n, cc->type);
    if (cc->type == GPU_F32)
      for (size_t i = 0; i < n; i += 1024) ((float *)h_in)[i] = NAN;
    if (cc->type == GPU_F64)
      for (size_t i = 0; i < n; i += 1024) ((double *)h_in)[i] = NAN;
    CHECK(gpu_upload(d_in, h_in, n * w));

    const gpu_pred pred = make_pred(cc, d_flags);
    compact_or_partition(cc, d_in, n, pred, d_out);
    CHECK(gpu_synchronize());
    double t0 = now();
    const int64_t k = compact_or_partition(cc, d_in, n, pred, d_out);
    const double seconds = now() - t0;
    const size_t written = cc->partition ? n : (size_t)k;
    CHECK(gpu_download(h_out, d_out, written * w));

    CHECK(gpu_set_backend(GPU_BACKEND_HOST));
    const int64_t k_ref = compact_or_partition(cc, h_in, n, make_pred(cc, h_flags), h_ref);
    CHECK(gpu_set_backend(backend));
    size_t bad = k == k_ref ? mismatches(h_out, h_ref, written, cc->type, GPU_MAX) : 1;
    char check[96];
    if (k != k_ref)
      snprintf(check, sizeof check, "FAILED: kept %lld, host %lld", (long long)k, (long long)k_ref);
    else if (bad)
      snprintf(check, sizeof check, "FAILED: %zu differ", bad);
    else
      snprintf(check, sizeof check, "ok (kept %.1f%%)", 100.0 * (double)k / (double)n);
    failures += bad != 0;
    /* Bytes: all of the input (and the flags) read, the output written. */
    const double bytes = (double)(n * w) + (cc->kind == 'f' ? (double)n : 0.0) + (double)(written * w);
    row(primitive, name, n, seconds, bytes, check);
  }
  CHECK(gpu_free(d_flags));
  free(h_flags);
  return failures;
}

static int demo(size_t n, gpu_backend backend) {
  CHECK(gpu_set_backend(backend));
  const gpu_backend b = gpu_get_backend();
  const char *where = b == GPU_BACKEND_CUDA ? "CUDA" : "host";
  if (n == 0) n = b == GPU_BACKEND_CUDA ? (size_t)1 << 28 : (size_t)1 << 24;
  printf("gpuprim %s demo on the %s backend, n = %zu; every result is checked against the host backend\n\n",
         gpu_version(), where, n);
  printf("%-10s %-26s %12s %10s %10s %10s   %s\n", "primitive", "case", "n", "ms", "GB/s", "Gelem/s", "check");

  void *h_in = malloc(n * 8), *h_out = malloc(n * 8), *h_ref = malloc(n * 8);
  void *d_in = NULL, *d_out = NULL;
  if (!h_in || !h_out || !h_ref) {
    fprintf(stderr, "gpuprim: out of host memory for n = %zu\n", n);
    return 1;
  }
  CHECK(gpu_alloc(&d_in, n * 8));
  CHECK(gpu_alloc(&d_out, n * 8));
  int failures = 0;

  const scan_case scans[] = {
      {"i32 add inclusive", GPU_I32, GPU_ADD, GPU_INCLUSIVE},
      {"i32 add exclusive", GPU_I32, GPU_ADD, GPU_EXCLUSIVE},
      {"i32 max inclusive reverse", GPU_I32, GPU_MAX, GPU_REVERSE},
      {"u32 xor inclusive", GPU_U32, GPU_XOR, GPU_INCLUSIVE},
      {"i64 add exclusive", GPU_I64, GPU_ADD, GPU_EXCLUSIVE},
      {"f32 add inclusive", GPU_F32, GPU_ADD, GPU_INCLUSIVE},
      {"f64 add inclusive", GPU_F64, GPU_ADD, GPU_INCLUSIVE},
      {"f64 min exclusive", GPU_F64, GPU_MIN, GPU_EXCLUSIVE},
  };
  for (size_t c = 0; c < sizeof scans / sizeof scans[0]; c++) {
    const scan_case *sc = &scans[c];
    const size_t w = gpu_dtype_size(sc->type);
    fprintf(stderr, "... scan %s\n", sc->name);
    fill(h_in, n, sc->type);
    CHECK(gpu_upload(d_in, h_in, n * w));
    double seconds;
    TIME_CALL(seconds, gpu_scan(d_in, d_out, n, sc->type, sc->op, sc->flags));
    CHECK(gpu_download(h_out, d_out, n * w));
    CHECK(gpu_set_backend(GPU_BACKEND_HOST));
    CHECK(gpu_scan(h_in, h_ref, n, sc->type, sc->op, sc->flags));
    CHECK(gpu_set_backend(backend));
    size_t bad = mismatches(h_out, h_ref, n, sc->type, sc->op);
    char check[64];
    snprintf(check, sizeof check, bad ? "FAILED: %zu differ" : "ok", bad);
    failures += bad != 0;
    row("scan", sc->name, n, seconds, 2.0 * (double)(n * w), check);
  }

  const scan_case reduces[] = {{"i64 add", GPU_I64, GPU_ADD, 0}, {"f32 max", GPU_F32, GPU_MAX, 0},
                               {"f64 add", GPU_F64, GPU_ADD, 0}};
  for (size_t c = 0; c < sizeof reduces / sizeof reduces[0]; c++) {
    const scan_case *rc = &reduces[c];
    const size_t w = gpu_dtype_size(rc->type);
    fprintf(stderr, "... reduce %s\n", rc->name);
    fill(h_in, n, rc->type);
    CHECK(gpu_upload(d_in, h_in, n * w));
    unsigned char got[8], want[8];
    double seconds;
    TIME_CALL(seconds, gpu_reduce(d_in, n, rc->type, rc->op, got));
    CHECK(gpu_set_backend(GPU_BACKEND_HOST));
    CHECK(gpu_reduce(h_in, n, rc->type, rc->op, want));
    CHECK(gpu_set_backend(backend));
    size_t bad = mismatches(got, want, 1, rc->type, rc->op);
    failures += bad != 0;
    row("reduce", rc->name, n, seconds, (double)(n * w), bad ? "FAILED" : "ok");
  }

  failures += demo_compaction(n, backend, h_in, h_out, h_ref, d_in, d_out);

  CHECK(gpu_free(d_in));
  CHECK(gpu_free(d_out));
  free(h_in);
  free(h_out);
  free(h_ref);
  CHECK(gpu_release_cached_memory());
  printf("\n%s\n", failures ? "SOME RESULTS WERE WRONG" : "all results agree with the host backend");
  return failures ? 1 : 0;
}

/* ------------------------------------------------------------ gpuprim spmv */

static int usage(void);

/* text as a count in [1, max], decimal or 0x hex, or 0 when it is not one:
 * strtoull alone takes "-5" as 2^64 - 5 and "5x" as 5. */
static unsigned long long parse_count(const char *text, unsigned long long max) {
  if (!isdigit((unsigned char)text[0])) return 0;
  errno = 0;
  char *end = NULL;
  const unsigned long long v = strtoull(text, &end, 0);
  return errno || *end || v > max ? 0 : v;
}

/* Element k of a host array of an index or value type, as int64 / double. */
static int64_t index_at(const void *a, int64_t k, gpu_dtype t) {
  return t == GPU_I32 ? ((const int32_t *)a)[k] : ((const int64_t *)a)[k];
}
static double value_at(const void *a, int64_t k, gpu_dtype t) {
  return t == GPU_F32 ? ((const float *)a)[k] : ((const double *)a)[k];
}

/* Seconds per product y = A x over reps calls (after one warm-up call), by
 * gpu_spmv or, given one, by the plan. */
static double spmv_seconds(const gpu_csr *A, gpu_spmv_plan *plan, const void *x, void *y, int reps) {
  double t0 = 0;
  for (int i = -1; i < reps; i++) {
    if (i == 0) {
      CHECK(gpu_synchronize());
      t0 = now();
    }
    CHECK(plan ? gpu_spmv_plan_run(plan, x, y, 1.0, 0.0) : gpu_spmv(A, x, y, 1.0, 0.0));
  }
  CHECK(gpu_synchronize());
  return (now() - t0) / reps;
}

/* The CUDA result y against the host backend's product on a host copy of A:
 * each y[r] within a few units of rounding per entry of the magnitudes summed
 * in row r. Returns how many differ. */
static size_t spmv_check_against_host(const gpu_csr *A, const void *h_x, const void *h_y, gpu_backend backend) {
  const size_t iw = gpu_dtype_size(A->index_type), vw = gpu_dtype_size(A->value_type);
  gpu_csr H = *A;
  H.row_ptr = malloc(((size_t)A->rows + 1) * iw);
  H.col_idx = malloc((size_t)A->nnz * iw + 1);
  H.values = malloc((size_t)A->nnz * vw + 1);
  void *h_ref = malloc((size_t)A->rows * vw + 1);
  if (!H.row_ptr || !H.col_idx || !H.values || !h_ref) die("host copy of A", GPU_ERR_OUT_OF_MEMORY);
  CHECK(gpu_download(H.row_ptr, A->row_ptr, ((size_t)A->rows + 1) * iw));
  CHECK(gpu_download(H.col_idx, A->col_idx, (size_t)A->nnz * iw));
  CHECK(gpu_download(H.values, A->values, (size_t)A->nnz * vw));
  CHECK(gpu_set_backend(GPU_BACKEND_HOST));
  CHECK(gpu_spmv(&H, h_x, h_ref, 1.0, 0.0));
  CHECK(gpu_set_backend(backend));
  const double eps = A->value_type == GPU_F32 ? 0x1p-23 : 0x1p-52;
  size_t bad = 0;
  for (int64_t r = 0; r < A->rows; r++) {
    const int64_t lo = index_at(H.row_ptr, r, A->index_type), hi = index_at(H.row_ptr, r + 1, A->index_type);
    double magnitude = 0;
    for (int64_t k = lo; k < hi; k++)
      magnitude += fabs(value_at(H.values, k, A->value_type) *
                        value_at(h_x, index_at(H.col_idx, k, A->index_type), A->value_type));
    const double got = value_at(h_y, r, A->value_type), want = value_at(h_ref, r, A->value_type);
    bad += !(got == want || fabs(got - want) <= 2 * eps * (double)(hi - lo + 2) * magnitude);
  }
  free(H.row_ptr);
  free(H.col_idx);
  free(H.values);
  free(h_ref);
  return bad;
}

/* gpuprim spmv FILE.mtx: read, validate, time y = A x without and with a
 * plan, and on CUDA check the result against the host backend. */
static int spmv_file(const char *path, gpu_dtype vt, gpu_dtype it, int reps, gpu_backend backend) {
  if (backend != GPU_BACKEND_AUTO) CHECK(gpu_set_backend(backend)); /* else GPUPRIM_BACKEND decides */
  const gpu_backend b = gpu_get_backend();
  gpu_csr A;
  double t0 = now();
  CHECK(gpu_csr_read_mm(path, vt, it, &A));
  const double read_s = now() - t0;
  CHECK(gpu_csr_validate(&A));
  printf("%s: %lld x %lld, %lld entries, %s values, %s indices; read in %.3f s, valid; %s backend\n", path,
         (long long)A.rows, (long long)A.cols, (long long)A.nnz, type_name(vt), type_name(it), read_s,
         b == GPU_BACKEND_CUDA ? "CUDA" : "host");
  const size_t vw = gpu_dtype_size(vt);
  void *h_x = malloc((size_t)A.cols * vw + 1), *h_y = malloc((size_t)A.rows * vw + 1), *d_x = NULL, *d_y = NULL;
  if (!h_x || !h_y) die("host vectors", GPU_ERR_OUT_OF_MEMORY);
  fill(h_x, (size_t)A.cols, vt);
  CHECK(gpu_alloc(&d_x, (size_t)A.cols * vw));
  CHECK(gpu_alloc(&d_y, (size_t)A.rows * vw));
  CHECK(gpu_upload(d_x, h_x, (size_t)A.cols * vw));

  if (reps <= 0) { /* about half a second of products, 3 at least */
    const double once = spmv_seconds(&A, NULL, d_x, d_y, 1);
    reps = once > 0 ? (int)fmin(fmax(0.5 / once, 3), 100000) : 100000;
  }
  const double flops = 2.0 * (double)A.nnz;
  const double direct = spmv_seconds(&A, NULL, d_x, d_y, reps);
  printf("  gpu_spmv            %10.4f ms a product, %8.2f GFLOP/s (%d products)\n", direct * 1e3,
         flops / direct * 1e-9, reps);
  gpu_spmv_plan *plan = NULL;
  t0 = now();
  CHECK(gpu_spmv_plan_create(&plan, &A));
  const double plan_s = now() - t0;
  const double planned = spmv_seconds(&A, plan, d_x, d_y, reps);
  printf("  gpu_spmv_plan_run   %10.4f ms a product, %8.2f GFLOP/s (plan made in %.3f ms)\n", planned * 1e3,
         flops / planned * 1e-9, plan_s * 1e3);
  gpu_spmv_plan_destroy(plan);

  int failures = 0;
  if (b == GPU_BACKEND_CUDA) {
    CHECK(gpu_download(h_y, d_y, (size_t)A.rows * vw));
    const size_t bad = spmv_check_against_host(&A, h_x, h_y, b);
    printf("  check against the host backend: %s", bad ? "FAILED: " : "ok\n");
    if (bad) printf("%zu of %lld rows differ\n", bad, (long long)A.rows);
    failures = bad != 0;
  }
  CHECK(gpu_free(d_x));
  CHECK(gpu_free(d_y));
  CHECK(gpu_csr_free(&A));
  free(h_x);
  free(h_y);
  return failures;
}

static int spmv_main(int argc, char **argv) {
  const char *path = NULL;
  gpu_dtype vt = GPU_F64, it = GPU_I32;
  gpu_backend backend = GPU_BACKEND_AUTO;
  int reps = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--f32")) {
      vt = GPU_F32;
    } else if (!strcmp(argv[i], "--i64")) {
      it = GPU_I64;
    } else if (!strcmp(argv[i], "--host")) {
      backend = GPU_BACKEND_HOST;
    } else if (!strcmp(argv[i], "-r")) {
      const char *text = i + 1 < argc ? argv[++i] : "";
      reps = (int)parse_count(text, INT_MAX);
      if (reps == 0) {
        fprintf(stderr, "gpuprim spmv: -r wants a whole number from 1 to %d, not '%s'\n", INT_MAX, text);
        return usage();
      }
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "gpuprim spmv: unknown option '%s'\n", argv[i]);
      return usage();
    } else if (path) {
      fprintf(stderr, "gpuprim spmv: one FILE.mtx at a time, not '%s' and '%s'\n", path, argv[i]);
      return usage();
    } else {
      path = argv[i];
    }
  }
  if (!path) {
    fprintf(stderr, "gpuprim spmv: no FILE.mtx given\n");
    return usage();
  }
  return spmv_file(path, vt, it, reps, backend);
}

static int usage(void) {
  fprintf(stderr,
          "usage: gpuprim demo [-n N] [--host]   scan, reduce, compaction, partition at a real size, checked,\n"
          "                                      with throughput\n"
          "       gpuprim spmv FILE.mtx [--f32] [--i64] [-r REPS] [--host]\n"
          "                                      y = A x timed without and with a plan, checked on CUDA\n"
          "       gpuprim version\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  if (!strcmp(argv[1], "version")) {
    if (argc > 2) {
      fprintf(stderr, "gpuprim version: takes no arguments, not '%s'\n", argv[2]);
      return usage();
    }
    printf("gpuprim %s (backend: %s)\n", gpu_version(), gpu_get_backend() == GPU_BACKEND_CUDA ? "CUDA" : "host");
    return 0;
  }
  if (!strcmp(argv[1], "spmv")) return spmv_main(argc, argv);
  if (!strcmp(argv[1], "demo")) {
    size_t n = 0;
    gpu_backend backend = GPU_BACKEND_AUTO;
    for (int i = 2; i < argc; i++) {
      if (!strcmp(argv[i], "-n")) {
        /* The demo holds three host buffers of n 8-byte elements. */
        const char *text = i + 1 < argc ? argv[++i] : "";
        n = (size_t)parse_count(text, SIZE_MAX / 8);
        if (n == 0) {
          fprintf(stderr, "gpuprim demo: -n wants a whole number from 1 to %zu, not '%s'\n",
                  (size_t)(SIZE_MAX / 8), text);
          return usage();
        }
      } else if (!strcmp(argv[i], "--host")) {
        backend = GPU_BACKEND_HOST;
      } else {
        fprintf(stderr, "gpuprim demo: unknown argument '%s'\n", argv[i]);
        return usage();
      }
    }
    return demo(n, backend);
  }
  if (strcmp(argv[1], "-h") && strcmp(argv[1], "--help") && strcmp(argv[1], "help"))
    fprintf(stderr, "gpuprim: unknown command '%s'\n", argv[1]);
  return usage();
}
