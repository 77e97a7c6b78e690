// sort_tune's variants for u64 keys (keys only). Sweeps on the H200
// (2026-11-29): atomicOr ranking at 384 x 16, 2 blocks/SM 1.13x CUB
// (ballots 1.04x), 384 x 20 1.23x. This table looks at larger tiles.
#include "sort_tune.cuh"

namespace {
#define V(THREADS, ITEMS, MIN_BLOCKS, BALLOTS) TUNE_VARIANT(GPU_U64, 0, THREADS, ITEMS, MIN_BLOCKS, BALLOTS)
#define X(THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT) \
  TUNE_VARIANT_X(GPU_U64, 0, THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT)
const tune_variant variants[] = {
    X(384, 20, 2, true, ATOMIC_OR, false), /* the library's shape */
    X(384, 24, 2, true, ATOMIC_OR, false), X(512, 20, 2, true, ATOMIC_OR, false), X(512, 24, 2, true, ATOMIC_OR, false),
    X(256, 24, 3, true, ATOMIC_OR, false), X(768, 12, 1, true, ATOMIC_OR, false), X(1024, 12, 1, true, ATOMIC_OR, false),
    X(384, 16, 2, true, ATOMIC_OR, false), X(384, 20, 2, true, ATOMIC_OR, true), /* persistent */
};
#undef V
#undef X
}  // namespace

tune_table u64_key_variants() { return {variants, int(sizeof variants / sizeof variants[0])}; }
