// gpuprim's linear recurrences (f32) side by side, in one binary, on the
// same buffers (a, b in [-1, 1), h0 = 0):
//   seq/<n>              one sequence: gpu_linrec vs cub::DeviceScan with the
//                        pair operator on interleaved float2 (interleaving
//                        not timed; CUB moves 16n bytes, gpuprim 12n)
//   tm/<C>x<T>, sm/<C>x<T>  C channels of T steps, time-major [T][C] or
//                        sequence-major [C][T]: gpu_linrec_batch (the plan's
//                        path), each path forced (channels: three passes;
//                        tiles: one pass, channel tiles or sequence tiles;
//                        sequence-major: look-back over start flags), and a
//                        plain loop kernel (a thread per channel, one load
//                        in flight);
//                        sequence-major from 4096 steps also the sequence
//                        tiles forced to a shape (tiles4k: the library's,
//                        4096 steps a tile; tiles2k: 2048 at four blocks an
//                        SM, bench-only) and the sequence walk at each of
//                        three shapes (walk512x8: 512 threads of 8 items,
//                        the library's from 512 sequences; walk1024x8, the
//                        library's from 128; walk1024x4, bench-only) and in
//                        strands (strands512: the library's from 64 to 127
//                        sequences; strands1024: from 16 to 63), with rows
//                        at 16, 32, 64, 128 and 512 sequences where they
//                        cross;
//                        from 4096 steps also the one-pass tiles with a
//                        look-back policy forced: tm/ chain and tree (channel
//                        tiles 32 channels wide with the chain of states or
//                        the tree of radix 4; the library takes one by the
//                        count), r8 and fenwick (the tree of radix 8, the
//                        binary Fenwick tree; bench-only), sm/ fen4k and
//                        fen2k (sequence tiles with the Fenwick tree;
//                        bench-only), with rows at 128 and 512 channels too;
//                        then short sequence-major sequences, where the
//                        channel and look-back paths cross
//   bwd/tm/<C>x<T>, bwd/sm/<C>x<T>  the backward pass of a batch
//                        (gpu_linrec_backward_batch: da, db from a, h, dh):
//                        the plan's path, the three passes (tm) or the
//                        look-back over start flags (sm), the tiles (tm from
//                        4096 steps also: tree, the tiles 32 wide with the
//                        tree of radix 4), and a plain loop kernel walking
//                        time backwards; its copy reads a, h and dh and
//                        writes da and db
// Every row also times a kernel that reads a and b and writes h (copy):
// copy/x = copy time / x's time (1.00 = the speed of moving the bytes).
// A row's kernels run round robin, the plain loop on its own after them
// (time_row says why).
// gpuprim's result is checked first against CUB's (seq) or the plain loop's
// (batches; backward: da and db): a difference above 1e-3 marks the row
// FAILED and exits 1.
//
// --quick (or GPUPRIM_BENCH_QUICK=1): a small subset, 3 timed runs a kernel,
// for a smoke run (under the sanitizers too).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_main.h"
#include "cub_linrec_shim.h"
#include "cub_shim.h"
#include "gpuprim.h"

namespace {

struct data {
  size_t len, count;
  bool time_major;
  float *a, *b, *h;
  void *pairs, *pairs_out;
  int path;
  float *dh, *da, *db; /* backward rows */
};

struct row {
  std::string name;
  std::vector<std::string> who;
  std::vector<double> us;
  std::string error;
};
std::vector<row> rows;

void timed_plan(void *p) {
  data *d = static_cast<data *>(p);
  linrec_gpuprim_path(0, d->a, d->b, d->h, d->len, d->count, d->time_major);
}
void timed_channels(void *p) {
  data *d = static_cast<data *>(p);
  linrec_gpuprim_path(3, d->a, d->b, d->h, d->len, d->count, d->time_major);
}
void timed_tiles(void *p) {
  data *d = static_cast<data *>(p);
  linrec_gpuprim_path(4, d->a, d->b, d->h, d->len, d->count, d->time_major);
}
// The path in data (a forced shape or bench-only variant, cub_linrec_shim.h: paths 5 to 16).
void timed_path(void *p) {
  data *d = static_cast<data *>(p);
  linrec_gpuprim_path(d->path, d->a, d->b, d->h, d->len, d->count, d->time_major);
}
void timed_segments(void *p) {
  data *d = static_cast<data *>(p);
  linrec_gpuprim_path(2, d->a, d->b, d->h, d->len, d->count, d->time_major);
}
void timed_cub(void *p) {
  data *d = static_cast<data *>(p);
  linrec_cub_pair_scan(d->pairs, d->pairs_out, d->len * d->count);
}
void timed_loop(void *p) {
  data *d = static_cast<data *>(p);
  linrec_plain_loop(d->a, d->b, d->h, d->len, d->count, d->time_major);
}
void timed_copy(void *p) {
  data *d = static_cast<data *>(p);
  linrec_copy_floor(d->a, d->b, d->h, d->len * d->count);
}

void timed_backward(void *p) {
  data *d = static_cast<data *>(p);
  linrec_gpuprim_backward_path(d->path, d->a, d->h, d->dh, d->da, d->db, d->len, d->count, d->time_major);
}
void timed_loop_backward(void *p) {
  data *d = static_cast<data *>(p);
  linrec_plain_loop_backward(d->a, d->h, d->dh, d->da, d->db, d->len, d->count, d->time_major);
}
void timed_copy_backward(void *p) {
  data *d = static_cast<data *>(p);
  linrec_copy_floor_backward(d->a, d->h, d->dh, d->da, d->db, d->len * d->count);
}

bool quick_run = false;  // --quick

int reps_for(size_t bytes) {
  if (quick_run) return 3;
  return bytes >= (size_t(1) << 31) ? 10 : bytes >= (size_t(1) << 26) ? 30 : 100;
}

// Times a row's contenders: fns[0] is gpuprim's, the last the copy, fns[loop] the plain loop (none: SIZE_MAX).
// The others run round robin (bench_medians_us) in the order gpuprim, copy, then the rest, so that the copy follows
// a kernel that fills the GPU. The plain loop is timed on its own afterwards: in rows where it ran 15 ms or more
// (a few blocks on a few SMs), the copy right after it in the rotation took 80-91 us on the H100 where it took
// 70-76 us in the other rows of the same size. us[i] is fns[i]'s median.
void time_row(const std::vector<bench_fn> &fns, const std::vector<void *> &args, size_t loop, int reps,
              std::vector<double> &us) {
  std::vector<size_t> order{0, fns.size() - 1};
  for (size_t i = 1; i + 1 < fns.size(); i++)
    if (i != loop) order.push_back(i);
  std::vector<bench_fn> f;
  std::vector<void *> a;
  for (size_t i : order) f.push_back(fns[i]), a.push_back(args[i]);
  std::vector<double> t(order.size());
  bench_medians_us(int(f.size()), f.data(), a.data(), 3, reps, t.data());
  us.assign(fns.size(), 0);
  for (size_t j = 0; j < order.size(); j++) us[order[j]] = t[j];
  if (loop < fns.size()) bench_medians_us(1, &fns[loop], &args[loop], 1, reps < 5 ? reps : 5, &us[loop]);
}

// Whether a forced path takes the shape (cub_linrec_shim.h): one sequence, paths 0 and 1; a batch, every
// path but 1, with 2, 5 to 9, 11, 15 and 16 sequence-major only and 12 to 14 time-major only.
bool path_applies(int path, const data &d) {
  if (d.count == 1) return path <= 1;
  if (path == 1) return false;
  if (path == 2 || path >= 15) return !d.time_major;
  if (path <= 4 || path == 10) return true;
  return d.time_major == (path >= 12);
}

// Checks gpuprim (the plan's path, then each forced one) against CUB or the loop; "" when all agree.
std::string check(data &d) {
  const size_t n = d.len * d.count;
  float *want = static_cast<float *>(bench_buffer(5, n * 4));
  if (d.count == 1) {
    linrec_interleave(d.a, d.b, d.pairs, n);
    if (linrec_cub_pair_scan(d.pairs, d.pairs_out, n) != 0) return "CUB failed";
  } else {
    linrec_plain_loop(d.a, d.b, want, d.len, d.count, d.time_major);
  }
  for (int path = 0; path <= 16; path++) {
    if (!path_applies(path, d)) continue;
    bench_poison(d.h, n * 4);
    const int s = linrec_gpuprim_path(path, d.a, d.b, d.h, d.len, d.count, d.time_major);
    if (s != GPU_OK) return "path " + std::to_string(path) + ": " + gpu_last_error();
    const float diff = d.count == 1 ? linrec_max_difference(d.h, d.pairs_out, n)
                                    : linrec_max_difference_plain(d.h, want, n);
    if (!(diff <= 1e-3f)) return "path " + std::to_string(path) + ": differs by " + std::to_string(diff);
  }
  return "";
}

void linrec_benchmark(benchmark::State &state, std::string name, size_t len, size_t count, bool time_major) {
  const size_t n = len * count;
  data d{len, count, time_major, static_cast<float *>(bench_buffer(0, n * 4)),
         static_cast<float *>(bench_buffer(1, n * 4)), static_cast<float *>(bench_buffer(2, n * 4)), nullptr,
         nullptr, 0};
  if (count == 1) {
    d.pairs = bench_buffer(3, n * 8);
    d.pairs_out = bench_buffer(4, n * 8);
  }
  bench_fill_random(d.a, n, GPU_F32, 1);
  bench_fill_random(d.b, n, GPU_F32, 2);
  rows.push_back({name, {}, {}, check(d)});
  row &r = rows.back();
  if (!r.error.empty()) {
    std::fprintf(stderr, "bench_linrec: %s: %s\n", name.c_str(), r.error.c_str());
    state.SkipWithError(r.error.c_str());
    return;
  }
  std::vector<bench_fn> fns;
  std::vector<void *> args;
  auto time_as = [&](bench_fn fn, const char *who, data *arg) {
    fns.push_back(fn);
    r.who.push_back(who);
    args.push_back(arg);
  };
  // The sequence tiles and walk at each shape (paths 5 to 9; 15 and 16: the walk in strands): one data each,
  // timed_path reads the path from it.
  static const struct {
    const char *name;
    int path;
  } forced[] = {{"tiles4k", 5},    {"tiles2k", 6},   {"walk512x8", 7},   {"walk1024x8", 8},
                {"walk1024x4", 9}, {"strands512", 15}, {"strands1024", 16}};
  constexpr int SHAPES = sizeof forced / sizeof forced[0];
  std::vector<data> shaped(SHAPES, d);
  // The tiles with a look-back policy forced (paths 10 to 14).
  data other[2] = {d, d}, radix8 = d, fenwick = d, tree = d;
  other[0].path = 10, other[1].path = 11, radix8.path = 12, fenwick.path = 13, tree.path = 14;
  size_t loop = SIZE_MAX;
  time_as(timed_plan, "gpuprim", &d);
  if (count == 1) {
    time_as(timed_cub, "cub", &d);
  } else {
    time_as(timed_channels, "channels", &d);
    time_as(timed_tiles, "tiles", &d);
    if (!time_major) time_as(timed_segments, "lookback", &d);
    if (time_major && len >= 4096) {
      time_as(timed_path, "chain", &other[0]);
      time_as(timed_path, "tree", &tree);
      time_as(timed_path, "r8", &radix8);
      time_as(timed_path, "fenwick", &fenwick);
    }
    if (!time_major && len >= 4096) {
      for (int i = 0; i < SHAPES; i++) {
        shaped[i].path = forced[i].path;
        time_as(timed_path, forced[i].name, &shaped[i]);
      }
      time_as(timed_path, "fen4k", &other[0]);
      time_as(timed_path, "fen2k", &other[1]);
    }
    loop = fns.size();
    time_as(timed_loop, "loop", &d);
  }
  time_as(timed_copy, "copy", &d);
  for (auto _ : state) {
    time_row(fns, args, loop, reps_for(n * 12), r.us);
    state.SetIterationTime(r.us[0] * 1e-6);
  }
  const double copy = r.us.back();
  for (size_t i = 0; i + 1 < fns.size(); i++) {
    state.counters[r.who[i] + "_us"] = r.us[i];
    state.counters["copy/" + r.who[i]] = copy / r.us[i];
  }
}

// Checks the backward pass along `paths` (the plan's first) against the plain loop's da and db.
std::string check_backward(data &d, const std::vector<int> &paths) {
  const size_t n = d.len * d.count;
  float *want_da = static_cast<float *>(bench_buffer(10, n * 4));
  float *want_db = static_cast<float *>(bench_buffer(11, n * 4));
  linrec_plain_loop_backward(d.a, d.h, d.dh, want_da, want_db, d.len, d.count, d.time_major);
  for (int path : paths) {
    bench_poison(d.da, n * 4);
    bench_poison(d.db, n * 4);
    const int s = linrec_gpuprim_backward_path(path, d.a, d.h, d.dh, d.da, d.db, d.len, d.count, d.time_major);
    if (s != GPU_OK) return "backward path " + std::to_string(path) + ": " + gpu_last_error();
    const float diff =
        std::fmax(linrec_max_difference_plain(d.da, want_da, n), linrec_max_difference_plain(d.db, want_db, n));
    if (!(diff <= 1e-3f)) return "backward path " + std::to_string(path) + ": differs by " + std::to_string(diff);
  }
  return "";
}

void linrec_backward_benchmark(benchmark::State &state, std::string name, size_t len, size_t count, bool time_major) {
  const size_t n = len * count;
  auto buffer = [n](int slot) { return static_cast<float *>(bench_buffer(slot, n * 4)); };
  data d{len, count, time_major, buffer(0), buffer(1), buffer(2), nullptr, nullptr, 0, buffer(6), buffer(7), buffer(8)};
  bench_fill_random(d.a, n, GPU_F32, 1);
  bench_fill_random(d.b, n, GPU_F32, 2);
  bench_fill_random(d.dh, n, GPU_F32, 3);
  linrec_plain_loop(d.a, d.b, d.h, len, count, time_major);
  const int old_path = time_major ? 3 : 2;
  const bool forced = time_major && len >= 4096;  // the tree (path 14)
  std::vector<int> paths{0, old_path, 4};
  if (forced) paths.push_back(14);
  rows.push_back({name, {}, {}, check_backward(d, paths)});
  row &r = rows.back();
  if (!r.error.empty()) {
    std::fprintf(stderr, "bench_linrec: %s: %s\n", name.c_str(), r.error.c_str());
    state.SkipWithError(r.error.c_str());
    return;
  }
  // One data per forced path: timed_backward reads the path from it.
  data plan = d, old = d, tiles = d, tree = d;
  plan.path = 0, old.path = old_path, tiles.path = 4, tree.path = 14;
  std::vector<bench_fn> fns{timed_backward, timed_backward, timed_backward};
  std::vector<void *> args{&plan, &old, &tiles};
  r.who = {"gpuprim", time_major ? "channels" : "lookback", "tiles"};
  if (forced) {
    fns.push_back(timed_backward);
    args.push_back(&tree);
    r.who.push_back("tree");
  }
  const size_t loop = fns.size();
  fns.insert(fns.end(), {timed_loop_backward, timed_copy_backward});
  args.insert(args.end(), {&d, &d});
  r.who.insert(r.who.end(), {"loop", "copy"});
  for (auto _ : state) {
    time_row(fns, args, loop, reps_for(n * 20), r.us);
    state.SetIterationTime(r.us[0] * 1e-6);
  }
  for (size_t i = 0; i + 1 < fns.size(); i++) {
    state.counters[r.who[i] + "_us"] = r.us[i];
    state.counters["copy/" + r.who[i]] = r.us.back() / r.us[i];
  }
}

int print_summary() {
  int failures = 0;
  std::printf("\nsummary: x_us = median time; copy/x = time of reading a, b and writing h (bwd: reading a, h, dh "
              "and writing da, db) / x's time (1.00 = copy speed); cub/gp, channels/gp, ...: the second column's "
              "time / gpuprim's (> 1: gpuprim faster)\n");
  for (const row &r : rows) {
    if (!r.error.empty()) {
      failures++;
      std::printf("%-22s FAILED: %s\n", r.name.c_str(), r.error.c_str());
      continue;
    }
    std::printf("%-22s", r.name.c_str());
    const double copy = r.us.back();
    for (size_t i = 0; i + 1 < r.us.size(); i++)
      std::printf("  %s %9.1f us (copy/x %.2f)", r.who[i].c_str(), r.us[i], copy / r.us[i]);
    std::printf("  copy %9.1f us  %s/gp %.2f\n", copy, r.who[1].c_str(), r.us[1] / r.us[0]);
  }
  if (failures) std::printf("%d FAILED (see above)\n", failures);
  return failures;
}

void add(const std::string &name, size_t len, size_t count, bool time_major, bool backward = false) {
  benchmark::RegisterBenchmark(name.c_str(), backward ? linrec_backward_benchmark : linrec_benchmark, name, len, count,
                               time_major)
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
}

void register_all(bool quick) {
  for (int e = 16; e <= 30; e += 2)
    if (!quick || e == 20 || e == 24) add("seq/2^" + std::to_string(e), size_t(1) << e, 1, false);
  static const size_t shapes[][2] = {{4096, 256}, {4096, 4096}, {2048, 8192}, {1024, 16384}, {256, 65536}, {64, 1 << 20}};
  for (const auto &s : shapes)
    for (int tm = 1; tm >= 0; tm--) {
      if (quick && s[0] != 4096) continue;
      add(std::string(tm ? "tm/" : "sm/") + std::to_string(s[0]) + "x" + std::to_string(s[1]), s[1], s[0], tm);
    }
  for (const auto &s : shapes)
    for (int tm = 1; tm >= 0; tm--) {
      if (quick && s[0] != 4096) continue;
      add(std::string(tm ? "bwd/tm/" : "bwd/sm/") + std::to_string(s[0]) + "x" + std::to_string(s[1]), s[1], s[0], tm,
          true);
    }
  if (quick) return;
  // Where the sequence walk's shapes, its strands and the sequence tiles cross (LINREC_SEQ_MAJOR_WALK_*,
  // LINREC_SEQ_MAJOR_STRANDS_MIN_COUNT), and the time-major channel tiles and three passes
  // (LINREC_TIME_MAJOR_*), at 2^24 elements.
  for (size_t count : {16, 32, 64, 128, 512}) {
    const size_t len = (size_t(1) << 24) / count;
    for (int tm = 1; tm >= 0; tm--)
      add(std::string(tm ? "tm/" : "sm/") + std::to_string(count) + "x" + std::to_string(len), len, count, tm);
    add("bwd/tm/" + std::to_string(count) + "x" + std::to_string(len), len, count, true, true);
  }
  // Where the time-major tiles 16 channels wide and the three passes cross (LINREC_TIME_MAJOR_NARROW_TILES_MIN_COUNT).
  for (size_t count : {8, 12}) {
    const size_t len = (size_t(1) << 24) / count;
    add("tm/" + std::to_string(count) + "x" + std::to_string(len), len, count, true);
    add("bwd/tm/" + std::to_string(count) + "x" + std::to_string(len), len, count, true, true);
  }
  // Where sequence-major batches of short sequences change paths
  // (linrec_tuning.h): lengths 4 to 128 at 2^16, 2^20 and 2^24 elements.
  for (int total = 16; total <= 24; total += 4)
    for (int len = 2; len <= 7; len++)
      add("sm/2^" + std::to_string(total - len) + "x" + std::to_string(1 << len), size_t(1) << len,
          size_t(1) << (total - len), false);
}

}  // namespace

int main(int argc, char **argv) {
  if (bench_require_cuda("bench_linrec") != 0) return 1;
  quick_run = bench_quick_mode(&argc, argv) != 0;
  register_all(quick_run);
  return bench_run_registered(argc, argv, print_summary);
}
