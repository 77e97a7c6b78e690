/*
 * The CUDA backend's segmented plans (segmented/segmented_plan.h), on the
 * host: each path is chosen at the sizes its thresholds name, and not one
 * step past them. The resident grids are an H200's (132 SMs) unless a case
 * needs others; the expected values follow from segmented_tuning.h.
 */
#include "segmented/segmented_plan.h"
#include "test_util.h"

/* Blocks resident at once on 132 SMs: 2 a SM (seg_runs), 3 (the reduces). */
enum { RUNS_RESIDENT = 264, REDUCE_RESIDENT = 396 };
static const seg_heads_resident heads_h200 = {RUNS_RESIDENT};
static const seg_offsets_resident offsets_h200 = {RUNS_RESIDENT, RUNS_RESIDENT};
static const seg_reduce_resident reduce_h200 = {REDUCE_RESIDENT, REDUCE_RESIDENT};

#define TILE_4 8192u  /* large tiles, 4-byte elements */
#define TILE_8 4096u  /* large tiles, 8-byte elements */
#define SMALL_N_4 1048576u
#define SMALL_N_8 262144u

static void expect_blocked(seg_plan p, bool small, seg_table table, bool table_checks) {
  ck_assert_int_eq(p.path, SEG_PATH_BLOCKED);
  ck_assert_int_eq(p.small_tiles, small);
  ck_assert_uint_eq(p.grid, 0);
  ck_assert_int_eq(p.table, table);
  ck_assert_int_eq(p.table_checks, table_checks);
  ck_assert_int_eq(p.check_windows, false);
  ck_assert_uint_eq(p.walk_window, 0);
}

static void expect_runs(seg_plan p, seg_path path, unsigned grid, seg_table table, bool table_checks,
                        bool check_windows, uint32_t walk_window) {
  ck_assert_int_eq(p.path, path);
  ck_assert_uint_eq(p.grid, grid);
  ck_assert_int_eq(p.table, table);
  ck_assert_int_eq(p.table_checks, table_checks);
  ck_assert_int_eq(p.check_windows, check_windows);
  ck_assert_uint_eq(p.walk_window, walk_window);
}

START_TEST(tile_sizes) {
  ck_assert_uint_eq(gp_seg_large_tile_items(4), TILE_4);
  ck_assert_uint_eq(gp_seg_large_tile_items(8), TILE_8);
  ck_assert_uint_eq(gp_seg_small_tile_items(), 2048);
  ck_assert_uint_eq(gp_seg_plan_scan_heads(TILE_4 + 1, 4, 0, heads_h200).tiles, 2);
}
END_TEST

START_TEST(too_many_tiles) {
  const uint64_t most = 0x7fffffffull;
  ck_assert_int_eq(gp_seg_plan_scan_heads(most * TILE_4, 4, 0, heads_h200).path, SEG_PATH_RUNS);
  ck_assert_int_eq(gp_seg_plan_scan_heads(most * TILE_4 + 1, 4, 0, heads_h200).path, SEG_PATH_TOO_LARGE);
  ck_assert_int_eq(gp_seg_plan_scan_offsets(most * TILE_8 + 1, 4, 8, 0, offsets_h200).path, SEG_PATH_TOO_LARGE);
  ck_assert_int_eq(gp_seg_plan_reduce(most * TILE_4 + 1, 4, 4, reduce_h200).path, SEG_PATH_TOO_LARGE);
  ck_assert_int_eq(gp_seg_plan_reduce(most * TILE_4, 4, 4, reduce_h200).path, SEG_PATH_REDUCE_WARPS);
}
END_TEST

/* By flags: runs from two tiles a resident block (528 tiles), forward only;
 * below, one tile a block, small tiles up to SMALL_N. */
START_TEST(heads_paths) {
  for (unsigned flags = 0; flags <= GPU_EXCLUSIVE; flags += GPU_EXCLUSIVE) {
    expect_runs(gp_seg_plan_scan_heads(527ull * TILE_4 + 1, 4, flags, heads_h200), SEG_PATH_RUNS, RUNS_RESIDENT,
                SEG_TABLE_NONE, false, false, 0);
    expect_blocked(gp_seg_plan_scan_heads(527ull * TILE_4, 4, flags, heads_h200), false, SEG_TABLE_NONE, false);
    expect_runs(gp_seg_plan_scan_heads(527ull * TILE_8 + 1, 8, flags, heads_h200), SEG_PATH_RUNS, RUNS_RESIDENT,
                SEG_TABLE_NONE, false, false, 0);
    expect_blocked(gp_seg_plan_scan_heads(527ull * TILE_8, 8, flags, heads_h200), false, SEG_TABLE_NONE, false);
    expect_blocked(gp_seg_plan_scan_heads(SMALL_N_4, 4, flags, heads_h200), true, SEG_TABLE_NONE, false);
    expect_blocked(gp_seg_plan_scan_heads(SMALL_N_4 + 1, 4, flags, heads_h200), false, SEG_TABLE_NONE, false);
    expect_blocked(gp_seg_plan_scan_heads(SMALL_N_8, 8, flags, heads_h200), true, SEG_TABLE_NONE, false);
    expect_blocked(gp_seg_plan_scan_heads(SMALL_N_8 + 1, 8, flags, heads_h200), false, SEG_TABLE_NONE, false);
  }
  /* Reverse: one tile a block at every size. */
  expect_blocked(gp_seg_plan_scan_heads(1ull << 28, 4, GPU_REVERSE, heads_h200), false, SEG_TABLE_NONE, false);
  expect_blocked(gp_seg_plan_scan_heads(1ull << 16, 8, GPU_REVERSE | GPU_EXCLUSIVE, heads_h200), true,
                 SEG_TABLE_NONE, false);
  /* A small device: runs from two tiles a block. */
  const seg_heads_resident four = {4};
  expect_runs(gp_seg_plan_scan_heads(8ull * TILE_4, 4, 0, four), SEG_PATH_RUNS, 4, SEG_TABLE_NONE, false, false, 0);
  expect_blocked(gp_seg_plan_scan_heads(7ull * TILE_4, 4, 0, four), true, SEG_TABLE_NONE, false);
}
END_TEST

/* Over offsets, one tile a block: the tiles search their segments up to 512
 * large tiles (small tiles up to SMALL_N), a table's launch above. */
START_TEST(offsets_blocked) {
  /* Mean segments of 4096: past an eighth of a tile, so no runs of two. */
  expect_blocked(gp_seg_plan_scan_offsets(512ull * TILE_4, 1024, 4, 0, offsets_h200), false, SEG_TABLE_NONE, false);
  expect_blocked(gp_seg_plan_scan_offsets(512ull * TILE_4 + 1, 1024, 4, 0, offsets_h200), false, SEG_TABLE_LAUNCH,
                 true);
  expect_blocked(gp_seg_plan_scan_offsets(SMALL_N_4, SMALL_N_4 / 4, 4, 0, offsets_h200), true, SEG_TABLE_NONE,
                 false);
  expect_blocked(gp_seg_plan_scan_offsets(SMALL_N_4 + 1, SMALL_N_4 / 4, 4, 0, offsets_h200), false, SEG_TABLE_NONE,
                 false);
  expect_blocked(gp_seg_plan_scan_offsets(SMALL_N_8, SMALL_N_8 / 4, 8, GPU_EXCLUSIVE, offsets_h200), true,
                 SEG_TABLE_NONE, false);
  expect_blocked(gp_seg_plan_scan_offsets(SMALL_N_8 + 1, SMALL_N_8 / 4, 8, 0, offsets_h200), false, SEG_TABLE_NONE,
                 false);
  /* 8-byte elements never run in pairs. */
  expect_blocked(gp_seg_plan_scan_offsets(300ull * TILE_8, 300ull * TILE_8 / 4, 8, 0, offsets_h200), false,
                 SEG_TABLE_NONE, false);
  /* Reverse: one tile a block, the table from 513 tiles. */
  expect_blocked(gp_seg_plan_scan_offsets(1ull << 28, 1ull << 22, 4, GPU_REVERSE, offsets_h200), false,
                 SEG_TABLE_LAUNCH, true);
  expect_blocked(gp_seg_plan_scan_offsets(300ull * TILE_4, 300ull * TILE_4 / 4, 4, GPU_REVERSE, offsets_h200), false,
                 SEG_TABLE_NONE, false);
  /* Long mean segments: no runs (a mean above a quarter of a run). At
   * 2^28, runs of 124 tiles: at most 253952 elements a segment. */
  expect_runs(gp_seg_plan_scan_offsets(1ull << 28, 1058, 4, 0, offsets_h200), SEG_PATH_RUNS, RUNS_RESIDENT,
              SEG_TABLE_OWN, false, false, 0);
  expect_blocked(gp_seg_plan_scan_offsets(1ull << 28, 1057, 4, 0, offsets_h200), false, SEG_TABLE_LAUNCH, true);
}
END_TEST

/* 4-byte elements between one and two tiles a resident block (2^22 on
 * the H200): runs of two tiles that walk, where the mean segment is at
 * most an eighth of a tile and the window fits its stage. */
START_TEST(offsets_pairs) {
  const uint64_t n = 300ull * TILE_4;
  expect_runs(gp_seg_plan_scan_offsets(n, n / 4, 4, 0, offsets_h200), SEG_PATH_RUNS_STAGED, 150, SEG_TABLE_NONE,
              false, true, 2560);
  /* The mean segment: n / nseg <= 1024. */
  expect_runs(gp_seg_plan_scan_offsets(n, 2398, 4, 0, offsets_h200), SEG_PATH_RUNS_STAGED, 150, SEG_TABLE_NONE,
              false, true, 74);
  expect_blocked(gp_seg_plan_scan_offsets(n, 2397, 4, 0, offsets_h200), false, SEG_TABLE_NONE, false);
  /* The window: a tile's mean count of segments m with m + m / 8 + 64 <= 2560. */
  expect_runs(gp_seg_plan_scan_offsets(n, 665699, 4, 0, offsets_h200), SEG_PATH_RUNS_STAGED, 150, SEG_TABLE_NONE,
              false, true, 2560);
  expect_blocked(gp_seg_plan_scan_offsets(n, 665999, 4, 0, offsets_h200), false, SEG_TABLE_NONE, false);
  /* Tiles: more than the resident blocks, fewer than twice as many. */
  expect_blocked(gp_seg_plan_scan_offsets(264ull * TILE_4, 264ull * TILE_4 / 4, 4, 0, offsets_h200), false,
                 SEG_TABLE_NONE, false);
  expect_runs(gp_seg_plan_scan_offsets(265ull * TILE_4, 265ull * TILE_4 / 4, 4, 0, offsets_h200),
              SEG_PATH_RUNS_STAGED, 133, SEG_TABLE_NONE, false, true, 2560);
  expect_runs(gp_seg_plan_scan_offsets(527ull * TILE_4, 527ull * TILE_4 / 4, 4, 0, offsets_h200),
              SEG_PATH_RUNS_STAGED, 264, SEG_TABLE_NONE, false, true, 2560);
  /* Reverse scans never run. */
  expect_blocked(gp_seg_plan_scan_offsets(n, n / 4, 4, GPU_REVERSE, offsets_h200), false, SEG_TABLE_NONE, false);
}
END_TEST

/* 4-byte elements by runs: walk up to 8 tiles a run, else the table, built
 * by the blocks themselves up to 512 tiles a run where the segments are
 * long (a mean above 16), else by its launch. */
START_TEST(offsets_runs_4) {
  const uint64_t n24 = 1ull << 24, n28 = 1ull << 28;
  /* 2^24: 2048 tiles, runs of 7-8. */
  expect_runs(gp_seg_plan_scan_offsets(n24, n24 / 4, 4, 0, offsets_h200), SEG_PATH_RUNS_STAGED, RUNS_RESIDENT,
              SEG_TABLE_NONE, false, true, 2560);
  expect_runs(gp_seg_plan_scan_offsets(n24, n24 / 64, 4, 0, offsets_h200), SEG_PATH_RUNS_STAGED, RUNS_RESIDENT,
              SEG_TABLE_NONE, false, true, 129 + 32 + 64);
  /* The walk's limit: 8 x 264 = 2112 tiles. */
  expect_runs(gp_seg_plan_scan_offsets(2112ull * TILE_4, 2112ull * TILE_4 / 64, 4, 0, offsets_h200),
              SEG_PATH_RUNS_STAGED, RUNS_RESIDENT, SEG_TABLE_NONE, false, true, 129 + 32 + 64);
  expect_runs(gp_seg_plan_scan_offsets(2113ull * TILE_4, 2113ull * TILE_4 / 64, 4, 0, offsets_h200), SEG_PATH_RUNS,
              RUNS_RESIDENT, SEG_TABLE_OWN, false, false, 0);
  /* 2^28: segments of 4 checked in the scan, on the launch's table;
   * longer ones by the blocks' own table. */
  expect_runs(gp_seg_plan_scan_offsets(n28, n28 / 4, 4, 0, offsets_h200), SEG_PATH_RUNS, RUNS_RESIDENT,
              SEG_TABLE_LAUNCH, false, true, 0);
  expect_runs(gp_seg_plan_scan_offsets(n28, n28 / 16, 4, GPU_EXCLUSIVE, offsets_h200), SEG_PATH_RUNS, RUNS_RESIDENT,
              SEG_TABLE_LAUNCH, false, true, 0);
  expect_runs(gp_seg_plan_scan_offsets(n28, n28 / 16 - 1, 4, 0, offsets_h200), SEG_PATH_RUNS, RUNS_RESIDENT,
              SEG_TABLE_OWN, false, false, 0);
  expect_runs(gp_seg_plan_scan_offsets(n28, n28 / 4096, 4, 0, offsets_h200), SEG_PATH_RUNS, RUNS_RESIDENT,
              SEG_TABLE_OWN, false, false, 0);
  /* The own table's limit, 512 tiles a run (4 blocks: 2048 tiles). */
  const seg_offsets_resident four = {4, 4};
  expect_runs(gp_seg_plan_scan_offsets(2048ull * TILE_4, 2048ull * TILE_4 / 64, 4, 0, four), SEG_PATH_RUNS, 4,
              SEG_TABLE_OWN, false, false, 0);
  expect_runs(gp_seg_plan_scan_offsets(2049ull * TILE_4, 2049ull * TILE_4 / 64, 4, 0, four), SEG_PATH_RUNS, 4,
              SEG_TABLE_LAUNCH, true, false, 0);
}
END_TEST

/* 8-byte elements by runs: short segments (a mean of at most 16) take the
 * instance with offset stages on its own resident grid, walking where the
 * window fits; longer ones the plain instance on the launch's table. */
START_TEST(offsets_runs_8) {
  const uint64_t n = 1ull << 24; /* 4096 tiles */
  const seg_offsets_resident resident = {RUNS_RESIDENT, 200};
  expect_runs(gp_seg_plan_scan_offsets(n, n / 4, 8, 0, resident), SEG_PATH_RUNS_STAGED, 200, SEG_TABLE_NONE, false,
              true, 1025 + 256 + 64);
  expect_runs(gp_seg_plan_scan_offsets(n, n / 16, 8, 0, resident), SEG_PATH_RUNS_STAGED, 200, SEG_TABLE_NONE, false,
              true, 257 + 64 + 64);
  expect_runs(gp_seg_plan_scan_offsets(n, n / 16 - 1, 8, 0, resident), SEG_PATH_RUNS, RUNS_RESIDENT,
              SEG_TABLE_LAUNCH, true, false, 0);
  expect_runs(gp_seg_plan_scan_offsets(n, n / 64, 8, GPU_EXCLUSIVE, resident), SEG_PATH_RUNS, RUNS_RESIDENT,
              SEG_TABLE_LAUNCH, true, false, 0);
  /* Segments of 1: the window does not fit; the staged instance on the
   * launch's table, which leaves the check to the scan. */
  expect_runs(gp_seg_plan_scan_offsets(n, n, 8, 0, resident), SEG_PATH_RUNS_STAGED, 200, SEG_TABLE_LAUNCH, false,
              true, 0);
}
END_TEST

/* gpu_segreduce: segreduce_direct from 512 segments while a group holds
 * at most 255 of them, else segreduce_warps. */
START_TEST(reduce_paths) {
  seg_plan p = gp_seg_plan_reduce(1u << 20, 511, 4, reduce_h200);
  ck_assert_int_eq(p.path, SEG_PATH_REDUCE_WARPS);
  ck_assert_uint_eq(p.grid, 256);
  ck_assert_uint_eq(p.grid_warps, REDUCE_RESIDENT * 8);
  ck_assert_uint_eq(p.takes, 0);
  p = gp_seg_plan_reduce(1u << 20, 512, 4, reduce_h200);
  ck_assert_int_eq(p.path, SEG_PATH_REDUCE_DIRECT);
  ck_assert_uint_eq(p.grid, REDUCE_RESIDENT);
  ck_assert_uint_eq(p.groups, 297);
  ck_assert_uint_eq(p.per, 2);
  ck_assert_uint_eq(p.n_direct, 297ull * 8190);
  p = gp_seg_plan_reduce(1u << 28, 297 * 255, 4, reduce_h200);
  ck_assert_int_eq(p.path, SEG_PATH_REDUCE_DIRECT);
  ck_assert_uint_eq(p.per, 255);
  p = gp_seg_plan_reduce(1u << 28, 297 * 255 + 1, 4, reduce_h200);
  ck_assert_int_eq(p.path, SEG_PATH_REDUCE_WARPS);
  ck_assert_uint_eq(p.grid, REDUCE_RESIDENT);
  p = gp_seg_plan_reduce(0, 512, 8, reduce_h200);
  ck_assert_int_eq(p.path, SEG_PATH_REDUCE_DIRECT);
  ck_assert_uint_eq(p.n_direct, 297ull * 8191);
  /* Too small a grid for helpers and groups. */
  const seg_reduce_resident one = {1, 1}, two = {2, 2};
  ck_assert_int_eq(gp_seg_plan_reduce(1000, 512, 4, one).path, SEG_PATH_REDUCE_WARPS);
  p = gp_seg_plan_reduce(1000, 512, 4, two);
  ck_assert_int_eq(p.path, SEG_PATH_REDUCE_WARPS); /* one group of 512 segments */
  p = gp_seg_plan_reduce(1000, 511, 4, two);
  ck_assert_int_eq(p.path, SEG_PATH_REDUCE_WARPS); /* under 512 segments */
}
END_TEST

/* segreduce_warps' grid: a block for each 8 warps' steps of 512 elements,
 * at most the resident blocks; 8-byte types take tickets where more than
 * one block runs. */
START_TEST(reduce_warps_grid) {
  seg_plan p = gp_seg_plan_reduce(0, 4, 8, reduce_h200);
  ck_assert_uint_eq(p.grid, 1);
  ck_assert_uint_eq(p.takes, 0);
  p = gp_seg_plan_reduce(8 * 512, 4, 8, reduce_h200);
  ck_assert_uint_eq(p.grid, 1);
  ck_assert_uint_eq(p.takes, 0);
  p = gp_seg_plan_reduce(8 * 512 + 1, 4, 8, reduce_h200);
  ck_assert_uint_eq(p.grid, 2);
  ck_assert_uint_eq(p.takes, 2);
  p = gp_seg_plan_reduce(8 * 512 + 1, 4, 4, reduce_h200);
  ck_assert_uint_eq(p.grid, 2);
  ck_assert_uint_eq(p.takes, 0);
  p = gp_seg_plan_reduce(1ull << 30, 100, 8, reduce_h200);
  ck_assert_uint_eq(p.grid, REDUCE_RESIDENT);
  ck_assert_uint_eq(p.takes, REDUCE_RESIDENT);
  ck_assert_uint_eq(p.grid_warps, REDUCE_RESIDENT * 8);
  p = gp_seg_plan_reduce(REDUCE_RESIDENT * 8ull * 512, 100, 4, reduce_h200);
  ck_assert_uint_eq(p.grid, REDUCE_RESIDENT);
  p = gp_seg_plan_reduce((REDUCE_RESIDENT - 1) * 8ull * 512, 100, 4, reduce_h200);
  ck_assert_uint_eq(p.grid, REDUCE_RESIDENT - 1);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("segmented_plan");
  TCase *tc = tu_tcase("plan");
  tcase_add_test(tc, tile_sizes);
  tcase_add_test(tc, too_many_tiles);
  tcase_add_test(tc, heads_paths);
  tcase_add_test(tc, offsets_blocked);
  tcase_add_test(tc, offsets_pairs);
  tcase_add_test(tc, offsets_runs_4);
  tcase_add_test(tc, offsets_runs_8);
  tcase_add_test(tc, reduce_paths);
  tcase_add_test(tc, reduce_warps_grid);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_main("test_segmented_plan", false, suite); }
