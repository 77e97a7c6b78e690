/*
 * Host-side launch code of compaction for one element type: sizes the grid
 * and the look-back state, launches the one-pass kernel (compiled with the
 * library, or at run time for a formula), counts first for partition, and
 * returns the kept count. Included by one compact_cuda_<type>.cu per type.
 */
#pragma once

#include <cstring>

#include "compact_internal.h"
#include "compact_nvrtc.h"
#include "core/cuda_launch.cuh"
#include "device/compact_tile.cuh"
#include "scan/lookback_launch.cuh"

namespace gp {

inline const char *compact_fn(bool partition) { return partition ? "gpu_partition" : "gpu_compact"; }

/* Partition's count pass: as many blocks as fill the device, each striding over tiles. */
template <typename T>
gpu_status launch_count(const char *fn, const void *count_fn, compact_args &args, void *pred_arg, cudaStream_t stream) {
  gpu_status s = gp_cuda_status(cudaMemsetAsync(args.total_kept, 0, sizeof *args.total_kept, stream), fn,
                                "cudaMemsetAsync");
  if (s != GPU_OK) return s;
  static unsigned grid_cap = [] {
    int dev = 0, sms = 1;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    return unsigned(sms) * 8; /* 8 blocks of 256 threads per SM: 64 KiB of loads in flight */
  }();
  const uint64_t tiles = (args.n + count_shape<T>::tile_items - 1) / count_shape<T>::tile_items;
  const unsigned grid = unsigned(tiles < grid_cap ? tiles : grid_cap);
  void *params[] = {&args, pred_arg};
  return gp_cuda_status(cudaLaunchKernel(count_fn, dim3(grid), dim3(count_shape<T>::threads), params, 0, stream), fn,
                        "count kernel");
}

/* Launch (partition: count first), then wait for the count: the call returns it. */
template <typename T>
int64_t run_compaction(const compact_kernels &kernels, const void *pred_arg, const T *in, T *out, uint64_t n,
                       bool partition) {
  using Shape = compact_shape<T>;
  const char *fn = compact_fn(partition);
  cudaStream_t stream = static_cast<cudaStream_t>(gp_stream());
  const uint64_t tiles = (n + Shape::tile_items - 1) / Shape::tile_items;
  if (tiles > 0x7fffffffu) return gp_neg(gp_fail(GPU_ERR_UNSUPPORTED, "%s: n = %llu is too large", fn, (unsigned long long)n));
  const unsigned grid = unsigned(tiles < kernels.resident ? tiles : kernels.resident);
  lookback_args lb;
  gp_tilestate ts{};
  uint64_t *slots = nullptr; /* two words after the look-back state: kept, total_kept */
  gpu_status s = prepare_lookback<uint64_t>(fn, tiles, 2, tiles > 1 ? tiles + grid : 0, &lb, &ts, &slots);
  if (s != GPU_OK) return gp_neg(s);
  /* The count goes to mapped host memory where there is some (no copy to wait for). */
  unsigned long long *host_slot = reinterpret_cast<unsigned long long *>(gp_mapped_host_word());
  compact_args args{in,        out,
                    n,         lb,
                    reinterpret_cast<unsigned long long *>(slots),
                    host_slot, reinterpret_cast<unsigned long long *>(slots + 1),
                    aligned16(in)};
  void *pred = const_cast<void *>(pred_arg);
  if (partition) s = launch_count<T>(fn, kernels.count, args, pred, stream);
  void *params[] = {&args, pred};
  if (s == GPU_OK)
    s = gp_cuda_status(cudaLaunchKernel(kernels.compact, dim3(grid), dim3(Shape::threads), params,
                                        compact_smem_bytes<T>(), stream),
                       fn, "compaction kernel");
  unsigned long long kept = 0;
  if (s == GPU_OK && !host_slot)
    s = gp_cuda_status(cudaMemcpyAsync(&kept, args.kept, sizeof kept, cudaMemcpyDeviceToHost, stream), fn,
                       "cudaMemcpyAsync");
  if (s == GPU_OK) s = gp_cuda_status(cudaStreamSynchronize(stream), fn, "cudaStreamSynchronize");
  if (s == GPU_OK && host_slot) kept = *static_cast<volatile unsigned long long *>(host_slot);
  gpu_status r = gp_tilestate_release(fn, &ts);
  if (s == GPU_OK) s = r;
  return s != GPU_OK ? gp_neg(s) : int64_t(kept);
}

/* Kernels compiled with the library: occupancy computed once per kernel. */
template <typename T, typename Pred, bool PARTITION>
int64_t run_builtin(const Pred &pred, const void *in, void *out, uint64_t n) {
  constexpr auto kernel = compact_kernel<T, Pred, PARTITION>;
  const compact_kernels k{reinterpret_cast<const void *>(kernel),
                          resident_blocks<kernel>(compact_shape<T>::threads, compact_smem_bytes<T>()),
                          reinterpret_cast<const void *>(count_kernel<T, Pred>)};
  return run_compaction<T>(k, &pred, static_cast<const T *>(in), static_cast<T *>(out), n, PARTITION);
}

template <typename T, typename Pred>
int64_t run_builtin(const Pred &pred, const void *in, void *out, uint64_t n, bool partition) {
  return partition ? run_builtin<T, Pred, true>(pred, in, out, n) : run_builtin<T, Pred, false>(pred, in, out, n);
}

template <typename T> T value_of_bits(uint64_t bits) {
  T v;
  std::memcpy(&v, &bits, sizeof v); /* the element's bytes are the word's low bytes */
  return v;
}

/* The per-type entry: comparisons, ranges and formulas (flags: compact_cuda.cu). */
template <typename T>
int64_t compact_type(const void *in, size_t n, const gpu_pred *pred, void *out, bool partition) {
  const auto &p = pred->private_;
  switch (p.kind) {
    case GP_PRED_CMP: return run_builtin<T>(pred_cmp<T>{value_of_bits<T>(p.a), p.cmp}, in, out, n, partition);
    case GP_PRED_RANGE:
      return run_builtin<T>(pred_range<T>{value_of_bits<T>(p.a), value_of_bits<T>(p.b)}, in, out, n, partition);
    case GP_PRED_EXPR: {
      compact_kernels k{};
      gpu_status s = formula_kernels(static_cast<const gp_formula *>(p.ptr), partition, &k);
      if (s != GPU_OK) return gp_neg(s);
      static const char no_pred = 0; /* the formula kernels take no predicate argument */
      return run_compaction<T>(k, &no_pred, static_cast<const T *>(in), static_cast<T *>(out), n, partition);
    }
    default: break;
  }
  return gp_neg(gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown predicate kind %d", compact_fn(partition), int(p.kind)));
}

/* Flags: the element's bytes are only moved, so one kernel per element size. */
template <typename Bits> int64_t compact_flags(const void *in, size_t n, const gpu_pred *pred, void *out, bool partition) {
  const uint8_t *flags = static_cast<const uint8_t *>(pred->private_.ptr);
  const bool vector_ok = (reinterpret_cast<uintptr_t>(flags) % compact_shape<Bits>::vec) == 0;
  return run_builtin<Bits>(pred_flags{flags, vector_ok}, in, out, n, partition);
}

}  // namespace gp

/* One element type's C entry point, named gp_compact_cuda_<suffix>. */
#define GP_DEFINE_COMPACT_CUDA_TYPE(T, SUFFIX)                                                              \
  extern "C" int64_t gp_compact_cuda_##SUFFIX(const void *in, size_t n, const gpu_pred *pred, void *out, \
                                              bool partition) {                                           \
    return gp::compact_type<T>(in, n, pred, out, partition);                                              \
  }
