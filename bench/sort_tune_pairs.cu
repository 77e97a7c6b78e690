// sort_tune's variants for u32 keys with u32 values. Sweeps on the H200
// (2026-11-29): ballots at 256 x 20, 3 blocks/SM 0.92x CUB; atomicOr
// ranking 0.88x there but 0.99x at 512 x 16, 2 blocks/SM (larger tiles
// won). This table looks at still larger tiles, and (async) at values
// copied by cp.async straight to shared memory, never in registers
// (sort_tuning.h values_async), which pairs need to grow their tiles
// without spilling, and (staged) at values copied at the tile's start in
// tile order, then moved to their ranks within shared memory
// (values_staged; session 13: 384 x 28 1.09x CUB at 2^28, the library's).
#include "sort_tune.cuh"

namespace {
#define V(THREADS, ITEMS, MIN_BLOCKS, BALLOTS) TUNE_VARIANT(GPU_U32, 4, THREADS, ITEMS, MIN_BLOCKS, BALLOTS)
#define X(THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT) \
  TUNE_VARIANT_X(GPU_U32, 4, THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT)
#define A(THREADS, ITEMS, MIN_BLOCKS) \
  TUNE_VARIANT_XA(GPU_U32, 4, THREADS, ITEMS, MIN_BLOCKS, true, ATOMIC_OR, false, true)
#define S(THREADS, ITEMS, MIN_BLOCKS) TUNE_VARIANT_STAGED(GPU_U32, 4, THREADS, ITEMS, MIN_BLOCKS)
const tune_variant variants[] = {
    X(512, 16, 2, true, ATOMIC_OR, false), /* values in registers: the starting point */
    X(512, 20, 2, true, ATOMIC_OR, false), X(512, 24, 2, true, ATOMIC_OR, false), X(384, 24, 2, true, ATOMIC_OR, false),
    X(384, 28, 2, true, ATOMIC_OR, false), X(256, 28, 3, true, ATOMIC_OR, false), X(768, 16, 1, true, ATOMIC_OR, false),
    X(1024, 12, 1, true, ATOMIC_OR, false), X(1024, 16, 1, true, ATOMIC_OR, false), V(256, 20, 3, true),
    X(512, 16, 2, true, ATOMIC_OR, true), /* persistent */
    /* values by cp.async: 2 (lb3: 3) tiles of keys and values fit an SM */
    A(512, 16, 2), A(512, 20, 2), A(512, 24, 2), A(256, 24, 3), A(256, 32, 3), A(384, 24, 2),
    /* values staged at the tile's start */
    S(512, 20, 2), S(512, 24, 2), S(384, 24, 2), S(256, 32, 3), S(512, 22, 2), S(448, 24, 2), S(448, 22, 2),
    S(384, 28, 2), S(416, 26, 2), S(384, 30, 2), S(448, 26, 2), S(352, 30, 2),
};
#undef V
#undef X
#undef A
#undef S
}  // namespace

tune_table u32_pair_variants() { return {variants, int(sizeof variants / sizeof variants[0])}; }
