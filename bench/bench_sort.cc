// gpuprim's radix sort side by side with cub::DeviceRadixSort on the same
// random keys (uniform random bits: every digit varies, no pass skipped),
// in one binary.
//
// gpuprim sorts in place, so before each timed run its input is restored
// from a pristine copy (untimed); CUB sorts pristine -> its own output.
// Each benchmark is one (keys, values, direction, n). Columns:
//   gpuprim_us, cub_us           medians of CUDA-event timings (round robin)
//   gpuprim_Gkeys, cub_Gkeys     keys / time
//   vs_cub                       CUB time / gpuprim time (> 1: gpuprim faster)
//   mismatch                     words where gpuprim's result differs from
//                                CUB's (integer keys: both stable, so 0)
// The reported time of each row is gpuprim's median.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "bench_main.h"
#include "cub_sort_shim.h"
#include "gpuprim.h"

namespace {

struct sort_case {
  gpu_dtype t;
  size_t value_bytes; /* 0: keys only */
  bool descending;
  size_t n;
  void *pristine_keys, *pristine_values; /* the random input */
  void *keys, *values;                   /* gpuprim sorts these in place */
  void *cub_keys, *cub_values;           /* CUB's output */
};

void restore_input(void *arg) {
  auto *c = static_cast<sort_case *>(arg);
  bench_copy(c->keys, c->pristine_keys, c->n * gpu_dtype_size(c->t));
  if (c->value_bytes) bench_copy(c->values, c->pristine_values, c->n * c->value_bytes);
}

void nothing(void *) {}

void run_gpuprim(void *arg) {
  auto *c = static_cast<sort_case *>(arg);
  const unsigned flags = c->descending ? GPU_DESCENDING : GPU_ASCENDING;
  gpu_status s = c->value_bytes ? gpu_sort_pairs(c->keys, c->values, c->n, c->t, c->value_bytes, flags)
                                : gpu_sort_keys(c->keys, c->n, c->t, flags);
  if (s != GPU_OK) {
    std::fprintf(stderr, "gpuprim sort: %s\n", gpu_last_error());
    std::exit(2);
  }
}

void run_cub(void *arg) {
  auto *c = static_cast<sort_case *>(arg);
  int r = c->value_bytes ? cub_sort_pairs(c->pristine_keys, c->cub_keys, c->pristine_values, c->cub_values, c->n, c->t,
                                          c->value_bytes, c->descending)
                         : cub_sort_keys(c->pristine_keys, c->cub_keys, c->n, c->t, c->descending);
  if (r != 0) std::exit(2);
}

struct result {
  size_t n;
  double gpuprim_gkeys, cub_gkeys, gpuprim_us, cub_us;
};
std::map<std::string, std::vector<result>> results;
int failures = 0; /* sizes whose keys or values differ from CUB's */

int reps_for(size_t bytes) { return bytes >= (size_t(1) << 30) ? 11 : bytes >= (size_t(1) << 26) ? 21 : 51; }

void sort_benchmark(benchmark::State &state, const std::string &name, gpu_dtype t, size_t vb, bool descending) {
  const size_t n = size_t(state.range(0)), kb = n * gpu_dtype_size(t), vbytes = n * vb;
  sort_case c{t, vb, descending, n, bench_buffer(0, kb), vb ? bench_buffer(1, vbytes) : nullptr,
              bench_buffer(2, kb), vb ? bench_buffer(3, vbytes) : nullptr, bench_buffer(4, kb),
              vb ? bench_buffer(5, vbytes) : nullptr};
  sort_bench_fill_keys(c.pristine_keys, n, t, 42 + n);
  if (vb) sort_bench_fill_bits(c.pristine_values, n, vb, 4242 + n);
  const bench_fn prepare[2] = {restore_input, nothing}, run[2] = {run_gpuprim, run_cub};
  void *const args[2] = {&c, &c};
  double us[2];
  for (auto _ : state) {
    bench_medians_prepared_us(2, prepare, run, args, 2, reps_for(kb + vbytes), us);
    state.SetIterationTime(us[0] * 1e-6);
  }
  /* Float keys are finite, without -0.0 (sort_bench_fill_keys): both results agree bit for bit. */
  size_t mismatch = sort_bench_differences(c.keys, c.cub_keys, kb);
  if (vb) mismatch += sort_bench_differences(c.values, c.cub_values, vbytes);
  if (mismatch) {
    std::fprintf(stderr, "%s n=%zu: %zu words differ from CUB's result\n", name.c_str(), n, mismatch);
    failures++;
  }
  state.counters["gpuprim_us"] = us[0];
  state.counters["cub_us"] = us[1];
  state.counters["gpuprim_Gkeys"] = double(n) / (us[0] * 1e3);
  state.counters["cub_Gkeys"] = double(n) / (us[1] * 1e3);
  state.counters["vs_cub"] = us[1] / us[0];
  state.counters["mismatch"] = double(mismatch);
  results[name].push_back({n, double(n) / (us[0] * 1e3), double(n) / (us[1] * 1e3), us[0], us[1]});
}

// One line per case: Gkeys/s of gpuprim and CUB at a few sizes, the ratio,
// and the time at 1e5 keys.
int print_summary() {
  std::printf("\nsummary: Gkeys/s gpuprim / CUB (vs_cub = CUB time / gpuprim time), and us at n = 1e5\n");
  std::printf("%-22s %17s %17s %17s %17s | %8s | %14s\n", "case", "2^16", "2^20", "2^24", "2^28", "vs@2^28",
              "us@1e5 (cub)");
  for (auto &[name, rs] : results) {
    auto at = [&](size_t n) -> const result * {
      for (auto &r : rs)
        if (r.n == n) return &r;
      return nullptr;
    };
    std::printf("%-22s", name.c_str());
    for (int lg : {16, 20, 24, 28}) {
      const result *r = at(size_t(1) << lg);
      if (r) std::printf(" %7.2f / %7.2f", r->gpuprim_gkeys, r->cub_gkeys);
      else std::printf(" %17s", "-");
    }
    const result *r28 = at(size_t(1) << 28), *r5 = at(100000);
    std::printf(" | %8.2f | ", r28 ? r28->cub_gkeys > 0 ? r28->gpuprim_gkeys / r28->cub_gkeys : 0 : 0.0);
    if (r5) std::printf("%6.1f (%5.1f)\n", r5->gpuprim_us, r5->cub_us);
    else std::printf("-\n");
  }
  if (failures) std::printf("%d FAILED: results that differ from CUB's (see above)\n", failures);
  return failures;
}

const char *type_name(gpu_dtype t) {
  static const char *names[] = {"i32", "u32", "i64", "u64", "f32", "f64"};
  return names[t];
}

void register_all() {
  struct spec {
    gpu_dtype t;
    size_t vb;
    bool descending;
  };
  const spec specs[] = {{GPU_U32, 0, false}, {GPU_U32, 0, true},  {GPU_U64, 0, false}, {GPU_F32, 0, false},
                        {GPU_U32, 4, false}, {GPU_U32, 4, true},  {GPU_U64, 4, false}, {GPU_U64, 8, false}};
  for (const spec &s : specs) {
    std::string name = std::string(s.vb ? "pairs/" : "keys/") + type_name(s.t) +
                       (s.vb ? (s.vb == 4 ? "-u32" : "-u64") : "") + (s.descending ? "/desc" : "");
    auto *b = benchmark::RegisterBenchmark(name.c_str(), sort_benchmark, name, s.t, s.vb, s.descending);
    b->RangeMultiplier(4)->Range(1 << 10, 1 << 30)->Arg(100000)->UseManualTime()->Iterations(1)->Unit(
        benchmark::kMicrosecond);
  }
}

}  // namespace

int main(int argc, char **argv) {
  if (bench_require_cuda("bench_sort") != 0) return 1;
  register_all();
  return bench_run_registered(argc, argv, print_summary);
}
