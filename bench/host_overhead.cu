// Host time per call of the pieces a small gpuprim call is made of (CUDA
// runtime queries, a kernel launch) and of whole small calls, each issued
// back to back without waiting: where a launch-bound call (SpMV on a small
// matrix in a solver's loop) spends the calling thread's time.
//   host_overhead            prints a table of us per call
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

#include "gpuprim.h"

namespace {

__global__ void empty_kernel() {}

struct big_args {
  unsigned char bytes[256];
};
__global__ void kernel_256_byte_args(big_args) {}

void must(bool ok, const char *what) {
  if (ok) return;
  std::fprintf(stderr, "host_overhead: %s failed: %s\n", what, gpu_last_error());
  std::exit(2);
}

/* Median over 7 rounds of the us per call of `count` calls. */
double us_per_call(const std::function<void()> &f, int count = 2000) {
  for (int i = 0; i < 100; i++) f();
  cudaDeviceSynchronize();
  std::vector<double> rounds;
  for (int r = 0; r < 7; r++) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < count; i++) f();
    const auto t1 = std::chrono::steady_clock::now();
    cudaDeviceSynchronize();
    rounds.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / count);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace

int main() {
  must(gpu_set_backend(GPU_BACKEND_CUDA) == GPU_OK, "gpu_set_backend(CUDA)");
  /* A small CSR matrix: tridiagonal, 1000 rows. */
  const int rows = 1000;
  std::vector<int32_t> row_ptr(rows + 1), col;
  std::vector<float> val;
  for (int r = 0; r < rows; r++) {
    row_ptr[r] = int32_t(col.size());
    for (int c = r - 1; c <= r + 1; c++)
      if (c >= 0 && c < rows) col.push_back(c), val.push_back(1.0f);
  }
  row_ptr[rows] = int32_t(col.size());
  void *d_row = nullptr, *d_col = nullptr, *d_val = nullptr, *x = nullptr, *y = nullptr, *in = nullptr,
       *out = nullptr;
  must(gpu_alloc(&d_row, row_ptr.size() * 4) == GPU_OK && gpu_alloc(&d_col, col.size() * 4) == GPU_OK &&
           gpu_alloc(&d_val, val.size() * 4) == GPU_OK && gpu_alloc(&x, rows * 4) == GPU_OK &&
           gpu_alloc(&y, rows * 4) == GPU_OK && gpu_alloc(&in, 4096 * 4) == GPU_OK &&
           gpu_alloc(&out, 4096 * 4) == GPU_OK,
       "gpu_alloc");
  must(gpu_upload(d_row, row_ptr.data(), row_ptr.size() * 4) == GPU_OK &&
           gpu_upload(d_col, col.data(), col.size() * 4) == GPU_OK &&
           gpu_upload(d_val, val.data(), val.size() * 4) == GPU_OK,
       "gpu_upload");
  cudaMemset(x, 0, rows * 4);
  cudaMemset(in, 0, 4096 * 4);
  /* Segmented calls on 2^16 elements in segments of 4096 and 64. */
  const size_t seg_n = size_t(1) << 16;
  std::vector<int64_t> long_offsets, short_offsets;
  for (size_t i = 0; i <= seg_n; i += 4096) long_offsets.push_back(int64_t(i));
  for (size_t i = 0; i <= seg_n; i += 64) short_offsets.push_back(int64_t(i));
  void *seg_in = nullptr, *seg_out = nullptr, *d_long = nullptr, *d_short = nullptr;
  must(gpu_alloc(&seg_in, seg_n * 4) == GPU_OK && gpu_alloc(&seg_out, seg_n * 4) == GPU_OK &&
           gpu_alloc(&d_long, long_offsets.size() * 8) == GPU_OK &&
           gpu_alloc(&d_short, short_offsets.size() * 8) == GPU_OK,
       "gpu_alloc");
  must(gpu_upload(d_long, long_offsets.data(), long_offsets.size() * 8) == GPU_OK &&
           gpu_upload(d_short, short_offsets.data(), short_offsets.size() * 8) == GPU_OK,
       "gpu_upload");
  cudaMemset(seg_in, 0, seg_n * 4);
  const auto *long_off = static_cast<const int64_t *>(d_long), *short_off = static_cast<const int64_t *>(d_short);
  const size_t long_nseg = long_offsets.size() - 1, short_nseg = short_offsets.size() - 1;
  gpu_csr A{};
  A.rows = rows, A.cols = rows, A.nnz = int64_t(col.size());
  A.row_ptr = d_row, A.col_idx = d_col, A.values = d_val;
  A.index_type = GPU_I32, A.value_type = GPU_F32;
  gpu_spmv_plan *plan = nullptr;
  must(gpu_spmv_plan_create(&plan, &A) == GPU_OK, "gpu_spmv_plan_create");
  cudaStream_t stream = 0;

  struct probe {
    const char *name;
    std::function<void()> f;
  };
  big_args big{};
  const probe probes[] = {
      {"empty kernel <<<1, 32>>>", [] { empty_kernel<<<1, 32>>>(); }},
      {"kernel with 256 bytes of arguments", [&] { kernel_256_byte_args<<<1, 32>>>(big); }},
      {"cudaPointerGetAttributes (device)", [&] { cudaPointerAttributes a; cudaPointerGetAttributes(&a, x); }},
      {"cudaGetDevice", [] { int d; cudaGetDevice(&d); }},
      {"cudaStreamIsCapturing", [&] { cudaStreamCaptureStatus c; cudaStreamIsCapturing(stream, &c); }},
      {"cudaStreamGetId", [&] { unsigned long long id; cudaStreamGetId(stream, &id); }},
      {"cudaGetLastError", [] { cudaGetLastError(); }},
      {"cudaMemsetAsync 4 bytes", [&] { cudaMemsetAsync(out, 0, 4, stream); }},
      {"gpu_scan i32, n = 4096 (one tile)", [&] { gpu_scan(in, out, 4096, GPU_I32, GPU_ADD, 0); }},
      {"gpu_spmv_plan_run, 1000 rows, 2998 nnz", [&] { gpu_spmv_plan_run(plan, x, y, 1.0, 0.0); }},
      {"gpu_spmv (direct), same matrix", [&] { gpu_spmv(&A, x, y, 1.0, 0.0); }},
      {"gpu_segreduce i32, 2^16, L = 4096",
       [&] { gpu_segreduce(seg_in, long_off, long_nseg, seg_out, GPU_I32, GPU_ADD); }},
      {"gpu_segreduce i32, 2^16, L = 64",
       [&] { gpu_segreduce(seg_in, short_off, short_nseg, seg_out, GPU_I32, GPU_ADD); }},
      {"gpu_segscan_offsets i32, 2^16, L = 64",
       [&] { gpu_segscan_offsets(seg_in, seg_out, seg_n, short_off, short_nseg, GPU_I32, GPU_ADD, 0); }},
  };
  /* The gpuprim calls must succeed, or the loop would time their refusal. */
  must(gpu_scan(in, out, 4096, GPU_I32, GPU_ADD, 0) == GPU_OK && gpu_spmv_plan_run(plan, x, y, 1.0, 0.0) == GPU_OK &&
           gpu_spmv(&A, x, y, 1.0, 0.0) == GPU_OK &&
           gpu_segreduce(seg_in, long_off, long_nseg, seg_out, GPU_I32, GPU_ADD) == GPU_OK &&
           gpu_segreduce(seg_in, short_off, short_nseg, seg_out, GPU_I32, GPU_ADD) == GPU_OK &&
           gpu_segscan_offsets(seg_in, seg_out, seg_n, short_off, short_nseg, GPU_I32, GPU_ADD, 0) == GPU_OK &&
           gpu_synchronize() == GPU_OK,
       "a probed gpuprim call");
  std::printf("host time per call, us (median of 7 rounds of 2000 calls issued back to back)\n");
  for (const probe &p : probes) std::printf("  %-42s %8.2f\n", p.name, us_per_call(p.f));
  must(gpu_synchronize() == GPU_OK, "gpu_synchronize");
  gpu_spmv_plan_destroy(plan);
  for (void *p : {d_row, d_col, d_val, x, y, in, out, seg_in, seg_out, d_long, d_short}) gpu_free(p);
  return 0;
}
