/*
 * Bulk copies of whole tiles into shared-memory stages (cp.async.bulk,
 * Hopper's copy engine), so a persistent block can have its next tiles in
 * flight while it works on earlier ones (scan_tile.cuh says why and how);
 * and each thread's own asynchronous copies (cp.async), for data that
 * lands in shared memory in another order than it lies in global memory
 * (sort's values at their ranks, segmented tiles at their swizzled places).
 *
 * Each stage has an mbarrier that thread 0 arms with the copy's byte count;
 * the copy engine completes it; all threads wait on its phase parity.
 *
 * On top of the copies: the three-stage pipeline of persistent blocks
 * (run_tile_stages), which the scan (scan_pipelined) and compaction
 * (compact_tiles) share.
 *
 * The instructions are written as PTX (the same ones cuda::ptx emits) so
 * that these headers also compile under NVRTC without the toolkit's
 * libcu++ headers (compaction's run-time compiled formulas include them).
 */
#pragma once

#include <cstdint>

#include "scan/device/tile_io.cuh"

namespace gp {

__device__ inline uint32_t shared_address(const void *p) { return uint32_t(__cvta_generic_to_shared(p)); }

template <int STAGES> struct stage_barriers {
  uint64_t bar[STAGES];
};

/* Thread 0, once per block before the first copy (then __syncthreads). */
template <int STAGES> __device__ inline void init_stage_barriers(stage_barriers<STAGES> &b) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; s++)
      asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(shared_address(&b.bar[s])), "r"(1) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
}

/* Thread 0: copy `bytes` (a multiple of 16, 16-byte aligned both sides) into
 * a stage. The fence orders the block's earlier reads of that stage (made
 * visible to thread 0 by a barrier) before the copy engine overwrites it. */
__device__ inline void bulk_load(void *stage, const void *src, uint32_t bytes, uint64_t *bar) {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
               "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(stage)),
               "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
}

/* Thread 0: K copies of `bytes` each (multiples of 16, 16-byte aligned both
 * sides) into consecutive parts of a stage, completing one mbarrier phase:
 * the barrier expects all K * bytes at once, so waiters see every copy. */
template <int K>
__device__ inline void bulk_load_parts(void *stage, const void *const (&src)[K], uint32_t bytes, uint64_t *bar) {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
               "r"(K * bytes)
               : "memory");
#pragma unroll
  for (int k = 0; k < K; k++)
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     shared_address(static_cast<unsigned char *>(stage) + k * bytes)),
                 "l"(src[k]), "r"(bytes), "r"(shared_address(bar))
                 : "memory");
}

/* Each thread that wrote a stage with ordinary stores, before the barrier
 * after which a bulk copy may overwrite it: orders its writes before the
 * copy engine's (generic proxy before async proxy, PTX memory model). */
__device__ inline void stage_written_by_threads() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

/* cp.async of one 4-, 8- or 16-byte element from global to shared memory
 * (16 bytes bypass L1: .cg; smaller ones can only go through it: .ca).
 * copy_async_commit closes the thread's group of copies since the last;
 * copy_async_wait<N> waits until at most the N newest of the thread's
 * groups are in flight (the others' data is then visible to this thread;
 * to other threads after a barrier or __syncwarp that follows). Before
 * sm_80: a plain load and store. */
template <typename E> __device__ __forceinline__ void copy_async(E *shared_dst, const E *global_src) {
  static_assert(sizeof(E) == 4 || sizeof(E) == 8 || sizeof(E) == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof(E) == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address(shared_dst)),
                 "l"(__cvta_generic_to_global(global_src))
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(shared_address(shared_dst)),
                 "l"(__cvta_generic_to_global(global_src)), "n"(int(sizeof(E)))
                 : "memory"); /* stays between the barriers around it */
#else
  *shared_dst = *global_src;
#endif
}
__device__ __forceinline__ void copy_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
template <int PENDING = 0> __device__ __forceinline__ void copy_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory");
#endif
}

/* All threads: wait until the stage's copy with this phase parity landed. */
__device__ inline void bulk_wait(uint64_t *bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done)
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.b32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity)
        : "memory");
}

/* Which physical tile is taken t-th, where it starts and how much of it exists. */
template <typename Shape, bool REVERSE> struct tile_place {
  uint64_t base;
  uint32_t valid;
  __device__ tile_place(uint32_t tile, uint32_t tiles, uint64_t n) {
    const uint32_t ptile = REVERSE ? tiles - 1 - tile : tile;
    base = uint64_t(ptile) * Shape::tile_items;
    valid = uint32_t(min(n - base, uint64_t(Shape::tile_items)));
  }
};

/* Where a launch's tiles come from: an atomic counter handing out tile
 * indices in launch order (lookback_args has the same three). */
struct tile_counter {
  unsigned long long *counter;
  unsigned long long base; /* the counter's value before the launch */
  uint32_t tiles;
};

/* The arrays a pipeline copies tile by tile: K of T, the same length. */
template <typename T, int K> struct tile_inputs {
  const T *array[K];
};

/*
 * Persistent blocks that keep three tiles in three shared-memory stages:
 *
 *   cur    landed one step ago; now: finish it (look-back, output)
 *   next   data landing; now: land it (fold or rank it, publish its aggregate)
 *   after  bulk copy just started
 *
 * A block holding one tile per step waits idle for its predecessors'
 * aggregates (measured: a third of the time). Here aggregates are
 * published at load time, never behind another tile's wait, so by the time
 * a block finishes `cur` its predecessors' aggregates are usually there,
 * and a copy is always in flight. `begin` starts the look-back reads for
 * `cur` first thing in the step, so their round trip overlaps the wait for
 * `next`'s data. Every tile's published aggregate depends on nothing but
 * its data, so the wait for a prefix always ends. Full tiles of a
 * 16-byte-aligned input come by bulk copy; the partial tile and unaligned
 * inputs are read directly.
 *
 * K input arrays (the linear recurrence's a and b): a stage holds the
 * tile of each, one after the other, and its copies complete one mbarrier
 * phase together. K = 1 is the scan's and compaction's single input.
 */
template <typename T, typename Shape, bool REVERSE, int K = 1> struct tile_stages {
  static constexpr int STAGES = 3;
  static constexpr uint32_t TILE_BYTES = Shape::tile_items * sizeof(T);
  static constexpr uint32_t STAGE_BYTES = K * TILE_BYTES;
  static constexpr uint32_t SHARED_BYTES = STAGES * STAGE_BYTES; /* the launch's dynamic shared memory */
  unsigned char *mem; /* STAGES * STAGE_BYTES of dynamic shared memory */
  stage_barriers<STAGES> &bars;
  uint32_t *tile_of;  /* shared: the tile each stage holds, `tiles` for none */
  tile_inputs<T, K> in;
  uint64_t n;
  tile_counter source;
  bool vector_ok;     /* every input is 16-byte aligned */
  int warp, lane;
  bool exhausted;     /* thread 0: it took an index past the last */
  uint32_t parity;    /* bit s: the phase parity stage s's next copy completes */

  /* Input k's tile in stage s. */
  __device__ T *stage(int s, int k = 0) const {
    return reinterpret_cast<T *>(mem + s * STAGE_BYTES + k * TILE_BYTES);
  }
  __device__ tile_place<Shape, REVERSE> place(uint32_t tile) const { return {tile, source.tiles, n}; }
  __device__ bool by_copy(uint32_t tile) const {
    return vector_ok && place(tile).valid == uint32_t(Shape::tile_items);
  }

  /* Thread 0 takes a tile into stage s and starts its copies; once it has
   * taken one past the last it takes no more: each block takes exactly one
   * such index (the host counts on it). */
  __device__ void take_into(int s) {
    uint32_t t = source.tiles;
    if (!exhausted) {
      t = source.tiles == 1
              ? 0u
              : uint32_t(min(uint64_t(atomicAdd(source.counter, 1ull) - source.base), uint64_t(source.tiles)));
      exhausted = t >= source.tiles || source.tiles == 1;
    }
    tile_of[s] = t;
    if (t < source.tiles && by_copy(t)) {
      if constexpr (K == 1) {
        bulk_load(mem + s * STAGE_BYTES, in.array[0] + place(t).base, TILE_BYTES, &bars.bar[s]);
      } else {
        const void *src[K];
#pragma unroll
        for (int k = 0; k < K; k++) src[k] = in.array[k] + place(t).base;
        bulk_load_parts<K>(mem + s * STAGE_BYTES, src, TILE_BYTES, &bars.bar[s]);
      }
    }
  }

  /* A tile's items into registers as it lands: from stage s once its copy
   * completed, or straight from global memory. (K = 1.) */
  __device__ void load_landed(int s, uint32_t tile, T (&x)[Shape::rows][Shape::vec], T pad) {
    static_assert(K == 1, "several inputs: wait_landed, then load_input for each");
    const tile_place<Shape, REVERSE> at = place(tile);
    if (by_copy(tile)) {
      bulk_wait(&bars.bar[s], (parity >> s) & 1u);
      parity ^= 1u << s;
      load_tile<Shape>(stage(s), at.valid, true, warp, lane, x, pad);
    } else {
      load_tile<Shape>(in.array[0] + at.base, at.valid, vector_ok, warp, lane, x, pad);
    }
  }
  /* The same items again, a step later (stage s still holds them). */
  __device__ void load_again(int s, uint32_t tile, T (&x)[Shape::rows][Shape::vec], T pad) const {
    load_input(s, tile, 0, x, pad);
  }

  /* All threads, once as a tile lands: wait until stage s holds it (where
   * it comes by copy). */
  __device__ void wait_landed(int s, uint32_t tile) {
    if (by_copy(tile)) {
      bulk_wait(&bars.bar[s], (parity >> s) & 1u);
      parity ^= 1u << s;
    }
  }
  /* Input k's items of a tile that landed in stage s (or global memory). */
  __device__ void load_input(int s, uint32_t tile, int k, T (&x)[Shape::rows][Shape::vec], T pad) const {
    const tile_place<Shape, REVERSE> at = place(tile);
    if (by_copy(tile)) load_tile<Shape>(stage(s, k), at.valid, true, warp, lane, x, pad);
    else load_tile<Shape>(in.array[k] + at.base, at.valid, vector_ok, warp, lane, x, pad);
  }
};

/* The block's steps. Uniform across the block; the callbacks contain the
 * barriers a step needs besides the one at its start:
 *   begin(tile)                        start of the step that finishes tile
 *   land(stages, stage, tile)          tile's data is landing in stage
 *   finish(stages, stage, tile, landed) tile's data landed a step ago;
 *                                      landed: land() ran for the next tile
 * begin's writes are ordered before finish's reads by a barrier in land
 * (or, where no tile landed, one that finish adds). */
template <typename T, typename Shape, bool REVERSE, int K, typename Begin, typename Land, typename Finish>
__device__ __forceinline__ void run_tile_stages(const tile_inputs<T, K> &in, uint64_t n, bool vector_ok,
                                                tile_counter source, int warp, int lane, Begin &&begin, Land &&land,
                                                Finish &&finish) {
  using stages_t = tile_stages<T, Shape, REVERSE, K>;
  constexpr int STAGES = stages_t::STAGES;
  extern __shared__ __align__(128) unsigned char stage_mem[]; /* STAGES * STAGE_BYTES */
  __shared__ stage_barriers<STAGES> bars;
  __shared__ uint32_t s_tile[STAGES];
  stages_t stages{stage_mem, bars, s_tile, in, n, source, vector_ok, warp, lane, false, 0u};

  init_stage_barriers(bars);
  if (threadIdx.x == 0) {
    stages.take_into(0);
    stages.take_into(1);
  }
  __syncthreads();
  if (s_tile[0] < source.tiles) land(stages, 0, s_tile[0]);
  for (int cur = 0;; cur = (cur + 1) % STAGES) {
    __syncthreads(); /* s_tile[] is current; the stage finished last step is free */
    const uint32_t tile = s_tile[cur];
    if (tile >= source.tiles) break;
    const int next = (cur + 1) % STAGES;
    if (threadIdx.x == 0) stages.take_into((cur + 2) % STAGES);
    begin(tile);
    const bool landed = s_tile[next] < source.tiles;
    if (landed) land(stages, next, s_tile[next]);
    finish(stages, cur, tile, landed);
  }
}
/* One input array (the scan, compaction). */
template <typename T, typename Shape, bool REVERSE, typename Begin, typename Land, typename Finish>
__device__ __forceinline__ void run_tile_stages(const T *in, uint64_t n, bool vector_ok, tile_counter source, int warp,
                                                int lane, Begin &&begin, Land &&land, Finish &&finish) {
  run_tile_stages<T, Shape, REVERSE, 1>(tile_inputs<T, 1>{{in}}, n, vector_ok, source, warp, lane, begin, land,
                                        finish);
}

}  // namespace gp
