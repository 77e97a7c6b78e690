// sort_tune's variants for u32 keys (keys only). The library's shape is
// 384 x 20, 2 blocks/SM, ballots (sort/sort_tuning.h), as is CUB's on sm_90
// (74 registers there, 80 here).
//
// Spilling with ballots, so not instantiated (-Xptxas -v, sm_90, nvcc 13.0):
//   256 x 23/24 at 4 blocks/SM; 384 x 18/20/23/24 at 3; 512 x 12-24 at 3;
//   512 x 23/24 at 2. None of the match.any shapes below spills.
// Registers of the rest: 80 at 384 threads x 2 blocks (256 x 3), 56 at
// 384 x 3, 64 at 512 x 2 (256 x 4); 1 block/SM is no cap (95-127: at 384 or
// 512 threads only one block then fits an SM, at 256 two).
#include "sort_tune.cuh"

namespace {
#define V(THREADS, ITEMS, MIN_BLOCKS, BALLOTS) TUNE_VARIANT(GPU_U32, 0, THREADS, ITEMS, MIN_BLOCKS, BALLOTS)
#define X(THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT) \
  TUNE_VARIANT_X(GPU_U32, 0, THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT)
const tune_variant variants[] = {
    V(384, 20, 2, true), /* CUB's shape (the library's is 256 x 24 at 3, below) */
    V(256, 16, 3, true), V(256, 20, 3, true), V(256, 24, 3, true), V(256, 16, 4, true), V(256, 20, 4, true),
    V(256, 20, 2, true),
    V(384, 12, 2, true), V(384, 15, 2, true), V(384, 16, 2, true), V(384, 18, 2, true), V(384, 23, 2, true),
    V(384, 24, 2, true), V(384, 12, 3, true), V(384, 15, 3, true), V(384, 16, 3, true), V(384, 20, 1, true),
    V(512, 12, 2, true), V(512, 15, 2, true), V(512, 16, 2, true), V(512, 18, 2, true), V(512, 20, 2, true),
    V(512, 16, 1, true),
    V(256, 20, 3, false), V(256, 24, 3, false), V(384, 16, 2, false), V(384, 20, 2, false), V(384, 24, 2, false),
    V(384, 16, 3, false), V(512, 16, 2, false), V(512, 20, 2, false),
    /* Rank methods (CUB's atomicAdd; atomicOr masks) and persistent grids. */
    X(256, 24, 3, true, ATOMIC, false), X(256, 24, 3, false, ATOMIC, false), X(256, 24, 3, true, ATOMIC_OR, false),
    X(256, 20, 3, true, ATOMIC, false), X(384, 20, 2, true, ATOMIC, false), X(384, 16, 2, true, ATOMIC, false),
    X(384, 20, 2, true, ATOMIC_OR, false), X(512, 16, 2, true, ATOMIC, false),
    X(256, 24, 3, true, STORE, true), X(256, 24, 3, true, ATOMIC, true), X(384, 20, 2, true, ATOMIC, true),
};
#undef V
#undef X
}  // namespace

tune_table u32_key_variants() { return {variants, int(sizeof variants / sizeof variants[0])}; }
