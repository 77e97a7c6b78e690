// Where the one-pass batch tiles spend their time: the library's channel
// tiles (time-major) and sequence tiles (sequence-major), each look-back
// policy wrapped in `probed`, which reads the SM's clock when a tile's
// look-back starts (its data loaded and folded) and when it has the
// tile's incoming state. Per launch it prints, over the tiles: the wait
// (look-back) in microseconds at the SM clock (mean, median, 90th
// percentile), the launch's time (CUDA events), and the mean time a tile
// holds its block (launch time x blocks resident at once / tiles), so the
// wait's share of a tile's time. Policies: the chain of states, the
// library's tree of radix 4 (r4), the tree of radix 8 (r8) and the binary
// Fenwick tree (fenwick, bench/linrec_fenwick_lookback.cuh; time-major),
// the chain (sequence-major).
// Launches run 9 times: the time is their median, the waits the last's,
// checked against the plain loop (bench's linrec_plain_loop).
//
//   linrec_probe
#include <algorithm>
#include <cstdio>
#include <vector>

#include "cub_linrec_shim.h"
#include "cub_shim.h"
#include "linrec/linrec_launch.cuh"
#include "linrec_fenwick_lookback.cuh"

namespace {

/* Per tile: the clock at the look-back's start and end (the thread of
 * sequence 0 of the tile), and the SM. */
struct probe_record {
  long long start, end;
  unsigned sm;
};
__device__ probe_record *probe_records;

template <typename Lookback> struct probed {
  template <typename T>
  __device__ static T tile_state(const gp::state_lookback &l, int width, uint64_t tile, uint64_t k, int sequence,
                                 gp::lr_pair<T> aggregate, T initial, bool last) {
    const long long start = clock64();
    const T state = Lookback::tile_state(l, width, tile, k, sequence, aggregate, initial, last);
    if (sequence == 0) {
      unsigned sm;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
      probe_records[tile] = probe_record{start, clock64(), sm};
    }
    return state;
  }
};

cudaStream_t stream() { return static_cast<cudaStream_t>(gp_stream()); }

template <typename Shape, typename Lookback>
gpu_status channel_tiles(const float *a, const float *b, float *h, const gp_linrec_shape &s) {
  const float *no_h0 = nullptr;
  return gp::launch_channel_tiles<Shape, false, probed<Lookback>>("probe", a, b, h, no_h0, s, false, stream());
}

template <typename Shape, typename Lookback>
gpu_status sequence_tiles(const float *a, const float *b, float *h, const gp_linrec_shape &s) {
  return gp::launch_sequence_tiles<float, false, false, Shape, probed<Lookback>>("probe", a, b, h, nullptr, s,
                                                                                  stream());
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[size_t(q * double(v.size() - 1))];
}

/* Runs `run` 9 times on fresh records, checks the last against the loop,
 * and prints its waits beside the median time. */
template <typename Run>
void probe(const char *name, const char *policy, Run run, size_t len, size_t count, bool time_major, size_t tiles,
           int blocks_at_once, const float *a, const float *b, float *h, float *want, probe_record *records) {
  gp_linrec_shape s{};
  s.len = len, s.count = count, s.n = len * count;
  s.layout = time_major ? GP_LINREC_TIME_MAJOR : GP_LINREC_SEQ_MAJOR;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  std::vector<double> times;
  for (int i = 0; i < 9; i++) {
    cudaMemsetAsync(records, 0, tiles * sizeof(probe_record), stream());
    cudaEventRecord(e0, stream());
    if (run(a, b, h, s) != GPU_OK) {
      std::printf("%s %s: %s\n", name, policy, gpu_last_error());
      return;
    }
    cudaEventRecord(e1, stream());
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    times.push_back(ms);
  }
  const double ms = percentile(times, 0.5);
  const float diff = linrec_max_difference_plain(h, want, len * count);
  std::vector<probe_record> got(tiles);
  cudaMemcpy(got.data(), records, tiles * sizeof(probe_record), cudaMemcpyDeviceToHost);
  int clock_khz = 0, device = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device);
  std::vector<double> wait;
  for (const probe_record &r : got)
    if (r.end > r.start) wait.push_back(double(r.end - r.start) / clock_khz * 1e3);
  double mean = 0;
  for (double w : wait) mean += w;
  mean /= wait.empty() ? 1 : double(wait.size());
  const double held = ms * 1e3 * blocks_at_once / double(tiles);
  std::printf("%-14s %-7s %7.1f us %7zu tiles  held %6.2f us  wait mean %6.2f median %6.2f p90 %6.2f us  "
              "(%4.1f%% of held)  %s\n",
              name, policy, ms * 1e3, tiles, held, mean, percentile(wait, 0.5), percentile(wait, 0.9),
              100 * mean / held, diff <= 1e-3f ? "ok" : "DIFFERS");
  cudaEventDestroy(e0), cudaEventDestroy(e1);
}


}  // namespace

int main() {
  if (gpu_set_backend(GPU_BACKEND_CUDA) != GPU_OK) return 1;
  const size_t n = size_t(1) << 24;
  float *a = nullptr, *b = nullptr, *h = nullptr, *want = nullptr;
  probe_record *records = nullptr;
  cudaMalloc(&a, n * 4), cudaMalloc(&b, n * 4), cudaMalloc(&h, n * 4), cudaMalloc(&want, n * 4);
  const size_t most_tiles = n / 2048 + 4096;
  cudaMalloc(&records, most_tiles * sizeof(probe_record));
  cudaMemcpyToSymbol(probe_records, &records, sizeof records);
  bench_fill_random(a, n, GPU_F32, 1);
  bench_fill_random(b, n, GPU_F32, 2);
  using narrow = gp::channel_tile_shape<float, gp::LINREC_CHANNEL_TILE_ROW_THREADS, gp::LINREC_CHANNEL_TILE_STEPS>;
  using chain = gp::state_chain_lookback;
  using fenwick = gp::fenwick_lookback;
  constexpr auto channel_kernel = gp::channels_lookback<narrow, false, probed<gp::radix_lookback>, float>;
  const int channel_blocks = int(gp::resident_blocks<channel_kernel>(gp::CHANNEL_TILE_THREADS, narrow::staged_bytes));
  for (size_t count : {4096, 1024, 256, 64}) {
    const size_t len = n / count, tiles = narrow::groups(count) * (len / narrow::tile_steps);
    char name[32];
    std::snprintf(name, sizeof name, "tm/%zux%zu", count, len);
    linrec_plain_loop(a, b, want, len, count, 1);
    probe(name, "chain", channel_tiles<narrow, chain>, len, count, true, tiles, channel_blocks, a, b, h, want,
          records);
    probe(name, "r4", channel_tiles<narrow, gp::radix_lookback>, len, count, true, tiles, channel_blocks, a, b, h,
          want, records);
    probe(name, "r8", channel_tiles<narrow, gp::radix_lookback_of<3>>, len, count, true, tiles, channel_blocks, a, b,
          h, want, records);
    probe(name, "fenwick", channel_tiles<narrow, fenwick>, len, count, true, tiles, channel_blocks, a, b, h, want,
          records);
  }
  using shape = gp::linrec_tuning<4>::sequence_tiles;
  constexpr auto sequence_kernel = gp::sequences_lookback<shape, false, false, probed<chain>, float>;
  const int sequence_blocks = int(gp::resident_blocks<sequence_kernel>(shape::threads, 0));
  for (size_t count : {4096, 1024, 256, 64}) {
    const size_t len = n / count, tiles = count * (len / shape::tile_items);
    char name[32];
    std::snprintf(name, sizeof name, "sm/%zux%zu", count, len);
    linrec_plain_loop(a, b, want, len, count, 0);
    probe(name, "chain", sequence_tiles<shape, chain>, len, count, false, tiles, sequence_blocks, a, b, h, want,
          records);
  }
  return 0;
}
