// sort_tune's variants for u32 keys with u32 values. Sweeps on the H200
// (2026-11-29): ballots at 256 x 20, 3 blocks/SM 0.92x CUB; atomicOr
// ranking 0.88x there but 0.99x at 512 x 16, 2 blocks/SM (larger tiles
// won). This table looks at still larger tiles.
#include "sort_tune.cuh"

namespace {
#define V(THREADS, ITEMS, MIN_BLOCKS, BALLOTS) TUNE_VARIANT(GPU_U32, 4, THREADS, ITEMS, MIN_BLOCKS, BALLOTS)
#define X(THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT) \
  TUNE_VARIANT_X(GPU_U32, 4, THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT)
const tune_variant variants[] = {
    X(512, 16, 2, true, ATOMIC_OR, false), /* the library's shape */
    X(512, 20, 2, true, ATOMIC_OR, false), X(512, 24, 2, true, ATOMIC_OR, false), X(384, 24, 2, true, ATOMIC_OR, false),
    X(384, 28, 2, true, ATOMIC_OR, false), X(256, 28, 3, true, ATOMIC_OR, false), X(768, 16, 1, true, ATOMIC_OR, false),
    X(1024, 12, 1, true, ATOMIC_OR, false), X(1024, 16, 1, true, ATOMIC_OR, false), V(256, 20, 3, true),
    X(512, 16, 2, true, ATOMIC_OR, true), /* persistent */
};
#undef V
#undef X
}  // namespace

tune_table u32_pair_variants() { return {variants, int(sizeof variants / sizeof variants[0])}; }
