// sort_tune's variants for u32 keys with u32 values. The second sweep
// (H200, 2026-11-29): ballots at 256 x 20, 3 blocks/SM 0.93x CUB, atomicOr
// ranking at that shape 0.88x (it wins for keys only). This table tries
// atomicOr ranking at other shapes.
#include "sort_tune.cuh"

namespace {
#define V(THREADS, ITEMS, MIN_BLOCKS, BALLOTS) TUNE_VARIANT(GPU_U32, 4, THREADS, ITEMS, MIN_BLOCKS, BALLOTS)
#define X(THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT) \
  TUNE_VARIANT_X(GPU_U32, 4, THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT)
const tune_variant variants[] = {
    V(256, 20, 3, true), /* the library's shape */
    X(256, 20, 3, true, ATOMIC_OR, false), X(256, 16, 3, true, ATOMIC_OR, false), X(256, 24, 3, true, ATOMIC_OR, false),
    X(256, 12, 4, true, ATOMIC_OR, false), X(256, 16, 4, true, ATOMIC_OR, false), X(256, 20, 2, true, ATOMIC_OR, false),
    X(384, 12, 3, true, ATOMIC_OR, false), X(384, 16, 2, true, ATOMIC_OR, false), X(384, 20, 2, true, ATOMIC_OR, false),
    X(512, 12, 2, true, ATOMIC_OR, false), X(512, 16, 2, true, ATOMIC_OR, false),
    X(256, 20, 3, true, ATOMIC, false), X(384, 18, 2, true, ATOMIC, false),
};
#undef V
#undef X
}  // namespace

tune_table u32_pair_variants() { return {variants, int(sizeof variants / sizeof variants[0])}; }
