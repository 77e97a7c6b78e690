// gpuprim's segmented scan and reduce side by side with CUB on the same data,
// in one binary:
//   segscan_flags/<incl|excl>    gpu_segscan_flags (n head bytes)
//   segscan_offsets/<incl|excl>  gpu_segscan_offsets (nseg + 1 int64 offsets)
//       both vs cub::DeviceScan::InclusiveSumByKey / ExclusiveSumByKey, whose
//       keys are the segment number of each element (int32 below 2^31
//       elements). CUB reads those keys too: n * 4 more bytes than gpuprim's
//       offsets form reads, so its floor is higher.
//   segreduce                    gpu_segreduce vs cub::DeviceSegmentedReduce::Sum
//                                (begin = offsets, end = offsets + 1)
// Operator ADD; data: integers uniform in [0, 1000), floats in [-1, 1).
// Segments: each element starts one with probability 1/L (L = 4, 64, 4096:
// geometric lengths of mean L, none empty), the same segmentation in every
// form for both sides.
//
// Columns: gpuprim_us, cub_us (medians of CUDA-event timings, round robin
// after warm-up, each run from a settled L2: settle_each_run); vs_copy =
// time of a device copy that moves as many bytes as gpuprim must (reads +
// writes: in, out, and heads or offsets) / gpuprim's time (1.0 = copy
// speed); cub_vs_copy likewise for CUB's bytes (keys instead of
// heads/offsets); vs_cub = CUB time / gpuprim time (> 1: gpuprim faster).
//
// Every gpuprim result is checked against CUB's before it is timed (integers
// exactly; float sums, which the two add in different orders, to 0.05 for f32
// and 1e-6 for f64 over segments of up to about 50000 elements, where a wrong
// element is off by about its own size). A wrong result marks the row FAILED
// and the program exits 1. While the CUDA kernels are missing (issue 5)
// gpuprim answers GPU_ERR_UNSUPPORTED: the row says so and times CUB and the
// copies alone.
//
// --quick (or GPUPRIM_BENCH_QUICK=1): a small subset, for a smoke run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "bench_main.h"
#include "cub_seg_shim.h"
#include "cub_shim.h"
#include "gpuprim.h"

namespace {

enum class kind { flags_incl, flags_excl, offsets_incl, offsets_excl, reduce };

bool is_reduce(kind k) { return k == kind::reduce; }
bool uses_heads(kind k) { return k == kind::flags_incl || k == kind::flags_excl; }
bool is_exclusive(kind k) { return k == kind::flags_excl || k == kind::offsets_excl; }

// One benchmark's device data.
struct data {
  kind k;
  gpu_dtype t;
  size_t n, nseg, key_bytes;
  const void *in;
  void *out_gp, *out_cub;  // n elements (reduce: nseg)
  const uint8_t *heads;
  const void *keys;
  const int64_t *offsets;
  void *copy_src, *copy_dst;
  size_t copy_gp_bytes, copy_cub_bytes;  // half of what each side moves
};

gpu_status gp_run(const data &d) {
  const unsigned flags = is_exclusive(d.k) ? GPU_EXCLUSIVE : GPU_INCLUSIVE;
  if (is_reduce(d.k)) return gpu_segreduce(d.in, d.offsets, d.nseg, d.out_gp, d.t, GPU_ADD);
  if (uses_heads(d.k)) return gpu_segscan_flags(d.in, d.out_gp, d.n, d.heads, d.t, GPU_ADD, flags);
  return gpu_segscan_offsets(d.in, d.out_gp, d.n, d.offsets, d.nseg, d.t, GPU_ADD, flags);
}

int cub_run(const data &d) {
  if (is_reduce(d.k)) return cub_segmented_sum(d.in, d.out_cub, d.offsets, d.nseg, d.t);
  return cub_sum_by_key(d.keys, d.key_bytes, d.in, d.out_cub, d.n, d.t, is_exclusive(d.k));
}

// Bytes read and written by each side.
size_t gp_moved(const data &d) {
  const size_t w = gpu_dtype_size(d.t), out = (is_reduce(d.k) ? d.nseg : d.n) * w;
  return d.n * w + out + (uses_heads(d.k) ? d.n : (d.nseg + 1) * sizeof(int64_t));
}

size_t cub_moved(const data &d) {
  if (is_reduce(d.k)) return gp_moved(d);
  return 2 * d.n * gpu_dtype_size(d.t) + d.n * d.key_bytes;
}

// The timed contenders. Results were checked before timing.
void timed_gpuprim(void *arg) {
  gpu_status s = gp_run(*static_cast<data *>(arg));
  if (s != GPU_OK) {
    std::fprintf(stderr, "bench_segmented: gpuprim failed while timing: %s\n", gpu_last_error());
    std::exit(2);
  }
}

void timed_cub(void *arg) {
  if (cub_run(*static_cast<data *>(arg)) != 0) std::exit(2);
}

// Each timed run starts from a settled L2 (bench_settle_l2): none of the
// data cached, no dirty lines. GPUPRIM_BENCH_SETTLE=0: as before session 18,
// each run finds L2 as the run before left it. Then gpuprim, which follows
// the copy of CUB's bytes in the round robin, writes back up to L2's size of
// that copy's output in its own time: 4.7 us of its reduce with segments
// of 4096 at 2^24 (36.9 -> 32.2 us settled, bench/NOTES.md), where CUB
// follows gpuprim's small output.
bool settle_each_run() {
  static const bool on = [] {
    const char *e = std::getenv("GPUPRIM_BENCH_SETTLE");
    return !(e && std::strcmp(e, "0") == 0);
  }();
  return on;
}
// GPUPRIM_BENCH_QUEUED=1: each timed run is also queued behind 30 us of
// GPU work (bench_gpu_busy_us), so its event time leaves out the calling
// thread's time before its launches (argument checks, the launch calls):
// the GPU's time alone, as in a loop where the host runs ahead. Below 2^24
// that host time is a large part of both sides' figures.
bool queued_runs() {
  static const bool on = [] {
    const char *e = std::getenv("GPUPRIM_BENCH_QUEUED");
    return e && std::strcmp(e, "1") == 0;
  }();
  return on;
}
void settle(void *) {
  bench_settle_l2();
  if (queued_runs()) bench_gpu_busy_us(30.0);
}

void timed_copy_gp(void *arg) {
  auto *d = static_cast<data *>(arg);
  bench_copy(d->copy_dst, d->copy_src, d->copy_gp_bytes);
}

void timed_copy_cub(void *arg) {
  auto *d = static_cast<data *>(arg);
  bench_copy(d->copy_dst, d->copy_src, d->copy_cub_bytes);
}

std::string value_at(const void *p, size_t i, gpu_dtype t) {
  union {
    int32_t i32;
    float f32;
    double f64;
  } v{};
  if (gpu_download(&v, static_cast<const char *>(p) + i * gpu_dtype_size(t), gpu_dtype_size(t)) != GPU_OK) return "?";
  return std::to_string(t == GPU_F32 ? double(v.f32) : t == GPU_F64 ? v.f64 : double(v.i32));
}

// Runs gpuprim once into poisoned output and compares with CUB's result.
// Returns "" when they agree, "UNSUPPORTED" when gpuprim says so, else what
// is wrong.
std::string check_gpuprim(const data &d) {
  const size_t m = is_reduce(d.k) ? d.nseg : d.n, w = gpu_dtype_size(d.t);
  bench_poison(d.out_gp, m * w);
  const gpu_status s = gp_run(d);
  if (s == GPU_ERR_UNSUPPORTED) return std::string("UNSUPPORTED");
  if (s != GPU_OK) return std::string(gpu_status_string(s)) + ": " + gpu_last_error();
  const double abs_tol = d.t == GPU_F32 ? 0.05 : 1e-6, rel_tol = d.t == GPU_F32 ? 1e-5 : 1e-12;
  const int64_t i = seg_bench_first_mismatch(d.out_gp, d.out_cub, m, d.t, abs_tol, rel_tol);
  if (i < 0) return "";
  return "out[" + std::to_string(i) + "] = " + value_at(d.out_gp, size_t(i), d.t) + ", CUB's = " +
         value_at(d.out_cub, size_t(i), d.t);
}

// What the summary table at the end reads, in the order the rows ran.
struct row {
  std::string name;
  size_t n, nseg;
  double gp_us, cub_us, vs_copy, cub_vs_copy;
  std::string error;  // "UNSUPPORTED": gpuprim not timed
};
std::deque<row> rows;  // a deque: SkipWithError may keep a pointer to the message

int reps_for(size_t bytes) { return bytes >= (size_t(1) << 30) ? 15 : bytes >= (size_t(1) << 26) ? 31 : 101; }

void seg_benchmark(benchmark::State &state, const std::string &name, kind k, gpu_dtype t, size_t mean_len) {
  const size_t n = size_t(state.range(0)), w = gpu_dtype_size(t);
  data d{};
  d.k = k, d.t = t, d.n = n;
  d.key_bytes = n < (size_t(1) << 31) ? 4 : 8;
  auto *heads = static_cast<uint8_t *>(bench_buffer(3, n));
  seg_bench_make_heads(heads, n, mean_len, 7 + n + mean_len);
  d.heads = heads;
  void *keys = bench_buffer(4, n * d.key_bytes);
  d.nseg = seg_bench_make_keys(heads, keys, d.key_bytes, n);
  d.keys = keys;
  auto *offsets = static_cast<int64_t *>(bench_buffer(5, (d.nseg + 1) * sizeof(int64_t)));
  seg_bench_make_offsets(heads, keys, d.key_bytes, n, d.nseg, offsets);
  d.offsets = offsets;
  d.in = bench_buffer(0, n * w);
  bench_fill_random(const_cast<void *>(d.in), n, t, 42 + n);
  d.out_gp = bench_buffer(1, n * w);
  d.out_cub = bench_buffer(2, n * w);
  d.copy_gp_bytes = gp_moved(d) / 2;
  d.copy_cub_bytes = cub_moved(d) / 2;
  const size_t copy_bytes = std::max(d.copy_gp_bytes, d.copy_cub_bytes);
  d.copy_src = bench_buffer(6, copy_bytes);
  d.copy_dst = bench_buffer(7, copy_bytes);

  rows.push_back({name, n, d.nseg, NAN, NAN, NAN, NAN, ""});
  row &r = rows.back();
  if (cub_run(d) != 0) r.error = "the CUB shim has no instance for this type";
  else r.error = check_gpuprim(d);
  const bool unsupported = r.error == "UNSUPPORTED";
  if (!r.error.empty() && !unsupported) {
    r.error = name + "/" + std::to_string(n) + ": " + r.error;
    std::fprintf(stderr, "bench_segmented: %s\n", r.error.c_str());
    state.SkipWithError(r.error.c_str());
    return;
  }

  // Contenders: gpuprim first (its median is the row's time) unless it is
  // not there yet, then CUB and the copies.
  bench_fn fns[4];
  void *args[4] = {&d, &d, &d, &d};
  int m = 0;
  if (!unsupported) fns[m++] = timed_gpuprim;
  fns[m++] = timed_cub;
  fns[m++] = timed_copy_gp;
  fns[m++] = timed_copy_cub;
  double us[4];
  const bench_fn settles[4] = {settle, settle, settle, settle};
  for (auto _ : state) {
    bench_medians_prepared_us(m, settle_each_run() ? settles : nullptr, fns, args, 3, reps_for(n * w), us);
    state.SetIterationTime(us[0] * 1e-6);
  }
  // u[0] gpuprim (NaN if not timed), u[1] CUB, u[2] copy of gpuprim's bytes, u[3] copy of CUB's
  double u[4] = {NAN, us[0], us[1], us[2]};
  if (!unsupported) std::copy(us, us + 4, u);
  r.cub_us = u[1];
  r.cub_vs_copy = u[3] / u[1];
  state.counters["cub_us"] = u[1];
  state.counters["cub_vs_copy"] = r.cub_vs_copy;
  state.counters["segments"] = double(d.nseg);
  if (unsupported) {
    state.SetLabel("gpuprim: UNSUPPORTED on the CUDA backend (kernels not yet there, issue 5)");
    return;
  }
  r.gp_us = u[0];
  r.vs_copy = u[2] / u[0];
  state.counters["gpuprim_us"] = u[0];
  state.counters["GBps"] = double(gp_moved(d)) / (u[0] * 1e3);
  state.counters["vs_copy"] = r.vs_copy;
  state.counters["vs_cub"] = u[1] / u[0];
}

// One row per (case, n), last on stdout; gpu-run.sh copies from "summary" on.
int print_summary() {
  int failures = 0, unsupported = 0;
  std::printf("\nsummary: copy/gp = time of a copy moving gpuprim's bytes / gpuprim time (1.00 = copy speed); "
              "copy/cub likewise for CUB's bytes (by-key: keys instead of heads/offsets);\n"
              "cub/gp = CUB time / gpuprim time (> 1: gpuprim faster); L = mean segment length\n");
  std::printf("%-34s %5s %10s %10s %8s %10s %8s %7s\n", "case", "n", "segments", "gp_us", "copy/gp", "cub_us",
              "copy/cub", "cub/gp");
  for (const row &r : rows) {
    char n[24];
    if ((r.n & (r.n - 1)) == 0) std::snprintf(n, sizeof n, "2^%d", __builtin_ctzll(r.n));
    else std::snprintf(n, sizeof n, "%zu", r.n);  // GPUPRIM_BENCH_N's sizes
    if (!r.error.empty() && r.error != "UNSUPPORTED") {
      failures++;
      std::printf("%-34s %5s FAILED: %s\n", r.name.c_str(), n, r.error.c_str());
      continue;
    }
    if (r.error == "UNSUPPORTED") {
      unsupported++;
      std::printf("%-34s %5s %10zu %10s %8s %10.1f %8.3f %7s  gpuprim: UNSUPPORTED\n", r.name.c_str(), n, r.nseg,
                  "-", "-", r.cub_us, r.cub_vs_copy, "-");
      continue;
    }
    std::printf("%-34s %5s %10zu %10.1f %8.3f %10.1f %8.3f %7.2f\n", r.name.c_str(), n, r.nseg, r.gp_us, r.vs_copy,
                r.cub_us, r.cub_vs_copy, r.cub_us / r.gp_us);
  }
  if (unsupported)
    std::printf("%d rows: gpuprim answered GPU_ERR_UNSUPPORTED (the CUDA kernels of issue 5 are not there yet); "
                "only CUB and the copies were timed\n", unsupported);
  if (failures) std::printf("%d FAILED (see above): no time is given for them\n", failures);
  return failures;
}

const char *kind_name(kind k) {
  static const char *const names[] = {"segscan_flags/incl", "segscan_flags/excl", "segscan_offsets/incl",
                                      "segscan_offsets/excl", "segreduce"};  // in kind's order
  return names[int(k)];
}

const char *type_name(gpu_dtype t) { return t == GPU_I32 ? "i32" : t == GPU_F32 ? "f32" : "f64"; }

benchmark::internal::Benchmark *add(kind k, gpu_dtype t, size_t mean_len) {
  const std::string name = std::string(kind_name(k)) + "/" + type_name(t) + "/L" + std::to_string(mean_len);
  auto *b = benchmark::RegisterBenchmark(name.c_str(), seg_benchmark, name, k, t, mean_len);
  return b->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

// GPUPRIM_BENCH_N=n1,n2,...: every case of i32 and f32 (GPUPRIM_BENCH_TYPES=
// i32,f32,f64 picks the types) at these sizes only (any n: e.g. a whole
// number of tiles a block, to see what the runs' balance costs).
std::vector<size_t> sizes_from_env() {
  std::vector<size_t> sizes;
  const char *e = std::getenv("GPUPRIM_BENCH_N");
  for (const char *p = e; p && *p;) {
    char *end = nullptr;
    const unsigned long long v = std::strtoull(p, &end, 10);
    if (end == p) break;
    if (v > 0) sizes.push_back(size_t(v));
    p = *end == ',' ? end + 1 : end;
  }
  return sizes;
}

// GPUPRIM_BENCH_TYPES=i32,f32,f64 (any of them; default i32,f32): the types
// GPUPRIM_BENCH_N's rows take.
std::vector<gpu_dtype> types_from_env() {
  const char *e = std::getenv("GPUPRIM_BENCH_TYPES");
  if (!e || !*e) return {GPU_I32, GPU_F32};
  std::vector<gpu_dtype> types;
  const std::string list = std::string(",") + e + ",";
  for (gpu_dtype t : {GPU_I32, GPU_F32, GPU_F64})
    if (list.find(std::string(",") + type_name(t) + ",") != std::string::npos) types.push_back(t);
  if (types.empty()) std::fprintf(stderr, "bench_segmented: GPUPRIM_BENCH_TYPES=%s names no type of i32, f32, f64\n", e);
  return types;
}

void register_all(bool quick) {
  const kind kinds[] = {kind::flags_incl, kind::offsets_incl, kind::flags_excl, kind::offsets_excl, kind::reduce};
  const size_t lengths[] = {4, 64, 4096};
  const std::vector<size_t> sizes = sizes_from_env();
  if (!sizes.empty()) {
    for (gpu_dtype t : types_from_env())
      for (kind k : kinds)
        for (size_t L : lengths) {
          auto *b = add(k, t, L);
          for (size_t n : sizes) b->Arg(int64_t(n));
        }
    return;
  }
  for (gpu_dtype t : {GPU_I32, GPU_F32})
    for (kind k : kinds)
      for (size_t L : lengths) {
        if (quick) add(k, t, L)->Arg(1 << 20)->Arg(1 << 24);
        else add(k, t, L)->RangeMultiplier(4)->Range(1 << 16, 1 << 30);  // 2^16, 2^18 ... 2^30
      }
  if (quick) return;
  for (kind k : kinds)
    for (size_t L : lengths) add(k, GPU_F64, L)->Arg(1 << 20)->Arg(1 << 24)->Arg(1 << 28);
  // Segments longer than a block's run of tiles: the worst case of scans by runs.
  for (kind k : {kind::flags_incl, kind::offsets_incl}) add(k, GPU_I32, size_t(1) << 24)->Arg(1 << 28);
}

}  // namespace

int main(int argc, char **argv) {
  if (bench_require_cuda("bench_segmented") != 0) return 1;
  register_all(bench_quick_mode(&argc, argv) != 0);
  return bench_run_registered(argc, argv, print_summary);
}
