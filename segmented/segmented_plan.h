/*
 * How the CUDA backend runs one segmented call: which kernel, on which
 * tiles and grid, with or without a table of tile_first[]. A plan is a
 * pure function of the call's sizes and of how many blocks of each
 * candidate kernel fit the device at once (the launch code asks the
 * occupancy API for those and passes them in), so the host tests check
 * every choice without a GPU (tests/test_segmented_plan.c). The launch
 * code (segscan_launch.cuh) executes the plan as it is.
 *
 * The kernels:
 *   - segscan_blocked: one tile a block, either direction; small tiles
 *     (seg_small_shape) for small scans, else the large ones;
 *   - seg_runs: a run of large tiles a block, forward scans only (and
 *     SpMV); over offsets it reads a table of tile_first[], builds its own
 *     entries of it, or walks the offsets in shared stages (its instance
 *     with offset stages, heads_from_offsets_staged);
 *   - segreduce_direct and segreduce_warps: gpu_segreduce.
 */
#ifndef GP_SEGMENTED_PLAN_H
#define GP_SEGMENTED_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  SEG_PATH_TOO_LARGE,    /* more tiles than a launch takes: GPU_ERR_UNSUPPORTED */
  SEG_PATH_BLOCKED,      /* segscan_blocked, one tile a block */
  SEG_PATH_RUNS,         /* seg_runs */
  SEG_PATH_RUNS_STAGED,  /* seg_runs' instance with offset stages (over offsets) */
  SEG_PATH_REDUCE_DIRECT, /* segreduce_direct */
  SEG_PATH_REDUCE_WARPS  /* segreduce_warps */
} seg_path;

/* Where a scan over offsets finds each tile's segments. */
typedef enum {
  SEG_TABLE_NONE,   /* no table: the tiles search (blocked) or walk (runs) */
  SEG_TABLE_LAUNCH, /* tile_first_segments builds it before the scan */
  SEG_TABLE_OWN     /* seg_runs' blocks write their runs' entries (its memory only) */
} seg_table;

typedef struct {
  seg_path path;
  uint64_t tiles;        /* large tiles of n (the table's, and seg_runs') */
  /* SEG_PATH_BLOCKED */
  bool small_tiles;      /* seg_small_shape, else the large tiles */
  /* SEG_PATH_RUNS, SEG_PATH_RUNS_STAGED, the reduces: blocks launched */
  unsigned grid;
  /* Scans over offsets */
  seg_table table;
  bool table_checks;     /* SEG_TABLE_LAUNCH: its launch checks the offsets */
  bool check_windows;    /* seg_runs: each tile checks the offsets it reads */
  uint32_t walk_window;  /* seg_runs: offsets a walking tile stages (0: no walk) */
  /* SEG_PATH_REDUCE_DIRECT */
  unsigned groups;       /* group blocks (the rest of the grid helps) */
  uint64_t per;          /* segments a group */
  uint64_t n_direct;     /* the largest n it reduces directly */
  /* SEG_PATH_REDUCE_WARPS */
  uint64_t grid_warps;   /* the warps its chunks are cut for (the resident grid's) */
  uint64_t takes;        /* tickets from the look-back counter */
} seg_plan;

/* Blocks of each candidate kernel that fit the device at once (>= 1). */
typedef struct {
  unsigned runs;        /* seg_runs over flags */
} seg_heads_resident;
typedef struct {
  unsigned runs;        /* seg_runs over offsets */
  unsigned runs_staged; /* its instance with offset stages */
} seg_offsets_resident;
typedef struct {
  unsigned direct;      /* segreduce_direct */
  unsigned warps;       /* segreduce_warps */
} seg_reduce_resident;

/* gpu_segscan_flags of n > 0 elements of elem_size (4 or 8) bytes;
 * flags: GPU_EXCLUSIVE, GPU_REVERSE. */
seg_plan gp_seg_plan_scan_heads(uint64_t n, size_t elem_size, unsigned flags, seg_heads_resident resident);

/* gpu_segscan_offsets of n > 0 elements in nseg >= 1 segments. */
seg_plan gp_seg_plan_scan_offsets(uint64_t n, uint64_t nseg, size_t elem_size, unsigned flags,
                                  seg_offsets_resident resident);

/* gpu_segreduce of nseg >= 1 segments over at most n_max elements (n itself
 * is read on the device). */
seg_plan gp_seg_plan_reduce(uint64_t n_max, uint64_t nseg, size_t elem_size, seg_reduce_resident resident);

/* The large tiles' elements for elem_size; the small tiles'. */
uint64_t gp_seg_large_tile_items(size_t elem_size);
uint64_t gp_seg_small_tile_items(void);

#ifdef __cplusplus
}
#endif

#endif
