#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <cuda/functional>

#include "cub_shim.h"

#define BENCH_CUDA(call)                                                                       \
  do {                                                                                         \
    cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(2);                                                                            \
    }                                                                                          \
  } while (0)

namespace {

__device__ uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <typename T> __global__ void fill_kernel(T *p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint64_t r = mix(seed + i * 0x9e3779b97f4a7c15ull);
    if constexpr (std::is_floating_point_v<T>)
      p[i] = T(double(r >> 11) * 0x1.0p-52 - 1.0);
    else
      p[i] = T(r % 1000);
  }
}

template <typename T> void fill(void *p, size_t n, uint64_t seed) {
  fill_kernel<T><<<1024, 256>>>(static_cast<T *>(p), n, seed);
  BENCH_CUDA(cudaGetLastError());
}

void *temp = nullptr;
size_t temp_bytes = 0;

void ensure_temp(size_t bytes) {
  if (bytes <= temp_bytes) return;
  if (temp) BENCH_CUDA(cudaFree(temp));
  BENCH_CUDA(cudaMalloc(&temp, bytes));
  temp_bytes = bytes;
}

template <typename T, typename Op> void scan_with(const T *in, T *out, int64_t n, Op op, T init, int exclusive) {
  size_t bytes = 0;
  if (exclusive) {
    BENCH_CUDA(cub::DeviceScan::ExclusiveScan(nullptr, bytes, in, out, op, init, n));
    ensure_temp(bytes);
    BENCH_CUDA(cub::DeviceScan::ExclusiveScan(temp, bytes, in, out, op, init, n));
  } else {
    BENCH_CUDA(cub::DeviceScan::InclusiveScan(nullptr, bytes, in, out, op, n));
    ensure_temp(bytes);
    BENCH_CUDA(cub::DeviceScan::InclusiveScan(temp, bytes, in, out, op, n));
  }
}

template <typename T> int scan_type(const void *in, void *out, size_t n, gpu_op op, int exclusive) {
  const T *i = static_cast<const T *>(in);
  T *o = static_cast<T *>(out);
  if (op == GPU_ADD) {
    scan_with(i, o, int64_t(n), cuda::std::plus<T>{}, T(0), exclusive);
    return 0;
  }
  if (op == GPU_MAX) {
    scan_with(i, o, int64_t(n), cuda::maximum<T>{}, std::numeric_limits<T>::lowest(), exclusive);
    return 0;
  }
  return 1;
}

std::vector<void *> buffers;
std::vector<size_t> buffer_bytes;

}  // namespace

extern "C" void bench_fill_random(void *p, size_t n, gpu_dtype t, uint64_t seed) {
  switch (t) {
    case GPU_I32: fill<int32_t>(p, n, seed); break;
    case GPU_U32: fill<uint32_t>(p, n, seed); break;
    case GPU_I64: fill<int64_t>(p, n, seed); break;
    case GPU_U64: fill<uint64_t>(p, n, seed); break;
    case GPU_F32: fill<float>(p, n, seed); break;
    case GPU_F64: fill<double>(p, n, seed); break;
  }
}

extern "C" int cub_scan(const void *in, void *out, size_t n, gpu_dtype t, gpu_op op, int exclusive) {
  switch (t) {
    case GPU_I32: return scan_type<int32_t>(in, out, n, op, exclusive);
    case GPU_U32: return scan_type<uint32_t>(in, out, n, op, exclusive);
    case GPU_I64: return scan_type<int64_t>(in, out, n, op, exclusive);
    case GPU_U64: return scan_type<uint64_t>(in, out, n, op, exclusive);
    case GPU_F32: return scan_type<float>(in, out, n, op, exclusive);
    case GPU_F64: return scan_type<double>(in, out, n, op, exclusive);
  }
  return 1;
}

extern "C" void bench_medians_us(int k, const bench_fn *fns, void *const *args, int warmup, int reps,
                                 double *median_us) {
  for (int w = 0; w < warmup; w++)
    for (int c = 0; c < k; c++) fns[c](args[c]);
  BENCH_CUDA(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  BENCH_CUDA(cudaEventCreate(&start));
  BENCH_CUDA(cudaEventCreate(&stop));
  std::vector<std::vector<float>> ms(k, std::vector<float>(reps));
  for (int r = 0; r < reps; r++)
    for (int c = 0; c < k; c++) {
      BENCH_CUDA(cudaEventRecord(start));
      fns[c](args[c]);
      BENCH_CUDA(cudaEventRecord(stop));
      BENCH_CUDA(cudaEventSynchronize(stop));
      BENCH_CUDA(cudaEventElapsedTime(&ms[c][r], start, stop));
    }
  BENCH_CUDA(cudaEventDestroy(start));
  BENCH_CUDA(cudaEventDestroy(stop));
  for (int c = 0; c < k; c++) {
    std::sort(ms[c].begin(), ms[c].end());
    median_us[c] = 1000.0 * ms[c][reps / 2];
  }
}

extern "C" void *bench_buffer(int slot, size_t bytes) {
  if (size_t(slot) >= buffers.size()) {
    buffers.resize(slot + 1, nullptr);
    buffer_bytes.resize(slot + 1, 0);
  }
  if (buffer_bytes[slot] < bytes) {
    if (buffers[slot]) BENCH_CUDA(cudaFree(buffers[slot]));
    BENCH_CUDA(cudaMalloc(&buffers[slot], bytes));
    buffer_bytes[slot] = bytes;
  }
  return buffers[slot];
}

extern "C" void bench_copy(void *dst, const void *src, size_t bytes) {
  BENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
}
