// gpuprim's stream compaction side by side with CUB's DeviceSelect and
// DevicePartition and a device-to-device copy of the same n elements, on the
// same buffers, in one binary. Data: integers uniform in [0, 1000), floats
// uniform in [-1, 1); the threshold keeps 50% or 5% of them.
//
// Cases (each at several n; the row's reported time is gpuprim's median):
//   compact_lt     gpu_compact, gpu_pred_cmp(t, GPU_LT, &threshold)
//                  vs cub::DeviceSelect::If with an (x < threshold) functor
//   compact_flags  gpu_compact, gpu_pred_flags (uint8, nonzero = keep)
//                  vs cub::DeviceSelect::Flagged on the same flags
//   partition_lt   gpu_partition, x < threshold, vs cub::DevicePartition::If.
//                  CUB writes the rejected part in REVERSE order, gpuprim in
//                  the original order; "cub+rev" is CUB followed by a kernel
//                  that reverses that part in place (gpuprim's result).
//   compact_expr   gpu_compact with gpu_pred_expr(t, "x < threshold") vs the
//                  gpu_pred_cmp it equals (run-time compiled vs built in)
// Both sides deliver the kept count to the host (gpu_compact returns it; the
// CUB calls download it), so both timings include that round trip.
//
// Columns: gpuprim_us, cub_us, cub_reversed_us, builtin_us, copy_us (medians
// of CUDA-event timings, round robin after warm-up); kept (fraction); GBps
// (gpuprim's bytes read and written / time); vs_copy = copy time / gpuprim
// time (1.0 = copy speed); vs_cub = CUB time / gpuprim time (> 1: gpuprim
// faster); expr_vs_builtin = expression time / built-in time.
//
// Every result is checked before it is timed (count against CUB's, and the
// output against CUB's on the device); a wrong result marks the row FAILED
// and the program exits 1 instead of printing a time for it.
//
// --quick (or GPUPRIM_BENCH_QUICK=1): a small subset, for a smoke run.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <string>

#include "bench_main.h"
#include "cub_shim.h"
#include "gpuprim.h"

namespace {

enum class kind { compact_lt, compact_flags, partition_lt, compact_expr };

// One benchmark's device data; the outputs hold n elements.
struct data {
  const void *in;
  void *out_gp, *out_cub;
  const uint8_t *flags;
  size_t n;
  gpu_dtype t;
  unsigned char threshold[8];  // one element of type t
  int64_t kept;                // CUB's count, which every timed call must return
};

struct gp_call {
  const data *d;
  gpu_pred pred;
  bool partition;
};

struct cub_call {
  const data *d;
  kind k;
  int reverse_rejected;
};

const char *type_name(gpu_dtype t) {
  static const char *names[] = {"i32", "u32", "i64", "u64", "f32", "f64"};
  return names[t];
}

int64_t gp_run(const gp_call &c) {
  const data &d = *c.d;
  return c.partition ? gpu_partition(d.in, d.n, c.pred, d.out_gp) : gpu_compact(d.in, d.n, c.pred, d.out_gp);
}

int64_t cub_run(const cub_call &c) {
  const data &d = *c.d;
  switch (c.k) {
    case kind::compact_flags: return cub_select_flagged(d.in, d.flags, d.out_cub, d.n, d.t);
    case kind::partition_lt: return cub_partition_if_lt(d.in, d.out_cub, d.n, d.t, d.threshold, c.reverse_rejected);
    default: return cub_select_if_lt(d.in, d.out_cub, d.n, d.t, d.threshold);
  }
}

// The timed contenders. Results were checked before timing; a count that
// changes afterwards stops the program rather than give a time.
void timed_gpuprim(void *arg) {
  auto *c = static_cast<gp_call *>(arg);
  const int64_t got = gp_run(*c);
  if (got != c->d->kept) {
    std::fprintf(stderr, "bench_compact: gpuprim returned %lld while timing, %lld before (%s)\n", (long long)got,
                 (long long)c->d->kept, gpu_last_error());
    std::exit(2);
  }
}

void timed_cub(void *arg) {
  auto *c = static_cast<cub_call *>(arg);
  const int64_t got = cub_run(*c);
  if (got != c->d->kept) {
    std::fprintf(stderr, "bench_compact: CUB returned %lld while timing, %lld before\n", (long long)got,
                 (long long)c->d->kept);
    std::exit(2);
  }
}

void timed_copy(void *arg) {
  auto *d = static_cast<data *>(arg);
  bench_copy(d->out_gp, d->in, d->n * gpu_dtype_size(d->t));
}

// The element at i of a device array, as hex bits, for error messages.
std::string bits_at(const void *p, size_t i, gpu_dtype t) {
  const size_t w = gpu_dtype_size(t);
  uint64_t v = 0;
  if (gpu_download(&v, static_cast<const char *>(p) + i * w, w) != GPU_OK) return "?";
  char s[32];
  std::snprintf(s, sizeof s, "0x%0*llx", int(2 * w), (unsigned long long)v);
  return s;
}

// Runs gpuprim once into poisoned output and compares with CUB's result in
// out_cub. Returns "" when they agree, else what is wrong.
std::string check_gpuprim(const gp_call &c, const char *what) {
  const data &d = *c.d;
  const size_t w = gpu_dtype_size(d.t);
  bench_poison(d.out_gp, d.n * w);
  const int64_t got = gp_run(c);
  char msg[512];
  if (got < 0) {
    std::snprintf(msg, sizeof msg, "%s failed: %s: %s", what, gpu_status_string(gpu_status(-got)), gpu_last_error());
    return msg;
  }
  if (got != d.kept) {
    std::snprintf(msg, sizeof msg, "%s kept %lld elements, CUB %lld", what, (long long)got, (long long)d.kept);
    return msg;
  }
  const size_t written = c.partition ? d.n : size_t(d.kept);
  const int64_t i = bench_first_difference(d.out_gp, d.out_cub, written, w);
  if (i >= 0) {
    std::snprintf(msg, sizeof msg, "%s: out[%lld] = %s, CUB's (%s) = %s", what, (long long)i,
                  bits_at(d.out_gp, size_t(i), d.t).c_str(),
                  c.partition ? (i < d.kept ? "kept part" : "rejected part, reversed back") : "compacted",
                  bits_at(d.out_cub, size_t(i), d.t).c_str());
    return msg;
  }
  return "";
}

// What the summary table at the end reads, in the order the rows ran.
struct row {
  std::string name;
  size_t n;
  double kept, gp_us, vs_copy, vs_cub, other;  // other: partition cub+rev/gp, expr expr/builtin
  std::string error;
};
std::deque<row> rows;  // a deque: SkipWithError may keep a pointer to the message

// Enough repetitions for a stable median, bounded in total time (as bench_scan).
int reps_for(size_t bytes) { return bytes >= (size_t(1) << 30) ? 15 : bytes >= (size_t(1) << 26) ? 31 : 101; }

void compact_benchmark(benchmark::State &state, const std::string &name, kind k, gpu_dtype t, int keep_percent) {
  const size_t n = size_t(state.range(0)), w = gpu_dtype_size(t), bytes = n * w;
  data d{bench_buffer(0, bytes), bench_buffer(1, bytes), bench_buffer(2, bytes), nullptr, n, t, {0}, 0};
  bench_fill_random(const_cast<void *>(d.in), n, t, 42 + n);
  if (k == kind::compact_flags) {
    d.flags = static_cast<const uint8_t *>(bench_buffer(3, n));
    bench_fill_flags(const_cast<uint8_t *>(d.flags), n, 10 * keep_percent, 7 + 3 * n);
  }
  // x < threshold keeps keep_percent of data uniform in [0, 1000) or [-1, 1).
  char expression[64];
  if (t == GPU_F32) {
    const float v = float(-1.0 + keep_percent / 50.0);
    std::memcpy(d.threshold, &v, sizeof v);
    std::snprintf(expression, sizeof expression, "x < %.17g", double(v));  // exactly v, so the same predicate
  } else if (t == GPU_F64) {
    const double v = -1.0 + keep_percent / 50.0;
    std::memcpy(d.threshold, &v, sizeof v);
    std::snprintf(expression, sizeof expression, "x < %.17g", v);
  } else {
    const uint64_t v = uint64_t(10 * keep_percent);  // little-endian: also right for 32-bit types
    std::memcpy(d.threshold, &v, w);
    std::snprintf(expression, sizeof expression, "x < %d", 10 * keep_percent);
  }

  rows.push_back({name, n, 0, 0, 0, 0, 0, ""});
  row &r = rows.back();
  const gpu_pred cmp = gpu_pred_cmp(t, GPU_LT, d.threshold);
  const gpu_pred pred = k == kind::compact_flags  ? gpu_pred_flags(t, d.flags)
                        : k == kind::compact_expr ? gpu_pred_expr(t, expression)
                                                  : cmp;
  gp_call gp{&d, pred, k == kind::partition_lt};
  gp_call builtin{&d, cmp, false};
  cub_call cub{&d, k, 0}, cub_reversed{&d, k, 1};

  // CUB's result is the reference (partition: with the rejected part reversed
  // back into input order); its count must be near the intended fraction.
  d.kept = cub_run(k == kind::partition_lt ? cub_reversed : cub);
  const double kept = double(d.kept) / double(n);
  if (std::fabs(kept - keep_percent / 100.0) > 0.01) {
    r.error = "CUB kept " + std::to_string(d.kept) + " of " + std::to_string(n) + ", not about " +
              std::to_string(keep_percent) + "%: the benchmark's data or threshold is wrong";
  } else {
    const char *what = k == kind::partition_lt    ? "gpu_partition"
                       : k == kind::compact_expr  ? "gpu_compact (expression)"
                       : k == kind::compact_flags ? "gpu_compact (flags)"
                                                  : "gpu_compact";
    r.error = check_gpuprim(gp, what);
    if (r.error.empty() && k == kind::compact_expr) r.error = check_gpuprim(builtin, "gpu_compact (built-in)");
    if (r.error.empty() && k == kind::partition_lt && cub_run(cub) != d.kept) r.error = "CUB partition's count changed";
  }
  if (!r.error.empty()) {
    r.error = name + "/" + std::to_string(n) + ": " + r.error;
    std::fprintf(stderr, "bench_compact: %s\n", r.error.c_str());
    state.SkipWithError(r.error.c_str());
    return;
  }

  // Contenders: gpuprim first (its median is the row's time), copy last.
  bench_fn fns[4];
  void *args[4];
  int m = 0;
  fns[m] = timed_gpuprim, args[m++] = &gp;
  if (k == kind::compact_expr) {
    fns[m] = timed_gpuprim, args[m++] = &builtin;
  } else {
    fns[m] = timed_cub, args[m++] = &cub;
    if (k == kind::partition_lt) fns[m] = timed_cub, args[m++] = &cub_reversed;
  }
  fns[m] = timed_copy, args[m++] = &d;
  double us[4];
  for (auto _ : state) {
    bench_medians_us(m, fns, args, 3, reps_for(bytes), us);
    state.SetIterationTime(us[0] * 1e-6);
  }
  const double copy_us = us[m - 1];
  const size_t written = k == kind::partition_lt ? n : size_t(d.kept);
  const double moved = double(bytes) + (d.flags ? double(n) : 0.0) + double(written) * double(w);
  state.counters["gpuprim_us"] = us[0];
  state.counters["copy_us"] = copy_us;
  state.counters["kept"] = kept;
  state.counters["GBps"] = moved / (us[0] * 1e3);
  state.counters["vs_copy"] = copy_us / us[0];
  r.kept = kept;
  r.gp_us = us[0];
  r.vs_copy = copy_us / us[0];
  if (k == kind::compact_expr) {
    state.counters["builtin_us"] = us[1];
    state.counters["expr_vs_builtin"] = us[0] / us[1];
    r.vs_cub = NAN;
    r.other = us[0] / us[1];
  } else {
    state.counters["cub_us"] = us[1];
    state.counters["vs_cub"] = us[1] / us[0];
    r.vs_cub = us[1] / us[0];
    r.other = NAN;
  }
  if (k == kind::partition_lt) {
    state.counters["cub_reversed_us"] = us[2];
    state.counters["vs_cub_reversed"] = us[2] / us[0];
    r.other = us[2] / us[0];
  }
}

// One row per (case, n), last on stdout; gpu-run.sh copies from "summary" on.
int print_summary() {
  int failures = 0;
  std::printf("\nsummary: copy/gp = copy time / gpuprim time (1.00 = copy speed); cub/gp = CUB time / gpuprim time "
              "(> 1: gpuprim faster);\n"
              "partition: cub+rev/gp also counts reversing CUB's rejected part into input order; expr: expr/builtin "
              "= expression time / gpu_pred_cmp time\n");
  std::printf("%-32s %5s %6s %10s %8s %7s  %s\n", "case", "n", "kept", "gp_us", "copy/gp", "cub/gp", "other");
  for (const row &r : rows) {
    const std::string &name = r.name;
    char n[16];
    std::snprintf(n, sizeof n, "2^%d", __builtin_ctzll(r.n));
    if (!r.error.empty()) {
      failures++;
      std::printf("%-32s %5s FAILED: %s\n", name.c_str(), n, r.error.c_str());
      continue;
    }
    char cub[16] = "-", other[48] = "";
    if (!std::isnan(r.vs_cub)) std::snprintf(cub, sizeof cub, "%.2f", r.vs_cub);
    if (name.rfind("partition", 0) == 0) std::snprintf(other, sizeof other, "cub+rev/gp %.2f", r.other);
    if (name.rfind("compact_expr", 0) == 0) std::snprintf(other, sizeof other, "expr/builtin %.2f", r.other);
    std::printf("%-32s %5s %5.1f%% %10.1f %8.3f %7s  %s\n", name.c_str(), n, 100 * r.kept, r.gp_us, r.vs_copy, cub,
                other);
  }
  if (failures) std::printf("%d FAILED (see above): no time is given for them\n", failures);
  return failures;
}

const char *kind_name(kind k) {
  switch (k) {
    case kind::compact_lt: return "compact_lt";
    case kind::compact_flags: return "compact_flags";
    case kind::partition_lt: return "partition_lt";
    default: return "compact_expr";
  }
}

benchmark::internal::Benchmark *add(kind k, gpu_dtype t, int keep_percent) {
  const std::string name = std::string(kind_name(k)) + "/" + type_name(t) + "/keep" + std::to_string(keep_percent);
  auto *b = benchmark::RegisterBenchmark(name.c_str(), compact_benchmark, name, k, t, keep_percent);
  return b->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

void register_all(bool quick) {
  const kind cases[] = {kind::compact_lt, kind::compact_flags, kind::partition_lt};
  const int keeps[] = {50, 5};
  if (quick) {
    for (kind k : cases)
      for (int keep : keeps) add(k, GPU_I32, keep)->Arg(1 << 20)->Arg(1 << 24)->Arg(1 << 28);
    add(kind::compact_lt, GPU_U64, 50)->Arg(1 << 24);
    add(kind::compact_expr, GPU_I32, 50)->Arg(1 << 24);
    add(kind::compact_expr, GPU_F32, 50)->Arg(1 << 24);
    return;
  }
  for (gpu_dtype t : {GPU_I32, GPU_F32})
    for (kind k : cases)
      for (int keep : keeps) add(k, t, keep)->RangeMultiplier(4)->Range(1 << 16, 1 << 30);  // 2^16, 2^18 ... 2^30
  for (gpu_dtype t : {GPU_U64, GPU_F64})
    for (kind k : cases)
      for (int keep : keeps) add(k, t, keep)->Arg(1 << 20)->Arg(1 << 24)->Arg(1 << 28);
  for (gpu_dtype t : {GPU_I32, GPU_F32})
    for (int keep : keeps) add(kind::compact_expr, t, keep)->Arg(1 << 24)->Arg(1 << 28);
}

}  // namespace

int main(int argc, char **argv) {
  if (bench_require_cuda("bench_compact") != 0) return 1;
  register_all(bench_quick_mode(&argc, argv) != 0);
  return bench_run_registered(argc, argv, print_summary);
}
