/*
 * Tuning of the CUDA SpMV (spmv_launch.cuh): the tile shapes by size of
 * the product, and where its one-tile-a-block kernel stops. The
 * measurements behind each value are in bench/NOTES.md (segmented and
 * SpMV).
 */
#ifndef GP_SPMV_TUNING_H
#define GP_SPMV_TUNING_H

enum {
  /* Products over at most this many small tiles run one tile a block
   * (segscan_blocked), and direct ones search their rows instead of a
   * table's launch. */
  SPMV_SEARCH_TILES = 256,
  /* The large tiles of 4-byte values: threads, rows of one 16-byte vector
   * a thread, blocks an SM (the segmented scans' shape). */
  SPMV_LARGE_4_THREADS = 512,
  SPMV_LARGE_4_ROWS = 4,
  SPMV_LARGE_4_BLOCKS = 2,
  /* The large tiles of 8-byte values: 256 threads of 8 items at 4 blocks. */
  SPMV_LARGE_8_THREADS = 256,
  SPMV_LARGE_8_ROWS = 4,
  SPMV_LARGE_8_BLOCKS = 4,
  /* Products of at least this many nonzeros take the large tiles; fewer,
   * the small ones (seg_small_shape). */
  SPMV_LARGE_NNZ = 1 << 21
};

#endif
