// sort_tune's variants for u64 keys with u32 or u64 values and u32 keys
// with u64 values. Sweep on the H200 (2026-11-29): atomicOr ranking at
// 512 threads x 12 or 10 keys, 2 blocks/SM, 1.01-1.06x CUB (CUB's starting
// points with ballots: 0.97-1.00x). This table looks at larger tiles.
#include "sort_tune.cuh"

namespace {
#define X(T, VB, THREADS, ITEMS, MIN_BLOCKS, RANK) TUNE_VARIANT_X(T, VB, THREADS, ITEMS, MIN_BLOCKS, true, RANK, false)
const tune_variant u64_u32[] = {
    X(GPU_U64, 4, 512, 12, 2, ATOMIC_OR), /* the library's shape */
    X(GPU_U64, 4, 512, 16, 2, ATOMIC_OR), X(GPU_U64, 4, 384, 20, 2, ATOMIC_OR), X(GPU_U64, 4, 768, 12, 1, ATOMIC_OR),
    X(GPU_U64, 4, 1024, 10, 1, ATOMIC_OR),
};
const tune_variant u64_u64[] = {
    X(GPU_U64, 8, 512, 12, 2, ATOMIC_OR), /* the library's shape */
    X(GPU_U64, 8, 512, 10, 2, ATOMIC_OR), X(GPU_U64, 8, 768, 10, 1, ATOMIC_OR), X(GPU_U64, 8, 1024, 8, 1, ATOMIC_OR),
};
const tune_variant u32_u64[] = {
    X(GPU_U32, 8, 512, 12, 2, ATOMIC_OR), /* the library's shape */
    X(GPU_U32, 8, 512, 16, 2, ATOMIC_OR), X(GPU_U32, 8, 768, 12, 1, ATOMIC_OR), X(GPU_U32, 8, 1024, 10, 1, ATOMIC_OR),
};
#undef X
template <size_t N> tune_table table(const tune_variant (&v)[N]) { return {v, int(N)}; }
}  // namespace

tune_table u64_u32_pair_variants() { return table(u64_u32); }
tune_table u64_u64_pair_variants() { return table(u64_u64); }
tune_table u32_u64_pair_variants() { return table(u32_u64); }
