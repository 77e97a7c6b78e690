/*
 * Host-side launch code of segmented scan and reduce for one element type:
 * the grid, the look-back state (of pairs), for offsets the tile_first[]
 * table and the check of the offsets. Included by segscan_cuda_<type>.cu.
 */
#pragma once

#include <type_traits>

#include "device/segscan_blocked.cuh"
#include "device/seg_runs.cuh"
#include "device/segreduce_direct.cuh"
#include "device/segreduce_warps.cuh"
#include "scan/scan_launch.cuh"
#include "segmented_cuda.h"
#include "segmented_plan.h"
#include "segmented_tuning.h"

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

/* Where a kernel reports malformed offsets (t->bad): the deferred word of
 * `kind` unless `wait` is asked for, else mapped host memory, else
 * `device_word` (zeroed here by a launch: the rare fallback). */
inline gpu_status prepare_offsets_check(const char *fn, cudaStream_t stream, gp_deferred_kind kind, bool wait,
                                        unsigned *device_word, offsets_table *t) {
  t->bad = wait ? nullptr : gp_deferred_word(kind);
  t->deferred = t->bad != nullptr;
  if (t->deferred) return GPU_OK;
  t->bad_host = reinterpret_cast<unsigned *>(gp_mapped_host_word());
  t->bad = t->bad_host ? t->bad_host : device_word;
  /* The kernels only ever set *bad. */
  if (t->bad_host) {
    *t->bad_host = 0;
    return GPU_OK;
  }
  return gp_cuda_status(cudaMemsetAsync(t->bad, 0, sizeof(unsigned), stream), fn, "cudaMemsetAsync");
}

/* The check alone, for kernels that find their segments themselves: t->bad
 * as prepare_offsets_check gives it; only where no mapped memory exists,
 * a word of pool memory (held in t->tile_first, freed by the caller). */
inline gpu_status prepare_offsets_check_only(const char *fn, cudaStream_t stream, offsets_table *t,
                                             gp_deferred_kind kind = GP_DEFERRED_OFFSETS) {
  gpu_status s = GPU_OK;
  if (!gp_deferred_word(kind) && !gp_mapped_host_word())
    s = gp_pool_alloc(fn, reinterpret_cast<void **>(&t->tile_first), sizeof(uint64_t));
  if (s != GPU_OK) return s;
  return prepare_offsets_check(fn, stream, kind, false, reinterpret_cast<unsigned *>(t->tile_first), t);
}

/* The table's memory (pool memory, freed by the caller) and t->bad, with
 * no launch: for seg_runs' blocks that write their runs' entries and check
 * the offsets themselves (runs_own_table); build_offsets_table's first
 * half. */
inline gpu_status prepare_offsets_table(const char *fn, uint64_t tiles, cudaStream_t stream, gp_deferred_kind kind,
                                        bool wait, offsets_table *t) {
  gpu_status s = gp_pool_alloc(fn, reinterpret_cast<void **>(&t->tile_first), (tiles + 1) * sizeof(uint64_t));
  if (s != GPU_OK) return s;
  return prepare_offsets_check(fn, stream, kind, wait, reinterpret_cast<unsigned *>(t->tile_first + tiles), t);
}

template <typename Offset>
gpu_status build_offsets_table(const char *fn, const Offset *offsets, uint64_t nseg, uint64_t n, uint32_t tile_items,
                               uint64_t tiles, cudaStream_t stream, gp_deferred_kind kind, bool wait,
                               offsets_table *t, bool check = true) {
  gpu_status s = prepare_offsets_table(fn, tiles, stream, kind, wait, t);
  if (s != GPU_OK) return s;
  /* check false: the table alone; the kernel that reads the table checks
   * every offset itself into t->bad. */
  const uint64_t blocks = ((check ? tile_first_threads(nseg, tiles) : tiles) + 255) / 256;
  tile_first_segments<Offset><<<unsigned(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(
      offsets, nseg, n, tile_items, tiles, t->tile_first, check ? t->bad : nullptr);
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
  constexpr auto kernel = segscan_blocked<T, OP, Shape, REVERSE, Source, REDUCE, Values, Epilogue>;
  /* Tiles by blockIdx where the whole grid fits the device at once. */
  const bool by_index = tiles <= resident_blocks<kernel>(Shape::threads, 0);
  lookback_args lb;
  gp_tilestate ts{};
  gpu_status s = prepare_lookback<seg_pair<T>>(fn, tiles, 0, tiles > 1 && !by_index ? tiles : 0, &lb, &ts, nullptr);
  if (s != GPU_OK) return s;
  kernel<<<unsigned(tiles), Shape::threads, 0, stream>>>(in, out, n, exclusive, vector_ok, lb, src, values, epilogue,
                                                         by_index);
  s = check_launch(fn, "segscan_blocked");
  gpu_status r = gp_tilestate_release(fn, &ts);
  return s != GPU_OK ? s : r;
}

/* seg_runs' kernel, dynamic shared memory and grid: the blocks that fit the
 * device at once, at most one a tile. */
template <typename T, gpu_op OP, typename Source, bool REDUCE, typename Values, typename Epilogue, typename Shape>
struct seg_runs_kernel {
  static constexpr auto kernel = seg_runs<T, OP, Shape, Source, REDUCE, Values, Epilogue>;
  static constexpr size_t smem = runs_smem<T, Shape, Values, Source, REDUCE>();
  static constexpr uint64_t tile_items = Shape::tile_items;
  static unsigned resident() { return resident_blocks<kernel>(Shape::threads, smem); }
  static unsigned grid(uint64_t tiles) {
    const unsigned blocks = resident();
    return unsigned(tiles < blocks ? tiles : blocks);
  }
};

/* One launch of seg_runs on `grid` blocks, Kernel::grid(tiles) (REDUCE: out
 * and exclusive unused). */
template <typename T, gpu_op OP, typename Source, bool REDUCE, typename Values, typename Epilogue, typename Shape>
gpu_status seg_runs_launch(const char *fn, const T *in, T *out, uint64_t n, bool exclusive, bool vector_ok,
                           const Source &src, uint64_t tiles, unsigned grid, cudaStream_t stream, const Values &values,
                           const Epilogue &epilogue) {
  using Kernel = seg_runs_kernel<T, OP, Source, REDUCE, Values, Epilogue, Shape>;
  if (tiles == 0) return GPU_OK;
  /* Whoever chose the grid (Kernel::grid or not), the kernel gets its shared memory. */
  gpu_status s = allow_shared_memory<Kernel::kernel>(fn, Shape::threads, Kernel::smem);
  if (s != GPU_OK) return s;
  lookback_args lb;
  gp_tilestate ts{};
  /* Each block takes one ticket for its run. */
  s = prepare_lookback<seg_pair<T>>(fn, grid, 0, grid > 1 ? grid : 0, &lb, &ts, nullptr);
  if (s != GPU_OK) return s;
  Kernel::kernel<<<grid, Shape::threads, Kernel::smem, stream>>>(in, out, n, uint32_t(tiles), exclusive, vector_ok, lb,
                                                                 src, values, epilogue);
  s = check_launch(fn, "seg_runs");
  gpu_status r = gp_tilestate_release(fn, &ts);
  return s != GPU_OK ? s : r;
}

/* Segmented reduce over offsets by runs of tiles (SpMV's products). */
template <typename T, gpu_op OP, typename Offset, typename Values, typename Epilogue, typename Shape = seg_shape<T>>
gpu_status segreduce_launch(const char *fn, const T *in, uint64_t n, bool vector_ok,
                            const heads_from_offsets<Offset> &src, uint64_t tiles, cudaStream_t stream,
                            const Values &values, const Epilogue &epilogue) {
  using Kernel = seg_runs_kernel<T, OP, heads_from_offsets<Offset>, true, Values, Epilogue, Shape>;
  return seg_runs_launch<T, OP, heads_from_offsets<Offset>, true, Values, Epilogue, Shape>(
      fn, in, nullptr, n, false, vector_ok, src, tiles, Kernel::grid(tiles), stream, values, epilogue);
}

/* A scan of one tile a block in either direction, on Shape's tiles. */
template <typename T, gpu_op OP, typename Source, typename Shape>
gpu_status segscan_dir_shaped(const char *fn, const T *in, T *out, uint64_t n, unsigned flags, const Source &src,
                              cudaStream_t stream) {
  using Results = store_results<T, scan_op<T, OP>>;
  const bool exclusive = flags & GPU_EXCLUSIVE, vector_ok = aligned16(in) && aligned16(out);
  const uint64_t tiles = (n + Shape::tile_items - 1) / Shape::tile_items;
  return flags & GPU_REVERSE
             ? segscan_launch<T, OP, true, Source, false, plain_values, Results, Shape>(fn, in, out, n, exclusive,
                                                                                       vector_ok, src, tiles, stream)
             : segscan_launch<T, OP, false, Source, false, plain_values, Results, Shape>(fn, in, out, n, exclusive,
                                                                                        vector_ok, src, tiles, stream);
}

/* A scan of one tile a block on the plan's tiles: small tiles
 * (seg_small_shape, SpMV's: 2048 elements) for small scans, whose chains
 * (ticket, search, offsets, loads, look-back) then run on more blocks. */
template <typename T, gpu_op OP, typename Source>
gpu_status segscan_blocked_planned(const char *fn, const T *in, T *out, uint64_t n, unsigned flags,
                                   const Source &src, const seg_plan &plan, cudaStream_t stream) {
  if (plan.small_tiles)
    return segscan_dir_shaped<T, OP, Source, seg_small_shape<sizeof(T)>>(fn, in, out, n, flags, src, stream);
  return segscan_dir_shaped<T, OP, Source, seg_shape<T>>(fn, in, out, n, flags, src, stream);
}

/* A forward scan by seg_runs on `grid` blocks (Source: flags or offsets). */
template <typename T, gpu_op OP, typename Source>
gpu_status segscan_runs(const char *fn, const T *in, T *out, uint64_t n, bool exclusive, const Source &src,
                        uint64_t tiles, unsigned grid, cudaStream_t stream) {
  using Results = store_results<T, scan_op<T, OP>>;
  return seg_runs_launch<T, OP, Source, false, plain_values, Results, seg_shape<T>>(
      fn, in, out, n, exclusive, aligned16(in) && aligned16(out), src, tiles, grid, stream, plain_values{},
      Results{nullptr});
}

/* The forward scans' seg_runs instances: over flags, over offsets, and
 * over offsets with offset stages. */
template <typename T, gpu_op OP, typename Source>
using scan_runs_kernel =
    seg_runs_kernel<T, OP, Source, false, plain_values, store_results<T, scan_op<T, OP>>, seg_shape<T>>;

inline gpu_status too_large(const char *fn, uint64_t n) {
  return gp_fail(GPU_ERR_UNSUPPORTED, "%s: n = %llu is too large", fn, (unsigned long long)n);
}

/* gpu_segscan_flags of n > 0 elements. */
template <typename T, gpu_op OP>
gpu_status segscan_heads_op(const T *in, T *out, uint64_t n, const uint8_t *heads, unsigned flags) {
  static const char fn[] = "gpu_segscan_flags";
  using FlagRuns = scan_runs_kernel<T, OP, heads_from_flags>;
  const seg_plan plan = gp_seg_plan_scan_heads(n, sizeof(T), flags, seg_heads_resident{FlagRuns::resident()});
  if (plan.path == SEG_PATH_TOO_LARGE) return too_large(fn, n);
  cudaStream_t stream = static_cast<cudaStream_t>(gp_stream());
  const heads_from_flags src{heads};
  if (plan.path == SEG_PATH_RUNS)
    return segscan_runs<T, OP>(fn, in, out, n, flags & GPU_EXCLUSIVE, src, plan.tiles, plan.grid, stream);
  return segscan_blocked_planned<T, OP>(fn, in, out, n, flags, src, plan, stream);
}

/* The table of tile_first[] (or only the offsets' check word) as the plan
 * has it, and the offsets' source for the scan. */
inline gpu_status prepare_offsets_source(const char *fn, const int64_t *offsets, uint64_t nseg, uint64_t n,
                                         uint64_t tile_items, const seg_plan &plan, cudaStream_t stream,
                                         offsets_table *table, heads_from_offsets<int64_t> *src) {
  gpu_status s = GPU_OK;
  switch (plan.table) {
    case SEG_TABLE_NONE: s = prepare_offsets_check_only(fn, stream, table); break;
    case SEG_TABLE_OWN:
      s = prepare_offsets_table(fn, plan.tiles, stream, GP_DEFERRED_OFFSETS, false, table);
      break;
    case SEG_TABLE_LAUNCH:
      s = build_offsets_table(fn, offsets, nseg, n, tile_items, plan.tiles, stream, GP_DEFERRED_OFFSETS, false, table,
                              plan.table_checks);
      break;
  }
  *src = heads_from_offsets<int64_t>{offsets, nseg, plan.table == SEG_TABLE_NONE ? nullptr : table->tile_first,
                                     table->bad, plan.check_windows};
  src->own_table = plan.table == SEG_TABLE_OWN;
  src->walk_window = plan.walk_window;
  return s;
}

/* gpu_segscan_offsets of n > 0 elements in nseg >= 1 segments. */
template <typename T, gpu_op OP>
gpu_status segscan_offsets_op(const T *in, T *out, uint64_t n, const int64_t *offsets, uint64_t nseg,
                              unsigned flags) {
  static const char fn[] = "gpu_segscan_offsets";
  using OffsetRuns = scan_runs_kernel<T, OP, heads_from_offsets<int64_t>>;
  using StagedRuns = scan_runs_kernel<T, OP, heads_from_offsets_staged<int64_t>>;
  const seg_offsets_resident resident{OffsetRuns::resident(), StagedRuns::resident()};
  const seg_plan plan = gp_seg_plan_scan_offsets(n, nseg, sizeof(T), flags, resident);
  if (plan.path == SEG_PATH_TOO_LARGE) return too_large(fn, n);
  cudaStream_t stream = static_cast<cudaStream_t>(gp_stream());
  offsets_table table;
  heads_from_offsets<int64_t> src{};
  gpu_status s = prepare_offsets_source(fn, offsets, nseg, n, seg_shape<T>::tile_items, plan, stream, &table, &src);
  const bool exclusive = flags & GPU_EXCLUSIVE;
  if (s == GPU_OK) {
    if (plan.path == SEG_PATH_RUNS_STAGED)
      s = segscan_runs<T, OP>(fn, in, out, n, exclusive, heads_from_offsets_staged<int64_t>{src}, plan.tiles,
                              plan.grid, stream);
    else if (plan.path == SEG_PATH_RUNS)
      s = segscan_runs<T, OP>(fn, in, out, n, exclusive, src, plan.tiles, plan.grid, stream);
    else
      s = segscan_blocked_planned<T, OP>(fn, in, out, n, flags, src, plan, stream);
  }
  if (s == GPU_OK) s = offsets_verdict(fn, table, stream);
  if (table.tile_first) {
    gpu_status f = gp_pool_free(fn, table.tile_first);
    if (s == GPU_OK) s = f;
  }
  return s;
}

/* One launch of a gpu_segreduce kernel, launch(lb, bad), with what it
 * needs around it: the deferred word for malformed offsets, the look-back
 * state for `grid` blocks (extra_words after it, at *extra; `takes` from
 * its counter), and the verdict after. */
template <typename T, typename Launch>
gpu_status segreduce_launch_checked(const char *fn, cudaStream_t stream, unsigned grid, size_t extra_words,
                                   uint64_t takes, uint64_t **extra, const char *kernel_name, Launch &&launch) {
  offsets_table check;
  gpu_status s = prepare_offsets_check_only(fn, stream, &check);
  lookback_args lb;
  gp_tilestate ts{};
  if (s == GPU_OK) s = prepare_lookback<seg_pair<T>>(fn, grid, extra_words, takes, &lb, &ts, extra);
  if (s == GPU_OK) {
    launch(lb, check.bad);
    s = check_launch(fn, kernel_name);
    gpu_status r = gp_tilestate_release(fn, &ts);
    if (s == GPU_OK) s = r;
  }
  if (s == GPU_OK) s = offsets_verdict(fn, check, stream);
  if (check.tile_first) {
    gpu_status f = gp_pool_free(fn, check.tile_first);
    if (s == GPU_OK) s = f;
  }
  return s;
}

/* gpu_segreduce over nseg >= 1 segments by segreduce_direct or
 * segreduce_warps, as the plan says: n = offsets[nseg], at most n_max (the
 * elements in holds), is known only on the device. */
template <typename T, gpu_op OP>
gpu_status segreduce_op(const T *in, const int64_t *offsets, uint64_t nseg, uint64_t n_max, T *out) {
  static const char fn[] = "gpu_segreduce";
  using Shape = warps_reduce_shape<T>;
  using Results = store_results<T, scan_op<T, OP>>;
  constexpr auto direct = segreduce_direct<T, OP, Results>;
  constexpr auto warps = segreduce_warps<T, OP, Results>;
  static_assert(Shape::threads == SEG_WARPS_THREADS && direct_shape<T>::items == SEG_DIRECT_ITEMS &&
                    Shape::by_index == (sizeof(T) == 4),
                "segmented_plan.c plans for these shapes");
  const seg_reduce_resident resident{resident_blocks<direct>(Shape::threads, Shape::smem),
                                     resident_blocks<warps>(Shape::threads, Shape::smem)};
  const seg_plan plan = gp_seg_plan_reduce(n_max, nseg, sizeof(T), resident);
  if (plan.path == SEG_PATH_TOO_LARGE) return too_large(fn, n_max);
  cudaStream_t stream = static_cast<cudaStream_t>(gp_stream());
  const unsigned grid = plan.grid;
  if (plan.path == SEG_PATH_REDUCE_DIRECT) {
    direct_args da{uint32_t(plan.groups), plan.per, plan.n_direct, nullptr};
    return segreduce_launch_checked<T>(fn, stream, grid, 1, da.groups, &da.heavy, "segreduce_direct",
                                       [&](const lookback_args &lb, unsigned *bad) {
                                         direct<<<grid, Shape::threads, Shape::smem, stream>>>(
                                             in, offsets, nseg, n_max, uint64_t(grid) * Shape::warps, aligned16(in),
                                             lb, bad, Results{out}, da);
                                       });
  }
  return segreduce_launch_checked<T>(fn, stream, grid, 0, plan.takes, nullptr, "segreduce_warps",
                                     [&](const lookback_args &lb, unsigned *bad) {
                                       warps<<<grid, Shape::threads, Shape::smem, stream>>>(
                                           in, offsets, nseg, n_max, plan.grid_warps, aligned16(in), lb, bad,
                                           Results{out});
                                     });
}

/* Calls f(std::integral_constant<gpu_op, OP>) for the operator op, where
 * T supports it. */
template <typename T, gpu_op OP, typename F> gpu_status with_op_case(F &f, bool *supported) {
  if constexpr (op_supported_v<T, OP>) {
    *supported = true;
    return f(std::integral_constant<gpu_op, OP>{});
  } else {
    return GPU_OK;
  }
}
template <typename T, typename F> gpu_status with_op(gpu_op op, F &&f) {
  bool supported = false;
  gpu_status s = GPU_OK;
  switch (op) {
    case GPU_ADD: s = with_op_case<T, GPU_ADD>(f, &supported); break;
    case GPU_MUL: s = with_op_case<T, GPU_MUL>(f, &supported); break;
    case GPU_MIN: s = with_op_case<T, GPU_MIN>(f, &supported); break;
    case GPU_MAX: s = with_op_case<T, GPU_MAX>(f, &supported); break;
    case GPU_AND: s = with_op_case<T, GPU_AND>(f, &supported); break;
    case GPU_OR: s = with_op_case<T, GPU_OR>(f, &supported); break;
    case GPU_XOR: s = with_op_case<T, GPU_XOR>(f, &supported); break;
  }
  if (supported) return s;
  return gp_fail(GPU_ERR_UNSUPPORTED, "segmented: operator %s for this type", gp_op_name(op));
}

/* The three entries of one element type (segmented_cuda.h). */
template <typename T>
gpu_status segscan_heads_type(const void *in, void *out, size_t n, const uint8_t *heads, gpu_op op, unsigned flags) {
  return with_op<T>(op, [&](auto op_tag) {
    return segscan_heads_op<T, decltype(op_tag)::value>(static_cast<const T *>(in), static_cast<T *>(out), n, heads,
                                                        flags);
  });
}
template <typename T>
gpu_status segscan_offsets_type(const void *in, void *out, size_t n, const int64_t *offsets, size_t nseg, gpu_op op,
                                unsigned flags) {
  return with_op<T>(op, [&](auto op_tag) {
    return segscan_offsets_op<T, decltype(op_tag)::value>(static_cast<const T *>(in), static_cast<T *>(out), n,
                                                          offsets, nseg, flags);
  });
}
template <typename T>
gpu_status segreduce_type(const void *in, const int64_t *offsets, size_t nseg, size_t n_max, void *out, gpu_op op) {
  return with_op<T>(op, [&](auto op_tag) {
    return segreduce_op<T, decltype(op_tag)::value>(static_cast<const T *>(in), offsets, nseg, n_max,
                                                    static_cast<T *>(out));
  });
}

}  // namespace gp

/* One element type's entries, gp_segmented_cuda_<suffix> (segmented_cuda.h). */
#define GP_DEFINE_SEGMENTED_CUDA_TYPE(T, SUFFIX)                                                        \
  extern "C" const gp_segmented_cuda_type gp_segmented_cuda_##SUFFIX = {                                \
      gp::segscan_heads_type<T>, gp::segscan_offsets_type<T>, gp::segreduce_type<T>};
