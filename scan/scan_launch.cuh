/*
 * Host-side launch code of the scans for one (type, op): sizes the grid and
 * the look-back state, picks the kernel for the flags, checks the launch.
 * Included by one scan_cuda_<type>.cu per element type.
 */
#pragma once

#include <cuda_runtime.h>

#include "core/core.h"
#include "core/cuda_launch.cuh"
#include "scan/device/reference_scan.cuh"
#include "scan/device/scan_tile.cuh"
#include "scan/lookback_launch.cuh"
#include "scan/scan_cuda.h"
#include "scan/scan_tuning.h"

namespace gp {

/* Shared memory of scan_pipelined (K = 1) and of other pipelines of K
 * input arrays: their stages. */
template <typename T, typename Shape, int K = 1> constexpr size_t pipelined_smem() {
  return tile_stages<T, Shape, false, K>::SHARED_BYTES;
}

template <typename T, gpu_op OP, bool REVERSE>
gpu_status scan_lookback_dir(const T *in, T *out, uint64_t n, bool exclusive, cudaStream_t stream) {
  static const char fn[] = "gpu_scan";
  using Op = scan_op<T, OP>;
  using Shape = typename scan_tuning<sizeof(T)>::shape;
  constexpr auto kernel = scan_pipelined<T, Op, Shape, REVERSE>;
  constexpr size_t smem = pipelined_smem<T, Shape>();
  const uint64_t tiles = (n + Shape::tile_items - 1) / Shape::tile_items;
  if (tiles > 0x7fffffffu) return gp_fail(GPU_ERR_UNSUPPORTED, "%s: n = %llu is too large", fn, (unsigned long long)n);
  const unsigned resident = resident_blocks<kernel>(Shape::threads, smem);
  const unsigned grid = unsigned(tiles < resident ? tiles : resident);
  lookback_args lb;
  gp_tilestate ts{};
  /* Each block takes one index past the last tile: tiles + grid in all. */
  gpu_status s = prepare_lookback<T>(fn, tiles, 0, tiles > 1 ? tiles + grid : 0, &lb, &ts, nullptr);
  if (s != GPU_OK) return s;
  const bool vector_ok = aligned16(in) && aligned16(out);
  kernel<<<grid, Shape::threads, smem, stream>>>(in, out, n, exclusive, vector_ok, lb);
  s = check_launch(fn, "scan_pipelined");
  gpu_status r = gp_tilestate_release(fn, &ts);
  return s != GPU_OK ? s : r;
}

template <typename T, gpu_op OP>
gpu_status scan_lookback(const T *in, T *out, uint64_t n, unsigned flags, cudaStream_t stream) {
  const bool exclusive = flags & GPU_EXCLUSIVE;
  return flags & GPU_REVERSE ? scan_lookback_dir<T, OP, true>(in, out, n, exclusive, stream)
                             : scan_lookback_dir<T, OP, false>(in, out, n, exclusive, stream);
}

/* Three kernels; the tile totals are scanned by recursion in pool memory. */
template <typename T, gpu_op OP>
gpu_status scan_reference(const T *in, T *out, uint64_t n, bool exclusive, bool reverse, cudaStream_t stream) {
  static const char fn[] = "gpu_scan";
  using Op = scan_op<T, OP>;
  constexpr int NT = REFERENCE_THREADS, ITEMS = REFERENCE_ITEMS, TILE = NT * ITEMS;
  const uint64_t tiles = (n + TILE - 1) / TILE;
  if (tiles > 0x7fffffffu) return gp_fail(GPU_ERR_UNSUPPORTED, "%s: n = %llu is too large", fn, (unsigned long long)n);
  T *totals = nullptr;
  if (tiles > 1) {
    gpu_status s = gp_pool_alloc(fn, reinterpret_cast<void **>(&totals), tiles * sizeof(T));
    if (s != GPU_OK) return s;
    if (reverse)
      reference_reduce_tiles<T, Op, NT, ITEMS, true><<<unsigned(tiles), NT, 0, stream>>>(in, n, totals);
    else
      reference_reduce_tiles<T, Op, NT, ITEMS, false><<<unsigned(tiles), NT, 0, stream>>>(in, n, totals);
    s = check_launch(fn, "reference_reduce_tiles");
    if (s == GPU_OK) s = scan_reference<T, OP>(totals, totals, tiles, true, false, stream);
    if (s != GPU_OK) {
      gp_pool_free(fn, totals);
      return s;
    }
  }
  if (reverse)
    reference_scan_tiles<T, Op, NT, ITEMS, true><<<unsigned(tiles), NT, 0, stream>>>(in, out, n, totals, exclusive);
  else
    reference_scan_tiles<T, Op, NT, ITEMS, false><<<unsigned(tiles), NT, 0, stream>>>(in, out, n, totals, exclusive);
  gpu_status s = check_launch(fn, "reference_scan_tiles");
  gpu_status f = gp_pool_free(fn, totals);
  return s != GPU_OK ? s : f;
}

template <typename T, gpu_op OP> gpu_status reduce_lookback(const T *in, uint64_t n, void *host_result, cudaStream_t stream) {
  static const char fn[] = "gpu_reduce";
  using Op = scan_op<T, OP>;
  using Shape = typename scan_tuning<sizeof(T)>::shape;
  const uint64_t tiles = (n + Shape::tile_items - 1) / Shape::tile_items;
  if (tiles > 0x7fffffffu) return gp_fail(GPU_ERR_UNSUPPORTED, "%s: n = %llu is too large", fn, (unsigned long long)n);
  lookback_args lb;
  gp_tilestate ts{};
  uint64_t *slot = nullptr;
  gpu_status s = prepare_lookback<T>(fn, tiles, 2, tiles > 1 ? tiles : 0, &lb, &ts, &slot);
  if (s != GPU_OK) return s;
  reduce_single_pass<T, Op, Shape><<<unsigned(tiles), Shape::threads, 0, stream>>>(in, n, aligned16(in), lb,
                                                                                    reinterpret_cast<T *>(slot));
  s = check_launch(fn, "reduce_single_pass");
  if (s == GPU_OK)
    s = gp_cuda_status(cudaMemcpyAsync(host_result, slot, sizeof(T), cudaMemcpyDeviceToHost, stream), fn,
                       "cudaMemcpyAsync");
  if (s == GPU_OK) s = gp_cuda_status(cudaStreamSynchronize(stream), fn, "cudaStreamSynchronize");
  gpu_status r = gp_tilestate_release(fn, &ts);
  return s != GPU_OK ? s : r;
}

/* The per-type entry: dispatch on the operator (those that exist for T). */
template <typename T>
gpu_status scan_type(const void *in, void *out, size_t n, gpu_op op, unsigned flags, gp_scan_algo algo) {
  cudaStream_t stream = static_cast<cudaStream_t>(gp_stream());
  const T *i = static_cast<const T *>(in);
  T *o = static_cast<T *>(out);
  const bool excl = flags & GPU_EXCLUSIVE, rev = flags & GPU_REVERSE;
#define GP_SCAN_CASE(OP)                                                                          \
  case OP:                                                                                        \
    if constexpr (op_supported_v<T, OP>)                                                          \
      return algo == GP_SCAN_REFERENCE ? scan_reference<T, OP>(i, o, n, excl, rev, stream)        \
                                       : scan_lookback<T, OP>(i, o, n, flags, stream);            \
    break;
  switch (op) {
    GP_SCAN_CASE(GPU_ADD) GP_SCAN_CASE(GPU_MUL) GP_SCAN_CASE(GPU_MIN) GP_SCAN_CASE(GPU_MAX)
    GP_SCAN_CASE(GPU_AND) GP_SCAN_CASE(GPU_OR) GP_SCAN_CASE(GPU_XOR)
  }
#undef GP_SCAN_CASE
  return gp_fail(GPU_ERR_UNSUPPORTED, "gpu_scan: operator %s for %s", gp_op_name(op), "this type");
}

template <typename T> gpu_status reduce_type(const void *in, size_t n, gpu_op op, void *host_result) {
  cudaStream_t stream = static_cast<cudaStream_t>(gp_stream());
  const T *i = static_cast<const T *>(in);
#define GP_REDUCE_CASE(OP)                                                                  \
  case OP:                                                                                  \
    if constexpr (op_supported_v<T, OP>) return reduce_lookback<T, OP>(i, n, host_result, stream); \
    break;
  switch (op) {
    GP_REDUCE_CASE(GPU_ADD) GP_REDUCE_CASE(GPU_MUL) GP_REDUCE_CASE(GPU_MIN) GP_REDUCE_CASE(GPU_MAX)
    GP_REDUCE_CASE(GPU_AND) GP_REDUCE_CASE(GPU_OR) GP_REDUCE_CASE(GPU_XOR)
  }
#undef GP_REDUCE_CASE
  return gp_fail(GPU_ERR_UNSUPPORTED, "gpu_reduce: operator %s for %s", gp_op_name(op), "this type");
}

}  // namespace gp

/* One element type's C entry points, named gp_scan_cuda_<suffix>. */
#define GP_DEFINE_SCAN_CUDA_TYPE(T, SUFFIX)                                                                 \
  extern "C" gpu_status gp_scan_cuda_##SUFFIX(const void *in, void *out, size_t n, gpu_op op, unsigned flags, \
                                              gp_scan_algo algo) {                                          \
    return gp::scan_type<T>(in, out, n, op, flags, algo);                                                   \
  }                                                                                                         \
  extern "C" gpu_status gp_reduce_cuda_##SUFFIX(const void *in, size_t n, gpu_op op, void *host_result) {   \
    return gp::reduce_type<T>(in, n, op, host_result);                                                      \
  }
