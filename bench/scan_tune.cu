// Tile-shape sweep and ablations for the single-pass scan, timed against a
// copy of the same bytes. Variants:
//   1-tile     one tile per block (one_tile, below)
//   pipelined  persistent, aggregates published ahead (scan_pipelined), the library's kernel
//   copy-only  1-tile structure (counter, load, store) without any scan
//   no-wait    1-tile with the block scan but no look-back (wrong results;
//              measures what waiting on predecessors costs)
// scan/scan_tuning.h takes the winners.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cub_shim.h"
#include "scan/scan_launch.cuh"

namespace {

enum variant { ONE_TILE, COPY_ONLY, NO_WAIT, PIPELINED };
const char *variant_name[] = {"1-tile", "copy-only", "no-wait", "pipelined"};

/* The 1-tile structure: one tile per block, taken from the counter, loaded,
 * scanned (1-tile: with the look-back; no-wait: as if alone; copy-only: not
 * at all) and stored. The library's scan_pipelined replaced it: simpler, and
 * 0.74 of a copy where scan_pipelined reaches 0.83 (bench/NOTES.md). */
template <typename T, typename Op, typename Shape, int V>
__global__ void __launch_bounds__(Shape::threads) one_tile(const T *in, T *out, uint64_t n, gp::lookback_args lb) {
  __shared__ uint32_t s_tile;
  __shared__ gp::tile_scan_shared<T, Shape::warps> sh;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint32_t tile = gp::take_tile(lb, &s_tile);
  const gp::tile_place<Shape, false> at(tile, lb.tiles, n);
  T x[Shape::rows][Shape::vec];
  gp::load_tile<Shape>(in + at.base, at.valid, true, warp, lane, x, Op::neutral());
  if constexpr (V == ONE_TILE) {
    gp::scan_tile<T, Op, Shape, false>(x, tile, at.valid, false, lb, gp::prefix_source::lookback, sh, warp, lane);
  } else if constexpr (V == NO_WAIT) {
    gp::lookback_args alone = lb;
    alone.tiles = 1;
    gp::scan_tile<T, Op, Shape, false>(x, tile, at.valid, false, alone, gp::prefix_source::lookback, sh, warp, lane);
  }
  gp::store_tile<Shape>(out + at.base, at.valid, true, warp, lane, x);
}

template <typename T, gpu_op OP, int THREADS, int ROWS, int V> struct tuned_scan {
  static constexpr int VEC = 16 / sizeof(T);
  using Shape = gp::tile_shape<THREADS, ROWS, VEC>;
  using Op = gp::scan_op<T, OP>;
  const T *in;
  T *out;
  size_t n;
  static void run(void *arg) {
    auto *s = static_cast<tuned_scan *>(arg);
    const uint64_t tiles = (s->n + Shape::tile_items - 1) / Shape::tile_items;
    gp::lookback_args lb;
    gp_tilestate ts{};
    if constexpr (V == PIPELINED) {
      constexpr auto kernel = gp::scan_pipelined<T, Op, Shape, false>;
      constexpr size_t smem = gp::pipelined_smem<T, Shape>();
      const unsigned grid = unsigned(std::min<uint64_t>(tiles, gp::resident_blocks<kernel>(THREADS, smem)));
      if (gp::prepare_lookback<T>("tune", tiles, 0, tiles + grid, &lb, &ts, nullptr) != GPU_OK) std::exit(2);
      kernel<<<grid, THREADS, smem>>>(s->in, s->out, s->n, false, true, lb);
      return;
    }
    if (gp::prepare_lookback<T>("tune", tiles, 0, tiles, &lb, &ts, nullptr) != GPU_OK) std::exit(2);
    one_tile<T, Op, Shape, V><<<unsigned(tiles), THREADS>>>(s->in, s->out, s->n, lb);
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

template <typename T, gpu_op OP, int THREADS, int ROWS, int V> void measure(const char *type, size_t n) {
  void *in = bench_buffer(0, n * sizeof(T)), *out = bench_buffer(1, n * sizeof(T));
  tuned_scan<T, OP, THREADS, ROWS, V> s{static_cast<const T *>(in), static_cast<T *>(out), n};
  copy_case c{in, out, n * sizeof(T)};
  const bench_fn fns[2] = {tuned_scan<T, OP, THREADS, ROWS, V>::run, copy_case::run};
  void *const args[2] = {&s, &c};
  double us[2];
  bench_medians_us(2, fns, args, 3, 21, us);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("tune %-9s %-4s %-3s n=2^%-2d threads=%-4d rows=%-2d tile=%-6d %9.1f us  copy %9.1f us  vs_copy %.3f%s\n",
              variant_name[V], type, OP == GPU_ADD ? "add" : "max", __builtin_ctzll(n), THREADS, ROWS,
              THREADS * ROWS * (16 / int(sizeof(T))), us[0], us[1], us[1] / us[0],
              e == cudaSuccess ? "" : cudaGetErrorString(e));
  if (e != cudaSuccess) std::exit(1);
}

template <typename T, gpu_op OP> void sweep(const char *type, gpu_dtype d, size_t n) {
  bench_fill_random(bench_buffer(0, n * sizeof(T)), n, d, 7);
  measure<T, OP, 256, 8, NO_WAIT>(type, n);
  measure<T, OP, 128, 16, ONE_TILE>(type, n);
  measure<T, OP, 256, 4, PIPELINED>(type, n);
  measure<T, OP, 256, 8, PIPELINED>(type, n);
  measure<T, OP, 512, 4, PIPELINED>(type, n);
  measure<T, OP, 512, 8, PIPELINED>(type, n);
  measure<T, OP, 1024, 4, PIPELINED>(type, n);
}

}  // namespace

int main(int argc, char **argv) {
  if (gpu_set_backend(GPU_BACKEND_CUDA) != GPU_OK) return 1;
  const size_t n = size_t(1) << 27;
  if (argc > 1 && std::string(argv[1]) == "profile") { /* a few launches for ncu */
    bench_fill_random(bench_buffer(0, n * 4), n, GPU_I32, 7);
    measure<int32_t, GPU_ADD, 256, 8, PIPELINED>("i32", n);
    return 0;
  }
  sweep<int32_t, GPU_ADD>("i32", GPU_I32, n);
  sweep<double, GPU_ADD>("f64", GPU_F64, n / 2);
  sweep<int32_t, GPU_ADD>("i32", GPU_I32, n * 2);
  sweep<double, GPU_MAX>("f64", GPU_F64, n);
  return 0;
}
