/*
 * Tile shapes of the CUDA radix sort, by key and value width.
 *
 * Onesweep passes: THREADS x ITEMS keys a tile, one tile per block, keys in
 * registers. Starting points are CUB's Hopper tunings (384 threads; 20 items
 * for 4-byte keys, 15 for 8-byte, fewer with values): the per-key work
 * (ranking) dominates, so large tiles amortise the per-tile barriers and
 * look-back. Shared memory holds one tile of keys or values (the larger;
 * with values_async, below, a tile of keys and one of values side by
 * side): up to 108 KiB for the shapes below (above 48 KiB by opt-in), so two
 * blocks fit an SM when registers allow (launch bounds ask for that).
 *
 * The histogram kernel reads every key once and counts all its digits;
 * the single-block kernel sorts n <= its tile without any other launch.
 */
#pragma once

namespace gp {
namespace radix {

/* Blocks per SM the onesweep kernel's launch bounds ask for. */
constexpr int ONESWEEP_MIN_BLOCKS = 2;

/* How a warp finds the lanes holding the same digit: 8 ballots (one per
 * digit bit, as CUB's onesweep does) or the match.any instruction. */
constexpr bool MATCH_WITH_BALLOTS = true;

/* How a warp's group of lanes with one digit takes its ranks from the warp's
 * running start of that digit (block_rank.cuh::rank):
 *   RANK_STORE      the group's last lane loads the start and stores it
 *                   bumped, then a __syncwarp before the next item (the
 *                   library's so far);
 *   RANK_ATOMIC     the last lane bumps it with one shared-memory atomicAdd
 *                   that returns the old start, no __syncwarp (CUB's onesweep,
 *                   RADIX_RANK_MATCH_EARLY_COUNTS_ANY);
 *   RANK_ATOMIC_OR  no ballots or match.any: each lane ORs its bit into a
 *                   per-warp mask word of its digit, reads the group back
 *                   after a __syncwarp, then as RANK_ATOMIC; the last lane
 *                   clears the word (CUB's ..._EARLY_COUNTS_ATOMIC_OR; 1 KiB
 *                   of shared memory a warp more).
 * Every method gives the same ranks. */
enum rank_method : int { RANK_STORE = 0, RANK_ATOMIC = 1, RANK_ATOMIC_OR = 2 };
constexpr rank_method ONESWEEP_RANK = RANK_STORE;

/* A kernel's tile shape; the onesweep pass also takes its launch bounds,
 * ranking method and grid from it (the defaults above). persistent: the
 * pass launches only as many blocks as fit the device at once, each taking
 * tiles until none is left (else one block a tile); a skipped pass then
 * costs one wave of blocks instead of one block a tile, and a copy pass is
 * a grid-stride copy. values_async (pairs only): once the keys are ranked,
 * each value is copied from global memory straight to its shared slot by
 * cp.async, never through registers (which pairs run out of at large
 * tiles), landing while the look-back and the key scatter run; this needs
 * the values' shared array apart from the keys' (onesweep.cuh).
 * values_staged (implies values_async's layout): the values' copies start
 * with the keys' loads, coalesced, into that array in tile order; once the
 * keys are ranked each thread moves its own values to their ranked slots
 * within shared memory. */
template <int THREADS, int ITEMS> struct sort_shape {
  static constexpr int threads = THREADS;
  static constexpr int items = ITEMS; /* per thread */
  static constexpr int warps = THREADS / 32;
  static constexpr int tile_items = THREADS * ITEMS;
  static constexpr int min_blocks = ONESWEEP_MIN_BLOCKS;
  static constexpr bool match_with_ballots = MATCH_WITH_BALLOTS;
  static constexpr rank_method rank = ONESWEEP_RANK;
  static constexpr bool persistent = false;
  static constexpr bool values_async = false;
  static constexpr bool values_staged = false;
  static_assert(THREADS % 32 == 0 && THREADS >= 256 && THREADS <= 1024,
                "whole warps, at least one thread per digit");
};

/* The same with every knob spelled out, for the tuning sweep
 * (bench/sort_tune.cu); the library itself uses plain sort_shape. */
template <int THREADS, int ITEMS, int MIN_BLOCKS, bool BALLOTS, rank_method RANK = ONESWEEP_RANK,
          bool PERSISTENT = false, bool VALUES_ASYNC = false, bool VALUES_STAGED = false>
struct sort_variant : sort_shape<THREADS, ITEMS> {
  static constexpr int min_blocks = MIN_BLOCKS;
  static constexpr bool match_with_ballots = BALLOTS;
  static constexpr rank_method rank = RANK;
  static constexpr bool persistent = PERSISTENT;
  static constexpr bool values_async = VALUES_ASYNC || VALUES_STAGED;
  static constexpr bool values_staged = VALUES_STAGED;
};

template <int KEY_BYTES, int VALUE_BYTES> struct onesweep_tuning;
/* Measured on the H200 (bench/sort_tune, 2^28 random keys, against CUB;
 * bench/results/h200_sort_tune*.txt). Ranking by atomicOr masks wins for
 * every width (for 4-byte keys at 256x24: ballots 1.00x CUB's speed,
 * atomicOr 1.19x), and larger tiles win as long as nothing spills much:
 * 4-byte keys 256x32 at 3 blocks an SM 1.31x (1.24x at 2^24); 8-byte keys
 * 384x20 1.24x; 4-byte pairs 512x16 1.00x; 8-byte keys with 4-byte values
 * 512x12 1.06x, with 8-byte values 512x12 1.06x (512x10 1.02x); 4-byte keys
 * with 8-byte values 512x12 1.02x. Pairs spill beyond these tiles, unless
 * their values skip the registers (values_async): then 4-byte pairs 512x20
 * 1.03x (1.00x without; at 2^24 1.06x against 1.08x), 4-byte keys with
 * 8-byte values 384x20 1.10x (1.02x); 8-byte keys with 4-byte values gain
 * from 384x20 without it (1.08x against 1.06x) and lose with it (1.02x).
 * Staging the values at the tile's start (values_staged) beats both for
 * every pair width (h200_sort_tune_5.txt): 4-byte pairs 384x28 1.09x at
 * 2^28 (async 512x20 1.02x), 1.11x at 2^24; 4-byte keys with 8-byte values
 * 448x20 1.11x (1.10x); 8-byte keys with 4-byte values 384x20 1.09x
 * (1.08x); with 8-byte values 512x13 1.09x at 2^27 (1.05x). */
template <> struct onesweep_tuning<4, 0> { using shape = sort_variant<256, 32, 3, true, RANK_ATOMIC_OR>; };
template <int THREADS, int ITEMS>
using staged_pairs = sort_variant<THREADS, ITEMS, 2, true, RANK_ATOMIC_OR, false, false, true>;
template <> struct onesweep_tuning<4, 4> { using shape = staged_pairs<384, 28>; };
template <> struct onesweep_tuning<4, 8> { using shape = staged_pairs<448, 20>; };
template <> struct onesweep_tuning<8, 0> { using shape = sort_variant<384, 20, 2, true, RANK_ATOMIC_OR>; };
template <> struct onesweep_tuning<8, 4> { using shape = staged_pairs<384, 20>; };
template <> struct onesweep_tuning<8, 8> { using shape = staged_pairs<512, 13>; };

/* Histogram: a persistent grid; each thread counts ITEMS keys per round. */
constexpr int HISTOGRAM_THREADS = 512;
template <int KEY_BYTES> struct histogram_tuning {
  static constexpr int items = KEY_BYTES == 4 ? 8 : 4;
  /* Copies of each counter (lane % PARTS picks one), so that equal digits in
   * a warp do not all hit one shared-memory word. */
  static constexpr int parts = KEY_BYTES == 4 ? 4 : 2;
};

/* Single block: n <= 8192 in one launch, no extra memory. */
using single_block_shape = sort_shape<1024, 8>;

}  // namespace radix
}  // namespace gp
