/*
 * The CUDA backend's choice of kernel and launch for each segmented call
 * (segmented_plan.h), from the thresholds of segmented_tuning.h.
 */
#include "segmented_plan.h"

#include "gpuprim.h"
#include "segmented_tuning.h"

/* The most tiles one launch takes (a tile index fits 31 bits). */
static const uint64_t MAX_TILES = 0x7fffffffu;

uint64_t gp_seg_large_tile_items(size_t elem_size) {
  return elem_size == 8 ? (uint64_t)SEG_LARGE_8_THREADS * SEG_LARGE_8_ROWS * 2
                        : (uint64_t)SEG_LARGE_4_THREADS * SEG_LARGE_4_ROWS * 4;
}

uint64_t gp_seg_small_tile_items(void) { return (uint64_t)SEG_SMALL_THREADS * SEG_SMALL_ITEMS; }

/* The plan every call starts from: n's large tiles, or too many of them. */
static seg_plan plan_tiles(uint64_t n, size_t elem_size) {
  const uint64_t tile_items = gp_seg_large_tile_items(elem_size);
  seg_plan p = {0};
  p.tiles = (n + tile_items - 1) / tile_items;
  p.path = p.tiles > MAX_TILES ? SEG_PATH_TOO_LARGE : SEG_PATH_BLOCKED;
  return p;
}

/* seg_runs' grid where its runs pay, else 0: where a block's run holds two
 * tiles or more, and (over offsets: nseg > 0) where the mean segment is at
 * most a quarter of a run, since the lead segment's outputs are written
 * twice. By flags the segments are not known beforehand. */
static unsigned runs_grid(uint64_t tiles, uint64_t n, uint64_t nseg, uint64_t tile_items, unsigned resident) {
  const unsigned grid = (unsigned)(tiles < resident ? tiles : resident);
  if (grid == 0 || tiles < 2 * (uint64_t)grid) return 0;
  return nseg == 0 || n / nseg <= tiles / grid * tile_items / 4 ? grid : 0;
}

/* Scans of at most this many elements take the small tiles. */
static uint64_t small_n(size_t elem_size) { return elem_size == 8 ? SEG_SMALL_N_8 : SEG_SMALL_N_4; }

seg_plan gp_seg_plan_scan_heads(uint64_t n, size_t elem_size, unsigned flags, seg_heads_resident resident) {
  seg_plan p = plan_tiles(n, elem_size);
  if (p.path == SEG_PATH_TOO_LARGE) return p;
  const bool forward = !(flags & GPU_REVERSE);
  p.grid = forward ? runs_grid(p.tiles, n, 0, gp_seg_large_tile_items(elem_size), resident.runs) : 0;
  if (p.grid) p.path = SEG_PATH_RUNS;
  else p.small_tiles = n <= small_n(elem_size);
  return p;
}

/* seg_runs over offsets: whether a run walks its offsets, and with what
 * window; or else which table it reads and who checks the offsets. A
 * tile's window is its mean count of segments, a quarter more and 64
 * (random lengths of mean 4 stray by about 45 from their 2048 a tile), at
 * most a stage; a tile with more searches past it. Segments so dense that
 * the window would leave less than an eighth of a stage to spare keep the
 * table. 8-byte elements walk where their segments are short; 4-byte ones
 * in runs of at most SEG_RUNS_WALK_RUNS_4 tiles (longer runs lose more to
 * the walk's spills than the table costs). */
static void plan_offset_runs(seg_plan *p, uint64_t n, uint64_t nseg, size_t elem_size, bool window_fits,
                             uint64_t tile_segments_mean, unsigned staged_resident) {
  /* Short segments: the run's tiles check the offsets as they read them. */
  const bool short_segments = n <= nseg * (uint64_t)SEG_RUNS_CHECK_MEAN;
  const bool walk = window_fits && ((elem_size == 8 && short_segments) ||
                                    (elem_size == 4 && p->tiles <= (uint64_t)SEG_RUNS_WALK_RUNS_4 * p->grid));
  p->check_windows = short_segments || walk;
  /* 4-byte scans by longer runs over long segments: each block writes its
   * run's entries of the table and checks the offsets it spans. */
  const bool own_table = elem_size == 4 && !p->check_windows && p->tiles <= (uint64_t)SEG_RUNS_TABLE_MAX * p->grid;
  p->table = walk ? SEG_TABLE_NONE : own_table ? SEG_TABLE_OWN : SEG_TABLE_LAUNCH;
  p->table_checks = p->table == SEG_TABLE_LAUNCH && !p->check_windows;
  if (walk) {
    const uint64_t window = tile_segments_mean + tile_segments_mean / 4 + 64;
    p->walk_window = (uint32_t)(window < (uint64_t)SEG_RUNS_OFFSETS ? window : (uint64_t)SEG_RUNS_OFFSETS);
  }
  /* The instance with offset stages: 8-byte elements with short segments
   * (on its own resident grid), 4-byte ones that walk (on the grid chosen). */
  if (elem_size == 8 && p->check_windows) {
    p->path = SEG_PATH_RUNS_STAGED;
    p->grid = (unsigned)(p->tiles < staged_resident ? p->tiles : staged_resident);
  } else {
    p->path = elem_size == 4 && walk ? SEG_PATH_RUNS_STAGED : SEG_PATH_RUNS;
  }
}

seg_plan gp_seg_plan_scan_offsets(uint64_t n, uint64_t nseg, size_t elem_size, unsigned flags,
                                  seg_offsets_resident resident) {
  seg_plan p = plan_tiles(n, elem_size);
  if (p.path == SEG_PATH_TOO_LARGE) return p;
  const uint64_t tile_items = gp_seg_large_tile_items(elem_size);
  const bool forward = !(flags & GPU_REVERSE);
  p.grid = forward ? runs_grid(p.tiles, n, nseg, tile_items, resident.runs) : 0;
  const uint64_t tile_segments_mean = nseg / (p.tiles ? p.tiles : 1) + 1;
  const bool window_fits = tile_segments_mean + tile_segments_mean / 8 + 64 <= (uint64_t)SEG_RUNS_OFFSETS;
  /* 4-byte scans with more tiles than resident blocks but too few for runs
   * of two on all of them walk runs of two tiles where the mean segment is
   * at most an eighth of a tile: one wave of blocks, where one tile a block
   * takes two. Longer segments keep one tile a block. */
  if (elem_size == 4 && forward && p.grid == 0 && window_fits && n / (nseg ? nseg : 1) <= tile_items / 8 &&
      p.tiles > resident.runs && p.tiles < 2 * (uint64_t)resident.runs)
    p.grid = (unsigned)((p.tiles + 1) / 2);
  if (p.grid) {
    plan_offset_runs(&p, n, nseg, elem_size, window_fits, tile_segments_mean, resident.runs_staged);
    return p;
  }
  /* One tile a block: over few tiles each tile finds its segments itself
   * (no table, no launch for it), and small scans take the small tiles. */
  const bool search = p.tiles <= SEG_SEARCH_TILES;
  p.table = search ? SEG_TABLE_NONE : SEG_TABLE_LAUNCH;
  p.table_checks = !search;
  p.small_tiles = search && n <= small_n(elem_size);
  return p;
}

/* segreduce_direct where its groups hold few enough segments (at most one
 * a thread of a block but one) and there are SEG_DIRECT_MIN_SEGMENTS or
 * more: a quarter of the resident grid helps, the rest own a group each. */
static bool plan_direct(seg_plan *p, uint64_t nseg, size_t elem_size, unsigned grid) {
  const unsigned helpers = grid / 4 > 0 ? grid / 4 : 1;
  if (grid <= helpers || nseg < SEG_DIRECT_MIN_SEGMENTS) return false;
  const uint64_t span = (uint64_t)SEG_WARPS_THREADS * SEG_DIRECT_ITEMS, vec = 16 / elem_size;
  const uint64_t cap = (uint64_t)SEG_DIRECT_WINDOWS * span - vec;
  const uint64_t group_mean_cap = (uint64_t)SEG_DIRECT_GROUP_WINDOWS * span - vec;
  const uint64_t per_group = (group_mean_cap < cap ? group_mean_cap : cap) / 2;
  p->grid = grid;
  p->groups = grid - helpers;
  p->per = (nseg + p->groups - 1) / p->groups;
  p->n_direct = (uint64_t)p->groups * per_group;
  return p->per <= (uint64_t)SEG_WARPS_THREADS - 1;
}

/* Else segreduce_warps: the resident grid, fewer blocks where n_max needs
 * fewer; the chunks are cut for the resident grid's warps whatever the
 * launch, so results depend on n only. 4-byte types take their blocks by
 * blockIdx, 8-byte ones by ticket. */
seg_plan gp_seg_plan_reduce(uint64_t n_max, uint64_t nseg, size_t elem_size, seg_reduce_resident resident) {
  seg_plan p = plan_tiles(n_max, elem_size);
  if (p.path == SEG_PATH_TOO_LARGE) return p;
  seg_plan direct = p;
  if (plan_direct(&direct, nseg, elem_size, resident.direct)) {
    direct.path = SEG_PATH_REDUCE_DIRECT;
    return direct;
  }
  const uint64_t warps = SEG_WARPS_THREADS / 32;
  const uint64_t lane_bytes = elem_size == 8 ? SEG_WARPS_LANE_BYTES_8 : SEG_WARPS_LANE_BYTES_4;
  const uint64_t step = 32 * (lane_bytes / elem_size);
  const uint64_t steps = (n_max + step - 1) / step;
  const uint64_t needed = (steps + warps - 1) / warps;
  p.path = SEG_PATH_REDUCE_WARPS;
  p.grid = (unsigned)(needed == 0 ? 1 : needed < resident.warps ? needed : resident.warps);
  p.grid_warps = (uint64_t)resident.warps * warps;
  p.takes = elem_size == 4 || p.grid <= 1 ? 0 : p.grid;
  return p;
}
