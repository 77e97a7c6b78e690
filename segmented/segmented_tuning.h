/*
 * Tuning of the CUDA segmented scans and reduce: tile shapes, the sizes at
 * which the launch changes path, and the kernels' pipeline depths. The
 * measurements behind each value are in bench/NOTES.md (segmented).
 *
 * The thresholds the plan reads (segmented_plan.c) are plain C constants;
 * the kernels' records follow for CUDA C++.
 */
#ifndef GP_SEGMENTED_TUNING_H
#define GP_SEGMENTED_TUNING_H

enum {
  /* The large tiles of 4-byte elements: threads, rows of one 16-byte vector
   * a thread (16 items), blocks an SM (64 registers). */
  SEG_LARGE_4_THREADS = 512,
  SEG_LARGE_4_ROWS = 4,
  SEG_LARGE_4_BLOCKS = 2,
  /* The same for 8-byte elements (16 items a thread). */
  SEG_LARGE_8_THREADS = 256,
  SEG_LARGE_8_ROWS = 8,
  SEG_LARGE_8_BLOCKS = 2,
  /* The small tiles (seg_small_shape): 256 threads of 8 items. */
  SEG_SMALL_THREADS = 256,
  SEG_SMALL_ITEMS = 8,
  /* Scans of at most this many elements take the small tiles (4-byte,
   * 8-byte elements); larger ones the large tiles. */
  SEG_SMALL_N_4 = 1048576,
  SEG_SMALL_N_8 = 262144,
  /* Scans over offsets by one tile a block with at most this many tiles
   * find their tiles' segments themselves, without a table. */
  SEG_SEARCH_TILES = 512,
  /* Scans by runs with a mean segment of at most this many elements check
   * the offsets in the scan, not in the table's launch. */
  SEG_RUNS_CHECK_MEAN = 16,
  /* 4-byte scans by runs of at most this many tiles walk their offsets
   * (no table). */
  SEG_RUNS_WALK_RUNS_4 = 8,
  /* Offsets a tile's stage holds in seg_runs' scans. */
  SEG_RUNS_OFFSETS = 2560,
  /* The most tiles a run may hold for its block to build its own entries
   * of the table (2^30 4-byte elements on the H200). */
  SEG_RUNS_TABLE_MAX = 512,
  /* segreduce_warps: threads a block, and the bytes of consecutive items
   * a lane takes a step (4-byte, 8-byte types; 16 items either way). */
  SEG_WARPS_THREADS = 256,
  SEG_WARPS_LANE_BYTES_4 = 64,
  SEG_WARPS_LANE_BYTES_8 = 128,
  /* gpu_segreduce over fewer segments keeps segreduce_warps. */
  SEG_DIRECT_MIN_SEGMENTS = 512,
  /* segreduce_direct: a thread's items in a window's scan, the windows a
   * light group may take in turn, the windows it holds on average at most
   * (a launch goes direct only where n is at most groups x this many
   * windows / 2), and the mean segment above which no launch goes direct. */
  SEG_DIRECT_ITEMS = 16,
  SEG_DIRECT_WINDOWS = 8,
  SEG_DIRECT_GROUP_WINDOWS = 4,
  SEG_DIRECT_MAX_MEAN = 512
};

#ifdef __cplusplus
namespace gp {

/* seg_runs: how many tiles ahead its copies run (scans, reduce), and the
 * largest element whose scans stage their offsets in shared memory (larger
 * ones only where their segments are short: a second instance). */
struct seg_runs_tuning {
  static constexpr int scan_ahead = 1;
  static constexpr int reduce_ahead = 2;
  static constexpr int offset_stage_element_bytes = 4;
};

/* segreduce_warps, by element size: blocks an SM its launch bounds ask
 * for (SEG_WARPS_THREADS each), the bytes of consecutive items a lane
 * takes a step, and how many steps ahead a warp's copies run. */
template <int ELEMENT_BYTES> struct segreduce_warps_tuning {
  static constexpr int min_blocks = 3; /* 80 registers */
  static constexpr int lane_bytes = SEG_WARPS_LANE_BYTES_4;
  static constexpr int ahead = 2;
};
template <> struct segreduce_warps_tuning<8> {
  static constexpr int min_blocks = 2; /* 16 items a lane: 128 registers */
  static constexpr int lane_bytes = SEG_WARPS_LANE_BYTES_8;
  static constexpr int ahead = 2;
};

/* segreduce_direct (the values above). */
struct segreduce_direct_tuning {
  static constexpr int windows = SEG_DIRECT_WINDOWS;
  static constexpr int group_windows = SEG_DIRECT_GROUP_WINDOWS;
  static constexpr int max_mean = SEG_DIRECT_MAX_MEAN;
};

}  // namespace gp
#endif

#endif
