/*
 * Launch helpers every CUDA module shares: pointer alignment for vector
 * loads, the status of a launch, and what a kernel may do on the current
 * device (its dynamic shared memory allowed, its blocks resident at once).
 */
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>

#include "core/core.h"

namespace gp {

/* Every pointer 16-byte aligned: the data may be moved in 16-byte vectors. */
template <typename... Pointees> __host__ __device__ __forceinline__ bool aligned16(const Pointees *...pointers) {
  return ((reinterpret_cast<uintptr_t>(pointers) | ... | uintptr_t(0)) & 15) == 0;
}

/* The status of the launch just made (its configuration or an earlier error). */
inline gpu_status check_launch(const char *fn, const char *kernel) {
  return gp_cuda_status(cudaGetLastError(), fn, kernel);
}

/* Devices gpuprim serves (core/cuda_resources.c keeps a pool for each). */
constexpr int MAX_DEVICES = 64;

/* What a kernel may do on a device: the opt-in to `smem` bytes of dynamic
 * shared memory (above 48 KiB it is needed; it is an attribute of the
 * device's context), how many of its blocks of `threads` fit the device
 * at once, and whether the device takes cooperative launches (a grid
 * started only where all its blocks fit at once). */
struct kernel_fit {
  cudaError_t allowed;
  unsigned resident;
  bool cooperative;
};
template <auto KERNEL> kernel_fit find_fit(int dev, int threads, size_t smem) {
  kernel_fit f{};
  int sms = 0, per_sm = 0, cooperative = 0;
  f.allowed = cudaFuncSetAttribute(KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, dev);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, KERNEL, threads, smem);
  cudaGetLastError();
  f.resident = unsigned(sms > 0 && per_sm > 0 ? sms * per_sm : 1);
  f.cooperative = cooperative != 0;
  return f;
}
/* The same for the current device, found once per kernel and device (a
 * template on the kernel itself, not on its type, which many kernels
 * share; a kernel's threads and smem never change). */
template <auto KERNEL> kernel_fit fit_on_device(int threads, size_t smem) {
  static std::once_flag once[MAX_DEVICES];
  static kernel_fit fits[MAX_DEVICES];
  int dev = 0;
  cudaGetDevice(&dev);
  if (dev < 0 || dev >= MAX_DEVICES) return find_fit<KERNEL>(dev, threads, smem);
  std::call_once(once[dev], [&] { fits[dev] = find_fit<KERNEL>(dev, threads, smem); });
  return fits[dev];
}

/* Dynamic shared memory above 48 KiB needs an opt-in before the launch:
 * once per kernel and device (fit_on_device). */
template <auto KERNEL> gpu_status allow_shared_memory(const char *fn, int threads, size_t bytes) {
  return gp_cuda_status(fit_on_device<KERNEL>(threads, bytes).allowed, fn, "cudaFuncSetAttribute");
}
/* Blocks of a persistent kernel that fit on the current device at once,
 * with its dynamic shared memory allowed. */
template <auto KERNEL> unsigned resident_blocks(int threads, size_t smem) {
  return fit_on_device<KERNEL>(threads, smem).resident;
}
/* The same where the device launches a grid of them cooperatively, else 0. */
template <auto KERNEL> unsigned cooperative_blocks(int threads, size_t smem) {
  const kernel_fit f = fit_on_device<KERNEL>(threads, smem);
  return f.cooperative ? f.resident : 0;
}

}  // namespace gp
