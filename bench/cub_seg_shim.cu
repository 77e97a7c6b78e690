#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include "cub_seg_shim.h"
#include "cub_shim.h"

namespace {

// Stops the benchmark on a CUDA error: its figures would mean nothing.
void must(cudaError_t e, const char *what, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "cub_seg_shim.cu:%d: %s: %s\n", line, what, cudaGetErrorString(e));
  std::exit(2);
}
#define MUST(call) must((call), #call, __LINE__)

// cub_shim's reusable buffer for a result index; bench_segmented uses slots 0-7.
const int INDEX_SLOT = 8;

// A grid-stride grid for `work` items: enough blocks to fill the GPU, no more.
unsigned blocks_for(size_t work) { return unsigned(std::min<size_t>((work + 255) / 256, 8192) + (work == 0)); }

#define GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < (n); i += size_t(gridDim.x) * blockDim.x)

__device__ uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__global__ void heads_kernel(uint8_t *heads, size_t n, size_t mean_len, uint64_t seed) {
  GRID_STRIDE(i, n) heads[i] = i == 0 || mix(seed + i * 0x9e3779b97f4a7c15ull) % mean_len == 0;
}

template <typename K> __global__ void widen_kernel(const uint8_t *heads, K *keys, size_t n) {
  GRID_STRIDE(i, n) keys[i] = K(heads[i]);
}

template <typename K> __global__ void offsets_kernel(const uint8_t *heads, const K *keys, size_t n, int64_t *offsets) {
  GRID_STRIDE(i, n) if (heads[i]) offsets[keys[i] - 1] = int64_t(i);
}

template <typename K> size_t make_keys(const uint8_t *heads, K *keys, size_t n) {
  widen_kernel<K><<<blocks_for(n), 256>>>(heads, keys, n);
  MUST(cudaGetLastError());
  size_t bytes = 0;
  MUST(cub::DeviceScan::InclusiveSum(nullptr, bytes, keys, keys, int64_t(n)));
  MUST(cub::DeviceScan::InclusiveSum(bench_cub_temp(bytes), bytes, keys, keys, int64_t(n)));
  K last = 0;
  MUST(cudaMemcpy(&last, keys + n - 1, sizeof last, cudaMemcpyDeviceToHost));
  return size_t(last);
}

// 32-bit item counts where they fit (CUB's fastest tuning), 64-bit above.
template <typename K, typename T, typename N> void by_key_with(const K *keys, const T *in, T *out, N n, int exclusive) {
  size_t bytes = 0;
  if (exclusive) {
    MUST(cub::DeviceScan::ExclusiveSumByKey(nullptr, bytes, keys, in, out, n));
    MUST(cub::DeviceScan::ExclusiveSumByKey(bench_cub_temp(bytes), bytes, keys, in, out, n));
  } else {
    MUST(cub::DeviceScan::InclusiveSumByKey(nullptr, bytes, keys, in, out, n));
    MUST(cub::DeviceScan::InclusiveSumByKey(bench_cub_temp(bytes), bytes, keys, in, out, n));
  }
}

template <typename T> void by_key_type(const void *keys, size_t key_bytes, const void *in, void *out, size_t n,
                                       int exclusive) {
  const T *i = static_cast<const T *>(in);
  T *o = static_cast<T *>(out);
  // int32 keys only number fewer than 2^31 segments (seg_bench_make_keys).
  if (key_bytes == 4)
    by_key_with(static_cast<const int32_t *>(keys), i, o, int(n), exclusive);
  else
    by_key_with(static_cast<const int64_t *>(keys), i, o, int64_t(n), exclusive);
}

template <typename T> void segmented_sum(const void *in, void *out, const int64_t *offsets, size_t nseg) {
  const T *i = static_cast<const T *>(in);
  T *o = static_cast<T *>(out);
  size_t bytes = 0;
  MUST(cub::DeviceSegmentedReduce::Sum(nullptr, bytes, i, o, int64_t(nseg), offsets, offsets + 1));
  MUST(cub::DeviceSegmentedReduce::Sum(bench_cub_temp(bytes), bytes, i, o, int64_t(nseg), offsets,
                                       offsets + 1));
}

// Each thread stops at its first float out of tolerance; the smallest index
// wins. (Integers: cub_shim's bench_first_difference, bit for bit.)
template <typename T>
__global__ void beyond_tolerance_kernel(const T *a, const T *b, size_t n, double abs_tol, double rel_tol,
                                        unsigned long long *first) {
  GRID_STRIDE(i, n) {
    const double x = double(a[i]), y = double(b[i]);
    const bool one_nan = (x != x) != (y != y);
    if (one_nan || (x == x && !(fabs(x - y) <= abs_tol + rel_tol * fabs(y)))) {
      atomicMin(first, (unsigned long long)i);
      return;
    }
  }
}

template <typename T> int64_t first_beyond(const void *a, const void *b, size_t n, double abs_tol, double rel_tol) {
  auto *first = static_cast<unsigned long long *>(bench_buffer(INDEX_SLOT, sizeof(unsigned long long)));
  MUST(cudaMemset(first, 0xff, sizeof *first));
  beyond_tolerance_kernel<T><<<blocks_for(n), 256>>>(static_cast<const T *>(a), static_cast<const T *>(b), n, abs_tol,
                                                     rel_tol, first);
  MUST(cudaGetLastError());
  unsigned long long host = 0;
  MUST(cudaMemcpy(&host, first, sizeof host, cudaMemcpyDeviceToHost));
  return host == ULLONG_MAX ? -1 : int64_t(host);
}

}  // namespace

extern "C" void seg_bench_make_heads(uint8_t *heads, size_t n, size_t mean_len, uint64_t seed) {
  heads_kernel<<<blocks_for(n), 256>>>(heads, n, mean_len ? mean_len : 1, seed);
  MUST(cudaGetLastError());
}

extern "C" size_t seg_bench_make_keys(const uint8_t *heads, void *keys, size_t key_bytes, size_t n) {
  if (n == 0) return 0;
  if (key_bytes == 8) return make_keys(heads, static_cast<int64_t *>(keys), n);
  if (key_bytes != 4 || n > size_t(INT32_MAX)) {
    std::fprintf(stderr, "seg_bench_make_keys: %zu-byte keys cannot number the segments of %zu elements\n", key_bytes, n);
    std::exit(2);
  }
  return make_keys(heads, static_cast<int32_t *>(keys), n);
}

extern "C" void seg_bench_make_offsets(const uint8_t *heads, const void *keys, size_t key_bytes, size_t n,
                                       size_t nseg, int64_t *offsets) {
  if (key_bytes == 4)
    offsets_kernel<<<blocks_for(n), 256>>>(heads, static_cast<const int32_t *>(keys), n, offsets);
  else
    offsets_kernel<<<blocks_for(n), 256>>>(heads, static_cast<const int64_t *>(keys), n, offsets);
  MUST(cudaGetLastError());
  const int64_t end = int64_t(n);
  MUST(cudaMemcpy(offsets + nseg, &end, sizeof end, cudaMemcpyHostToDevice));
}

extern "C" int cub_sum_by_key(const void *keys, size_t key_bytes, const void *in, void *out, size_t n, gpu_dtype t,
                              int exclusive) {
  if ((key_bytes != 4 && key_bytes != 8) || (key_bytes == 4 && n > size_t(INT_MAX))) return 1;
  switch (t) {
    case GPU_I32: by_key_type<int32_t>(keys, key_bytes, in, out, n, exclusive); return 0;
    case GPU_F32: by_key_type<float>(keys, key_bytes, in, out, n, exclusive); return 0;
    case GPU_F64: by_key_type<double>(keys, key_bytes, in, out, n, exclusive); return 0;
    default: return 1;
  }
}

extern "C" int cub_segmented_sum(const void *in, void *out, const int64_t *offsets, size_t nseg, gpu_dtype t) {
  switch (t) {
    case GPU_I32: segmented_sum<int32_t>(in, out, offsets, nseg); return 0;
    case GPU_F32: segmented_sum<float>(in, out, offsets, nseg); return 0;
    case GPU_F64: segmented_sum<double>(in, out, offsets, nseg); return 0;
    default: return 1;
  }
}

extern "C" int64_t seg_bench_first_mismatch(const void *a, const void *b, size_t n, gpu_dtype t, double abs_tol,
                                            double rel_tol) {
  if (n == 0) return -1;
  if (t == GPU_F32) return first_beyond<float>(a, b, n, abs_tol, rel_tol);
  if (t == GPU_F64) return first_beyond<double>(a, b, n, abs_tol, rel_tol);
  return bench_first_difference(a, b, n, gpu_dtype_size(t));
}
