#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <climits>
#include <limits>
#include <cstring>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/functional>

#include "bench_cuda.h"
#include "cub_shim.h"

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

template <typename T, typename Op> void scan_with(const T *in, T *out, int64_t n, Op op, T init, int exclusive) {
  size_t bytes = 0;
  if (exclusive) {
    BENCH_CUDA(cub::DeviceScan::ExclusiveScan(nullptr, bytes, in, out, op, init, n));
    BENCH_CUDA(cub::DeviceScan::ExclusiveScan(bench_cub_temp(bytes), bytes, in, out, op, init, n));
  } else {
    BENCH_CUDA(cub::DeviceScan::InclusiveScan(nullptr, bytes, in, out, op, n));
    BENCH_CUDA(cub::DeviceScan::InclusiveScan(bench_cub_temp(bytes), bytes, in, out, op, n));
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
    /* gpuprim's MAX identity: -inf for floats, the lowest value for integers. */
    const T init = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                        : std::numeric_limits<T>::lowest();
    scan_with(i, o, int64_t(n), cuda::maximum<T>{}, init, exclusive);
    return 0;
  }
  return 1;
}

std::vector<void *> buffers;
std::vector<size_t> buffer_bytes;

// ---- stream compaction

template <typename T> struct less_than {
  T threshold;
  __host__ __device__ bool operator()(const T &x) const { return x < threshold; }
};

template <typename T> less_than<T> less_than_from(const void *threshold) {
  less_than<T> op;
  std::memcpy(&op.threshold, threshold, sizeof(T));  // the caller's pointer need not be aligned
  return op;
}

// CUB writes the kept count on the device; it comes back through pinned memory.
int64_t *d_count = nullptr, *h_count = nullptr;

int64_t *count_on_device() {
  if (!d_count) {
    BENCH_CUDA(cudaMalloc(&d_count, sizeof *d_count));
    BENCH_CUDA(cudaMallocHost(&h_count, sizeof *h_count));
  }
  return d_count;
}

int64_t download_count() {
  BENCH_CUDA(cudaMemcpyAsync(h_count, d_count, sizeof *h_count, cudaMemcpyDeviceToHost, 0));
  BENCH_CUDA(cudaStreamSynchronize(0));
  return *h_count;
}

void require_int_size(size_t n, const char *fn) {
  if (n > size_t(INT_MAX)) {
    std::fprintf(stderr, "%s: n = %zu is above what the shim passes to CUB (2^31 - 1)\n", fn, n);
    std::exit(2);
  }
}

// A grid-stride grid for `work` items: enough blocks to fill the GPU, no more.
unsigned blocks_for(size_t work) { return unsigned(std::min<size_t>((work + 255) / 256, 8192) + (work == 0)); }

template <typename T> void select_if_lt(const void *in, void *out, size_t n, const void *threshold) {
  const T *i = static_cast<const T *>(in);
  T *o = static_cast<T *>(out);
  const less_than<T> op = less_than_from<T>(threshold);
  size_t bytes = 0;
  BENCH_CUDA(cub::DeviceSelect::If(nullptr, bytes, i, o, count_on_device(), int(n), op));
  BENCH_CUDA(cub::DeviceSelect::If(bench_cub_temp(bytes), bytes, i, o, count_on_device(), int(n), op));
}

// Flagged only moves elements: their size is all that matters.
template <typename W> void select_flagged(const void *in, const uint8_t *flags, void *out, size_t n) {
  const W *i = static_cast<const W *>(in);
  W *o = static_cast<W *>(out);
  size_t bytes = 0;
  BENCH_CUDA(cub::DeviceSelect::Flagged(nullptr, bytes, i, flags, o, count_on_device(), int(n)));
  BENCH_CUDA(cub::DeviceSelect::Flagged(bench_cub_temp(bytes), bytes, i, flags, o, count_on_device(), int(n)));
}

// Reverses out[kept, n) in place, kept read on the device (no round trip):
// thread i swaps the i-th element from each end of that range.
template <typename T> __global__ void reverse_rejected_kernel(T *out, size_t n, const int64_t *kept) {
  const size_t k = size_t(*kept), half = (n - k) / 2;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < half; i += size_t(gridDim.x) * blockDim.x) {
    const T a = out[k + i], b = out[n - 1 - i];
    out[k + i] = b;
    out[n - 1 - i] = a;
  }
}

template <typename T>
void partition_if_lt(const void *in, void *out, size_t n, const void *threshold, int reverse_rejected) {
  const T *i = static_cast<const T *>(in);
  T *o = static_cast<T *>(out);
  const less_than<T> op = less_than_from<T>(threshold);
  size_t bytes = 0;
  BENCH_CUDA(cub::DevicePartition::If(nullptr, bytes, i, o, count_on_device(), int(n), op));
  BENCH_CUDA(cub::DevicePartition::If(bench_cub_temp(bytes), bytes, i, o, count_on_device(), int(n), op));
  if (reverse_rejected) {
    reverse_rejected_kernel<T><<<blocks_for(n / 2), 256>>>(o, n, d_count);
    BENCH_CUDA(cudaGetLastError());
  }
}

__global__ void fill_flags_kernel(uint8_t *flags, size_t n, int keep_per_mille, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint64_t r = mix(seed + i * 0x9e3779b97f4a7c15ull);
    flags[i] = int(r % 1000) < keep_per_mille ? uint8_t(1 + (r >> 32) % 255) : uint8_t(0);
  }
}

// Each thread stops at its first difference; the smallest index wins.
template <typename W>
__global__ void first_difference_kernel(const W *a, const W *b, size_t n, unsigned long long *first) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (a[i] != b[i]) {
      atomicMin(first, (unsigned long long)i);
      return;
    }
}

template <typename W> int64_t first_difference(const void *a, const void *b, size_t n) {
  static unsigned long long *d_first = nullptr;
  if (!d_first) BENCH_CUDA(cudaMalloc(&d_first, sizeof *d_first));
  unsigned long long first = ULLONG_MAX;
  BENCH_CUDA(cudaMemcpy(d_first, &first, sizeof first, cudaMemcpyHostToDevice));
  first_difference_kernel<W>
      <<<blocks_for(n), 256>>>(static_cast<const W *>(a), static_cast<const W *>(b), n, d_first);
  BENCH_CUDA(cudaGetLastError());
  BENCH_CUDA(cudaMemcpy(&first, d_first, sizeof first, cudaMemcpyDeviceToHost));
  return first == ULLONG_MAX ? -1 : int64_t(first);
}

// Reads n 16-byte words; the sink is written only on an impossible value,
// so the loads stay.
__global__ void read_all_kernel(const uint4 *p, size_t n, unsigned *sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

// Keeps one SM busy until `ns` nanoseconds have passed on the GPU's clock.
__global__ void busy_kernel(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < ns);
}

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

extern "C" int64_t cub_select_if_lt(const void *in, void *out, size_t n, gpu_dtype t, const void *threshold) {
  require_int_size(n, "cub_select_if_lt");
  switch (t) {
    case GPU_I32: select_if_lt<int32_t>(in, out, n, threshold); break;
    case GPU_U32: select_if_lt<uint32_t>(in, out, n, threshold); break;
    case GPU_I64: select_if_lt<int64_t>(in, out, n, threshold); break;
    case GPU_U64: select_if_lt<uint64_t>(in, out, n, threshold); break;
    case GPU_F32: select_if_lt<float>(in, out, n, threshold); break;
    case GPU_F64: select_if_lt<double>(in, out, n, threshold); break;
  }
  return download_count();
}

extern "C" int64_t cub_select_flagged(const void *in, const uint8_t *flags, void *out, size_t n, gpu_dtype t) {
  require_int_size(n, "cub_select_flagged");
  switch (gpu_dtype_size(t)) {
    case 4: select_flagged<uint32_t>(in, flags, out, n); return download_count();
    case 8: select_flagged<uint64_t>(in, flags, out, n); return download_count();
  }
  std::fprintf(stderr, "cub_select_flagged: unknown element type %d\n", int(t));
  std::exit(2);
}

extern "C" int64_t cub_partition_if_lt(const void *in, void *out, size_t n, gpu_dtype t, const void *threshold,
                                       int reverse_rejected) {
  require_int_size(n, "cub_partition_if_lt");
  switch (t) {
    case GPU_I32: partition_if_lt<int32_t>(in, out, n, threshold, reverse_rejected); break;
    case GPU_U32: partition_if_lt<uint32_t>(in, out, n, threshold, reverse_rejected); break;
    case GPU_I64: partition_if_lt<int64_t>(in, out, n, threshold, reverse_rejected); break;
    case GPU_U64: partition_if_lt<uint64_t>(in, out, n, threshold, reverse_rejected); break;
    case GPU_F32: partition_if_lt<float>(in, out, n, threshold, reverse_rejected); break;
    case GPU_F64: partition_if_lt<double>(in, out, n, threshold, reverse_rejected); break;
  }
  return download_count();
}

extern "C" void bench_fill_flags(uint8_t *flags, size_t n, int keep_per_mille, uint64_t seed) {
  fill_flags_kernel<<<1024, 256>>>(flags, n, keep_per_mille, seed);
  BENCH_CUDA(cudaGetLastError());
}

// Waits, so that whatever stream gpuprim runs on sees the poison (and all
// earlier work on this one) before its call.
extern "C" void bench_poison(void *p, size_t bytes) {
  BENCH_CUDA(cudaMemsetAsync(p, 0xff, bytes, 0));
  BENCH_CUDA(cudaDeviceSynchronize());
}

extern "C" int64_t bench_first_difference(const void *a, const void *b, size_t n, size_t elem_bytes) {
  if (n == 0) return -1;
  switch (elem_bytes) {
    case 1: return first_difference<uint8_t>(a, b, n);
    case 4: return first_difference<uint32_t>(a, b, n);
    case 8: return first_difference<uint64_t>(a, b, n);
  }
  std::fprintf(stderr, "bench_first_difference: element size %zu is not 1, 4 or 8\n", elem_bytes);
  std::exit(2);
}

extern "C" void bench_medians_prepared_us(int k, const bench_fn *prepare, const bench_fn *run, void *const *args,
                                          int warmup, int reps, double *median_us) {
  for (int w = 0; w < warmup; w++)
    for (int c = 0; c < k; c++) {
      if (prepare) prepare[c](args[c]);
      run[c](args[c]);
    }
  BENCH_CUDA(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  BENCH_CUDA(cudaEventCreate(&start));
  BENCH_CUDA(cudaEventCreate(&stop));
  std::vector<std::vector<float>> ms(k, std::vector<float>(reps));
  for (int r = 0; r < reps; r++)
    for (int c = 0; c < k; c++) {
      if (prepare) prepare[c](args[c]);
      BENCH_CUDA(cudaEventRecord(start));
      run[c](args[c]);
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

extern "C" void bench_loop_us(bench_fn fn, void *arg, int count, double *gpu_us, double *host_us) {
  for (int w = 0; w < 10; w++) fn(arg);
  BENCH_CUDA(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  BENCH_CUDA(cudaEventCreate(&start));
  BENCH_CUDA(cudaEventCreate(&stop));
  BENCH_CUDA(cudaEventRecord(start));
  const auto t0 = std::chrono::steady_clock::now();
  for (int c = 0; c < count; c++) fn(arg);
  const auto t1 = std::chrono::steady_clock::now();
  BENCH_CUDA(cudaEventRecord(stop));
  BENCH_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  BENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
  BENCH_CUDA(cudaEventDestroy(start));
  BENCH_CUDA(cudaEventDestroy(stop));
  *gpu_us = 1000.0 * ms / count;
  *host_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / count;
}

extern "C" void bench_medians_us(int k, const bench_fn *fns, void *const *args, int warmup, int reps,
                                 double *median_us) {
  bench_medians_prepared_us(k, nullptr, fns, args, warmup, reps, median_us);
}

extern "C" void *bench_cub_temp(size_t bytes) {
  static void *temp = nullptr;
  static size_t temp_bytes = 0;
  if (bytes == 0) bytes = 1;
  if (bytes > temp_bytes) {
    if (temp) BENCH_CUDA(cudaFree(temp));
    BENCH_CUDA(cudaMalloc(&temp, bytes));
    temp_bytes = bytes;
  }
  return temp;
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

extern "C" void bench_settle_l2(void) {
  static uint4 *buf = nullptr;
  static unsigned *sink = nullptr;
  static size_t words = 0;
  if (!buf) {
    int dev = 0, l2 = 0;
    BENCH_CUDA(cudaGetDevice(&dev));
    BENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    const size_t bytes = 3 * size_t(l2 > 0 ? l2 : 64 << 20); /* three times L2: every line replaced */
    words = bytes / sizeof(uint4);
    BENCH_CUDA(cudaMalloc(&buf, bytes));
    BENCH_CUDA(cudaMalloc(&sink, sizeof(unsigned)));
    BENCH_CUDA(cudaMemset(buf, 0, bytes));
  }
  read_all_kernel<<<1024, 256>>>(buf, words, sink);
  BENCH_CUDA(cudaGetLastError());
  BENCH_CUDA(cudaDeviceSynchronize());
}

extern "C" void bench_gpu_busy_us(double us) {
  busy_kernel<<<1, 1>>>((unsigned long long)(us * 1000.0));
  BENCH_CUDA(cudaGetLastError());
}

extern "C" void bench_copy(void *dst, const void *src, size_t bytes) {
  BENCH_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
}

extern "C" int bench_quick_mode(int *argc, char **argv) {
  char **end = std::remove_if(argv + 1, argv + *argc, [](const char *a) { return std::strcmp(a, "--quick") == 0; });
  const bool flag = end != argv + *argc;
  *argc = int(end - argv);
  const char *env = std::getenv("GPUPRIM_BENCH_QUICK");
  return flag || (env && *env && std::strcmp(env, "0") != 0);
}

extern "C" int bench_sm_count(void) {
  static int sms = 0;
  if (sms == 0) {
    int device = 0;
    BENCH_CUDA(cudaGetDevice(&device));
    BENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  }
  return sms;
}

extern "C" int bench_require_cuda(const char *program) {
  void *probe = nullptr;
  if (gpu_set_backend(GPU_BACKEND_CUDA) == GPU_OK && gpu_get_backend() == GPU_BACKEND_CUDA &&
      gpu_alloc(&probe, 1) == GPU_OK && gpu_free(probe) == GPU_OK)
    return 0;
  std::fprintf(stderr, "%s: no usable CUDA backend: %s\n", program, gpu_last_error());
  return 1;
}
