/*
 * Tuning of the linear recurrences' kernels, as data: tile shapes of the
 * look-back path by element size, the channel path's loads in flight, and
 * the thresholds plan_linrec chooses paths by. bench/bench_linrec forces
 * each path to find the crossovers (bench/NOTES.md has the H200 numbers).
 */
#pragma once

#include "scan/device/tile_io.cuh"

namespace gp {

/* A look-back tile shape and the blocks per SM its launch bounds ask for
 * (linrec_tiles; linrec_pipelined asks for one). */
template <int THREADS, int ROWS, int VEC, int MIN_BLOCKS> struct linrec_tile_shape : tile_shape<THREADS, ROWS, VEC> {
  static constexpr int min_blocks = MIN_BLOCKS;
};

/* The kernel of the look-back path (one sequence forward, the backward
 * pass): a tile per block (linrec_tiles, the `tiles` shape) or persistent
 * blocks in the three-stage pipeline (linrec_pipelined, the `pipelined`
 * shape). Sequences with start flags always run linrec_tiles. */
enum class linrec_kernel { tiles, pipelined };

template <int ELEMENT_BYTES> struct linrec_tuning;
/* tiles: 16 items a thread (4 rows of one 16-byte vector of a and of b):
 * 32 values of pairs in registers; 4096 items a tile. pipelined: 8192
 * items a tile; three stages of a and b take 192 KiB of shared memory,
 * one block per SM. */
template <> struct linrec_tuning<4> {
  using tiles = linrec_tile_shape<256, 4, 4, 2>;
  using pipelined = linrec_tile_shape<512, 4, 4, 1>;
  static constexpr linrec_kernel kernel = linrec_kernel::pipelined;
};
/* tiles: 8 items a thread, 2048 a tile. pipelined: 4096 items a tile,
 * 192 KiB of stages. */
template <> struct linrec_tuning<8> {
  using tiles = linrec_tile_shape<256, 4, 2, 2>;
  using pipelined = linrec_tile_shape<512, 4, 2, 1>;
  static constexpr linrec_kernel kernel = linrec_kernel::pipelined;
};

/* The channel path: threads a block, steps whose loads a thread issues
 * before computing them. */
constexpr int LINREC_CHANNEL_THREADS = 256;
constexpr int LINREC_CHANNEL_UNROLL = 8;
/* Threads (channel, chunk) the channel path aims for: about 16 resident
 * warps' worth on each of 132 SMs, so that loads in flight cover memory
 * latency; time is cut into chunks only to reach this. */
constexpr uint64_t LINREC_CHANNEL_TARGET_THREADS = uint64_t(1) << 18;
/* Steps a chunk at least: shorter chunks spend more on the fold and carry
 * passes than they gain in threads. */
constexpr uint64_t LINREC_CHANNEL_MIN_CHUNK_STEPS = 64;
/* Sequence-major batches run the channel path (a thread walks its own
 * contiguous sequence) at most this long and with at least
 * LINREC_SEQ_MAJOR_CHANNEL_MIN_COUNT sequences; otherwise the look-back
 * path over sequence-start flags. Measured on the H200 at 2^16, 2^20 and
 * 2^24 elements: the channel path wins at lengths 4 and 8 (by 15-45%), the
 * look-back from 16 (by 25-60%) where the call is not launch-bound; 2^13
 * sequences of 8 is the smallest batch measured. */
constexpr uint64_t LINREC_SEQ_MAJOR_CHANNEL_MAX_LEN = 8;
constexpr uint64_t LINREC_SEQ_MAJOR_CHANNEL_MIN_COUNT = uint64_t(1) << 13;
/* Time-major batches always run the channel path (its chunks give the
 * parallelism), but for one channel, which is one contiguous sequence. */

}  // namespace gp
