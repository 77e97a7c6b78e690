// Tuning sweep of the onesweep radix sort (internal kernels, not the API),
// made to learn as much as one run on the GPU machine can (about a minute):
//
//  1. Variants: tile shape (threads x keys per thread), the launch bounds'
//     blocks per SM (lbN: a register cap; lb1 = none), how lanes of one digit
//     find each other (8 ballots, match.any, or "-" for atomicOr masks), how
//     the group takes its ranks ("atom": CUB's shared atomicAdd; "aor":
//     CUB's atomicOr masks; else load/store + __syncwarp), "pers" for a
//     persistent grid and "async" for values by cp.async (pairs; sort/sort_tuning.h),
//     from the tables in sort_tune_<case>.cu, for u32 keys and u32/u32 pairs
//     at 2^28 and 2^24, u64 keys, u64/u32 and u32/u64
//     pairs at 2^28, u64/u64 pairs at 2^27. Each runs
//     once first and its output is compared with CUB's (both sorts are
//     stable, so they agree bit for bit): a failing or wrong variant is
//     flagged and not timed. Then it is timed round robin with
//     cub::DeviceRadixSort on the same input (so drift hits both alike).
//     "library" is the public call (gpu_sort_keys / gpu_sort_pairs).
//  2. Breakdown of the library's u32 keys sort (its own shape) at 2^28 and
//     2^24: each launch timed alone (an event between launches), on random
//     keys, on keys whose top byte is constant (3 sorting passes, then a
//     copy) and whose top two bytes are (2 sorting passes, 2 skipped
//     launches), beside a device-to-device copy of the keys (a pass's floor:
//     it reads and writes every key once) and CUB's SortKeys on the same keys;
//     then the same shape with a persistent grid at 2^28.
//
// Times are medians of REPS CUDA-event timings after WARMUP rounds; Gkeys/s
// = n / time; vs_cub = CUB time / this time (> 1: faster than CUB).
// `sort_tune profile` sorts 2^26 u32 keys once with the library and once
// with CUB, for ncu (tools/gpu-run.sh sortprofile). sort/sort_tuning.h takes
// the winners.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_cuda.h"
#include "cub_sort_shim.h"
#include "sort_tune.cuh"

namespace {

constexpr int WARMUP = 3, REPS = 21;

/* One (key type, value width, n) and its buffers (slots of bench_buffer). */
struct sort_case {
  const char *name;
  gpu_dtype t;
  size_t value_bytes; /* 0: keys only */
  int log2n;
  tune_table table{nullptr, 0};
  size_t n = 0;
  void *pristine_keys = nullptr, *pristine_values = nullptr; /* the random input */
  void *keys = nullptr, *values = nullptr;                   /* sorted in place */
  void *ref_keys = nullptr, *ref_values = nullptr;           /* CUB's result, once */
  void *cub_keys = nullptr, *cub_values = nullptr;           /* CUB's output while timed */
  size_t key_array_bytes() const { return n * gpu_dtype_size(t); }
  size_t value_array_bytes() const { return n * value_bytes; }
};

void *buffer_or_null(int slot, size_t bytes) { return bytes ? bench_buffer(slot, bytes) : nullptr; }

void set_up(sort_case &c) {
  c.n = size_t(1) << c.log2n;
  const size_t kb = c.key_array_bytes(), vb = c.value_array_bytes();
  c.pristine_keys = bench_buffer(0, kb);
  c.pristine_values = buffer_or_null(1, vb);
  c.keys = bench_buffer(2, kb);
  c.values = buffer_or_null(3, vb);
  c.ref_keys = bench_buffer(4, kb);
  c.ref_values = buffer_or_null(5, vb);
  c.cub_keys = bench_buffer(6, kb);
  c.cub_values = buffer_or_null(7, vb);
  sort_bench_fill_bits(c.pristine_keys, c.n, gpu_dtype_size(c.t), 42 + c.n);
  if (vb) sort_bench_fill_bits(c.pristine_values, c.n, c.value_bytes, 4242 + c.n);
}

void restore_input(void *arg) {
  auto *c = static_cast<sort_case *>(arg);
  bench_copy(c->keys, c->pristine_keys, c->key_array_bytes());
  if (c->value_bytes) bench_copy(c->values, c->pristine_values, c->value_array_bytes());
}

void nothing(void *) {}

void cub_into(const sort_case &c, void *keys_out, void *values_out) {
  const int r = c.value_bytes ? cub_sort_pairs(c.pristine_keys, keys_out, c.pristine_values, values_out, c.n, c.t,
                                               c.value_bytes, 0)
                              : cub_sort_keys(c.pristine_keys, keys_out, c.n, c.t, 0);
  if (r != 0) std::exit(2);
}

void run_cub(void *arg) {
  auto *c = static_cast<sort_case *>(arg);
  cub_into(*c, c->cub_keys, c->cub_values);
}

/* A variant of the case, or (variant NULL) the library's public call. */
struct contender {
  sort_case *c;
  const tune_variant *v;
};

gpu_status run_once(const contender &k) {
  const sort_case &c = *k.c;
  if (k.v) return k.v->sort(c.keys, c.values, c.n);
  return c.value_bytes ? gpu_sort_pairs(c.keys, c.values, c.n, c.t, c.value_bytes, GPU_ASCENDING)
                       : gpu_sort_keys(c.keys, c.n, c.t, GPU_ASCENDING);
}

/* A contender's prepare step: its case's input, unsorted again. */
void restore_contender_input(void *arg) { restore_input(static_cast<contender *>(arg)->c); }

void run_contender(void *arg) {
  if (run_once(*static_cast<contender *>(arg)) != GPU_OK) {
    std::fprintf(stderr, "sort_tune: %s\n", gpu_last_error());
    std::exit(2);
  }
}

/* Sorts the pristine input once; "" if the result is CUB's, else why not. */
std::string verify(const contender &k) {
  const sort_case &c = *k.c;
  restore_input(k.c);
  if (run_once(k) != GPU_OK) return std::string("FAILED: ") + gpu_last_error();
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { /* sticky: nothing after this would run */
    std::printf("%s 2^%d: %s (stopping)\n", c.name, c.log2n, cudaGetErrorString(e));
    std::exit(1);
  }
  size_t wrong = sort_bench_differences(c.keys, c.ref_keys, c.key_array_bytes());
  if (c.value_bytes) wrong += sort_bench_differences(c.values, c.ref_values, c.value_array_bytes());
  return wrong ? "WRONG: " + std::to_string(wrong) + " words differ from CUB's" : "";
}

std::string variant_name(const tune_variant *v) {
  if (!v) return "library";
  static const char *const ranks[] = {"", " atom", " aor"};
  char s[64];
  std::snprintf(s, sizeof s, "%dx%d lb%d %s%s%s%s", v->threads, v->items, v->min_blocks,
                v->rank == gp::radix::RANK_ATOMIC_OR ? "-" : v->ballots ? "ballot" : "match", ranks[v->rank],
                v->persistent ? " pers" : "", v->values_staged ? " staged" : v->values_async ? " async" : "");
  return s;
}

struct result {
  std::string name;
  double us, cub_us;
};

/* Part 1 for one case: every variant, then the best. */
void sweep(sort_case &c, std::vector<std::string> &bests) {
  set_up(c);
  cub_into(c, c.ref_keys, c.ref_values);
  BENCH_CUDA(cudaDeviceSynchronize());
  std::printf("\n%s, n = 2^%d (%zu variants)\n", c.name, c.log2n, size_t(c.table.count));
  std::printf("%-28s %4s %5s %7s %6s %10s %8s %10s %8s %7s\n", "variant", "regs", "spill", "smem", "blk/SM", "us",
              "Gkeys/s", "cub_us", "cub_Gk/s", "vs_cub");
  std::vector<result> results;
  for (int i = -1; i < c.table.count; i++) {
    contender k{&c, i < 0 ? nullptr : &c.table.variants[i]};
    const std::string name = variant_name(k.v);
    const std::string complaint = verify(k);
    tune_kernel_info info{};
    if (k.v) k.v->info(&info);
    char resources[64] = "";
    if (k.v)
      std::snprintf(resources, sizeof resources, "%4d %5d %6.1fK %6d", info.regs, info.local_bytes,
                    info.smem_bytes / 1024.0, info.blocks_per_sm);
    if (!complaint.empty()) {
      std::printf("%-28s %-25s %s\n", name.c_str(), resources, complaint.c_str());
      continue;
    }
    const bench_fn prepare[2] = {restore_contender_input, nothing}, run[2] = {run_contender, run_cub};
    void *const args[2] = {&k, &c};
    double us[2];
    bench_medians_prepared_us(2, prepare, run, args, WARMUP, REPS, us);
    std::printf("%-28s %-25s %10.1f %8.2f %10.1f %8.2f %7.3f\n", name.c_str(), resources, us[0], c.n / us[0] / 1e3,
                us[1], c.n / us[1] / 1e3, us[1] / us[0]);
    std::fflush(stdout);
    results.push_back({name, us[0], us[1]});
  }
  if (results.empty()) return;
  const auto best = std::min_element(results.begin(), results.end(), [](const result &a, const result &b) {
    return a.us / a.cub_us < b.us / b.cub_us; /* the highest vs_cub */
  });
  char line[256];
  std::snprintf(line, sizeof line, "best %-15s 2^%d: %-28s %8.2f Gkeys/s  vs_cub %.3f  (library %.3f)", c.name, c.log2n,
                best->name.c_str(), c.n / best->us / 1e3, best->cub_us / best->us,
                results[0].name == "library" ? results[0].cub_us / results[0].us : 0.0);
  std::printf("%s\n", line);
  bests.push_back(line);
}

/* ---------------------------------------------------------------- part 2 */

__global__ void mask_keys(uint32_t *keys, size_t n, uint32_t mask) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    keys[i] &= mask;
}

struct copy_args {
  void *dst;
  const void *src;
  size_t bytes;
};
void run_copy(void *arg) {
  auto *a = static_cast<copy_args *>(arg);
  bench_copy(a->dst, a->src, a->bytes);
}

double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return 1000.0 * v[v.size() / 2];
}

/* The library's u32 keys sort, launch by launch. `passes` says what the
 * plan should do with each digit (S sort, C copy, K skip). */
template <typename Shape = gp::radix::onesweep_tuning<4, 0>::shape>
void breakdown(int log2n, uint32_t mask, const char *data, const char *passes, const char *shape = "its own shape") {
  using Launches = gp::radix::onesweep_launches<GPU_U32, 0, Shape>;
  constexpr int DIGITS = 4, STEPS = DIGITS + 3; /* begin, histogram, the passes, end */
  sort_case c{"u32 keys", GPU_U32, 0, log2n};
  set_up(c);
  mask_keys<<<1024, 256>>>(static_cast<uint32_t *>(c.pristine_keys), c.n, mask);
  cub_into(c, c.ref_keys, nullptr);
  BENCH_CUDA(cudaDeviceSynchronize());

  cudaEvent_t ev[STEPS + 1]; /* ev[i] before step i, ev[STEPS] after the last */
  for (auto &e : ev) BENCH_CUDA(cudaEventCreate(&e));
  std::vector<std::vector<float>> ms(STEPS + 1, std::vector<float>(REPS)); /* ms[STEPS]: all steps */
  for (int r = -WARMUP; r < REPS; r++) {
    restore_input(&c);
    Launches run{"sort_tune", c.keys, nullptr, c.n, 0, 0};
    int e = 0;
    cudaEventRecord(ev[e++]);
    gpu_status s = run.begin(0);
    cudaEventRecord(ev[e++]);
    if (s == GPU_OK) s = run.histogram();
    cudaEventRecord(ev[e++]);
    for (int d = 0; d < DIGITS; d++) {
      for (uint32_t q = 0; q < run.portions() && s == GPU_OK; q++) s = run.pass(d, q);
      cudaEventRecord(ev[e++]);
    }
    s = run.end(s);
    cudaEventRecord(ev[e++]);
    BENCH_CUDA(cudaEventSynchronize(ev[STEPS]));
    if (s != GPU_OK) {
      std::printf("breakdown: %s\n", gpu_last_error());
      return;
    }
    if (r < 0) continue;
    for (int i = 0; i < STEPS; i++) cudaEventElapsedTime(&ms[i][r], ev[i], ev[i + 1]);
    cudaEventElapsedTime(&ms[STEPS][r], ev[0], ev[STEPS]);
  }
  for (auto &e : ev) cudaEventDestroy(e);
  const size_t wrong = sort_bench_differences(c.keys, c.ref_keys, c.key_array_bytes());

  copy_args copy{c.cub_keys, c.pristine_keys, c.key_array_bytes()};
  const bench_fn prepare[2] = {nothing, nothing}, run[2] = {run_copy, run_cub};
  void *const args[2] = {&copy, &c};
  double floor_us[2]; /* the copy, CUB */
  bench_medians_prepared_us(2, prepare, run, args, WARMUP, REPS, floor_us);

  std::printf("\nbreakdown: the library's u32 keys sort (%s), n = 2^%d, %s keys%s\n", shape, log2n, data,
              wrong ? " -- WRONG RESULT" : "");
  std::printf("  %-28s %10s %8s %8s\n", "step", "us", "vs_copy", "GB/s");
  const double bytes = double(c.key_array_bytes());
  auto row = [&](const char *step, double us, double moved) {
    std::printf("  %-28s %10.1f %8.3f", step, us, floor_us[0] / us);
    if (moved > 0) std::printf(" %8.0f", moved / us / 1e3);
    std::printf("\n");
  };
  row("begin (pool alloc, memset)", median(ms[0]), 0);
  row("histogram (reads the keys)", median(ms[1]), bytes);
  for (int d = 0; d < DIGITS; d++) {
    const char what = passes[d];
    char step[40];
    std::snprintf(step, sizeof step, "pass %d (%s)", d, what == 'S' ? "sort" : what == 'C' ? "copy" : "skipped");
    row(step, median(ms[2 + d]), what == 'K' ? 0 : 2 * bytes);
  }
  row("end (pool free)", median(ms[2 + DIGITS]), 0);
  row("total", median(ms[STEPS]), 0);
  row("copy of the keys (D2D)", floor_us[0], 2 * bytes);
  row("CUB SortKeys", floor_us[1], 0);
  std::fflush(stdout);
}

/* For ncu: the library once, CUB once, 2^26 u32 keys (smaller than the
 * sweep's 2^28, as ncu saves and restores the buffers for every replay of a
 * kernel; still 8,700 tiles a pass). */
void profile() {
  sort_case c{"u32 keys", GPU_U32, 0, 26};
  set_up(c);
  restore_input(&c);
  contender k{&c, nullptr};
  run_contender(&k);
  run_cub(&c);
  BENCH_CUDA(cudaDeviceSynchronize());
}

}  // namespace

int main(int argc, char **argv) {
  if (gpu_set_backend(GPU_BACKEND_CUDA) != GPU_OK) {
    std::fprintf(stderr, "sort_tune: %s\n", gpu_last_error());
    return 1;
  }
  if (argc > 1 && std::string(argv[1]) == "profile") {
    profile();
    return 0;
  }
  cudaDeviceProp prop{};
  BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("sort_tune on %s (%d SMs), median of %d runs after %d warm-up rounds\n", prop.name,
              prop.multiProcessorCount, REPS, WARMUP);

  /* An argument other than "profile": sweep only the cases whose name
   * contains it (e.g. "pairs"), without the breakdowns. */
  const char *only = argc > 1 ? argv[1] : nullptr;
  if (!only) {
  breakdown(28, 0xffffffffu, "random", "SSSS");
  breakdown(28, 0x00ffffffu, "top byte constant", "SSSC");
  breakdown(28, 0x0000ffffu, "top 2 bytes constant", "SSKK");
  breakdown(24, 0xffffffffu, "random", "SSSS");
  /* The same shape with a persistent grid (resident blocks taking tiles):
   * what skipped and copy passes cost then, and the sorting passes. */
  using Persistent = gp::radix::sort_variant<256, 32, 3, true, gp::radix::RANK_ATOMIC_OR, true>;
  const char *pers = "256x32 lb3 - aor pers";
  breakdown<Persistent>(28, 0xffffffffu, "random", "SSSS", pers);
  breakdown<Persistent>(28, 0x00ffffffu, "top byte constant", "SSSC", pers);
  breakdown<Persistent>(28, 0x0000ffffu, "top 2 bytes constant", "SSKK", pers);
  }

  sort_case cases[] = {
      {"u32 keys", GPU_U32, 0, 28, u32_key_variants()},
      {"u32 keys", GPU_U32, 0, 24, u32_key_variants()},
      {"u32/u32 pairs", GPU_U32, 4, 28, u32_pair_variants()},
      {"u32/u32 pairs", GPU_U32, 4, 24, u32_pair_variants()},
      {"u64 keys", GPU_U64, 0, 28, u64_key_variants()},
      {"u64/u32 pairs", GPU_U64, 4, 28, u64_u32_pair_variants()},
      {"u64/u64 pairs", GPU_U64, 8, 27, u64_u64_pair_variants()},
      {"u32/u64 pairs", GPU_U32, 8, 28, u32_u64_pair_variants()},
  };
  std::vector<std::string> bests;
  for (sort_case &c : cases)
    if (!only || std::strstr(c.name, only)) sweep(c, bests);
  std::printf("\n");
  for (const std::string &b : bests) std::printf("%s\n", b.c_str());
  return 0;
}
