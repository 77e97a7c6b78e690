/*
 * Host-side launch code of segmented scan and reduce for one element type:
 * the grid, the look-back state (of pairs), for offsets the tile_first[]
 * table and the check of the offsets. Included by segscan_cuda_<type>.cu.
 */
#pragma once

#include "device/segscan_blocked.cuh"
#include "device/segreduce_runs.cuh"
#include "scan/scan_launch.cuh"
#include "segmented_cuda.h"

namespace gp {

/* The tile shape of the segmented scans and reduce (it also sizes the
 * offsets' tile_first[] table). */
template <typename T> using seg_shape = seg_large_shape<sizeof(T)>;

/* For offsets: tile_first[] (pool memory, freed by the caller) and the
 * offsets check, in one launch (device/tile_first.cuh). Its verdict is
 * deferred to gpu_synchronize (the thread's deferred-error word of `kind`)
 * unless `wait` is asked for or no mapped memory exists; then
 * offsets_verdict waits for it (mapped host memory, or device memory after
 * tile_first). */
struct offsets_table {
  uint64_t *tile_first = nullptr;
  unsigned *bad = nullptr;
  unsigned *bad_host = nullptr; /* where the host reads it */
  bool deferred = false;
};

template <typename Offset>
gpu_status build_offsets_table(const char *fn, const Offset *offsets, uint64_t nseg, uint64_t n, uint32_t tile_items,
                               uint64_t tiles, cudaStream_t stream, gp_deferred_kind kind, bool wait,
                               offsets_table *t) {
  gpu_status s = gp_pool_alloc(fn, reinterpret_cast<void **>(&t->tile_first), (tiles + 1) * sizeof(uint64_t));
  if (s != GPU_OK) return s;
  t->bad = wait ? nullptr : gp_deferred_word(kind);
  t->deferred = t->bad != nullptr;
  if (!t->deferred) {
    t->bad_host = reinterpret_cast<unsigned *>(gp_mapped_host_word());
    t->bad = t->bad_host ? t->bad_host : reinterpret_cast<unsigned *>(t->tile_first + tiles);
    /* The kernel writes every tile_first[] entry but only ever sets *bad:
     * zeroed here, by a launch only in the rare device-memory fallback. */
    if (t->bad_host) {
      *t->bad_host = 0;
    } else {
      s = gp_cuda_status(cudaMemsetAsync(t->bad, 0, sizeof(unsigned), stream), fn, "cudaMemsetAsync");
      if (s != GPU_OK) return s;
    }
  }
  const uint64_t blocks = (tile_first_threads(nseg, tiles) + 255) / 256;
  tile_first_segments<Offset><<<unsigned(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(offsets, nseg, n, tile_items,
                                                                                           tiles, t->tile_first, t->bad);
  return check_launch(fn, "tile_first_segments");
}

/* The offsets' verdict where it is not deferred: waits for the stream, then
 * reads it; `what` names the malformed input in the message. */
inline gpu_status offsets_verdict(const char *fn, offsets_table &t, cudaStream_t stream,
                                  const char *what = "malformed offsets: not 0 = offsets[0] <= ... <= offsets[nseg] = n") {
  if (t.deferred) return GPU_OK;
  unsigned bad = 0;
  gpu_status s = GPU_OK;
  if (!t.bad_host)
    s = gp_cuda_status(cudaMemcpyAsync(&bad, t.bad, sizeof bad, cudaMemcpyDeviceToHost, stream), fn, "cudaMemcpyAsync");
  if (s == GPU_OK) s = gp_cuda_status(cudaStreamSynchronize(stream), fn, "cudaStreamSynchronize");
  if (s == GPU_OK && t.bad_host) bad = *static_cast<volatile unsigned *>(t.bad_host);
  if (s == GPU_OK && bad)
    s = gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: %s", fn, what);
  return s;
}

/* One launch of the segmented kernel, with tiles of Shape (a seg_tile_shape). */
template <typename T, gpu_op OP, bool REVERSE, typename Source, bool REDUCE, typename Values = plain_values,
          typename Epilogue = store_results<T, scan_op<T, OP>>, typename Shape = seg_shape<T>>
gpu_status segscan_launch(const char *fn, const T *in, T *out, uint64_t n, bool exclusive, bool vector_ok,
                          const Source &src, uint64_t tiles, cudaStream_t stream, const Values &values = Values{},
                          const Epilogue &epilogue = Epilogue{}) {
  lookback_args lb;
  gp_tilestate ts{};
  gpu_status s = prepare_lookback<seg_pair<T>>(fn, tiles, 0, tiles > 1 ? tiles : 0, &lb, &ts, nullptr);
  if (s != GPU_OK) return s;
  segscan_blocked<T, OP, Shape, REVERSE, Source, REDUCE, Values, Epilogue>
      <<<unsigned(tiles), Shape::threads, 0, stream>>>(in, out, n, exclusive, vector_ok, lb, src, values, epilogue);
  s = check_launch(fn, "segscan_blocked");
  gpu_status r = gp_tilestate_release(fn, &ts);
  return s != GPU_OK ? s : r;
}

/* 1 (default): segmented reduce and SpMV run segreduce_runs (a run of
 * tiles a block, look-back once a block); 0: segscan_blocked (REDUCE), for
 * A/B library builds. */
#ifndef GP_SEG_RUNS
#define GP_SEG_RUNS 1
#endif

/* One launch of segreduce_runs: a run of tiles for each of the blocks that
 * fit the device at once (at most one a tile). */
template <typename T, gpu_op OP, typename Offset, typename Values, typename Epilogue, typename Shape>
gpu_status segreduce_runs_launch(const char *fn, const T *in, uint64_t n, bool vector_ok,
                                 const heads_from_offsets<Offset> &src, uint64_t tiles, cudaStream_t stream,
                                 const Values &values, const Epilogue &epilogue) {
  constexpr auto kernel = segreduce_runs<T, OP, Shape, Offset, Values, Epilogue>;
  constexpr size_t smem = runs_smem<T, Shape, Values>();
  if (tiles == 0) return GPU_OK;
  const unsigned resident = resident_blocks<kernel>(Shape::threads, smem);
  const unsigned grid = unsigned(tiles < resident ? tiles : resident);
  lookback_args lb;
  gp_tilestate ts{};
  /* Each block takes one ticket for its run. */
  gpu_status s = prepare_lookback<seg_pair<T>>(fn, grid, 0, grid > 1 ? grid : 0, &lb, &ts, nullptr);
  if (s != GPU_OK) return s;
  kernel<<<grid, Shape::threads, smem, stream>>>(in, n, uint32_t(tiles), vector_ok, lb, src, values, epilogue);
  s = check_launch(fn, "segreduce_runs");
  gpu_status r = gp_tilestate_release(fn, &ts);
  return s != GPU_OK ? s : r;
}

/* Segmented reduce over offsets (and SpMV): the kernel GP_SEG_RUNS picks. */
template <typename T, gpu_op OP, typename Offset, typename Values, typename Epilogue, typename Shape = seg_shape<T>>
gpu_status segreduce_launch(const char *fn, const T *in, uint64_t n, bool vector_ok,
                            const heads_from_offsets<Offset> &src, uint64_t tiles, cudaStream_t stream,
                            const Values &values, const Epilogue &epilogue) {
  if constexpr (GP_SEG_RUNS != 0)
    return segreduce_runs_launch<T, OP, Offset, Values, Epilogue, Shape>(fn, in, n, vector_ok, src, tiles, stream,
                                                                         values, epilogue);
  else
    return segscan_launch<T, OP, false, heads_from_offsets<Offset>, true, Values, Epilogue, Shape>(
        fn, in, nullptr, n, false, vector_ok, src, tiles, stream, values, epilogue);
}

template <typename T, gpu_op OP, typename Source, bool REDUCE>
gpu_status segscan_dir(const char *fn, const T *in, T *out, uint64_t n, unsigned flags, bool vector_ok,
                       const Source &src, uint64_t tiles, cudaStream_t stream) {
  const bool exclusive = flags & GPU_EXCLUSIVE;
  return flags & GPU_REVERSE
             ? segscan_launch<T, OP, true, Source, REDUCE>(fn, in, out, n, exclusive, vector_ok, src, tiles, stream)
             : segscan_launch<T, OP, false, Source, REDUCE>(fn, in, out, n, exclusive, vector_ok, src, tiles, stream);
}

/* One (type, operator): heads, offsets, or reduce. */
template <typename T, gpu_op OP>
gpu_status segmented_op(const T *in, T *out, uint64_t n, const uint8_t *heads, const int64_t *offsets, uint64_t nseg,
                        unsigned flags, bool reduce) {
  const char *fn = reduce ? "gpu_segreduce" : heads ? "gpu_segscan_flags" : "gpu_segscan_offsets";
  using Shape = seg_shape<T>;
  cudaStream_t stream = static_cast<cudaStream_t>(gp_stream());
  const uint64_t tiles = (n + Shape::tile_items - 1) / Shape::tile_items;
  if (tiles > 0x7fffffffu) return gp_fail(GPU_ERR_UNSUPPORTED, "%s: n = %llu is too large", fn, (unsigned long long)n);
  if (heads)
    return segscan_dir<T, OP, heads_from_flags, false>(fn, in, out, n, flags, aligned16(in) && aligned16(out),
                                                        heads_from_flags{heads}, tiles, stream);
  offsets_table table;
  gpu_status s =
      build_offsets_table(fn, offsets, nseg, n, Shape::tile_items, tiles, stream, GP_DEFERRED_OFFSETS, false, &table);
  const heads_from_offsets<int64_t> src{offsets, nseg, table.tile_first};
  if (s == GPU_OK && n == 0 && reduce && nseg > 0) {
    const uint64_t blocks = (nseg + 255) / 256;
    fill_value<T><<<unsigned(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(out, nseg, scan_op<T, OP>::identity());
    s = check_launch(fn, "fill_value");
  }
  if (s == GPU_OK && n > 0)
    s = reduce ? segreduce_launch<T, OP, int64_t>(fn, in, n, aligned16(in), src, tiles, stream, plain_values{},
                                                  store_results<T, scan_op<T, OP>>{out})
               : segscan_dir<T, OP, heads_from_offsets<int64_t>, false>(fn, in, out, n, flags,
                                                                         aligned16(in) && aligned16(out), src, tiles,
                                                                         stream);
  if (s == GPU_OK) s = offsets_verdict(fn, table, stream);
  if (table.tile_first) {
    gpu_status f = gp_pool_free(fn, table.tile_first);
    if (s == GPU_OK) s = f;
  }
  return s;
}

template <typename T>
gpu_status segmented_type(const void *in, void *out, size_t n, const uint8_t *heads, const int64_t *offsets,
                          size_t nseg, gpu_op op, unsigned flags, bool reduce) {
  const T *i = static_cast<const T *>(in);
  T *o = static_cast<T *>(out);
#define GP_SEG_CASE(OP)                                                                  \
  case OP:                                                                               \
    if constexpr (op_supported_v<T, OP>) return segmented_op<T, OP>(i, o, n, heads, offsets, nseg, flags, reduce); \
    break;
  switch (op) {
    GP_SEG_CASE(GPU_ADD) GP_SEG_CASE(GPU_MUL) GP_SEG_CASE(GPU_MIN) GP_SEG_CASE(GPU_MAX)
    GP_SEG_CASE(GPU_AND) GP_SEG_CASE(GPU_OR) GP_SEG_CASE(GPU_XOR)
  }
#undef GP_SEG_CASE
  return gp_fail(GPU_ERR_UNSUPPORTED, "segmented: operator %s for this type", gp_op_name(op));
}

}  // namespace gp

#define GP_DEFINE_SEGMENTED_CUDA_TYPE(T, SUFFIX)                                                                   \
  extern "C" gpu_status gp_segmented_cuda_##SUFFIX(const void *in, void *out, size_t n, const uint8_t *heads,     \
                                                   const int64_t *offsets, size_t nseg, gpu_op op, unsigned flags, \
                                                   bool reduce) {                                                 \
    return gp::segmented_type<T>(in, out, n, heads, offsets, nseg, op, flags, reduce);                            \
  }
