// sort_tune's variants for u32 keys (keys only). Sweeps on the H200
// (2026-11-29): atomicOr ranking ("aor") beat ballots and match.any at every
// shape (256 x 24 at 3 blocks/SM: 1.00x -> 1.19x CUB), and larger tiles won
// (256 x 32: 1.31x); bench/results/h200_sort_tune*.txt. This table looks
// at still larger tiles.
#include "sort_tune.cuh"

namespace {
#define V(THREADS, ITEMS, MIN_BLOCKS, BALLOTS) TUNE_VARIANT(GPU_U32, 0, THREADS, ITEMS, MIN_BLOCKS, BALLOTS)
#define X(THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT) \
  TUNE_VARIANT_X(GPU_U32, 0, THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT)
const tune_variant variants[] = {
    X(256, 32, 3, true, ATOMIC_OR, false), /* the library's shape */
    X(256, 24, 3, true, ATOMIC_OR, false), X(256, 36, 3, true, ATOMIC_OR, false), X(256, 40, 3, true, ATOMIC_OR, false),
    X(384, 28, 2, true, ATOMIC_OR, false), X(384, 32, 2, true, ATOMIC_OR, false), X(512, 24, 2, true, ATOMIC_OR, false),
    X(512, 28, 2, true, ATOMIC_OR, false), X(512, 32, 2, true, ATOMIC_OR, false), X(1024, 16, 1, true, ATOMIC_OR, false),
    X(768, 20, 1, true, ATOMIC_OR, false), X(256, 32, 3, true, ATOMIC_OR, true), /* persistent */
};
#undef V
#undef X
}  // namespace

tune_table u32_key_variants() { return {variants, int(sizeof variants / sizeof variants[0])}; }
