/*
 * Host-side launch code of segmented scan and reduce for one element type:
 * the grid, the look-back state (of pairs), for offsets the tile_first[]
 * table and the check of the offsets. Included by segscan_cuda_<type>.cu.
 */
#pragma once

#include "device/segscan_blocked.cuh"
#include "device/seg_runs.cuh"
#include "device/segreduce_direct.cuh"
#include "device/segreduce_warps.cuh"
#include "scan/scan_launch.cuh"
#include "segmented_cuda.h"
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
  static unsigned grid(uint64_t tiles) {
    const unsigned resident = resident_blocks<kernel>(Shape::threads, smem);
    return unsigned(tiles < resident ? tiles : resident);
  }
};

/* One launch of seg_runs on `grid` blocks, K::grid(tiles) (REDUCE: out
 * and exclusive unused). */
template <typename T, gpu_op OP, typename Source, bool REDUCE, typename Values, typename Epilogue, typename Shape>
gpu_status seg_runs_launch(const char *fn, const T *in, T *out, uint64_t n, bool exclusive, bool vector_ok,
                           const Source &src, uint64_t tiles, unsigned grid, cudaStream_t stream, const Values &values,
                           const Epilogue &epilogue) {
  using K = seg_runs_kernel<T, OP, Source, REDUCE, Values, Epilogue, Shape>;
  if (tiles == 0) return GPU_OK;
  /* Whoever chose the grid (K::grid or not), the kernel gets its shared memory. */
  gpu_status s = allow_shared_memory<K::kernel>(fn, Shape::threads, K::smem);
  if (s != GPU_OK) return s;
  lookback_args lb;
  gp_tilestate ts{};
  /* Each block takes one ticket for its run. */
  s = prepare_lookback<seg_pair<T>>(fn, grid, 0, grid > 1 ? grid : 0, &lb, &ts, nullptr);
  if (s != GPU_OK) return s;
  K::kernel<<<grid, Shape::threads, K::smem, stream>>>(in, out, n, uint32_t(tiles), exclusive, vector_ok, lb, src,
                                                       values, epilogue);
  s = check_launch(fn, "seg_runs");
  gpu_status r = gp_tilestate_release(fn, &ts);
  return s != GPU_OK ? s : r;
}

/* Segmented reduce over offsets by runs of tiles (SpMV's products). */
template <typename T, gpu_op OP, typename Offset, typename Values, typename Epilogue, typename Shape = seg_shape<T>>
gpu_status segreduce_launch(const char *fn, const T *in, uint64_t n, bool vector_ok,
                            const heads_from_offsets<Offset> &src, uint64_t tiles, cudaStream_t stream,
                            const Values &values, const Epilogue &epilogue) {
  using K = seg_runs_kernel<T, OP, heads_from_offsets<Offset>, true, Values, Epilogue, Shape>;
  return seg_runs_launch<T, OP, heads_from_offsets<Offset>, true, Values, Epilogue, Shape>(
      fn, in, nullptr, n, false, vector_ok, src, tiles, K::grid(tiles), stream, values, epilogue);
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

/* Scans of at most SEG_SMALL_N_4 4-byte elements (SEG_SMALL_N_8 8-byte
 * ones) take smaller tiles (seg_small_shape, SpMV's: 2048 elements) than
 * the large ones: at 2^16 the large tiles put the scan on 8 blocks of 132
 * SMs, each tile's chain (ticket, search, offsets, loads, look-back) over
 * 32 KiB; small tiles, 32 blocks over a quarter of that. Not over a table
 * of tile_first[] (built for the large tiles): at these sizes the tiles
 * search their own segments (SEG_SEARCH_TILES). */
template <typename Source> bool reads_table(const Source &src) {
  if constexpr (offsets_source<Source>) return src.tile_first != nullptr;
  else return false;
}

template <typename T, gpu_op OP, typename Source>
gpu_status segscan_dir(const char *fn, const T *in, T *out, uint64_t n, unsigned flags, const Source &src,
                       cudaStream_t stream) {
  constexpr uint64_t small_n = sizeof(T) == 4 ? uint64_t(SEG_SMALL_N_4) : uint64_t(SEG_SMALL_N_8);
  if (n <= small_n && !reads_table(src))
    return segscan_dir_shaped<T, OP, Source, seg_small_shape<sizeof(T)>>(fn, in, out, n, flags, src, stream);
  return segscan_dir_shaped<T, OP, Source, seg_shape<T>>(fn, in, out, n, flags, src, stream);
}

/*
 * Whether a forward scan runs seg_runs rather than segscan_blocked (one
 * tile a block): where a block's run holds two tiles or more (on the H200
 * at 2^20, runs of one tile, seg_runs was slower: 0.55 against 0.63 of a
 * copy by flags, 0.44 against 0.46 by offsets; at 2^24 faster: 0.72
 * against 0.57, 0.61 against 0.47), and over offsets where the mean
 * segment is at most a quarter of a run: the lead segment's outputs are
 * written twice (seg_runs.cuh). By flags the segments are not known
 * beforehand: segments longer than a run cost that everywhere.
 */
/* seg_runs' grid where its runs pay, else 0 (nseg: 0 by flags). */
template <typename K> unsigned runs_grid(uint64_t tiles, uint64_t n, uint64_t nseg) {
  const unsigned grid = K::grid(tiles);
  if (tiles < 2 * uint64_t(grid)) return 0;
  return nseg == 0 || n / nseg <= tiles / grid * K::tile_items / 4 ? grid : 0;
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

/* A forward scan over offsets by seg_runs: 8-byte elements with short
 * segments (src.check_windows) take the instance with offset stages, and
 * so do 4-byte ones that walk (src.walk_window; segmented_op). Scans of
 * 8-byte elements with longer segments keep plain loads of their offsets,
 * which are faster for them. */
template <typename T, gpu_op OP>
gpu_status segscan_offsets_runs(const char *fn, const T *in, T *out, uint64_t n, bool exclusive,
                                const heads_from_offsets<int64_t> &src, uint64_t tiles, unsigned grid,
                                cudaStream_t stream) {
  constexpr bool staged_8 = sizeof(T) == 8;
  if constexpr (staged_8 || runs_walk_4<T>) {
    if (staged_8 ? src.check_windows : src.walk_window != 0) {
      using Results = store_results<T, scan_op<T, OP>>;
      using Staged = seg_runs_kernel<T, OP, heads_from_offsets_staged<int64_t>, false, plain_values, Results,
                                     seg_shape<T>>;
      /* 8-byte: its own resident grid; 4-byte: the grid asked for (the
       * same residency as the other instance, or runs of two). */
      return segscan_runs<T, OP>(fn, in, out, n, exclusive, heads_from_offsets_staged<int64_t>{src}, tiles,
                                 staged_8 ? Staged::grid(tiles) : grid, stream);
    }
  }
  return segscan_runs<T, OP>(fn, in, out, n, exclusive, src, tiles, grid, stream);
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

/* Whether gpu_segreduce over nseg segments runs segreduce_direct on its
 * resident grid of `grid` blocks (a quarter of them helpers), and with
 * what arguments. */
template <typename T> bool plan_direct(uint64_t nseg, unsigned grid, direct_args *da) {
  using D = direct_shape<T>;
  const unsigned helpers = grid / 4 > 0 ? grid / 4 : 1;
  if (grid <= helpers || nseg < SEG_DIRECT_MIN_SEGMENTS) return false;
  *da = direct_args{};
  da->groups = grid - helpers;
  da->per = (nseg + da->groups - 1) / da->groups;
  da->n_direct = uint64_t(da->groups) * D::n_direct_per_group;
  return da->per <= D::max_group;
}

/* gpu_segreduce by segreduce_direct where plan_direct says so, else by
 * segreduce_warps: n = offsets[nseg], at most n_max (the elements in
 * holds), is known only on the device. segreduce_warps' grid: the resident
 * blocks, fewer where n_max needs fewer; the chunks are cut for the
 * resident grid's warps whatever the launch, so results depend on n only. */
template <typename T, gpu_op OP>
gpu_status segreduce_by_warps(const char *fn, const T *in, const int64_t *offsets, uint64_t nseg, uint64_t n_max,
                              T *out, cudaStream_t stream) {
  using S = warps_reduce_shape<T>;
  using Results = store_results<T, scan_op<T, OP>>;
  {
    constexpr auto direct = segreduce_direct<T, OP, Results>;
    const unsigned grid = resident_blocks<direct>(S::threads, S::smem);
    direct_args da;
    if (plan_direct<T>(nseg, grid, &da))
      return segreduce_launch_checked<T>(fn, stream, grid, 1, da.groups, &da.heavy, "segreduce_direct",
                                         [&](const lookback_args &lb, unsigned *bad) {
                                           direct<<<grid, S::threads, S::smem, stream>>>(
                                               in, offsets, nseg, n_max, uint64_t(grid) * S::warps, aligned16(in),
                                               lb, bad, Results{out}, da);
                                         });
  }
  constexpr auto kernel = segreduce_warps<T, OP, Results>;
  const unsigned resident = resident_blocks<kernel>(S::threads, S::smem);
  const uint64_t steps = (n_max + S::step - 1) / S::step;
  const uint64_t needed = (steps + S::warps - 1) / S::warps;
  const unsigned grid = unsigned(needed == 0 ? 1 : needed < resident ? needed : resident);
  const uint64_t grid_warps = uint64_t(resident) * S::warps;
  const uint64_t takes = !S::by_index && grid > 1 ? grid : 0;
  return segreduce_launch_checked<T>(fn, stream, grid, 0, takes, nullptr, "segreduce_warps",
                                     [&](const lookback_args &lb, unsigned *bad) {
                                       kernel<<<grid, S::threads, S::smem, stream>>>(
                                           in, offsets, nseg, n_max, grid_warps, aligned16(in), lb, bad,
                                           Results{out});
                                     });
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
  using Results = store_results<T, scan_op<T, OP>>;
  using FlagRuns = seg_runs_kernel<T, OP, heads_from_flags, false, plain_values, Results, Shape>;
  using OffsetRuns = seg_runs_kernel<T, OP, heads_from_offsets<int64_t>, false, plain_values, Results, Shape>;
  if (reduce) return segreduce_by_warps<T, OP>(fn, in, offsets, nseg, n, out, stream);
  const bool forward = !(flags & GPU_REVERSE), exclusive = flags & GPU_EXCLUSIVE;
  if (heads) {
    const unsigned grid = forward ? runs_grid<FlagRuns>(tiles, n, 0) : 0;
    if (grid) return segscan_runs<T, OP>(fn, in, out, n, exclusive, heads_from_flags{heads}, tiles, grid, stream);
    return segscan_dir<T, OP, heads_from_flags>(fn, in, out, n, flags, heads_from_flags{heads}, stream);
  }
  /* A scan of one tile a block over few tiles finds each tile's segments
   * itself: no table, no launch for it. */
  unsigned grid = forward && !reduce ? runs_grid<OffsetRuns>(tiles, n, nseg) : 0;
  /* Runs that walk the offsets (the instance with offset stages,
   * segscan_offsets_runs): no table, and the scan checks every offset
   * (seg_runs.cuh). 8-byte elements with short segments;
   * 4-byte elements in runs of at most SEG_RUNS_WALK_RUNS_4 tiles (longer
   * runs lose more to the walk's spills than the table costs; at 2^24 on
   * the H200, 8 tiles a run: segments of 4 0.97x -> 1.03-1.04x CUB, of 64
   * and 4096 +2-5%; session 18, call 3). A tile's window: its mean count
   * of segments, a quarter more and 64 (random lengths of mean 4 stray by
   * about 45 from their 2048 a tile), at most a stage; a tile with more
   * searches past it. Segments so dense that the window would leave less
   * than an eighth to spare keep the table. */
  const uint64_t tile_segments_mean = nseg / (tiles ? tiles : 1) + 1;
  const bool window_fits = tile_segments_mean + tile_segments_mean / 8 + 64 <= uint64_t(RUNS_OFFSETS);
  /* 4-byte scans with more tiles than resident blocks but too few for runs
   * of two on all of them (2^22 elements on the H200) walk runs of two
   * tiles where the mean segment is at most an eighth of a tile: one wave
   * of blocks, where one tile a block takes two. On
   * the H200 at 2^22 (session 18, call 3): segments of 4 0.92x -> 1.01x
   * CUB (f32 0.94x -> 1.04x), of 64 1.17x -> 1.20x; of 4096 (half a tile)
   * it was slower, 1.27x -> 1.19x: they keep one tile a block. */
  if (runs_walk_4<T> && forward && !reduce && grid == 0 &&
      window_fits && n / (nseg ? nseg : 1) <= Shape::tile_items / 8) {
    const uint64_t resident = OffsetRuns::grid(tiles); /* a host query: only for these candidates */
    if (tiles > resident && tiles < 2 * resident) grid = unsigned((tiles + 1) / 2);
  }
  const bool search = !reduce && grid == 0 && tiles <= SEG_SEARCH_TILES;
  /* Short segments by runs: the run's tiles check the offsets (seg_runs.cuh). */
  const bool short_segments = grid && n <= nseg * uint64_t(SEG_RUNS_CHECK_MEAN);
  const bool walk = window_fits && ((sizeof(T) == 8 && short_segments) ||
                                    (runs_walk_4<T> && grid && tiles <= uint64_t(SEG_RUNS_WALK_RUNS_4) * grid));
  const bool check_windows = short_segments || walk;
  /* 4-byte scans by longer runs over long segments: each block writes its
   * run's entries of the table and checks the offsets it spans
   * (runs_own_table, seg_runs.cuh), no launch for it. */
  const bool own_table =
      runs_own_table<T> && grid && !check_windows && tiles <= uint64_t(RUNS_TABLE_MAX) * grid;
  const bool no_table = search || walk;
  offsets_table table;
  gpu_status s = no_table    ? prepare_offsets_check_only(fn, stream, &table)
                 : own_table ? prepare_offsets_table(fn, tiles, stream, GP_DEFERRED_OFFSETS, false, &table)
                             : build_offsets_table(fn, offsets, nseg, n, Shape::tile_items, tiles, stream,
                                                   GP_DEFERRED_OFFSETS, false, &table, !check_windows);
  heads_from_offsets<int64_t> src{offsets, nseg, no_table ? nullptr : table.tile_first, table.bad, check_windows};
  src.own_table = own_table;
  if (walk) {
    const uint64_t window = tile_segments_mean + tile_segments_mean / 4 + 64;
    src.walk_window = uint32_t(window < uint64_t(RUNS_OFFSETS) ? window : uint64_t(RUNS_OFFSETS));
  }
  if (s == GPU_OK && n == 0 && reduce && nseg > 0) {
    const uint64_t blocks = (nseg + 255) / 256;
    fill_value<T><<<unsigned(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(out, nseg, scan_op<T, OP>::identity());
    s = check_launch(fn, "fill_value");
  }
  if (s == GPU_OK && n > 0) {
    if (reduce)
      s = segreduce_launch<T, OP, int64_t>(fn, in, n, aligned16(in), src, tiles, stream, plain_values{}, Results{out});
    else if (grid)
      s = segscan_offsets_runs<T, OP>(fn, in, out, n, exclusive, src, tiles, grid, stream);
    else
      s = segscan_dir<T, OP, heads_from_offsets<int64_t>>(fn, in, out, n, flags, src, stream);
  }
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
