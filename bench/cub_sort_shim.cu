#include <climits>
#include <cstdio>
#include <cstdlib>

#include <cub/device/device_radix_sort.cuh>

#include "bench_cuda.h"
#include "cub_sort_shim.h"


namespace {

/* 32-bit item counts where they fit (CUB's fastest tuning), 64-bit above. */
template <typename K, typename N> void keys_with(const K *in, K *out, N n, int descending) {
  size_t bytes = 0;
  if (descending) {
    BENCH_CUDA(cub::DeviceRadixSort::SortKeysDescending(nullptr, bytes, in, out, n));
    BENCH_CUDA(cub::DeviceRadixSort::SortKeysDescending(bench_cub_temp(bytes), bytes, in, out, n));
  } else {
    BENCH_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, bytes, in, out, n));
    BENCH_CUDA(cub::DeviceRadixSort::SortKeys(bench_cub_temp(bytes), bytes, in, out, n));
  }
}

template <typename K, typename V, typename N>
void pairs_with(const K *kin, K *kout, const V *vin, V *vout, N n, int descending) {
  size_t bytes = 0;
  if (descending) {
    BENCH_CUDA(cub::DeviceRadixSort::SortPairsDescending(nullptr, bytes, kin, kout, vin, vout, n));
    BENCH_CUDA(cub::DeviceRadixSort::SortPairsDescending(bench_cub_temp(bytes), bytes, kin, kout, vin, vout, n));
  } else {
    BENCH_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, kin, kout, vin, vout, n));
    BENCH_CUDA(cub::DeviceRadixSort::SortPairs(bench_cub_temp(bytes), bytes, kin, kout, vin, vout, n));
  }
}

template <typename K> void keys_type(const void *in, void *out, size_t n, int descending) {
  const K *i = static_cast<const K *>(in);
  K *o = static_cast<K *>(out);
  if (n <= size_t(INT_MAX)) keys_with(i, o, int(n), descending);
  else keys_with(i, o, int64_t(n), descending);
}

template <typename K, typename V>
void pairs_type(const void *kin, void *kout, const void *vin, void *vout, size_t n, int descending) {
  const K *ki = static_cast<const K *>(kin);
  K *ko = static_cast<K *>(kout);
  const V *vi = static_cast<const V *>(vin);
  V *vo = static_cast<V *>(vout);
  if (n <= size_t(INT_MAX)) pairs_with(ki, ko, vi, vo, int(n), descending);
  else pairs_with(ki, ko, vi, vo, int64_t(n), descending);
}

template <typename K>
void pairs_value(const void *kin, void *kout, const void *vin, void *vout, size_t n, size_t vb, int descending) {
  if (vb == 4) pairs_type<K, uint32_t>(kin, kout, vin, vout, n, descending);
  else pairs_type<K, uint64_t>(kin, kout, vin, vout, n, descending);
}

__device__ uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <typename T> __global__ void fill_bits_kernel(T *p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = T(mix(seed + i * 0x9e3779b97f4a7c15ull));
}

/* Random keys of type t where CUB's order and gpuprim's agree bit for bit:
 * float keys whose exponent is all ones (NaN, inf) lose the exponent's top
 * bit (CUB sorts NaNs by their bits, gpuprim puts them all last), and -0.0
 * becomes +0.0 (CUB takes the two zeros as equal, gpuprim puts -0.0 first). */
template <typename T> __global__ void finite_keys_kernel(T *p, size_t n, int exponent_shift, T exponent_mask) {
  const T sign = T(1) << (sizeof(T) * 8 - 1);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    if ((p[i] & exponent_mask) == exponent_mask) p[i] &= ~(T(1) << (exponent_shift + (sizeof(T) == 4 ? 7 : 10)));
    if (p[i] == sign) p[i] = 0;
  }
}

__global__ void differences_kernel(const uint32_t *a, const uint32_t *b, size_t words, unsigned long long *count) {
  unsigned long long mine = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < words; i += size_t(gridDim.x) * blockDim.x)
    mine += a[i] != b[i];
  if (mine) atomicAdd(count, mine);
}

}  // namespace

extern "C" int cub_sort_keys(const void *in, void *out, size_t n, gpu_dtype t, int descending) {
  switch (t) {
    case GPU_I32: keys_type<int32_t>(in, out, n, descending); return 0;
    case GPU_U32: keys_type<uint32_t>(in, out, n, descending); return 0;
    case GPU_I64: keys_type<int64_t>(in, out, n, descending); return 0;
    case GPU_U64: keys_type<uint64_t>(in, out, n, descending); return 0;
    case GPU_F32: keys_type<float>(in, out, n, descending); return 0;
    case GPU_F64: keys_type<double>(in, out, n, descending); return 0;
  }
  return 1;
}

extern "C" int cub_sort_pairs(const void *kin, void *kout, const void *vin, void *vout, size_t n, gpu_dtype t,
                              size_t vb, int descending) {
  if (vb != 4 && vb != 8) return 1;
  switch (t) {
    case GPU_I32: pairs_value<int32_t>(kin, kout, vin, vout, n, vb, descending); return 0;
    case GPU_U32: pairs_value<uint32_t>(kin, kout, vin, vout, n, vb, descending); return 0;
    case GPU_I64: pairs_value<int64_t>(kin, kout, vin, vout, n, vb, descending); return 0;
    case GPU_U64: pairs_value<uint64_t>(kin, kout, vin, vout, n, vb, descending); return 0;
    case GPU_F32: pairs_value<float>(kin, kout, vin, vout, n, vb, descending); return 0;
    case GPU_F64: pairs_value<double>(kin, kout, vin, vout, n, vb, descending); return 0;
  }
  return 1;
}

extern "C" void sort_bench_fill_bits(void *p, size_t n, size_t width, uint64_t seed) {
  if (width == 4) fill_bits_kernel<uint32_t><<<1024, 256>>>(static_cast<uint32_t *>(p), n, seed);
  else fill_bits_kernel<uint64_t><<<1024, 256>>>(static_cast<uint64_t *>(p), n, seed);
  BENCH_CUDA(cudaGetLastError());
}

extern "C" void sort_bench_fill_keys(void *p, size_t n, gpu_dtype t, uint64_t seed) {
  sort_bench_fill_bits(p, n, gpu_dtype_size(t), seed);
  if (t == GPU_F32) finite_keys_kernel<uint32_t><<<1024, 256>>>(static_cast<uint32_t *>(p), n, 23, 0x7F800000u);
  if (t == GPU_F64)
    finite_keys_kernel<uint64_t><<<1024, 256>>>(static_cast<uint64_t *>(p), n, 52, 0x7FF0000000000000ull);
  BENCH_CUDA(cudaGetLastError());
}

extern "C" size_t sort_bench_differences(const void *a, const void *b, size_t bytes) {
  unsigned long long *count = static_cast<unsigned long long *>(bench_buffer(15, sizeof *count));
  BENCH_CUDA(cudaMemsetAsync(count, 0, sizeof *count, 0));
  differences_kernel<<<1024, 256>>>(static_cast<const uint32_t *>(a), static_cast<const uint32_t *>(b), bytes / 4, count);
  BENCH_CUDA(cudaGetLastError());
  unsigned long long host = 0;
  BENCH_CUDA(cudaMemcpy(&host, count, sizeof host, cudaMemcpyDeviceToHost));
  return size_t(host);
}

