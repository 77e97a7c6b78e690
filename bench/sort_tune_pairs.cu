// sort_tune's variants for u32 keys with u32 values. The library's shape is
// 384 x 18, 2 blocks/SM, ballots (sort/sort_tuning.h); CUB's on sm_90 is
// 384 x 23 in 80 registers (2 blocks/SM), which spills here: 384 x 23 with
// no cap (167 registers, 1 block/SM) stands in for it.
//
// Spilling, so not instantiated (-Xptxas -v, sm_90, nvcc 13.0):
//   ballots: 256 x 18-24 at 4 blocks/SM, 256 x 23/24 at 3; 384 x 15-24 at 3,
//            384 x 23/24 at 2; 512 x 12-24 at 3, 512 x 18-24 at 2;
//   match.any: 256 x 20 at 4, 256 x 24 at 3; 384 x 16 at 3, 384 x 24 at 2;
//            512 x 20 at 2.
#include "sort_tune.cuh"

namespace {
#define V(THREADS, ITEMS, MIN_BLOCKS, BALLOTS) TUNE_VARIANT(GPU_U32, 4, THREADS, ITEMS, MIN_BLOCKS, BALLOTS)
#define X(THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT) \
  TUNE_VARIANT_X(GPU_U32, 4, THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT)
const tune_variant variants[] = {
    V(384, 18, 2, true), /* the library's before the sweep (now 256 x 20 at 3, below) */
    V(256, 15, 3, true), V(256, 16, 3, true), V(256, 20, 3, true), V(256, 16, 4, true), V(256, 20, 2, true),
    V(384, 12, 2, true), V(384, 15, 2, true), V(384, 16, 2, true), V(384, 20, 2, true), V(384, 12, 3, true),
    V(384, 18, 1, true), V(384, 23, 1, true),
    V(512, 12, 2, true), V(512, 15, 2, true), V(512, 16, 2, true),
    V(256, 20, 3, false), V(384, 16, 2, false), V(384, 18, 2, false), V(384, 20, 2, false), V(512, 16, 2, false),
    /* Rank methods (CUB's atomicAdd; atomicOr masks) and persistent grids. */
    X(256, 20, 3, true, ATOMIC, false), X(256, 20, 3, false, ATOMIC, false), X(256, 20, 3, true, ATOMIC_OR, false),
    X(256, 16, 3, true, ATOMIC, false), X(384, 18, 2, true, ATOMIC, false), X(384, 16, 2, true, ATOMIC, false),
    X(384, 23, 1, true, ATOMIC, false),
    X(256, 20, 3, true, STORE, true), X(256, 20, 3, true, ATOMIC, true), /* both spill 16-36 bytes */
    X(256, 16, 3, true, ATOMIC, true),
};
#undef V
#undef X
}  // namespace

tune_table u32_pair_variants() { return {variants, int(sizeof variants / sizeof variants[0])}; }
