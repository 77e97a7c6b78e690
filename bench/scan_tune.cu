// Tile-shape sweep for the single-pass scan: the kernel of scan/device with
// several (threads, rows) shapes, timed against a copy of the same bytes at
// large n. Prints one line per shape; scan/scan_tuning.h takes the winners.
#include <cstdio>
#include <cstdlib>

#include "cub_shim.h"
#include "scan/scan_launch.cuh"

namespace {

// PIPELINED: the persistent kernel with bulk-copy prefetch; else one tile per block.
template <typename T, gpu_op OP, int THREADS, int ROWS, bool PIPELINED> struct tuned_scan {
  static constexpr int VEC = 16 / sizeof(T);
  using Shape = gp::tile_shape<THREADS, ROWS, VEC>;
  const T *in;
  T *out;
  size_t n;
  static void run(void *arg) {
    auto *s = static_cast<tuned_scan *>(arg);
    const uint64_t tiles = (s->n + Shape::tile_items - 1) / Shape::tile_items;
    gp::lookback_args lb;
    gp_tilestate ts{};
    if constexpr (PIPELINED) {
      const auto kernel = gp::scan_pipelined<T, gp::scan_op<T, OP>, Shape, false>;
      const size_t smem = 2 * Shape::tile_items * sizeof(T);
      const unsigned grid = unsigned(std::min<uint64_t>(tiles, gp::resident_blocks(kernel, THREADS, smem)));
      if (gp::prepare_lookback<T>("tune", tiles, 0, tiles + grid, &lb, &ts, nullptr) != GPU_OK) std::exit(2);
      kernel<<<grid, THREADS, smem>>>(s->in, s->out, s->n, false, true, lb);
    } else {
      if (gp::prepare_lookback<T>("tune", tiles, 0, tiles, &lb, &ts, nullptr) != GPU_OK) std::exit(2);
      gp::scan_single_pass<T, gp::scan_op<T, OP>, Shape, false>
          <<<unsigned(tiles), THREADS>>>(s->in, s->out, s->n, false, true, lb);
    }
  }
};

struct copy_case {
  const void *in;
  void *out;
  size_t bytes;
  static void run(void *arg) {
    auto *c = static_cast<copy_case *>(arg);
    bench_copy(c->out, c->in, c->bytes);
  }
};

template <typename T, gpu_op OP, int THREADS, int ROWS, bool PIPELINED = true> void measure(const char *type, size_t n) {
  void *in = bench_buffer(0, n * sizeof(T)), *out = bench_buffer(1, n * sizeof(T));
  tuned_scan<T, OP, THREADS, ROWS, PIPELINED> s{static_cast<const T *>(in), static_cast<T *>(out), n};
  copy_case c{in, out, n * sizeof(T)};
  const bench_fn fns[2] = {tuned_scan<T, OP, THREADS, ROWS, PIPELINED>::run, copy_case::run};
  void *const args[2] = {&s, &c};
  double us[2];
  bench_medians_us(2, fns, args, 3, 21, us);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("tune %-9s %-4s %-3s n=2^%-2d threads=%-4d rows=%-2d tile=%-6d %9.1f us  copy %9.1f us  vs_copy %.3f%s\n",
              PIPELINED ? "pipelined" : "1-tile", type, OP == GPU_ADD ? "add" : "max", __builtin_ctzll(n), THREADS, ROWS, THREADS * ROWS * (16 / int(sizeof(T))),
              us[0], us[1], us[1] / us[0], e == cudaSuccess ? "" : "  CUDA ERROR");
}

template <typename T, gpu_op OP> void sweep(const char *type, size_t n) {
  bench_fill_random(bench_buffer(0, n * sizeof(T)), n, std::is_same_v<T, float> ? GPU_F32
                                                       : std::is_same_v<T, double> ? GPU_F64
                                                       : sizeof(T) == 4 ? GPU_I32 : GPU_I64, 7);
  measure<T, OP, 256, 8, false>(type, n); /* the best one-tile-per-block shape of the first sweep */
  measure<T, OP, 128, 4>(type, n);
  measure<T, OP, 128, 8>(type, n);
  measure<T, OP, 256, 2>(type, n);
  measure<T, OP, 256, 4>(type, n);
  measure<T, OP, 256, 8>(type, n);
  measure<T, OP, 512, 2>(type, n);
  measure<T, OP, 512, 4>(type, n);
}

}  // namespace

int main() {
  if (gpu_set_backend(GPU_BACKEND_CUDA) != GPU_OK) return 1;
  for (size_t n : {size_t(1) << 24, size_t(1) << 28}) {
    sweep<int32_t, GPU_ADD>("i32", n);
    sweep<int32_t, GPU_MAX>("i32", n);
    sweep<double, GPU_ADD>("f64", n);
  }
  return 0;
}
