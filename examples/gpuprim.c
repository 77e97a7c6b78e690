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
 *   gpuprim version [--host]       the version, and the backend calls use
 *   gpuprim --version | --help | -h
 *
 * Every command runs on the backend GPUPRIM_BACKEND (auto|cuda|host) names, or
 * on the host with --host; auto, the default, is the GPU where there is one.
 * The demo's default size is 2^28 elements there, 2^24 on the host.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demo.h"

static int usage(FILE *to, int status);

/* The backend a command runs on: the host with --host, else the one
 * GPUPRIM_BACKEND names. Refuses (exit status 1) a backend calls cannot use,
 * and says why in a user's words; returns it resolved to CUDA or HOST. */
static gpu_backend command_backend(const char *command, int host) {
  if (host) CHECK(gpu_set_backend(GPU_BACKEND_HOST)); /* else GPUPRIM_BACKEND decides */
  const gpu_status s = gpu_synchronize(); /* checks the backend as every call does */
  if (s != GPU_OK) {
    fprintf(stderr, "gpuprim %s: %s%s\n", command, error_words(s),
            s == GPU_ERR_NO_DEVICE ? " (--host or GPUPRIM_BACKEND=host runs on the host)" : "");
    exit(1);
  }
  return gpu_get_backend();
}

/* ------------------------------------------------------------ gpuprim spmv */

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
static int spmv_file(const char *path, gpu_dtype vt, gpu_dtype it, int reps, gpu_backend b) {
  gpu_csr A;
  progress("reading %s", path);
  double t0 = now();
  CHECK(gpu_csr_read_mm(path, vt, it, &A));
  const double read_s = now() - t0;
  CHECK(gpu_csr_validate(&A));
  progress_done();
  printf("%s: %lld x %lld, %lld entries, %s values, %s indices; read in %.3f s, valid; %s backend\n", path,
         (long long)A.rows, (long long)A.cols, (long long)A.nnz, type_name(vt), type_name(it), read_s,
         b == GPU_BACKEND_CUDA ? "CUDA" : "host");
  const size_t vw = gpu_dtype_size(vt);
  void *h_x = malloc((size_t)A.cols * vw + 1), *h_y = malloc((size_t)A.rows * vw + 1), *d_x = NULL, *d_y = NULL;
  if (!h_x || !h_y) die_no_memory("the vectors x and y");
  fill(h_x, (size_t)A.cols, vt);
  CHECK(gpu_alloc(&d_x, (size_t)A.cols * vw));
  CHECK(gpu_alloc(&d_y, (size_t)A.rows * vw));
  CHECK(gpu_upload(d_x, h_x, (size_t)A.cols * vw));

  if (reps <= 0) { /* about half a second of products, 3 at least */
    const double once = spmv_seconds(&A, NULL, d_x, d_y, 1);
    reps = once > 0 ? (int)fmin(fmax(0.5 / once, 3), 100000) : 100000;
  }
  const double flops = 2.0 * (double)A.nnz;
  progress("timing gpu_spmv");
  const double direct = spmv_seconds(&A, NULL, d_x, d_y, reps);
  printf("  gpu_spmv            %10.4f ms a product, %8.2f GFLOP/s (%d products)\n", direct * 1e3,
         flops / direct * 1e-9, reps);
  gpu_spmv_plan *plan = NULL;
  progress("timing gpu_spmv_plan_run");
  t0 = now();
  CHECK(gpu_spmv_plan_create(&plan, &A));
  const double plan_s = now() - t0;
  const double planned = spmv_seconds(&A, plan, d_x, d_y, reps);
  progress_done();
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
  int host = 0, reps = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--f32")) {
      vt = GPU_F32;
    } else if (!strcmp(argv[i], "--i64")) {
      it = GPU_I64;
    } else if (!strcmp(argv[i], "--host")) {
      host = 1;
    } else if (!strcmp(argv[i], "-r")) {
      const char *text = i + 1 < argc ? argv[++i] : "";
      reps = (int)parse_count(text, INT_MAX);
      if (reps == 0) {
        fprintf(stderr, "gpuprim spmv: -r wants a whole number from 1 to %d, not '%s'\n", INT_MAX, text);
        return usage(stderr, 2);
      }
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "gpuprim spmv: unknown option '%s'\n", argv[i]);
      return usage(stderr, 2);
    } else if (path) {
      fprintf(stderr, "gpuprim spmv: one FILE.mtx at a time, not '%s' and '%s'\n", path, argv[i]);
      return usage(stderr, 2);
    } else {
      path = argv[i];
    }
  }
  if (!path) {
    fprintf(stderr, "gpuprim spmv: no FILE.mtx given\n");
    return usage(stderr, 2);
  }
  return spmv_file(path, vt, it, reps, command_backend("spmv", host));
}

static int usage(FILE *to, int status) {
  fprintf(to,
          "usage: gpuprim demo [-n N] [--host]   every primitive at a real size, checked against the host\n"
          "                                      backend, with throughput\n"
          "       gpuprim spmv FILE.mtx [--f32] [--i64] [-r REPS] [--host]\n"
          "                                      y = A x timed without and with a plan, checked on CUDA\n"
          "       gpuprim version [--host]       the version and the backend in use\n"
          "       gpuprim --version | --help\n"
          "\n"
          "GPUPRIM_BACKEND=auto|cuda|host chooses the backend (auto: the GPU where there is one);\n"
          "--host runs on the host whatever it says.\n");
  return status;
}

/* gpuprim version [--host] */
static int version_main(int argc, char **argv) {
  int host = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--host")) {
      host = 1;
    } else {
      fprintf(stderr, "gpuprim version: takes no arguments but --host, not '%s'\n", argv[i]);
      return usage(stderr, 2);
    }
  }
  const gpu_backend b = command_backend("version", host);
  printf("gpuprim %s (backend: %s)\n", gpu_version(), b == GPU_BACKEND_CUDA ? "CUDA" : "host");
  return 0;
}

/* gpuprim demo [-n N] [--host] */
static int demo_main(int argc, char **argv) {
  size_t n = 0;
  int host = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "-n")) {
      /* The demo holds three host buffers of n 8-byte elements. */
      const char *text = i + 1 < argc ? argv[++i] : "";
      n = (size_t)parse_count(text, SIZE_MAX / 8);
      if (n == 0) {
        fprintf(stderr, "gpuprim demo: -n wants a whole number from 1 to %zu, not '%s'\n",
                (size_t)(SIZE_MAX / 8), text);
        return usage(stderr, 2);
      }
    } else if (!strcmp(argv[i], "--host")) {
      host = 1;
    } else {
      fprintf(stderr, "gpuprim demo: unknown argument '%s'\n", argv[i]);
      return usage(stderr, 2);
    }
  }
  return demo(n, command_backend("demo", host));
}

/* OpenMP threads that spin-wait between parallel regions steal the cores
 * from other processes and, where those hold the cores, from each other:
 * a host call then takes milliseconds instead of microseconds. GCC's OpenMP
 * runtime reads its wait policy once, when it is loaded, and has no call to
 * change it, so the tool runs itself again with OMP_WAIT_POLICY=passive
 * unless the user chose a policy (or spin count). Where exec fails, it goes
 * on as it is. */
static void wait_passively(char **argv) {
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT") || getenv("KMP_BLOCKTIME")) return;
  if (setenv("OMP_WAIT_POLICY", "passive", 0) != 0) return;
  execv("/proc/self/exe", argv);
}

int main(int argc, char **argv) {
  wait_passively(argv);
  if (argc < 2) return usage(stderr, 2);
  const char *command = argv[1];
  if (!strcmp(command, "-h") || !strcmp(command, "--help") || !strcmp(command, "help"))
    return usage(stdout, 0);
  if (!strcmp(command, "--version")) {
    printf("gpuprim %s\n", gpu_version());
    return 0;
  }
  if (!strcmp(command, "version")) return version_main(argc, argv);
  if (!strcmp(command, "spmv")) return spmv_main(argc, argv);
  if (!strcmp(command, "demo")) return demo_main(argc, argv);
  fprintf(stderr, "gpuprim: unknown command '%s'\n", command);
  return usage(stderr, 2);
}
