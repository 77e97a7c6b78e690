/*
 * Host-side launch code of the linear recurrences for one element type: the
 * plan (which path, from the shape), the look-back launches (one sequence,
 * contiguous sequences, the backward pass) and the channel path's launches.
 * Included by linrec_cuda_<type>.cu, and by bench/ to force each path.
 */
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "core/core.h"
#include "core/cuda_launch.cuh"
#include "device/linrec_channel_tiles.cuh"
#include "device/linrec_channels.cuh"
#include "device/linrec_sequence_tiles.cuh"
#include "device/linrec_sequence_walk.cuh"
#include "device/linrec_tiles.cuh"
#include "linrec_internal.h"
#include "linrec_tuning.h"
#include "scan/scan_launch.cuh"

namespace gp {

enum class linrec_path {
  lookback,          /* one contiguous sequence, pairs (linrec_tiles, lr_op) */
  lookback_segments, /* contiguous sequences, pairs with start flags (lr_seg_op) */
  channels,          /* a thread per (channel, chunk) (linrec_channels.cuh) */
  channel_tiles,     /* time-major, one pass (linrec_channel_tiles.cuh) */
  sequence_tiles     /* sequence-major, one pass (linrec_sequence_tiles.cuh) */
};

struct linrec_plan {
  linrec_path path;
  uint64_t chunk_steps, chunks; /* channels only */
};

/* The channel path's chunks: enough (channel, chunk) threads to fill the
 * GPU, chunks no shorter than LINREC_CHANNEL_MIN_CHUNK_STEPS. */
inline linrec_plan channel_plan(uint64_t len, uint64_t count) {
  uint64_t chunks = count >= LINREC_CHANNEL_TARGET_THREADS ? 1 : (LINREC_CHANNEL_TARGET_THREADS + count - 1) / count;
  const uint64_t most = len / LINREC_CHANNEL_MIN_CHUNK_STEPS > 1 ? len / LINREC_CHANNEL_MIN_CHUNK_STEPS : 1;
  if (chunks > most) chunks = most;
  const uint64_t steps = (len + chunks - 1) / chunks;
  return linrec_plan{linrec_path::channels, steps, (len + steps - 1) / steps};
}

/* Warps that scan one channel's pairs in channels_carry: enough that each
 * thread's run is at most LINREC_CARRY_RUN pairs, up to a block's 8. */
inline int carry_group_warps(uint64_t pairs) {
  int warps = 1;
  while (warps < CARRY_WARPS && pairs > uint64_t(warps) * WARP * LINREC_CARRY_RUN) warps *= 2;
  return warps;
}

/* Which path a shape runs (linrec_tuning.h's thresholds). */
inline linrec_plan plan_linrec(const gp_linrec_shape &s) {
  const linrec_plan lookback{linrec_path::lookback, 0, 0}, segments{linrec_path::lookback_segments, 0, 0};
  switch (s.layout) {
    case GP_LINREC_SINGLE: return lookback;
    case GP_LINREC_OFFSETS: return segments;
    case GP_LINREC_TIME_MAJOR:
      if (s.count == 1) return lookback;
      if (s.count >= LINREC_TIME_MAJOR_TILES_MIN_COUNT ||
          (s.count >= LINREC_TIME_MAJOR_NARROW_TILES_MIN_COUNT && s.len >= LINREC_TIME_MAJOR_NARROW_TILES_MIN_LEN))
        return linrec_plan{linrec_path::channel_tiles, 0, 0};
      return channel_plan(s.len, s.count);
    case GP_LINREC_SEQ_MAJOR:
      if (s.count == 1) return lookback;
      if (s.len >= LINREC_SEQ_MAJOR_TILES_MIN_LEN) return linrec_plan{linrec_path::sequence_tiles, 0, 0};
      if (s.len <= LINREC_SEQ_MAJOR_CHANNEL_MAX_LEN && s.count >= LINREC_SEQ_MAJOR_CHANNEL_MIN_COUNT)
        return channel_plan(s.len, s.count);
      return segments;
  }
  return lookback;
}

/* One look-back launch: a tile per block over n elements. */
template <typename T, bool REVERSE, typename Op, typename Shape = typename linrec_tuning<sizeof(T)>::tiles,
          typename Source, typename Sink>
gpu_status launch_tiles(const char *fn, const Source &src, const Sink &sink, uint64_t n, cudaStream_t stream) {
  using P = typename Source::pair;
  const uint64_t tiles = (n + Shape::tile_items - 1) / Shape::tile_items;
  if (tiles > 0x7fffffffu) return gp_fail(GPU_ERR_UNSUPPORTED, "%s: n = %llu is too large", fn, (unsigned long long)n);
  lookback_args lb;
  gp_tilestate ts{};
  gpu_status s = prepare_lookback<P>(fn, tiles, 0, tiles > 1 ? tiles : 0, &lb, &ts, nullptr);
  if (s != GPU_OK) return s;
  linrec_tiles<Op, Shape, REVERSE><<<unsigned(tiles), Shape::threads, 0, stream>>>(src, sink, n, lb);
  s = check_launch(fn, "linrec_tiles");
  const gpu_status r = gp_tilestate_release(fn, &ts);
  return s != GPU_OK ? s : r;
}

/* One look-back launch of persistent blocks (linrec_pipelined): as many as
 * are resident at once, at most one per tile; each takes one counter index
 * past the last tile, so the counter is sized for tiles + grid. */
template <typename T, bool REVERSE, typename Op, typename Shape = typename linrec_tuning<sizeof(T)>::pipelined,
          typename Source, typename Sink>
gpu_status launch_pipelined(const char *fn, const Source &src, const Sink &sink, uint64_t n, cudaStream_t stream) {
  using P = typename Source::pair;
  constexpr auto kernel = linrec_pipelined<Op, Shape, REVERSE, Source, Sink>;
  constexpr size_t smem = pipelined_smem<T, Shape, 2>(); /* stages of a and b */
  const uint64_t tiles = (n + Shape::tile_items - 1) / Shape::tile_items;
  if (tiles > 0x7fffffffu) return gp_fail(GPU_ERR_UNSUPPORTED, "%s: n = %llu is too large", fn, (unsigned long long)n);
  gpu_status s = allow_shared_memory<kernel>(fn, Shape::threads, smem);
  if (s != GPU_OK) return s;
  const unsigned resident = resident_blocks<kernel>(Shape::threads, smem);
  const unsigned grid = unsigned(tiles < resident ? tiles : resident);
  lookback_args lb;
  gp_tilestate ts{};
  s = prepare_lookback<P>(fn, tiles, 0, tiles > 1 ? tiles + grid : 0, &lb, &ts, nullptr);
  if (s != GPU_OK) return s;
  kernel<<<grid, Shape::threads, smem, stream>>>(src, sink, n, lb);
  s = check_launch(fn, "linrec_pipelined");
  const gpu_status r = gp_tilestate_release(fn, &ts);
  return s != GPU_OK ? s : r;
}

/* The look-back launch of one sequence (lr_op): the pipelined kernel. */
template <typename T, bool REVERSE, typename Source, typename Sink>
gpu_status launch_lookback(const char *fn, const Source &src, const Sink &sink, uint64_t n, cudaStream_t stream) {
  return launch_pipelined<T, REVERSE, lr_op<T>>(fn, src, sink, n, stream);
}

template <typename T, typename Op, typename Source, typename Sink>
gpu_status launch_tiles_dir(const char *fn, bool reverse, const Source &src, const Sink &sink, uint64_t n,
                            cudaStream_t stream) {
  return reverse ? launch_tiles<T, true, Op>(fn, src, sink, n, stream)
                 : launch_tiles<T, false, Op>(fn, src, sink, n, stream);
}

/* The channel path over a batch in either layout: the forward pass (h
 * from h0), or SHIFTED the backward pass (scan order the forward's
 * reversed; h is db, from 0; grad.da, from grad.h_fwd and grad.edge). */
template <typename T, bool SHIFTED = false>
gpu_status run_channels(const char *fn, const linrec_plan &plan, const T *a, const T *b, T *h, const T *h0,
                        const gp_linrec_shape &s, cudaStream_t stream, backward_gradients<T> grad = {}) {
  const bool time_major = s.layout == GP_LINREC_TIME_MAJOR;
  const channel_layout<T> l{a, b, s.len, s.count, time_major ? 1 : s.len, time_major ? s.count : 1,
                            plan.chunk_steps, plan.chunks, SHIFTED ? !s.reverse : s.reverse};
  constexpr int NT = LINREC_CHANNEL_THREADS, UNROLL = LINREC_CHANNEL_UNROLL;
  const uint64_t blocks = (s.count * plan.chunks + NT - 1) / NT;
  if (blocks > 0x7fffffffu) return gp_fail(GPU_ERR_UNSUPPORTED, "%s: %llu channels are too many", fn,
                                           (unsigned long long)s.count);
  if (plan.chunks == 1) {
    channels_run<UNROLL, SHIFTED><<<unsigned(blocks), NT, 0, stream>>>(l, static_cast<const T *>(nullptr), h0, h,
                                                                       grad);
    return check_launch(fn, "channels_run");
  }
  const size_t per = size_t(s.count) * plan.chunks;
  T *scratch = nullptr;
  gpu_status st = gp_pool_alloc(fn, reinterpret_cast<void **>(&scratch), 3 * per * sizeof(T));
  if (st != GPU_OK) return st;
  T *pair_a = scratch, *pair_b = scratch + per, *carry = scratch + 2 * per;
  const uint64_t fold_blocks = (s.count * (plan.chunks - 1) + NT - 1) / NT;
  channels_fold<UNROLL, SHIFTED><<<unsigned(fold_blocks), NT, 0, stream>>>(l, pair_a, pair_b);
  st = check_launch(fn, "channels_fold");
  if (st == GPU_OK) {
    const int group = carry_group_warps(plan.chunks - 1);
    const uint64_t carry_blocks = (s.count * group + CARRY_WARPS - 1) / CARRY_WARPS;
    channels_carry<UNROLL><<<unsigned(carry_blocks), CARRY_THREADS, 0, stream>>>(s.count, plan.chunks, group, pair_a,
                                                                                pair_b, h0, carry);
    st = check_launch(fn, "channels_carry");
  }
  if (st == GPU_OK) {
    channels_run<UNROLL, SHIFTED><<<unsigned(blocks), NT, 0, stream>>>(l, static_cast<const T *>(carry), h0, h,
                                                                       grad);
    st = check_launch(fn, "channels_run");
  }
  const gpu_status f = gp_pool_free(fn, scratch);
  return st != GPU_OK ? st : f;
}

/* A one-pass batch launch (channel or sequence tiles) of `tiles` tiles:
 * the look-back state for `width` sequences a tile, the tile after a tile
 * in time `stride` tiles later; launch(states, counter, counter_base)
 * starts the kernel. The counter hands out `takes` indices (0: one a
 * tile). */
template <typename T, typename Launch>
gpu_status launch_with_states(const char *fn, const char *kernel, const gp_linrec_shape &s, uint64_t tiles, int width,
                              uint64_t stride, Launch launch, uint64_t takes = 0) {
  if (takes == 0) takes = tiles;
  if (tiles > 0x7fffffffu || takes > 0x7fffffffu)
    return gp_fail(GPU_ERR_UNSUPPORTED, "%s: n = %llu is too large", fn, (unsigned long long)s.n);
  gp_tilestate ts{};
  gpu_status st = gp_tilestate_acquire(fn, state_lookback_words<T>(tiles, width), takes, &ts);
  if (st != GPU_OK) return st;
  launch(state_lookback{ts.words, ts.epoch, stride, stride ? tiles / stride : 0}, ts.counter, ts.counter_base);
  st = check_launch(fn, kernel);
  const gpu_status r = gp_tilestate_release(fn, &ts);
  return st != GPU_OK ? st : r;
}

/* The one-pass channel path over a time-major batch, tiles of Shape,
 * scanning in direction `reverse`. SHIFTED (the backward pass): b is dh, h
 * is db, and grad the forward's h, h0 and da. */
template <typename Shape, bool SHIFTED = false, typename Lookback = radix_lookback, typename T>
gpu_status launch_channel_tiles(const char *fn, const T *a, const T *b, T *h, const T *h0, const gp_linrec_shape &s,
                                bool reverse, cudaStream_t stream, backward_gradients<T> grad = {}) {
  constexpr auto kernel = channels_lookback<Shape, SHIFTED, Lookback, T>;
  const gpu_status st = allow_shared_memory<kernel>(fn, CHANNEL_TILE_THREADS, Shape::staged_bytes);
  if (st != GPU_OK) return st;
  const uint64_t groups = Shape::groups(s.count);
  const uint64_t tiles = groups * ((s.len + Shape::tile_steps - 1) / Shape::tile_steps);
  const bool vector_ok = s.count % Shape::vec == 0 && aligned16(a, b, h, grad.h_fwd, grad.da);
  return launch_with_states<T>(fn, "channels_lookback", s, tiles, Shape::width, groups,
                               [&](state_lookback states, unsigned long long *counter, unsigned long long base) {
                                 const channel_tiles_args<T> p{a,       b,       h,       h0,      s.len,     s.count,
                                                               uint32_t(groups), states, counter, base, reverse,
                                                               vector_ok, grad};
                                 kernel<<<unsigned(tiles), CHANNEL_TILE_THREADS, Shape::staged_bytes, stream>>>(p);
                               });
}

/* The channel tiles at the width and look-back linrec_tuning.h takes for
 * the batch: narrow from LINREC_TIME_MAJOR_NARROW_TILES_MIN_LEN steps, half
 * as wide where the channels fit that (one group: the tree), with the chain
 * of states from LINREC_CHANNEL_CHAIN_MIN_GROUPS groups (the backward pass:
 * LINREC_CHANNEL_CHAIN_MIN_GROUPS_BACKWARD). */
template <bool SHIFTED = false, typename T>
gpu_status launch_channel_tiles_for(const char *fn, const T *a, const T *b, T *h, const T *h0, const gp_linrec_shape &s,
                                    bool reverse, cudaStream_t stream, backward_gradients<T> grad = {}) {
  using narrow = channel_tile_shape<T, LINREC_CHANNEL_TILE_ROW_THREADS, LINREC_CHANNEL_TILE_STEPS>;
  using half = channel_tile_shape<T, LINREC_CHANNEL_TILE_ROW_THREADS / 2, LINREC_CHANNEL_TILE_STEPS>;
  using wide = channel_tile_shape<T, 32, LINREC_CHANNEL_TILE_STEPS>;
  constexpr uint64_t chain_min_groups =
      SHIFTED ? LINREC_CHANNEL_CHAIN_MIN_GROUPS_BACKWARD : LINREC_CHANNEL_CHAIN_MIN_GROUPS;
  if (s.len < LINREC_TIME_MAJOR_NARROW_TILES_MIN_LEN)
    return launch_channel_tiles<wide, SHIFTED>(fn, a, b, h, h0, s, reverse, stream, grad);
  if (s.count <= half::width) return launch_channel_tiles<half, SHIFTED>(fn, a, b, h, h0, s, reverse, stream, grad);
  if (narrow::groups(s.count) >= chain_min_groups)
    return launch_channel_tiles<narrow, SHIFTED, state_chain_lookback>(fn, a, b, h, h0, s, reverse, stream, grad);
  return launch_channel_tiles<narrow, SHIFTED>(fn, a, b, h, h0, s, reverse, stream, grad);
}

/* The one-pass path over a sequence-major batch (a tile of Shape per
 * block), scanning in direction REVERSE; SHIFTED as launch_channel_tiles. */
template <typename T, bool SHIFTED> using sequence_tiles_shape =
    std::conditional_t<SHIFTED, typename linrec_tuning<sizeof(T)>::sequence_tiles_backward,
                       typename linrec_tuning<sizeof(T)>::sequence_tiles>;
template <typename T, bool REVERSE, bool SHIFTED = false, typename Shape = sequence_tiles_shape<T, SHIFTED>,
          typename Lookback = state_chain_lookback>
gpu_status launch_sequence_tiles(const char *fn, const T *a, const T *b, T *h, const T *h0, const gp_linrec_shape &s,
                                 cudaStream_t stream, backward_gradients<T> grad = {}) {
  const uint64_t tiles = s.count * ((s.len + Shape::tile_items - 1) / Shape::tile_items);
  const bool vector_ok = s.len % Shape::vec == 0 && aligned16(a, b, h, grad.h_fwd, grad.da);
  return launch_with_states<T>(fn, "sequences_lookback", s, tiles, 1, s.count,
                               [&](state_lookback states, unsigned long long *counter, unsigned long long base) {
                                 const sequence_tiles_args<T> p{a,       b,    h,         h0,   s.len, s.count,
                                                                states,  counter, base, vector_ok, grad};
                                 sequences_lookback<Shape, REVERSE, SHIFTED, Lookback>
                                     <<<unsigned(tiles), Shape::threads, 0, stream>>>(p);
                               });
}

/* Strands a sequence for the walk in strands of `count` sequences of
 * `tiles` time tiles each, `resident` blocks fitting at once in a
 * cooperative launch (0 where the device has none): as many as fit beside
 * each other, at most LINREC_SEQ_MAJOR_WALK_MAX_STRANDS and no more than
 * the tiles. */
inline uint32_t walk_strands(uint64_t count, uint64_t tiles, unsigned resident) {
  uint64_t strands = count > 0 ? resident / count : 1;
  if (strands > LINREC_SEQ_MAJOR_WALK_MAX_STRANDS) strands = LINREC_SEQ_MAJOR_WALK_MAX_STRANDS;
  if (strands > tiles) strands = tiles;
  return strands > 1 ? uint32_t(strands) : 1u;
}

/* The forward sequence walk (linrec_sequence_walk.cuh) at Shape, a whole
 * sequence a block: as many persistent blocks as are resident at once, at
 * most one per sequence; each takes one counter index past the last
 * sequence (count + grid in all). No look-back words. */
template <typename T, bool REVERSE, typename Shape>
gpu_status launch_sequence_walk(const char *fn, const T *a, const T *b, T *h, const T *h0, const gp_linrec_shape &s,
                                cudaStream_t stream) {
  constexpr auto kernel = sequences_walk<Shape, REVERSE, false, T>;
  constexpr size_t smem = walk_stages<T, Shape, REVERSE>::SHARED_BYTES;
  const gpu_status st = allow_shared_memory<kernel>(fn, Shape::threads, smem);
  if (st != GPU_OK) return st;
  const unsigned resident = resident_blocks<kernel>(Shape::threads, smem);
  const unsigned grid = unsigned(s.count < resident ? s.count : resident);
  const bool vector_ok = s.len % Shape::vec == 0 && aligned16(a, b, h);
  return launch_with_states<T>(fn, "sequences_walk", s, s.count + grid, 0, 0,
                               [&](state_lookback states, unsigned long long *counter, unsigned long long base) {
                                 const sequence_tiles_args<T> p{a,       b,    h,         h0,   s.len, s.count,
                                                                states,  counter, base, vector_ok, {}};
                                 kernel<<<grid, Shape::threads, smem, stream>>>(p, 1);
                               });
}

/* The walk in strands at Shape (walk_strands a sequence, the STRANDS
 * kernel), launched cooperatively; the sequence tiles where one strand
 * fits (or the device has no cooperative launch). A block a strand, each
 * taking one counter index past the last strand (2 x strands x count in
 * all); look-back words for every tile's aggregate. */
template <typename T, bool REVERSE, typename Shape>
gpu_status launch_sequence_strands(const char *fn, const T *a, const T *b, T *h, const T *h0,
                                   const gp_linrec_shape &s, cudaStream_t stream) {
  constexpr auto kernel = sequences_walk<Shape, REVERSE, true, T>;
  constexpr size_t smem = walk_stages<T, Shape, REVERSE>::SHARED_BYTES;
  const gpu_status st = allow_shared_memory<kernel>(fn, Shape::threads, smem);
  if (st != GPU_OK) return st;
  const uint64_t tiles = (s.len + Shape::tile_items - 1) / Shape::tile_items;
  const uint32_t strands = walk_strands(s.count, tiles, cooperative_blocks<kernel>(Shape::threads, smem));
  if (strands == 1) return launch_sequence_tiles<T, REVERSE>(fn, a, b, h, h0, s, stream);
  const uint64_t walks = s.count * strands; /* at most the resident blocks: walk_strands */
  const bool vector_ok = s.len % Shape::vec == 0 && aligned16(a, b, h);
  return launch_with_states<T>(
      fn, "sequences_walk", s, s.count * tiles, 1, 1,
      [&](state_lookback states, unsigned long long *counter, unsigned long long base) {
        sequence_tiles_args<T> p{a, b, h, h0, s.len, s.count, states, counter, base, vector_ok, {}};
        uint32_t strands_arg = strands;
        void *args[] = {&p, &strands_arg};
        /* Cooperative: the grid starts only where all its blocks fit at
         * once, so a strand never spins on a peer that has not started
         * (a failure is the launch's error, read by check_launch). */
        cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(kernel), dim3(unsigned(walks)),
                                    dim3(Shape::threads), args, smem, stream);
      },
      walks + walks);
}

/* The forward pass of a sequence-major batch from LINREC_SEQ_MAJOR_TILES_MIN_LEN
 * steps: the f32 walk where sequences are many enough (linrec_tuning.h),
 * in strands where they are fewer than LINREC_SEQ_MAJOR_WALK_MIN_COUNT and
 * long, else the sequence tiles. */
template <typename T, bool REVERSE>
gpu_status launch_sequence_tiles_forward(const char *fn, const T *a, const T *b, T *h, const T *h0,
                                         const gp_linrec_shape &s, cudaStream_t stream) {
  if constexpr (sizeof(T) == 4) {
    using walk = typename linrec_tuning<4>::sequence_walk;
    using walk_long = typename linrec_tuning<4>::sequence_walk_long;
    if (s.count >= LINREC_SEQ_MAJOR_WALK_MANY_COUNT ||
        (s.count >= LINREC_SEQ_MAJOR_WALK_MIN_COUNT && s.len < walk_long::tile_items))
      return launch_sequence_walk<T, REVERSE, walk>(fn, a, b, h, h0, s, stream);
    if (s.count >= LINREC_SEQ_MAJOR_WALK_MIN_COUNT)
      return launch_sequence_walk<T, REVERSE, walk_long>(fn, a, b, h, h0, s, stream);
    if (s.count >= LINREC_SEQ_MAJOR_STRANDS_WIDE_COUNT && s.len >= LINREC_SEQ_MAJOR_STRANDS_MIN_LEN)
      return launch_sequence_strands<T, REVERSE, walk>(fn, a, b, h, h0, s, stream);
    if (s.count >= LINREC_SEQ_MAJOR_STRANDS_MIN_COUNT && s.len >= LINREC_SEQ_MAJOR_STRANDS_MIN_LEN)
      return launch_sequence_strands<T, REVERSE, walk_long>(fn, a, b, h, h0, s, stream);
  }
  return launch_sequence_tiles<T, REVERSE>(fn, a, b, h, h0, s, stream);
}

/* The forward pass along a given plan (the library's from plan_linrec;
 * bench/ forces others). A plan the shape cannot take is UNSUPPORTED. */
template <typename T>
gpu_status linrec_run(const linrec_plan &plan, const T *a, const T *b, T *h, const gp_linrec_shape &s,
                      cudaStream_t stream) {
  static const char fn[] = "gpu_linrec";
  const bool vector_ok = aligned16(a) && aligned16(b) && aligned16(h);
  const T *h0_dev = s.layout == GP_LINREC_SINGLE ? nullptr : static_cast<const T *>(s.h0);
  const bool one_sequence = s.layout == GP_LINREC_SINGLE || (s.layout != GP_LINREC_OFFSETS && s.count == 1);
  const store_h<T> sink{h, vector_ok};
  switch (plan.path) {
    case linrec_path::lookback: {
      if (!one_sequence) break;
      T h0_value = T(0);
      if (s.layout == GP_LINREC_SINGLE && s.h0) h0_value = *static_cast<const T *>(s.h0);
      const single_source<T> src{a, b, initial_state<T>{h0_dev, h0_value}, s.n, vector_ok};
      return s.reverse ? launch_lookback<T, true>(fn, src, sink, s.n, stream)
                       : launch_lookback<T, false>(fn, src, sink, s.n, stream);
    }
    case linrec_path::lookback_segments:
      if (s.layout == GP_LINREC_OFFSETS) {
        const segments_source<T, offset_segments> src{a, b, h0_dev, offset_segments{s.offsets, s.count}, vector_ok};
        return launch_tiles_dir<T, lr_seg_op<T>>(fn, s.reverse, src, sink, s.n, stream);
      }
      if (s.layout != GP_LINREC_SEQ_MAJOR) break;
      {
        const segments_source<T, batch_segments> src{a, b, h0_dev, batch_segments{s.len}, vector_ok};
        return launch_tiles_dir<T, lr_seg_op<T>>(fn, s.reverse, src, sink, s.n, stream);
      }
    case linrec_path::channels:
      if (s.layout != GP_LINREC_TIME_MAJOR && s.layout != GP_LINREC_SEQ_MAJOR) break;
      return run_channels<T>(fn, plan, a, b, h, h0_dev, s, stream);
    case linrec_path::channel_tiles:
      if (s.layout != GP_LINREC_TIME_MAJOR) break;
      return launch_channel_tiles_for(fn, a, b, h, h0_dev, s, s.reverse, stream);
    case linrec_path::sequence_tiles:
      if (s.layout != GP_LINREC_SEQ_MAJOR) break;
      return s.reverse ? launch_sequence_tiles_forward<T, true>(fn, a, b, h, h0_dev, s, stream)
                       : launch_sequence_tiles_forward<T, false>(fn, a, b, h, h0_dev, s, stream);
  }
  return gp_fail(GPU_ERR_UNSUPPORTED, "%s: this path does not take this shape", fn);
}

/* The backward pass of one sequence: a look-back scan opposite to the
 * forward's. h0 is a host pointer to one element, or NULL. */
template <typename T>
gpu_status linrec_backward(const T *a, const T *h, const T *dh, T *da, T *db, uint64_t n, const T *h0, bool reverse,
                           cudaStream_t stream) {
  static const char fn[] = "gpu_linrec_backward";
  const bool vector_ok = aligned16(a) && aligned16(h) && aligned16(dh) && aligned16(da) && aligned16(db);
  const shifted_source<T> src{a, dh, n, vector_ok};
  const T h0_value = h0 ? *h0 : T(0);
  if (reverse) {
    const store_gradients<T, true> sink{da, db, h, h0_value, n, vector_ok};
    return launch_lookback<T, false>(fn, src, sink, n, stream);
  }
  const store_gradients<T, false> sink{da, db, h, h0_value, n, vector_ok};
  return launch_lookback<T, true>(fn, src, sink, n, stream);
}

/* The backward pass of a batch (h0: count states in device memory, or
 * NULL) along a plan: the forward's path for the shape (plan_linrec; bench/
 * forces others), run SHIFTED and scanning opposite to the forward. The
 * look-back plans (one channel, which is one contiguous sequence, or
 * sequence-major sequences with start flags) run the look-back over start
 * flags. */
template <typename T>
gpu_status linrec_backward_run(const linrec_plan &plan, const T *a, const T *h, const T *dh, T *da, T *db,
                               const gp_linrec_shape &s, cudaStream_t stream) {
  static const char fn[] = "gpu_linrec_backward_batch";
  const T *h0 = static_cast<const T *>(s.h0);
  const backward_gradients<T> grad{h, h0, da};
  switch (plan.path) {
    case linrec_path::channels: return run_channels<T, true>(fn, plan, a, dh, db, nullptr, s, stream, grad);
    case linrec_path::channel_tiles:
      if (s.layout != GP_LINREC_TIME_MAJOR) break;
      return launch_channel_tiles_for<true>(fn, a, dh, db, static_cast<const T *>(nullptr), s, !s.reverse, stream,
                                            grad);
    case linrec_path::sequence_tiles:
      if (s.layout != GP_LINREC_SEQ_MAJOR) break;
      return s.reverse ? launch_sequence_tiles<T, false, true>(fn, a, dh, db, nullptr, s, stream, grad)
                       : launch_sequence_tiles<T, true, true>(fn, a, dh, db, nullptr, s, stream, grad);
    case linrec_path::lookback:
    case linrec_path::lookback_segments: {
      if (s.layout == GP_LINREC_TIME_MAJOR && s.count > 1) break;
      const bool vector_ok = aligned16(a, h, dh, da, db);
      const batch_shifted_source<T> src{shifted_source<T>{a, dh, s.n, vector_ok}, s.len, vector_ok};
      using Op = lr_seg_op<T>;
      if (s.reverse) {
        const store_gradients_batch<T, true> sink{da, db, h, h0, s.len, vector_ok};
        return launch_tiles<T, false, Op>(fn, src, sink, s.n, stream);
      }
      const store_gradients_batch<T, false> sink{da, db, h, h0, s.len, vector_ok};
      return launch_tiles<T, true, Op>(fn, src, sink, s.n, stream);
    }
  }
  return gp_fail(GPU_ERR_UNSUPPORTED, "%s: this path does not take this shape", fn);
}

}  // namespace gp

/* One element type's entry points, named gp_linrec_cuda_<suffix> and
 * gp_linrec_backward_cuda_<suffix>. */
#define GP_DEFINE_LINREC_CUDA_TYPE(T, SUFFIX)                                                                    \
  extern "C" gpu_status gp_linrec_cuda_##SUFFIX(const void *a, const void *b, void *h,                         \
                                                const gp_linrec_shape *shape) {                                \
    return gp::linrec_run<T>(gp::plan_linrec(*shape), static_cast<const T *>(a), static_cast<const T *>(b),   \
                             static_cast<T *>(h), *shape, static_cast<cudaStream_t>(gp_stream()));            \
  }                                                                                                            \
  extern "C" gpu_status gp_linrec_backward_cuda_##SUFFIX(const void *a, const void *h, const void *dh, void *da, \
                                                         void *db, const gp_linrec_shape *shape) {             \
    const cudaStream_t stream = static_cast<cudaStream_t>(gp_stream());                                       \
    const T *ta = static_cast<const T *>(a), *th = static_cast<const T *>(h), *tdh = static_cast<const T *>(dh); \
    T *tda = static_cast<T *>(da), *tdb = static_cast<T *>(db);                                                 \
    if (shape->layout == GP_LINREC_SINGLE)                                                                     \
      return gp::linrec_backward<T>(ta, th, tdh, tda, tdb, shape->n, static_cast<const T *>(shape->h0),        \
                                    shape->reverse, stream);                                                   \
    return gp::linrec_backward_run<T>(gp::plan_linrec(*shape), ta, th, tdh, tda, tdb, *shape, stream);         \
  }
