/*
 * Tuning of the linear recurrences' kernels, as data: tile shapes of the
 * look-back path by element size, the channel path's loads in flight, and
 * the thresholds plan_linrec chooses paths by. bench/bench_linrec forces
 * each path to find the crossovers (bench/NOTES.md has the H200 numbers).
 */
#pragma once

#include "scan/device/tile_io.cuh"

namespace gp {

/* A look-back tile shape, the blocks per SM its launch bounds ask for, and
 * (linrec_pipelined) whether land's row scans are held for finish. */
template <int THREADS, int ROWS, int VEC, int MIN_BLOCKS, bool HOLD_SCANS = false>
struct linrec_tile_shape : tile_shape<THREADS, ROWS, VEC> {
  static constexpr int min_blocks = MIN_BLOCKS;
  static constexpr bool hold_scans = HOLD_SCANS;
};

/*
 * The look-back kernels' shapes. One sequence (forward, and the backward
 * pass) runs linrec_pipelined: persistent blocks in the three-stage
 * pipeline, each stage a tile of a and of b (3 x 2 x 32 KiB in either
 * type), one block of 1024 threads per SM. Measured (bench/linrec_tune,
 * H100, f32 2^28 / f64 2^27, against a copy of the bytes): pipelined
 * 1024x2 0.82 / 0.71, with the row scans held 0.87 / 0.66 (f64 spills),
 * 512x4 0.75 / 0.65, 256x8 0.55 / 0.45, 512x2 at two blocks an SM 0.76 /
 * 0.69; a tile per block at 256x4 0.63 / 0.59, its best (1024x4) 0.74 /
 * 0.60. The pipeline keeps a copy in flight while the block folds and
 * scans, where a tile per block waits on its loads and its predecessors
 * in turn. Sequences with start flags (lr_seg_op) run linrec_tiles at
 * `tiles`.
 *
 * Sequence tiles (sequences_lookback, sequence-major batches of long
 * sequences): a tile of `tiles`' size; forward in f32 at three blocks an
 * SM (80 registers, 60 bytes spilled), 3-16% faster than two on the H100
 * from 4096 x 4096 to 64 x 2^20 (bench_linrec's sm/ rows); the backward
 * (SHIFTED, 109-112 registers at two) keeps two.
 *
 * The sequence walk (sequences_walk, the f32 forward of sequence-major
 * batches of many long sequences): persistent blocks each walking whole
 * sequences through three stages of bulk copies, the row scans held
 * (64 registers, none spilled). `sequence_walk`: 512 threads of 8 items
 * (4096-item tiles, 3 x 32 KiB of stages), two blocks an SM;
 * `sequence_walk_long`: 1024 threads of 8 (8192-item tiles, 192 KiB), one
 * block an SM, so that 128 sequences fill 128 of 132 SMs. Measured on the
 * H100, f32, of a copy (bench_linrec's sm/ rows, 2^24 elements), the
 * sequence tiles at the shape the plan took before / walk 512x8 / walk
 * 1024x8: 4096 x 4096 0.87 / 0.95 / 0.45 (a sequence is half of the
 * longer walk's tile, read directly, twice), 1024 x 16384 0.84 / 0.90 /
 * 0.88, 512 x 32768 0.82 / 0.87 / 0.87, 256 x 65536 0.81 / 0.84 / 0.86,
 * 128 x 131072 0.76 / 0.78 / 0.87, 64 x 2^20 0.74 / 0.42 / 0.53 (half the
 * SMs idle).
 */
template <int ELEMENT_BYTES> struct linrec_tuning;
/* tiles: 16 items a thread (4 rows of one 16-byte vector of a and of b),
 * 4096 a tile. pipelined: 8192 items a tile, 8 a thread. */
template <> struct linrec_tuning<4> {
  using tiles = linrec_tile_shape<256, 4, 4, 2>;
  using sequence_tiles = linrec_tile_shape<256, 4, 4, 3>;
  using sequence_tiles_backward = tiles;
  using sequence_walk = linrec_tile_shape<512, 2, 4, 2, true>;
  using sequence_walk_long = linrec_tile_shape<1024, 2, 4, 1, true>;
  using pipelined = linrec_tile_shape<1024, 2, 4, 1, true>;
};
/* tiles: 8 items a thread, 2048 a tile. pipelined: 4096 items a tile. */
template <> struct linrec_tuning<8> {
  using tiles = linrec_tile_shape<256, 4, 2, 2>;
  using sequence_tiles = tiles;
  using sequence_tiles_backward = tiles;
  using pipelined = linrec_tile_shape<1024, 2, 2, 1>;
};

/* The channel path: threads a block, steps whose loads a thread issues
 * before computing them. */
constexpr int LINREC_CHANNEL_THREADS = 256;
constexpr int LINREC_CHANNEL_UNROLL = 8;
/* Steps a thread of the one-pass channel path (channels_lookback) stages:
 * 8 x 16 bytes of a and of b in shared memory, so a tile of 256 threads
 * reads 32 KiB of each and three blocks fit an SM (CHANNEL_TILE_BLOCKS).
 * Measured on the H100, f32 forward, of a copy, the same tiles held in
 * registers at two blocks an SM / staged at two / staged at three: 4096 x
 * 4096 0.92 / 0.92 / 0.93, 1024 x 16384 0.83 / 0.82 / 0.84, 512 x 32768
 * 0.78 / 0.76 / 0.82, 128 x 131072 0.70 / 0.68 / 0.74, 64 x 2^20 0.65 /
 * 0.63 / 0.73: a tile's wait for its incoming state holds its block, and
 * a third block keeps loading while two wait. */
constexpr int LINREC_CHANNEL_TILE_STEPS = 8;
/* Threads (channel, chunk) the channel path aims for: about 16 resident
 * warps' worth on each of 132 SMs, so that loads in flight cover memory
 * latency; time is cut into chunks only to reach this. */
constexpr uint64_t LINREC_CHANNEL_TARGET_THREADS = uint64_t(1) << 18;
/* Steps a chunk at least: shorter chunks spend more on the fold and carry
 * passes than they gain in threads. */
constexpr uint64_t LINREC_CHANNEL_MIN_CHUNK_STEPS = 64;
/* Pairs a thread of channels_carry folds in order, at most, where a
 * channel's chunks fill no more than the 8 warps of a block: the rest of
 * the carry is a scan across the threads, so this bounds its latency. */
constexpr uint64_t LINREC_CARRY_RUN = 16;
/* Sequence-major batches run the channel path (a thread walks its own
 * contiguous sequence) at most this long and with at least
 * LINREC_SEQ_MAJOR_CHANNEL_MIN_COUNT sequences; otherwise the look-back
 * path over sequence-start flags. Measured on the H200 at 2^16, 2^20 and
 * 2^24 elements: the channel path wins at lengths 4 and 8 (by 15-45%), the
 * look-back from 16 (by 25-60%) where the call is not launch-bound; 2^13
 * sequences of 8 is the smallest batch measured. */
constexpr uint64_t LINREC_SEQ_MAJOR_CHANNEL_MAX_LEN = 8;
constexpr uint64_t LINREC_SEQ_MAJOR_CHANNEL_MIN_COUNT = uint64_t(1) << 13;
/* Sequence-major batches of sequences at least this long run the one-pass
 * sequence tiles (a tile of `tiles` within one sequence, the state
 * look-back along each sequence); a sequence's partial tile idles up to
 * half the block's threads from here. Measured on the H100, f32, of a
 * copy: 0.70-0.76 from 4096 to 2^20 steps, against 0.50-0.54 for the
 * look-back over start flags; at 256 steps 0.13 against 0.52. */
constexpr uint64_t LINREC_SEQ_MAJOR_TILES_MIN_LEN = 4096;
/* f32 sequence-major batches of at least LINREC_SEQ_MAJOR_WALK_MIN_COUNT
 * sequences of at least LINREC_SEQ_MAJOR_TILES_MIN_LEN steps run the
 * forward sequence walk instead of the sequence tiles (measured above, at
 * linrec_tuning): one block an SM (`sequence_walk_long`) below
 * LINREC_SEQ_MAJOR_WALK_MANY_COUNT sequences where a sequence holds at
 * least one of its tiles, else two (`sequence_walk`). Fewer sequences leave
 * SMs idle in the walk. f64 keeps the sequence tiles (its walk at 512
 * threads of 4 items spills; not measured). */
constexpr uint64_t LINREC_SEQ_MAJOR_WALK_MIN_COUNT = 128;
constexpr uint64_t LINREC_SEQ_MAJOR_WALK_MANY_COUNT = 512;
/* f32 sequence-major batches of LINREC_SEQ_MAJOR_STRANDS_MIN_COUNT to
 * LINREC_SEQ_MAJOR_WALK_MIN_COUNT sequences of at least
 * LINREC_SEQ_MAJOR_STRANDS_MIN_LEN steps run the walk in strands
 * (linrec_sequence_walk.cuh): several blocks a sequence, as many as fit
 * beside each other, at most LINREC_SEQ_MAJOR_WALK_MAX_STRANDS; at two
 * blocks an SM (`sequence_walk`) from LINREC_SEQ_MAJOR_STRANDS_WIDE_COUNT
 * sequences, else at one (`sequence_walk_long`). Measured on the H100, f32,
 * of a copy (bench_linrec's sm/ rows), the sequence tiles the plan took
 * before / strands at two blocks an SM / at one: 64 x 2^20 0.73 / 0.90 /
 * 0.82, 64 x 2^18 0.68 / 0.80 / 0.73-0.74, 32 x 2^19 0.62 / 0.69 / 0.72,
 * 16 x 2^20 0.52 / 0.46 / 0.65; at 128 x 2^17 the walk at one block an SM
 * (0.83-0.84) beats strands at two (0.81). Shorter sequences keep the
 * sequence tiles (a strand of few tiles spends its time filling the
 * pipeline; not measured). */
constexpr uint64_t LINREC_SEQ_MAJOR_STRANDS_MIN_COUNT = 16;
constexpr uint64_t LINREC_SEQ_MAJOR_STRANDS_WIDE_COUNT = 64;
constexpr uint64_t LINREC_SEQ_MAJOR_STRANDS_MIN_LEN = uint64_t(1) << 15;
constexpr uint64_t LINREC_SEQ_MAJOR_WALK_MAX_STRANDS = 8;
/* Time-major batches run the one-pass channel tiles with at least
 * LINREC_TIME_MAJOR_TILES_MIN_COUNT channels, or with at least
 * LINREC_TIME_MAJOR_NARROW_TILES_MIN_COUNT channels of at least
 * LINREC_TIME_MAJOR_NARROW_TILES_MIN_LEN steps; otherwise the three passes
 * (one channel: one contiguous sequence, the look-back). Tiles are
 * LINREC_CHANNEL_TILE_ROW_THREADS x 16 bytes of channels wide (32 f32, 16
 * f64; 256 steps long) from LINREC_TIME_MAJOR_NARROW_TILES_MIN_LEN steps,
 * else 32 x 16 bytes (128 f32; 64 steps): each channel group is a chain of
 * tiles along time, and narrow tiles make more chains of fewer, longer
 * tiles, so less of a tile's time goes to waiting on the tiles before it.
 * Measured on the H100, f32 forward, of a copy: tiles 128 / 64 / 32
 * channels wide with the binary Fenwick tree, then the three passes:
 *   4096 x 4096   0.77 / 0.83 / 0.81, 0.51
 *   2048 x 8192   0.71 / 0.79 / 0.79, 0.51
 *   1024 x 16384  0.64 / 0.75 / 0.77, 0.52
 *   512 x 32768   0.57 / 0.69 / 0.72, 0.50
 *   256 x 65536   0.51 / 0.64 / 0.67, 0.50
 *   128 x 131072  0.46 / 0.59 / 0.64, 0.50
 *   64 x 2^20     0.32 / 0.58 / 0.63, 0.53
 * Shorter batches keep the wide tiles (a 256-step tile would idle most of
 * its rows) and, from 1024 channels, run them (4096 x 256: 0.66). Below 64
 * channels the narrow tiles still beat the three passes: 32 x 2^19 0.62
 * against 0.47, 16 x 2^20 0.41 against 0.39 (register tiles; staged 0.65
 * and 0.47). Where the channels fit half the narrow width (16 f32, 8 f64),
 * the tiles are that wide, LINREC_CHANNEL_TILE_ROW_THREADS / 2 threads a
 * row, so that no column of threads idles: 16 x 2^20 0.50 against 0.43
 * at 32 wide, the backward 0.58 against 0.51 (staged; 8 wide at 16
 * channels 0.35: a channel's thread folds and walks 128 rows' pairs in
 * turn). They run from 8 channels: 8 x 2^21 0.38 against the three
 * passes' 0.27 (backward 0.46 against 0.34), 12 x 1398101 0.40 against
 * 0.28; fewer than 8 channels are not measured. */
constexpr uint64_t LINREC_TIME_MAJOR_TILES_MIN_COUNT = 1024;
constexpr uint64_t LINREC_TIME_MAJOR_NARROW_TILES_MIN_COUNT = 8;
constexpr uint64_t LINREC_TIME_MAJOR_NARROW_TILES_MIN_LEN = 4096;
constexpr int LINREC_CHANNEL_TILE_ROW_THREADS = 8;
/* Narrow channel tiles of at least this many channel groups look back
 * along the chain of states (linrec_state_lookback.cuh), fewer along the
 * tree of radix 4 (linrec_radix_lookback.cuh; the wide tiles always): with
 * many groups a tile's predecessor in time took its index long before and
 * has usually published its state, one load away, where the tree loads up
 * to 3 nodes a level. Measured on the H100, f32 forward, 32 channels a
 * group, of a copy, chain / radix 4 / the binary Fenwick tree (the tree
 * before) / radix 8: 4096 x 4096 0.92 / 0.88 / 0.83 / 0.86, 2048 x 8192
 * 0.86 / 0.86 / 0.79 / 0.82, 1024 x 16384 0.82 / 0.84 / 0.78 / 0.72, 512 x
 * 32768 0.76 / 0.79 / 0.74 / 0.75, 256 x 65536 0.52 / 0.74 / 0.68 / 0.68,
 * 128 x 131072 0.31 / 0.70 / 0.65 / 0.63, 64 x 2^20 0.16 / 0.65 / 0.62 /
 * 0.59 (a second call: 1024 x 16384 0.82 / 0.82). Staged in shared memory
 * at three blocks an SM (two calls), chain / radix 4: 2048 x 8192 0.86 /
 * 0.86 and 0.87 / 0.86, 1024 x 16384 0.78 / 0.81 and 0.79 / 0.81: the
 * forward takes the chain from 64 groups. The backward at 1024 x 16384,
 * chain / radix 4: 0.82 / 0.78 staged (0.78 / 0.75 in registers): the
 * chain from 32 groups. f64 (16 channels a group) takes the same counts of
 * groups, unmeasured. */
constexpr uint64_t LINREC_CHANNEL_CHAIN_MIN_GROUPS = 64;
constexpr uint64_t LINREC_CHANNEL_CHAIN_MIN_GROUPS_BACKWARD = 32;

}  // namespace gp
