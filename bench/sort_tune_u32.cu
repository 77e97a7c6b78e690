// sort_tune's variants for u32 keys (keys only). The second sweep (H200,
// 2026-11-29) found atomicOr ranking ("aor") at 256 x 24, 3 blocks/SM, 1.19x
// CUB where every ballot/match.any/atomicAdd shape stayed at 0.98-1.01x
// (bench/results/h200_sort_tune*.txt): the library's shape now. This table
// looks around it. Spilling with ballots at 256 x 23/24 and 4 blocks/SM,
// 384 x 18-24 at 3, 512 x 12-24 at 3 (-Xptxas -v): not listed.
#include "sort_tune.cuh"

namespace {
#define V(THREADS, ITEMS, MIN_BLOCKS, BALLOTS) TUNE_VARIANT(GPU_U32, 0, THREADS, ITEMS, MIN_BLOCKS, BALLOTS)
#define X(THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT) \
  TUNE_VARIANT_X(GPU_U32, 0, THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT)
const tune_variant variants[] = {
    X(256, 24, 3, true, ATOMIC_OR, false), /* the library's shape */
    V(256, 24, 3, true),                    /* the library's before: ballots, load/store ranks */
    X(256, 20, 3, true, ATOMIC_OR, false), X(256, 28, 3, true, ATOMIC_OR, false), X(256, 32, 3, true, ATOMIC_OR, false),
    X(256, 16, 4, true, ATOMIC_OR, false), X(256, 20, 4, true, ATOMIC_OR, false), X(256, 24, 2, true, ATOMIC_OR, false),
    X(384, 16, 3, true, ATOMIC_OR, false), X(384, 20, 2, true, ATOMIC_OR, false), X(384, 24, 2, true, ATOMIC_OR, false),
    X(512, 16, 2, true, ATOMIC_OR, false), X(512, 20, 2, true, ATOMIC_OR, false), X(512, 24, 2, true, ATOMIC_OR, false),
    X(256, 24, 3, true, ATOMIC_OR, true), /* persistent */
};
#undef V
#undef X
}  // namespace

tune_table u32_key_variants() { return {variants, int(sizeof variants / sizeof variants[0])}; }
