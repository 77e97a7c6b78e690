// gpuprim's CSR SpMV side by side with cusparseSpMV on the same device
// arrays, f32 and f64, int32 indices: y = A x (alpha 1, beta 0), and for one
// matrix also y = A x + y (beta 1). Contenders, in each benchmark:
//   plan    gpu_spmv_plan_run with a plan made once (a solver's loop: one
//           kernel a product, no wait)
//   direct  gpu_spmv (checks A's entries and waits for the verdict each call)
//   alg1    cusparseSpMV, CUSPARSE_SPMV_CSR_ALG1 } each with its own
//   alg2    cusparseSpMV, CUSPARSE_SPMV_CSR_ALG2 } descriptors and buffer,
//           preprocessed once (cusparse_shim.h)
//   floor   not a product: a plain kernel that only streams A, gathers x
//           and writes y (spmv_floor.h), an estimate of the fastest a
//           product of that matrix can be (not a bound: ALG1 beats it on
//           f64 with random columns); its table says how near cuSPARSE and
//           gpuprim come to it, so how much any kernel might gain
// Matrices (spmv_matrices.h): the real ones in <data>/matrices, data being
// GPUPRIM_TEST_DATA or else the repository's tests/data (all under
// 600K nonzeros: launch-bound), and generated ones: uniform 16 a row at 4M
// rows (the reference point) and 8M, power-law rows, banded, arrow
// (one dense row) at 8M rows, the 27-point stencil on 192^3 (10^8 nonzeros
// and more, but the 4M reference). x is uniform in [-1, 1).
//
// Columns: *_us medians of CUDA-event timings (round robin after warm-up,
// bench_medians_us); *_GFLOPs = 2 nnz / time; X_vs_algK = ALG K's time / X's
// time (> 1: gpuprim faster).
//
// Before timing, gpuprim's results (direct and plan, into poisoned y) are
// checked against ALG1's, and ALG2's too, so the reference is vouched for:
// each row within 1e-4 (f32) or 1e-12 (f64) of sum_j |a_ij x_j| (+ |y_i| for
// beta 1), whatever order each sums in; and direct and plan must give the
// same bits. A mismatch marks the row FAILED and the program exits 1. While
// the CUDA backend answers GPU_ERR_UNSUPPORTED (issue 6's kernels not there
// yet) the row says so and times cuSPARSE alone.
//
// --quick (or GPUPRIM_BENCH_QUICK=1): the real matrices, generated ones at 1M
// rows (stencil 64^3), fewer repetitions: a smoke run.
#include <benchmark/benchmark.h>

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "bench_main.h"
#include "cub_shim.h"
#include "cusparse_shim.h"
#include "gpuprim.h"
#include "spmv_floor.h"
#include "spmv_matrices.h"

namespace {

spmv_matrix_cache matrices;

// Device memory for one benchmark, freed at its end.
struct device_array {
  void *p = nullptr;
  explicit device_array(size_t bytes) {
    if (gpu_alloc(&p, bytes) != GPU_OK) {
      std::fprintf(stderr, "bench_spmv: gpu_alloc of %zu bytes: %s\n", bytes, gpu_last_error());
      std::exit(2);
    }
  }
  ~device_array() { gpu_free(p); }
  device_array(const device_array &) = delete;
  device_array &operator=(const device_array &) = delete;
};

// What the contenders run on.
struct product {
  const gpu_csr *A;
  const void *x;
  void *y_direct, *y_plan;
  double beta;
  gpu_spmv_plan *plan;
  cusparse_spmv *alg[2];  // alg[1] NULL when cuSPARSE refused ALG2
  void *y_floor, *floor_scratch;
};

void must_run(gpu_status s, const char *what) {
  if (s == GPU_OK) return;
  std::fprintf(stderr, "bench_spmv: %s failed while timing: %s\n", what, gpu_last_error());
  std::exit(2);
}

void timed_plan(void *arg) {
  auto *p = static_cast<product *>(arg);
  must_run(gpu_spmv_plan_run(p->plan, p->x, p->y_plan, 1.0, p->beta), "gpu_spmv_plan_run");
}

void timed_direct(void *arg) {
  auto *p = static_cast<product *>(arg);
  must_run(gpu_spmv(p->A, p->x, p->y_direct, 1.0, p->beta), "gpu_spmv");
}

void timed_alg1(void *arg) {
  if (cusparse_spmv_run(static_cast<product *>(arg)->alg[0]) != 0) std::exit(2);
}

void timed_alg2(void *arg) {
  if (cusparse_spmv_run(static_cast<product *>(arg)->alg[1]) != 0) std::exit(2);
}

void timed_floor(void *arg) {
  auto *p = static_cast<product *>(arg);
  if (spmv_floor_run(p->A, p->x, p->y_floor, p->floor_scratch) != 0) std::exit(2);
}

double value_at(const void *p, int64_t i, gpu_dtype t) {
  union {
    float f32;
    double f64;
  } v{};
  const size_t w = gpu_dtype_size(t);
  if (gpu_download(&v, static_cast<const char *>(p) + size_t(i) * w, w) != GPU_OK) return NAN;
  return t == GPU_F32 ? double(v.f32) : v.f64;
}

// "" when y agrees with ref row by row, else the first row that does not.
std::string compare(const char *who, const void *y, const char *ref_name, const void *ref, const double *scale,
                    const gpu_csr &A) {
  const double tol = A.value_type == GPU_F32 ? 1e-4 : 1e-12;
  const int64_t i = spmv_bench_first_mismatch(y, ref, scale, size_t(A.rows), A.value_type, tol);
  if (i < 0) return "";
  char m[256];
  std::snprintf(m, sizeof m, "%s: y[%lld] = %.17g, %s's = %.17g (sum |a x| = %.6g)", who, (long long)i,
                value_at(y, i, A.value_type), ref_name, value_at(ref, i, A.value_type), value_at(scale, i, GPU_F64));
  return m;
}

// One gpuprim form run once and checked: "" good, "UNSUPPORTED", or what is wrong.
std::string checked(const char *who, gpu_status s, const void *y, const void *ref, const double *scale,
                    const gpu_csr &A) {
  if (s == GPU_OK) s = gpu_synchronize();
  if (s == GPU_ERR_UNSUPPORTED) return "UNSUPPORTED";
  if (s != GPU_OK) return std::string(who) + ": " + gpu_status_string(s) + ": " + gpu_last_error();
  return compare(who, y, "ALG1", ref, scale, A);
}

// What the summary reads: one row a matrix (and beta), f32 and f64 side by side.
struct side {
  bool ran = false;
  double plan_us = NAN, direct_us = NAN, alg1_us = NAN, alg2_us = NAN, floor_us = NAN;
  // In a loop of products (a solver's regime): time per product, and the
  // calling thread's time per call (real matrices only).
  double plan_loop_us = NAN, alg1_loop_us = NAN, plan_host_us = NAN, alg1_host_us = NAN;
  std::string plan_state, direct_state;  // "" timed, or "UNSUPPORTED"
  std::string error;                     // FAILED when not empty
};
struct row {
  std::string label;
  bool real = false;
  int64_t nnz = 0;
  side s[2];  // f32, f64
};
std::deque<row> rows;  // a deque: SkipWithError may keep a pointer to an error

row &row_for(const std::string &label, bool real) {
  for (row &r : rows)
    if (r.label == label) return r;
  row &r = rows.emplace_back();
  r.label = label, r.real = real;
  return r;
}

bool quick = false;

// Enough repetitions for a stable median, few where each takes long.
void reps_for(int64_t nnz, int *warmup, int *reps) {
  *warmup = nnz < (1 << 20) ? 20 : nnz < (1 << 24) ? 10 : 5;
  *reps = nnz < (1 << 20) ? (quick ? 51 : 301) : nnz < (1 << 24) ? (quick ? 21 : 101) : (quick ? 11 : 41);
}

// Checks every contender's result, then times those that are there.
void run_checked(benchmark::State &state, const gpu_csr &A, double beta, bool real, side &r) {
  const size_t w = gpu_dtype_size(A.value_type), y_bytes = size_t(A.rows) * w;
  device_array x(size_t(A.cols) * w), y0(y_bytes), y_direct(y_bytes), y_plan(y_bytes), y_alg1(y_bytes),
      y_alg2(y_bytes), y_floor(y_bytes), floor_scratch(spmv_floor_scratch_bytes()),
      scale(size_t(A.rows) * sizeof(double));
  product p{&A, x.p, y_direct.p, y_plan.p, beta, nullptr, {nullptr, nullptr}, y_floor.p, floor_scratch.p};
  const char *why = "";
  p.alg[0] = cusparse_spmv_create(&A, x.p, y_alg1.p, 1.0, beta, 1, &why);
  if (!p.alg[0]) r.error = std::string("cuSPARSE ALG1 refused it: ") + why;
  p.alg[1] = r.error.empty() ? cusparse_spmv_create(&A, x.p, y_alg2.p, 1.0, beta, 2, &why) : nullptr;
  if (r.error.empty() && !p.alg[1]) std::fprintf(stderr, "bench_spmv: cuSPARSE ALG2 refused it: %s\n", why);

  // Every y starts as y0 (beta 1: the same random values) or as NaN (beta 0:
  // every row must be written); the poison waits for all before it.
  bench_fill_random(x.p, size_t(A.cols), A.value_type, 42 + uint64_t(A.nnz));
  for (void *y : {y0.p, y_direct.p, y_plan.p, y_alg1.p, y_alg2.p}) {
    if (beta != 0) bench_fill_random(y, size_t(A.rows), A.value_type, 7);
    else bench_poison(y, y_bytes);
  }
  if (r.error.empty() && cusparse_spmv_run(p.alg[0]) != 0) r.error = "cusparseSpMV (ALG1) failed";
  if (r.error.empty() && p.alg[1] && cusparse_spmv_run(p.alg[1]) != 0) r.error = "cusparseSpMV (ALG2) failed";
  auto *sc = static_cast<double *>(scale.p);
  if (r.error.empty()) {
    spmv_bench_row_scale(&A, x.p, beta != 0 ? y0.p : nullptr, beta, sc);  // waits
    if (p.alg[1]) r.error = compare("cuSPARSE ALG2", y_alg2.p, "ALG1", y_alg1.p, sc, A);
  }
  if (r.error.empty()) {
    r.direct_state = checked("gpu_spmv", gpu_spmv(&A, x.p, y_direct.p, 1.0, beta), y_direct.p, y_alg1.p, sc, A);
    gpu_status s = gpu_spmv_plan_create(&p.plan, &A);
    if (s == GPU_OK) s = gpu_spmv_plan_run(p.plan, x.p, y_plan.p, 1.0, beta);
    r.plan_state = checked("gpu_spmv_plan_run", s, y_plan.p, y_alg1.p, sc, A);
    for (const std::string *st : {&r.direct_state, &r.plan_state})
      if (!st->empty() && *st != "UNSUPPORTED") r.error += (r.error.empty() ? "" : "; ") + *st;
  }
  if (r.error.empty() && r.direct_state.empty() && r.plan_state.empty()) {
    const int64_t i = bench_first_difference(y_direct.p, y_plan.p, size_t(A.rows), w);
    if (i >= 0) r.error = "gpu_spmv and gpu_spmv_plan_run give different bits at y[" + std::to_string(i) + "]";
  }

  if (r.error.empty()) {
    bench_fn fns[5];
    double *where[5];
    int m = 0;
    if (r.plan_state.empty()) fns[m] = timed_plan, where[m++] = &r.plan_us;
    if (r.direct_state.empty()) fns[m] = timed_direct, where[m++] = &r.direct_us;
    fns[m] = timed_alg1, where[m++] = &r.alg1_us;
    if (p.alg[1]) fns[m] = timed_alg2, where[m++] = &r.alg2_us;
    if (A.index_type == GPU_I32) fns[m] = timed_floor, where[m++] = &r.floor_us;
    void *const args[5] = {&p, &p, &p, &p, &p};
    double us[5];
    int warmup, reps;
    reps_for(A.nnz, &warmup, &reps);
    for (auto _ : state) {
      bench_medians_us(m, fns, args, warmup, reps, us);
      state.SetIterationTime(us[0] * 1e-6);
    }
    for (int k = 0; k < m; k++) *where[k] = us[k];
    if (real && r.plan_state.empty()) {
      bench_loop_us(timed_plan, &p, 200, &r.plan_loop_us, &r.plan_host_us);
      bench_loop_us(timed_alg1, &p, 200, &r.alg1_loop_us, &r.alg1_host_us);
    }
    r.ran = true;
  }
  gpu_spmv_plan_destroy(p.plan);
  cusparse_spmv_destroy(p.alg[0]);
  cusparse_spmv_destroy(p.alg[1]);
}

double gflops(int64_t nnz, double us) { return 2.0 * double(nnz) / (us * 1e3); }

void spmv_benchmark(benchmark::State &state, const spmv_matrix_spec &spec, gpu_dtype t, double beta,
                    const std::string &label) {
  row &rw = row_for(label, spec.shape == spmv_shape::file);
  side &r = rw.s[t == GPU_F32 ? 0 : 1];
  std::string error;
  const gpu_csr *A = matrices.get(spec, t, &error);
  if (A) {
    rw.nnz = A->nnz;
    run_checked(state, *A, beta, rw.real, r);
  } else {
    r.error = "cannot load it: " + error;
  }
  if (!r.error.empty()) {
    r.error = std::string(t == GPU_F32 ? "f32 " : "f64 ") + label + ": " + r.error;
    std::fprintf(stderr, "bench_spmv: %s\n", r.error.c_str());
    state.SkipWithError(r.error.c_str());
    return;
  }
  state.counters["nnz"] = double(rw.nnz);
  state.counters["alg1_us"] = r.alg1_us;
  state.counters["alg1_GFLOPs"] = gflops(rw.nnz, r.alg1_us);
  if (!std::isnan(r.alg2_us)) state.counters["alg2_us"] = r.alg2_us;
  if (!std::isnan(r.floor_us)) state.counters["floor_us"] = r.floor_us;
  for (auto [name, us] : {std::pair<std::string, double>{"plan", r.plan_us}, {"direct", r.direct_us}}) {
    if (std::isnan(us)) continue;
    state.counters[name + "_us"] = us;
    state.counters[name + "_GFLOPs"] = gflops(rw.nnz, us);
    state.counters[name + "_vs_alg1"] = r.alg1_us / us;
    if (!std::isnan(r.alg2_us)) state.counters[name + "_vs_alg2"] = r.alg2_us / us;
  }
  if (!r.plan_state.empty() || !r.direct_state.empty())
    state.SetLabel("gpuprim: UNSUPPORTED on the CUDA backend (kernels not yet there, issue 6)");
}

// ---- the summary, last on stdout (gpu-run.sh copies from "summary" on)

std::string cell(double v, const char *fmt) {
  if (std::isnan(v)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

// The three ratios the targets speak of, of one side: plan/A1, direct/A1, plan/A2.
void ratios(const side &s, double out[3]) {
  out[0] = s.alg1_us / s.plan_us, out[1] = s.alg1_us / s.direct_us, out[2] = s.alg2_us / s.plan_us;
}

// Geometric mean and minimum of what was added (NaN: not there, skipped).
struct ratio_stats {
  double log_sum = 0, least = NAN;
  int n = 0;
  void add(double v) {
    if (std::isnan(v)) return;
    log_sum += std::log(v), n++;
    least = std::isnan(least) ? v : std::min(least, v);
  }
  double geomean() const { return n ? std::exp(log_sum / n) : NAN; }
};

const char *const SIDE_FORMAT = " %7s %7s %7s %7s %9s %7s |";

std::string side_cells(const row &rw, const side &s) {
  char b[128];
  if (!s.error.empty()) {
    std::snprintf(b, sizeof b, " %-49s |", "FAILED");
    return b;
  }
  double q[3];
  ratios(s, q);
  std::snprintf(b, sizeof b, SIDE_FORMAT, cell(gflops(rw.nnz, s.plan_us), "%.1f").c_str(),
                cell(gflops(rw.nnz, s.alg1_us), "%.1f").c_str(), cell(gflops(rw.nnz, s.alg2_us), "%.1f").c_str(),
                cell(q[0], "%.2f").c_str(), cell(q[1], "%.2f").c_str(), cell(q[2], "%.2f").c_str());
  return b;
}

// A line of ratios only (geometric means or minima), for both types.
void print_ratio_line(const char *name, ratio_stats (&st)[2][3], bool geomean) {
  std::printf("%-26s %11s |", name, "");
  for (int t = 0; t < 2; t++) {
    double v[3];
    for (int k = 0; k < 3; k++) v[k] = geomean ? st[t][k].geomean() : st[t][k].least;
    std::printf(SIDE_FORMAT, "", "", "", cell(v[0], "%.2f").c_str(), cell(v[1], "%.2f").c_str(),
                cell(v[2], "%.2f").c_str());
  }
  std::printf("\n");
}

// The real matrices in a loop of 200 products (as a solver runs them):
// us per product, the ratio, and the calling thread's us per call.
void print_loop_table() {
  std::printf("\nin a loop of 200 products (real matrices): us per product (events around the loop), "
              "loop A1/plan = ALG1 time / plan time; host = the caller's us per call\n");
  std::printf("%-26s |%8s %8s %8s %8s %8s |%8s %8s %8s %8s %8s |\n", "matrix", "f32 plan", "A1", "A1/plan",
              "host gp", "host A1", "f64 plan", "A1", "A1/plan", "host gp", "host A1");
  ratio_stats st[2];
  for (const row &rw : rows) {
    if (!rw.real) continue;
    std::printf("%-26s |", rw.label.c_str());
    for (int t = 0; t < 2; t++) {
      const side &s = rw.s[t];
      const double q = s.alg1_loop_us / s.plan_loop_us;
      st[t].add(q);
      std::printf("%8s %8s %8s %8s %8s |", cell(s.plan_loop_us, "%.2f").c_str(), cell(s.alg1_loop_us, "%.2f").c_str(),
                  cell(q, "%.2f").c_str(), cell(s.plan_host_us, "%.2f").c_str(), cell(s.alg1_host_us, "%.2f").c_str());
    }
    std::printf("\n");
  }
  std::printf("%-26s |%17s %8s %17s |%17s %8s %17s |\n", "geomean", "", cell(st[0].geomean(), "%.2f").c_str(), "",
              "", cell(st[1].geomean(), "%.2f").c_str(), "");
}

// How near ALG1 and the plan come to the floor (floor time / their time, 1 =
// as fast as the floor), and so the most any product could gain over ALG1
// (ALG1 time / floor time).
void print_floor_table() {
  std::printf("\nthe floor (a kernel that only streams A, gathers x and writes y; not a product): "
              "A1 at, plan at = floor time / their time; flr/A1 = ALG1 time / floor time, an estimate of the most any "
              "kernel could gain over ALG1 (not a bound: where A1 at > 1, ALG1 beats the floor)\n");
  std::printf("%-26s |%8s %8s %8s %8s |%8s %8s %8s %8s |\n", "matrix", "f32 flr", "A1 at", "plan at", "flr/A1",
              "f64 flr", "A1 at", "plan at", "flr/A1");
  ratio_stats real[2];
  for (const row &rw : rows) {
    std::printf("%-26s |", rw.label.c_str());
    for (int t = 0; t < 2; t++) {
      const side &s = rw.s[t];
      if (rw.real) real[t].add(s.alg1_us / s.floor_us);
      std::printf("%8s %8s %8s %8s |", cell(gflops(rw.nnz, s.floor_us), "%.1f").c_str(),
                  cell(s.floor_us / s.alg1_us, "%.2f").c_str(), cell(s.floor_us / s.plan_us, "%.2f").c_str(),
                  cell(s.alg1_us / s.floor_us, "%.2f").c_str());
    }
    std::printf("\n");
  }
  std::printf("%-26s |%26s %8s |%26s %8s |\n", "geomean, real matrices", "", cell(real[0].geomean(), "%.2f").c_str(),
              "", cell(real[1].geomean(), "%.2f").c_str());
}

int print_summary() {
  std::printf("\nsummary: SpMV, GFLOP/s = 2 nnz / median time; plan = gpu_spmv_plan_run (plan made once), "
              "direct = gpu_spmv;\nA1, A2 = cusparseSpMV CSR ALG1, ALG2 (preprocessed once); ratios = cuSPARSE "
              "time / gpuprim time (> 1: gpuprim faster)\ntargets (issue 6): plan/A1 >= 1.15 on each generated "
              "matrix, geomean >= 2 over the real ones, none below 0.9\n");
  std::printf("%-26s %11s |%-51s|%-51s|\n", "", "", " f32 GFLOP/s and ratios", " f64 GFLOP/s and ratios");
  std::printf("%-26s %11s |", "matrix", "nnz");
  for (int t = 0; t < 2; t++) std::printf(SIDE_FORMAT, "plan", "A1", "A2", "plan/A1", "direct/A1", "plan/A2");
  std::printf("\n");
  ratio_stats real[2][3], generated[2][3];
  int failures = 0, unsupported = 0;
  for (const row &rw : rows) {
    std::printf("%-26s %11lld |%s%s\n", rw.label.c_str(), (long long)rw.nnz, side_cells(rw, rw.s[0]).c_str(),
                side_cells(rw, rw.s[1]).c_str());
    for (int t = 0; t < 2; t++) {
      const side &s = rw.s[t];
      failures += !s.error.empty();
      unsupported += s.error.empty() && (s.plan_state == "UNSUPPORTED" || s.direct_state == "UNSUPPORTED");
      if (!s.ran) continue;
      double q[3];
      ratios(s, q);
      for (int k = 0; k < 3; k++) (rw.real ? real : generated)[t][k].add(q[k]);
    }
  }
  print_ratio_line("geomean, real matrices", real, true);
  print_ratio_line("least, real matrices", real, false);
  print_ratio_line("least, generated", generated, false);
  print_loop_table();
  print_floor_table();
  if (unsupported)
    std::printf("%d (matrix, type) cases: gpuprim answered GPU_ERR_UNSUPPORTED (issue 6's CUDA kernels not there "
                "yet); cuSPARSE alone was timed\n", unsupported);
  for (const row &rw : rows)
    for (const side &s : rw.s)
      if (!s.error.empty()) std::printf("FAILED %s\n", s.error.c_str());
  return failures;
}

// ---- registration

std::string data_dir() {
  const char *env = std::getenv("GPUPRIM_TEST_DATA");
  return std::string(env && *env ? env : GPUPRIM_BENCH_DATA) + "/matrices";
}

bool file_exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

void add(const spmv_matrix_spec &spec, double beta, const std::string &label) {
  for (gpu_dtype t : {GPU_F32, GPU_F64}) {
    const std::string name = std::string("spmv/") + (t == GPU_F32 ? "f32/" : "f64/") + label;
    benchmark::RegisterBenchmark(name.c_str(), spmv_benchmark, spec, t, beta, label)
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  }
}

// The real matrices of the shared data that SpMV reads (not the reader's
// test cases: complex, empty, duplicates), then the generated ones; f32 and
// f64 of one matrix one after the other, so it is read or built once.
void register_all() {
  static const char *const real[] = {
      "cage5",    "karate",  "494_bus",  "Erdos971", "west0479", "lp_e226", "LFAT5_hypersparse",
      "bcsstk13", "cryg2500", "rajat01", "pushpull", "bayer10",  "arrow",
  };
  const std::string dir = data_dir();
  if (!file_exists(dir)) std::printf("bench_spmv: no %s: no real matrix measured (set GPUPRIM_TEST_DATA)\n", dir.c_str());
  for (const char *name : real) {
    const std::string path = dir + "/" + name + ".mtx";
    if (file_exists(path)) add({name, spmv_shape::file, 0, path}, 0.0, name);
    else if (file_exists(dir)) std::printf("bench_spmv: %s is missing: not measured\n", path.c_str());
  }
  const int64_t M = int64_t(1) << 20;
  const int64_t rows = quick ? M : 8 * M;
  const std::string r = quick ? "_1M" : "_8M";
  if (!quick) add({"uniform16_4M", spmv_shape::uniform16, 4 * M, ""}, 0.0, "uniform16_4M");
  const spmv_matrix_spec uniform{"uniform16" + r, spmv_shape::uniform16, rows, ""};
  add(uniform, 0.0, uniform.label);
  add(uniform, 1.0, uniform.label + "/beta1");  // y = A x + y
  add({"powerlaw" + r, spmv_shape::powerlaw, rows, ""}, 0.0, "powerlaw" + r);
  add({"banded16" + r, spmv_shape::banded16, rows, ""}, 0.0, "banded16" + r);
  add({"arrow" + r, spmv_shape::arrow, rows, ""}, 0.0, "arrow" + r);
  const int64_t edge = quick ? 64 : 192;
  const std::string stencil = "stencil27_" + std::to_string(edge) + "^3";
  add({stencil, spmv_shape::stencil27, edge, ""}, 0.0, stencil);
}

}  // namespace

int main(int argc, char **argv) {
  if (bench_require_cuda("bench_spmv") != 0) return 1;
  quick = bench_quick_mode(&argc, argv) != 0;
  register_all();
  return bench_run_registered(argc, argv, [] {
    matrices.clear();
    return print_summary();
  });
}
