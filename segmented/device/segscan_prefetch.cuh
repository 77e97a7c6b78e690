/*
 * A persistent, prefetching variant of segscan_blocked (segscan_blocked.cuh)
 * for the plain-values cases: segmented scans by head flags and by offsets,
 * and segmented reduce (SpMV keeps segscan_blocked: its loads depend on
 * other loads). Selected by GP_SEG_PREFETCH (segscan_launch.cuh); NOT YET
 * RUN ON A GPU.
 *
 * Why: segscan_blocked runs ticket -> load -> barrier -> look-back wait ->
 * store one after another in each block (ncu: issue slots 27% busy, half
 * the stall cycles at barriers, DRAM 39%); only other blocks overlap a
 * block's waits. Here each block stays resident and loops over tiles, and
 * the next tile's values (and head bytes) are copied into shared memory
 * with cp.async while this one is scanned, so the load latency is off the
 * block's critical path and the look-back wait is the only one left.
 *
 * Shared memory: two value buffers of one tile each (dynamic), used in
 * turn; for flags, two head-byte buffers of one tile each after them.
 * Tickets run two tiles ahead of the scan, the copies one tile ahead:
 *
 *   step k:  top     thread 0 asks the counter for tile k+2 (atomicAdd; its
 *                    answer is only needed at the end of the step)
 *                    wait for tile k's copies (cp.async.wait_group 1: tile
 *                    k+1's copies may stay in flight) + __syncwarp
 *            scan    heads, blocked read of buffer k%2 (get_blocked),
 *                    scan_tile with the look-back, transpose back through
 *                    the same buffer and store (reduce: gather)
 *            end     thread 0 writes tile k+2's index; __syncthreads (the
 *                    buffer's reads are done, the index is visible); every
 *                    thread issues tile k+2's copies into buffer k%2
 *
 * The copies: thread (warp, lane) copies the same 16-byte chunks that
 * load_tile would load (striped: coalesced, 512 bytes a warp a row) and
 * lands each at its swizzled() place in the buffer, where put_striped would
 * have written it: the buffer then holds exactly what segscan_blocked's
 * transpose holds after put_striped, with no trip through registers, and
 * get_blocked reads it conflict-free. swizzled() keeps each chunk in its
 * warp's run, so a warp only reads what its own lanes copied: each thread's
 * wait_group plus a __syncwarp makes the data visible, no block barrier.
 * A thread's 16 head bytes (ITEMS consecutive) are copied by that thread
 * itself. Partial tiles, unaligned values and unaligned heads take plain
 * guarded loads instead (values: load_tile + put_striped into the same
 * places; heads: blocked_heads from global memory). Every thread commits
 * one copy group a tile, copies or not, so wait_group counts stay uniform.
 *
 * Tickets: thread 0 takes tiles from the launch-order counter (take_tile's
 * counter) until it gets an index >= tiles, then takes no more: each block
 * takes exactly one index past the last tile, tiles + grid in all, as
 * scan_pipelined (the host's counter_takes). A tile waits in its look-back
 * only for tiles with smaller indices, all of which were taken earlier; the
 * smallest unpublished tile's holder is either scanning it (its own
 * predecessors are all published) or still finishing an earlier tile of its
 * own, whose predecessors are published too: the wait always ends, however
 * many blocks are resident (tools/check_segscan_prefetch.cu simulates it).
 *
 * Results are those of segscan_blocked: the same tiles, flags and scan_tile
 * (fixed combination order), so floats give the same bits run to run (and
 * the same bits as segscan_blocked at the same shape).
 */
#pragma once

#include <type_traits>

#include "segmented/device/segscan_blocked.cuh"

namespace gp {

/* The variant's shapes, by element size B (16 items a thread; not yet
 * measured): 4-byte 256 threads at 4 blocks an SM (2 x 16 KiB of values +
 * 2 x 4 KiB of head bytes a block), 8-byte 256 at 2 (2 x 32 KiB + 2 x 4
 * KiB). A template parameter of the kernel and the launch: sweep here. */
template <int B> using seg_prefetch_shape = seg_tile_shape<256, 16 * B / 16, 16 / B, B == 8 ? 2 : 4>;

/* Dynamic shared memory of segscan_prefetch: two value buffers, and for
 * head flags two buffers of head bytes. */
template <typename T, typename Shape, bool FLAGS> constexpr size_t prefetch_smem() {
  return 2 * Shape::tile_items * sizeof(T) + (FLAGS ? 2 * Shape::tile_items : 0);
}

/* Where the copies go (host and device: tools/check_segscan_prefetch.cu
 * checks the index math). */
template <typename Shape> struct prefetch_map {
  /* The tile item where thread (warp, lane)'s r-th 16-byte copy starts: the
   * striped order of load_tile (tile_io.cuh's item_offset). */
  __host__ __device__ static constexpr uint32_t copy_item(int warp, int lane, int r) {
    return uint32_t(warp * Shape::warp_items + r * 32 * Shape::vec + lane * Shape::vec);
  }
  /* The buffer element where it lands: put_striped's place for it. */
  __host__ __device__ static constexpr uint32_t copy_slot(int warp, int lane, int r) {
    return swizzled<Shape::vec>(copy_item(warp, lane, r));
  }
  /* The first of the thread's ITEMS head bytes (its blocked items). */
  __host__ __device__ static constexpr uint32_t head_byte(int warp, int lane) {
    return uint32_t(warp * Shape::warp_items + lane * Shape::items);
  }
};

/* cp.async (LDGSTS): BYTES from global to shared memory, asynchronously;
 * 16 bytes bypass L1 (.cg), 8 or 4 bytes go through it (.ca: the only kind
 * for those sizes). Written as PTX, as tile_pipeline.cuh is. */
template <int BYTES> __device__ inline void copy_async(void *dst_shared, const void *src_global) {
  static_assert(BYTES == 16 || BYTES == 8 || BYTES == 4, "cp.async copies 4, 8 or 16 bytes");
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address(dst_shared)), "l"(src_global)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(shared_address(dst_shared)), "l"(src_global),
                 "n"(BYTES)
                 : "memory");
}
/* Closes this thread's copies issued since the last commit into a group. */
__device__ inline void copy_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
/* Waits until at most PENDING of this thread's groups are still in flight;
 * the others' data is then visible to this thread. */
template <int PENDING> __device__ inline void copy_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory");
}

/* Thread 0's tile tickets: take from the counter until an index >= tiles
 * comes back, then only hand out `tiles` (no more takes). One tile alone
 * uses no counter (prepare_lookback gives none). */
struct tile_tickets {
  uint32_t tiles;
  bool exhausted;
  /* Whether the next ticket comes from the counter. */
  __host__ __device__ bool takes() const { return !exhausted && tiles > 1; }
  /* The tile for the next ticket; `taken`: the counter's answer less
   * counter_base, where takes() was true. */
  __host__ __device__ uint32_t settle(uint64_t taken) {
    const uint32_t t = exhausted ? tiles : tiles == 1 ? 0u : uint32_t(taken < tiles ? taken : tiles);
    exhausted = exhausted || tiles == 1 || t >= tiles;
    return t;
  }
};

/* Flags: this thread's start bits (as blocked_heads) from its ITEMS head
 * bytes copied into shared memory; `staged` false: from global memory
 * (blocked_heads). The reverse tail is blocked_heads' own: the bits shifted
 * by one, the last from the next lane's first byte, lane 31's from memory. */
template <typename Shape, bool REVERSE>
__device__ inline uint32_t prefetched_heads(const heads_from_flags &src, const uint8_t *bytes, bool staged,
                                            stage_heads<blocked_shape<Shape>> &sh, uint32_t tile, uint32_t tiles,
                                            uint64_t base, uint32_t valid, uint64_t n, int warp, int lane) {
  constexpr int ITEMS = Shape::items;
  if (!staged) return blocked_heads<Shape, REVERSE>(src, sh, tile, tiles, base, valid, n, warp, lane);
  const uint32_t o = prefetch_map<Shape>::head_byte(warp, lane);
  const uint64_t g = base + o;
  uint32_t raw;
  if constexpr (ITEMS == 16) {
    const uint4 w = *reinterpret_cast<const uint4 *>(bytes + o);
    raw = nonzero_bytes(w.x) | nonzero_bytes(w.y) << 4 | nonzero_bytes(w.z) << 8 | nonzero_bytes(w.w) << 12;
  } else {
    const uint2 w = *reinterpret_cast<const uint2 *>(bytes + o);
    raw = nonzero_bytes(w.x) | nonzero_bytes(w.y) << 4;
  }
  if constexpr (!REVERSE) return raw | uint32_t(g == 0);
  uint32_t next = ::__shfl_down_sync(FULL_MASK, raw, 1) & 1u;
  if (lane == WARP - 1) next = g + ITEMS >= n || src.heads[g + ITEMS] != 0;
  return raw >> 1 | next << (ITEMS - 1);
}
/* Offsets: staged in shared memory from the offsets as segscan_blocked does
 * (stage_offset_heads: barriers; its own shared array, not the buffers). */
template <typename Shape, bool REVERSE, typename Offset>
__device__ inline uint32_t prefetched_heads(const heads_from_offsets<Offset> &src, const uint8_t *, bool,
                                            stage_heads<blocked_shape<Shape>> &sh, uint32_t tile, uint32_t tiles,
                                            uint64_t base, uint32_t valid, uint64_t n, int warp, int lane) {
  return blocked_heads<Shape, REVERSE>(src, sh, tile, tiles, base, valid, n, warp, lane);
}

/*
 * The kernel: a grid of resident blocks (or fewer: any grid is correct),
 * each looping over tiles in ticket order. copy_ok: `in` is 16-byte
 * aligned (cp.async of full tiles); vector_ok: as segscan_blocked's (in
 * and out aligned: vector stores). REDUCE writes each segment's result to
 * the epilogue instead of the scan (out unused).
 */
template <typename T, gpu_op OP, typename Shape, bool REVERSE, typename Source, bool REDUCE, typename Epilogue>
__global__ void __launch_bounds__(Shape::threads, Shape::min_blocks)
    segscan_prefetch(const T *in, T *out, uint64_t n, bool exclusive, bool copy_ok, bool vector_ok, lookback_args lb,
                     Source src, Epilogue epilogue) {
  using P = seg_pair<T>;
  using Op = seg_op<T, OP>;
  using Base = scan_op<T, OP>;
  using B = blocked_shape<Shape>;
  using M = prefetch_map<Shape>;
  constexpr int ITEMS = Shape::items, VEC = Shape::vec, ROWS = Shape::rows;
  constexpr bool FLAGS = std::is_same_v<Source, heads_from_flags>;
  constexpr uint32_t TILE_BYTES = Shape::tile_items * sizeof(T);
  static_assert(ITEMS == 8 || ITEMS == 16, "a thread's flags are one 8- or 16-byte copy");
  static_assert(VEC * sizeof(T) == 16, "values are copied in 16-byte chunks");
  static_assert(ROWS >= 2 && ROWS <= 8, "swizzled() is conflict-free for 2 to 8 rows");
  static_assert(TILE_BYTES % 128 == 0 && Shape::tile_items % 16 == 0, "buffers stay 16-byte aligned");
  extern __shared__ __align__(128) unsigned char prefetch_mem[]; /* prefetch_smem() bytes */
  __shared__ uint32_t s_tile[3];                                /* tickets: this tile, the next, the one after */
  __shared__ tile_scan_shared<P, Shape::warps> sh;
  __shared__ stage_heads<B> s_heads; /* offsets, and flags where not copied */
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  auto values_of = [&](int b) { return reinterpret_cast<T *>(prefetch_mem + b * TILE_BYTES); };
  auto heads_of = [&](int b) { return prefetch_mem + 2 * TILE_BYTES + b * Shape::tile_items; };
  /* Head bytes come by copy for full tiles where a thread's ITEMS bytes are aligned. */
  bool heads_ok = false;
  if constexpr (FLAGS) heads_ok = reinterpret_cast<uintptr_t>(src.heads) % ITEMS == 0;
  auto full = [&](uint32_t tile) { return tile_place<Shape, REVERSE>(tile, lb.tiles, n).valid == uint32_t(Shape::tile_items); };

  /* Starts bringing tile `tile` (if any) into buffer b: one commit group. */
  auto fetch = [&](uint32_t tile, int b) {
    if (tile < lb.tiles) {
      const tile_place<Shape, REVERSE> at(tile, lb.tiles, n);
      T *buf = values_of(b);
      if (copy_ok && at.valid == uint32_t(Shape::tile_items)) {
#pragma unroll
        for (int r = 0; r < ROWS; r++) copy_async<16>(buf + M::copy_slot(warp, lane, r), in + at.base + M::copy_item(warp, lane, r));
      } else {
        /* Partial tile or unaligned input: plain guarded loads (padding neutral) into the same places. */
        T v[ROWS][VEC];
        load_tile<Shape>(in + at.base, at.valid, false, warp, lane, v, Base::neutral());
        put_striped<Shape>(buf, v, warp, lane);
      }
      if constexpr (FLAGS)
        if (heads_ok && at.valid == uint32_t(Shape::tile_items))
          copy_async<ITEMS>(heads_of(b) + M::head_byte(warp, lane), src.heads + at.base + M::head_byte(warp, lane));
    }
    copy_async_commit(); /* always: every thread commits one group a tile */
  };

  tile_tickets tickets{lb.tiles, false};
  if (threadIdx.x == 0)
    for (int s = 0; s < 2; s++)
      s_tile[s] = tickets.settle(tickets.takes() ? atomicAdd(lb.counter, 1ull) - lb.counter_base : 0);
  __syncthreads();
  fetch(s_tile[0], 0);
  fetch(s_tile[1], 1);

  for (uint32_t step = 0;; step++) {
    const uint32_t tile = s_tile[step % 3];
    if (tile >= lb.tiles) break; /* uniform: every thread read the same ticket */
    const int b = step & 1;
    /* The ticket for the tile after next: asked now, answered by the end of
     * the step. Its low 32 bits are enough (the index less counter_base is
     * at most tiles + grid, under 2^32) and keep one register, not two. */
    uint32_t taken = 0;
    if (threadIdx.x == 0 && tickets.takes()) taken = uint32_t(atomicAdd(lb.counter, 1ull));

    copy_async_wait<1>(); /* this tile's copies; the next tile's may still be in flight */
    __syncwarp();         /* and the warp's other lanes' (a warp reads only its own run) */
    const tile_place<Shape, REVERSE> at(tile, lb.tiles, n);
    const uint32_t heads =
        prefetched_heads<Shape, REVERSE>(src, heads_of(b), heads_ok && full(tile), s_heads,
                                         REVERSE ? lb.tiles - 1 - tile : tile, lb.tiles, at.base, at.valid, n, warp, lane);
    P x[1][ITEMS];
    {
      T v[1][ITEMS];
      get_blocked<Shape>(values_of(b), v, warp, lane);
#pragma unroll
      for (int j = 0; j < ITEMS; j++) x[0][j] = P{v[0][j], (heads >> j) & 1u};
    }
    scan_tile<P, Op, B, REVERSE>(x, tile, at.valid, exclusive && !REDUCE, lb, prefix_source::lookback, sh, warp, lane);
    T y[1][ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
      const bool restart = (heads >> j) & 1u;
      y[0][j] = exclusive && !REDUCE && restart ? Base::identity() : x[0][j].value;
    }
    /* scan_tile's barriers lie between get_blocked's reads and these writes. */
    if constexpr (!REDUCE) {
      T w[ROWS][VEC];
      blocked_to_striped<Shape>(values_of(b), y, w, warp, lane);
      store_tile<Shape>(out + at.base, at.valid, vector_ok, warp, lane, w);
    } else {
      put_blocked<Shape>(values_of(b), y, warp, lane);
      __syncthreads();
      gather_segment_results<T, Shape>(src, swizzled_results<T, VEC>{values_of(b)}, tile, lb.tiles, at.base, at.valid,
                                       n, epilogue);
    }
    const int after_next = (step + 2) % 3; /* last read at the top of step - 1 */
    if (threadIdx.x == 0) s_tile[after_next] = tickets.settle(uint32_t(taken - uint32_t(lb.counter_base)));
    /* Every read of buffer b (the transpose back, the gather) is done and
     * the ticket is visible: buffer b takes the tile after next. */
    __syncthreads();
    fetch(s_tile[after_next], b);
  }
  copy_async_wait<0>(); /* nothing is left in flight (the groups past the end are empty) */
}

}  // namespace gp
