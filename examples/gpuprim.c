/*
 * gpuprim, the command-line tool.
 *
 *   gpuprim demo [-n N] [--host]   every primitive (scan, reduce, compaction,
 *                                  partition, sort, segmented scan and reduce,
 *                                  SpMV) at a real size, each result checked
 *                                  against the host backend, and a throughput
 *                                  table (demo.c, demo_more.c, demo_spmv.c)
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

#include "demo.h"

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
          "usage: gpuprim demo [-n N] [--host]   every primitive at a real size, checked against the host\n"
          "                                      backend, with throughput\n"
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
