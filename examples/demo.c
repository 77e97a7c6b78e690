/*
 * `gpuprim demo`: every primitive at a real size on the demo's backend, each
 * result checked against the host backend, in one throughput table. This file
 * holds the shared helpers (demo.h), scan, reduce, compaction and partition,
 * and the driver; demo_more.c has sort and segmented, demo_spmv.c SpMV.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "demo.h"

double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *error_words(gpu_status s) {
  const char *message = gpu_last_error();
  /* "gpu_csr_read_mm: x.mtx: cannot open: ..." names a C function first. */
  const size_t name = strncmp(message, "gpu_", 4) ? 0 : strspn(message, "abcdefghijklmnopqrstuvwxyz_0123456789");
  if (name && !strncmp(message + name, ": ", 2)) return message + name + 2;
  if (*message) return message;
  const char *words = strstr(gpu_status_string(s), ": "); /* "GPU_ERR_IO: input/output error" */
  return words ? words + 2 : gpu_status_string(s);
}

void die(gpu_status s) {
  progress_done();
  fprintf(stderr, "gpuprim: %s\n", error_words(s));
  exit(1);
}

void die_no_memory(const char *what) {
  progress_done();
  fprintf(stderr, "gpuprim: out of host memory for %s\n", what);
  exit(1);
}

static int progress_shown; /* a progress line is on the terminal */

void progress(const char *fmt, ...) {
  if (!isatty(fileno(stderr))) return;
  va_list ap;
  va_start(ap, fmt);
  fputs("\r\033[K... ", stderr); /* back to the line's start, and clear it */
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fflush(stderr);
  progress_shown = 1;
}

void progress_done(void) {
  if (!progress_shown) return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
  progress_shown = 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
uint64_t next_random(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

void fill(void *p, size_t n, gpu_dtype t) {
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

size_t mismatches(const void *a, const void *b, size_t n, gpu_dtype t, gpu_op op) {
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

const char *type_name(gpu_dtype t) {
  static const char *names[] = {"i32", "u32", "i64", "u64", "f32", "f64"};
  return names[t];
}

void row(const char *primitive, const char *variant, size_t n, double seconds, double bytes, const char *check) {
  progress_done();
  printf("%-10s %-26s %12zu %10.3f %10.1f %10.1f   %s\n", primitive, variant, n, seconds * 1e3, bytes / seconds * 1e-9,
         (double)n / seconds * 1e-9, check);
  fflush(stdout);
}

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
  if (k < 0) die((gpu_status)-k);
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
    progress("%s %s", primitive, name);
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

int demo(size_t n, gpu_backend backend) {
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
    progress("scan %s", sc->name);
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
    progress("reduce %s", rc->name);
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
  failures += demo_sort(n, backend, h_in, h_out, h_ref, d_in, d_out);
  failures += demo_segmented(n, backend, h_in, h_out, h_ref, d_in, d_out);
  failures += demo_linrec(n, backend, h_in, h_out, h_ref, d_in, d_out);

  CHECK(gpu_free(d_in));
  CHECK(gpu_free(d_out));
  free(h_in);
  free(h_out);
  free(h_ref);
  /* SpMV allocates its own matrix and vectors, after the buffers above are
   * gone, so that the demo's peak memory stays that of the n-element cases. */
  failures += demo_spmv(n, backend);
  CHECK(gpu_release_cached_memory());
  printf("\n%s\n", failures ? "SOME RESULTS WERE WRONG" : "all results agree with the host backend");
  return failures ? 1 : 0;
}
