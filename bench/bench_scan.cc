// gpuprim's scan side by side with cub::DeviceScan and a device-to-device
// copy of the same bytes, on the same buffers, in one binary.
//
// Each benchmark is one (type, op, inclusive/exclusive, n). Columns:
//   gpuprim_us, cub_us, copy_us  medians of CUDA-event timings (round robin)
//   GBps                         gpuprim's bytes moved (read n, write n) / time
//   vs_copy                      copy time / gpuprim time (1.0 = copy speed)
//   vs_cub                       CUB time / gpuprim time (> 1: gpuprim faster)
//   checked                      1: gpuprim's output equals CUB's bit for bit;
//                                -1: it differs (also said on stderr); 0: float
//                                sums, whose rounding depends on the order
// The reported time of each row is gpuprim's median.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bench_main.h"
#include "cub_shim.h"
#include "gpuprim.h"

namespace {

struct scan_case {
  const void *in;
  void *out;
  size_t n;
  gpu_dtype t;
  gpu_op op;
  unsigned flags;
};

void run_gpuprim(void *arg) {
  auto *c = static_cast<scan_case *>(arg);
  if (gpu_scan(c->in, c->out, c->n, c->t, c->op, c->flags) != GPU_OK) {
    std::fprintf(stderr, "gpu_scan: %s\n", gpu_last_error());
    std::exit(2);
  }
}

void run_cub(void *arg) {
  auto *c = static_cast<scan_case *>(arg);
  if (cub_scan(c->in, c->out, c->n, c->t, c->op, c->flags & GPU_EXCLUSIVE) != 0) std::exit(2);
}

void run_copy(void *arg) {
  auto *c = static_cast<scan_case *>(arg);
  bench_copy(c->out, c->in, c->n * gpu_dtype_size(c->t));
}

// What the summary table at the end reads.
struct result {
  size_t n;
  double vs_copy, vs_cub, gpuprim_us;
};
std::map<std::string, std::vector<result>> results;
int failures = 0; /* sizes whose output differs from CUB's */

// Enough repetitions for a stable median, bounded in total time.
int reps_for(size_t bytes) { return bytes >= (size_t(1) << 30) ? 15 : bytes >= (size_t(1) << 26) ? 31 : 101; }

void scan_benchmark(benchmark::State &state, const std::string &name, gpu_dtype t, gpu_op op, unsigned flags) {
  const size_t n = size_t(state.range(0)), bytes = n * gpu_dtype_size(t);
  scan_case c{bench_buffer(0, bytes), bench_buffer(1, bytes), n, t, op, flags};
  bench_fill_random(const_cast<void *>(c.in), n, t, 42 + n);
  /* Before timing: gpuprim's output against CUB's, bit for bit where the
   * result does not depend on the order of combination (integers, MAX);
   * float sums round differently in each, so they are not compared. */
  const bool exact = (t != GPU_F32 && t != GPU_F64) || op == GPU_MAX;
  int64_t differs = -1;
  if (exact) {
    void *cub_out = bench_buffer(2, bytes);
    bench_poison(c.out, bytes);
    bench_poison(cub_out, bytes);
    run_gpuprim(&c);
    if (cub_scan(c.in, cub_out, n, t, op, flags & GPU_EXCLUSIVE) != 0) std::exit(2);
    differs = bench_first_difference(c.out, cub_out, n, gpu_dtype_size(t));
    if (differs >= 0) {
      std::fprintf(stderr, "%s n=%zu: element %lld differs from CUB's\n", name.c_str(), n, (long long)differs);
      failures++;
    }
  }
  const bench_fn fns[3] = {run_gpuprim, run_cub, run_copy};
  void *const args[3] = {&c, &c, &c};
  double us[3];
  for (auto _ : state) {
    bench_medians_us(3, fns, args, 3, reps_for(bytes), us);
    state.SetIterationTime(us[0] * 1e-6);
  }
  state.counters["gpuprim_us"] = us[0];
  state.counters["cub_us"] = us[1];
  state.counters["copy_us"] = us[2];
  state.counters["GBps"] = 2.0 * double(bytes) / (us[0] * 1e3);
  state.counters["vs_copy"] = us[2] / us[0];
  state.counters["vs_cub"] = us[1] / us[0];
  state.counters["checked"] = exact ? (differs < 0 ? 1 : -1) : 0; /* 1 agrees with CUB, -1 differs, 0 not compared */
  results[name].push_back({n, us[2] / us[0], us[1] / us[0], us[0]});
}

// One line per case: ratios at a few sizes, and the worst ratio to CUB over all sizes.
int print_summary() {
  std::printf("\nsummary: vs_copy (copy time / gpuprim time) and vs_cub (CUB time / gpuprim time)\n");
  std::printf("%-20s %8s %8s %8s %8s | %7s %7s %7s %7s | %s\n", "case", "copy@2^20", "copy@2^24", "copy@2^28",
              "copy@2^30", "cub@2^10", "cub@2^20", "cub@2^28", "cub@2^30", "worst vs_cub (n)");
  for (auto &[name, rs] : results) {
    auto at = [&](int lg, bool copy) {
      for (auto &r : rs)
        if (r.n == (size_t(1) << lg)) return copy ? r.vs_copy : r.vs_cub;
      return 0.0;
    };
    const result *worst = &rs[0];
    for (auto &r : rs)
      if (r.vs_cub < worst->vs_cub) worst = &r;
    std::printf("%-20s %8.3f %8.3f %8.3f %8.3f | %7.2f %7.2f %7.2f %7.2f | %.2f (2^%d)\n", name.c_str(), at(20, true),
                at(24, true), at(28, true), at(30, true), at(10, false), at(20, false), at(28, false), at(30, false),
                worst->vs_cub, __builtin_ctzll(worst->n));
  }
  if (failures) std::printf("%d FAILED: outputs that differ from CUB's (see above)\n", failures);
  return failures;
}

const char *type_name(gpu_dtype t) {
  static const char *names[] = {"i32", "u32", "i64", "u64", "f32", "f64"};
  return names[t];
}

void register_all() {
  const gpu_dtype types[] = {GPU_I32, GPU_F32, GPU_I64, GPU_F64};
  const gpu_op ops[] = {GPU_ADD, GPU_MAX};
  const unsigned modes[] = {GPU_INCLUSIVE, GPU_EXCLUSIVE};
  for (gpu_dtype t : types)
    for (gpu_op op : ops)
      for (unsigned m : modes) {
        std::string name = std::string("scan/") + type_name(t) + (op == GPU_ADD ? "/add" : "/max") +
                           (m == GPU_EXCLUSIVE ? "/excl" : "/incl");
        auto *b = benchmark::RegisterBenchmark(name.c_str(), scan_benchmark, name, t, op, m);
        b->RangeMultiplier(2)->Range(1 << 10, 1 << 30)->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
      }
}

}  // namespace

int main(int argc, char **argv) {
  if (bench_require_cuda("bench_scan") != 0) return 1;
  register_all();
  return bench_run_registered(argc, argv, print_summary);
}
