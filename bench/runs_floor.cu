// bench_runs_floor's kernels (runs_floor.h): a device copy made the way
// gpuprim's scans by runs move their bytes (seg_runs.cuh): the resident grid
// of 512-thread blocks, two an SM, tiles of 8192 4-byte elements (32 KiB),
// the next tile's loads issued before this tile's stores. The runs either
// static, block b taking tiles [b T / G, (b + 1) T / G) as seg_runs does, or
// dynamic, every tile by ticket to whichever block asks first. No scan, no
// offsets: what such a grid can move at best, and what the static split of
// the tiles costs on its own.
#include <cstdint>

#include <cuda_runtime.h>

#include "bench_cuda.h"
#include "cub_shim.h"
#include "runs_floor.h"

namespace {

constexpr int THREADS = 512, BLOCKS_PER_SM = 2, ROWS = 4;  // a thread's 16-byte loads a tile
constexpr uint64_t TILE_VECS = uint64_t(THREADS) * ROWS;   // int4s a tile: 8192 4-byte elements

__device__ inline unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Streaming hints as a copy's: the input is read once, the output not read.
__device__ inline void load_tile(const int4 *src, uint64_t tile, int4 (&v)[ROWS]) {
#pragma unroll
  for (int r = 0; r < ROWS; r++) v[r] = __ldcs(src + tile * TILE_VECS + r * THREADS + threadIdx.x);
}
__device__ inline void store_tile(int4 *dst, uint64_t tile, const int4 (&v)[ROWS]) {
#pragma unroll
  for (int r = 0; r < ROWS; r++) __stcs(dst + tile * TILE_VECS + r * THREADS + threadIdx.x, v[r]);
}

// stamps: per block {start, end, tiles copied} (globaltimer ns).
__global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
    copy_static_runs(const int4 *src, int4 *dst, uint64_t tiles, unsigned long long *stamps) {
  const unsigned long long t0 = globaltimer();
  const uint64_t first = tiles * blockIdx.x / gridDim.x, end = tiles * (blockIdx.x + 1) / gridDim.x;
  int4 cur[ROWS], next[ROWS];
  if (first < end) load_tile(src, first, cur);
  for (uint64_t t = first; t < end; t++) {
    if (t + 1 < end) load_tile(src, t + 1, next);
    store_tile(dst, t, cur);
#pragma unroll
    for (int r = 0; r < ROWS; r++) cur[r] = next[r];
  }
  if (threadIdx.x == 0) {
    stamps[3 * blockIdx.x] = t0;
    stamps[3 * blockIdx.x + 1] = globaltimer();
    stamps[3 * blockIdx.x + 2] = end - first;
  }
}

// Tickets from `base` on (a counter that only grows: no reset launch between
// calls); each block asks for the tile after next while it copies, so the
// atomic's round trip overlaps a tile.
__global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
    copy_dynamic_tiles(const int4 *src, int4 *dst, uint64_t tiles, unsigned long long *ticket, unsigned long long base,
                       unsigned long long *stamps) {
  const unsigned long long t0 = globaltimer();
  __shared__ uint64_t s_tile[3];
  if (threadIdx.x == 0) {
    s_tile[0] = atomicAdd(ticket, 1ull) - base;
    s_tile[1] = atomicAdd(ticket, 1ull) - base;
  }
  __syncthreads();
  uint64_t done = 0;
  int4 cur[ROWS], next[ROWS];
  uint64_t t = s_tile[0];
  if (t < tiles) load_tile(src, t, cur);
  for (int k = 0; t < tiles; k++) {
    if (threadIdx.x == 0) s_tile[(k + 2) % 3] = atomicAdd(ticket, 1ull) - base;
    const uint64_t u = s_tile[(k + 1) % 3]; /* written an iteration ago (or before the loop) */
    if (u < tiles) load_tile(src, u, next);
    store_tile(dst, t, cur);
#pragma unroll
    for (int r = 0; r < ROWS; r++) cur[r] = next[r];
    done++;
    t = u;
    __syncthreads(); /* slot (k + 2) % 3 written; slot k % 3, read above, free for iteration k + 1 */
  }
  if (threadIdx.x == 0) {
    stamps[3 * blockIdx.x] = t0;
    stamps[3 * blockIdx.x + 1] = globaltimer();
    stamps[3 * blockIdx.x + 2] = done;
  }
}

int grid_blocks() { return bench_sm_count() * BLOCKS_PER_SM; }

}  // namespace

extern "C" size_t runs_floor_tile_bytes(void) { return TILE_VECS * sizeof(int4); }
extern "C" int runs_floor_blocks(void) { return grid_blocks(); }

extern "C" void runs_floor_copy(void *dst, const void *src, size_t bytes, int dynamic, runs_floor_state *st) {
  const uint64_t tiles = bytes / runs_floor_tile_bytes();
  const int grid = grid_blocks();
  if (dynamic) {
    copy_dynamic_tiles<<<grid, THREADS>>>(static_cast<const int4 *>(src), static_cast<int4 *>(dst), tiles,
                                          st->ticket, st->base, st->stamps);
    st->base += tiles + 2 * uint64_t(grid); /* the tickets this launch takes: 2 a block, then one a tile */
  } else {
    copy_static_runs<<<grid, THREADS>>>(static_cast<const int4 *>(src), static_cast<int4 *>(dst), tiles,
                                        st->stamps);
  }
  BENCH_CUDA(cudaGetLastError());
}
