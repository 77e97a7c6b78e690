// sort_tune's variants for the pair widths not swept before: u64 keys with
// u32 or u64 values, u32 keys with u64 values. The library keeps CUB's
// starting points there (ballots, load/store ranks); atomicOr ranking won
// for keys only (sort/sort_tuning.h), so this table tries it beside them.
#include "sort_tune.cuh"

namespace {
#define X(T, VB, THREADS, ITEMS, MIN_BLOCKS, RANK) TUNE_VARIANT_X(T, VB, THREADS, ITEMS, MIN_BLOCKS, true, RANK, false)
const tune_variant u64_u32[] = {
    X(GPU_U64, 4, 384, 15, 2, STORE), /* the library's shape */
    X(GPU_U64, 4, 384, 15, 2, ATOMIC_OR), X(GPU_U64, 4, 384, 12, 2, ATOMIC_OR), X(GPU_U64, 4, 256, 16, 3, ATOMIC_OR),
    X(GPU_U64, 4, 256, 12, 3, ATOMIC_OR), X(GPU_U64, 4, 512, 12, 2, ATOMIC_OR), X(GPU_U64, 4, 256, 16, 3, STORE),
};
const tune_variant u64_u64[] = {
    X(GPU_U64, 8, 384, 12, 2, STORE), /* the library's shape */
    X(GPU_U64, 8, 384, 12, 2, ATOMIC_OR), X(GPU_U64, 8, 384, 10, 2, ATOMIC_OR), X(GPU_U64, 8, 256, 12, 3, ATOMIC_OR),
    X(GPU_U64, 8, 256, 16, 2, ATOMIC_OR), X(GPU_U64, 8, 512, 10, 2, ATOMIC_OR), X(GPU_U64, 8, 256, 12, 3, STORE),
};
const tune_variant u32_u64[] = {
    X(GPU_U32, 8, 384, 14, 2, STORE), /* the library's shape */
    X(GPU_U32, 8, 384, 14, 2, ATOMIC_OR), X(GPU_U32, 8, 384, 12, 2, ATOMIC_OR), X(GPU_U32, 8, 256, 16, 3, ATOMIC_OR),
    X(GPU_U32, 8, 256, 20, 2, ATOMIC_OR), X(GPU_U32, 8, 512, 12, 2, ATOMIC_OR), X(GPU_U32, 8, 256, 16, 3, STORE),
};
#undef X
template <size_t N> tune_table table(const tune_variant (&v)[N]) { return {v, int(N)}; }
}  // namespace

tune_table u64_u32_pair_variants() { return table(u64_u32); }
tune_table u64_u64_pair_variants() { return table(u64_u64); }
tune_table u32_u64_pair_variants() { return table(u32_u64); }
