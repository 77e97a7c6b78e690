// What the grid of gpuprim's scans by runs can move at best, and what its
// static split of the tiles costs, with no scan in the way (runs_floor.cu):
//   runs_floor/static   block b of the resident grid (two 512-thread blocks
//                       an SM) copies tiles [b T / G, (b + 1) T / G) of
//                       8192 4-byte elements, as seg_runs splits a scan
//   runs_floor/dynamic  the same grid and tiles, each tile by ticket
// each timed beside a device copy of the same bytes (bench_copy), round
// robin from a settled L2 as bench_segmented times.
//
// Columns: copy/static and copy/dynamic = copy time / kernel time (1.00 =
// copy speed); then, from one more run of each, when its blocks ended (us
// after the first block started: min / mean / max), and the tiles a block
// copied (min-max). A scan by runs over offsets at 2^26 reached 0.80 of the
// copy (bench/NOTES.md): this says how much of the 0.20 the split alone
// explains. Every copy is checked (output poisoned first) before timing.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "bench_main.h"
#include "cub_shim.h"
#include "runs_floor.h"

namespace {

struct data {
  void *src, *dst;
  size_t bytes;
  runs_floor_state *st;
};

void timed_copy(void *arg) {
  auto *d = static_cast<data *>(arg);
  bench_copy(d->dst, d->src, d->bytes);
}
void timed_static(void *arg) {
  auto *d = static_cast<data *>(arg);
  runs_floor_copy(d->dst, d->src, d->bytes, 0, d->st);
}
void timed_dynamic(void *arg) {
  auto *d = static_cast<data *>(arg);
  runs_floor_copy(d->dst, d->src, d->bytes, 1, d->st);
}
void settle(void *) { bench_settle_l2(); }

// When one run's blocks ended, from its stamps.
struct ends {
  double min_us, mean_us, max_us;
  unsigned long long tiles_min, tiles_max;
};
ends block_ends(const runs_floor_state *st, int blocks) {
  std::vector<unsigned long long> s(3 * size_t(blocks));
  if (cudaMemcpy(s.data(), st->stamps, s.size() * sizeof(s[0]), cudaMemcpyDeviceToHost) != cudaSuccess) {
    std::fprintf(stderr, "bench_runs_floor: reading the stamps failed\n");
    std::exit(2);
  }
  unsigned long long t0 = s[0];
  for (int b = 0; b < blocks; b++) t0 = std::min(t0, s[3 * b]);
  ends e{1e30, 0, 0, ~0ull, 0};
  for (int b = 0; b < blocks; b++) {
    const double end = double(s[3 * b + 1] - t0) / 1e3;
    e.min_us = std::min(e.min_us, end);
    e.max_us = std::max(e.max_us, end);
    e.mean_us += end / blocks;
    e.tiles_min = std::min(e.tiles_min, s[3 * b + 2]);
    e.tiles_max = std::max(e.tiles_max, s[3 * b + 2]);
  }
  return e;
}

struct row {
  size_t n;
  double copy_us, static_us, dynamic_us;
  ends st, dyn;
};
std::deque<row> rows;

void floor_benchmark(benchmark::State &state) {
  const size_t n = size_t(state.range(0)), bytes = n * 4;
  static runs_floor_state st{}; /* the ticket's base carries over from launch to launch */
  const int blocks = runs_floor_blocks();
  if (!st.ticket) {
    if (cudaMalloc(&st.ticket, sizeof(unsigned long long)) != cudaSuccess ||
        cudaMemset(st.ticket, 0, sizeof(unsigned long long)) != cudaSuccess ||
        cudaMalloc(&st.stamps, 3 * sizeof(unsigned long long) * size_t(blocks)) != cudaSuccess) {
      state.SkipWithError("cudaMalloc failed");
      return;
    }
  }
  data d{bench_buffer(0, bytes), bench_buffer(1, bytes), bytes, &st};
  bench_fill_random(d.src, n, GPU_I32, 7 + n);
  for (int dynamic = 0; dynamic < 2; dynamic++) { /* each copy checked before it is timed */
    bench_poison(d.dst, bytes);
    runs_floor_copy(d.dst, d.src, bytes, dynamic, &st);
    if (bench_first_difference(d.dst, d.src, n, 4) >= 0) {
      state.SkipWithError(dynamic ? "the dynamic copy is wrong" : "the static copy is wrong");
      std::exit(1);
    }
  }
  bench_fn fns[3] = {timed_static, timed_dynamic, timed_copy};
  void *args[3] = {&d, &d, &d};
  const bench_fn settles[3] = {settle, settle, settle};
  double us[3];
  for (auto _ : state) {
    bench_medians_prepared_us(3, settles, fns, args, 3, bytes >= (size_t(1) << 32) ? 15 : 31, us);
    state.SetIterationTime(us[0] * 1e-6);
  }
  row r{n, us[2], us[0], us[1], {}, {}};
  bench_settle_l2();
  timed_static(&d);
  r.st = block_ends(&st, blocks);
  bench_settle_l2();
  timed_dynamic(&d);
  r.dyn = block_ends(&st, blocks);
  rows.push_back(r);
  state.counters["copy_us"] = r.copy_us;
  state.counters["dynamic_us"] = r.dynamic_us;
  state.counters["copy_vs_static"] = r.copy_us / r.static_us;
  state.counters["copy_vs_dynamic"] = r.copy_us / r.dynamic_us;
}

int print_summary() {
  std::printf("\nsummary: copy/x = time of a device copy of the same bytes / x's time; ends: when the blocks of one "
              "more run ended, us after the first block started (min/mean/max); tiles: a block's (min-max)\n");
  std::printf("%5s %9s %9s %9s %12s %13s %26s %26s %9s\n", "n", "copy_us", "static", "dynamic", "copy/static",
              "copy/dynamic", "static ends", "dynamic ends", "dyn tiles");
  for (const row &r : rows) {
    char a[64], b[64], c[32];
    std::snprintf(a, sizeof a, "%.1f/%.1f/%.1f", r.st.min_us, r.st.mean_us, r.st.max_us);
    std::snprintf(b, sizeof b, "%.1f/%.1f/%.1f", r.dyn.min_us, r.dyn.mean_us, r.dyn.max_us);
    std::snprintf(c, sizeof c, "%llu-%llu", r.dyn.tiles_min, r.dyn.tiles_max);
    std::printf("2^%-3d %9.1f %9.1f %9.1f %12.3f %13.3f %26s %26s %9s\n", __builtin_ctzll(r.n), r.copy_us, r.static_us,
                r.dynamic_us, r.copy_us / r.static_us, r.copy_us / r.dynamic_us, a, b, c);
  }
  return 0; /* a wrong copy has already ended the program */
}

}  // namespace

int main(int argc, char **argv) {
  if (bench_require_cuda("bench_runs_floor") != 0) return 1;
  auto *b = benchmark::RegisterBenchmark("runs_floor/i32", floor_benchmark);
  b->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
  if (bench_quick_mode(&argc, argv)) b->Arg(1 << 22)->Arg(1 << 24);
  else b->Arg(1 << 24)->Arg(1 << 26)->Arg(1 << 28)->Arg(1 << 30);
  return bench_run_registered(argc, argv, print_summary);
}
