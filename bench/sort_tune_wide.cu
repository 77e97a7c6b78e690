// sort_tune's variants for u64 keys with u32 or u64 values and u32 keys
// with u64 values. Sweep on the H200 (2026-11-29): atomicOr ranking at
// 512 threads x 12 or 10 keys, 2 blocks/SM, 1.01-1.06x CUB (CUB's starting
// points with ballots: 0.97-1.00x). This table looks at larger tiles, and
// (A rows) at values copied by cp.async straight to shared memory
// (sort_tuning.h values_async) at tiles whose keys and values both fit in
// shared memory with 2 blocks/SM (3 at 256 threads), and (S rows) at
// values staged at the tile's start (values_staged: the library's since
// session 13).
#include "sort_tune.cuh"

namespace {
#define X(T, VB, THREADS, ITEMS, MIN_BLOCKS, RANK) TUNE_VARIANT_X(T, VB, THREADS, ITEMS, MIN_BLOCKS, true, RANK, false)
#define A(T, VB, THREADS, ITEMS, MIN_BLOCKS) \
  TUNE_VARIANT_XA(T, VB, THREADS, ITEMS, MIN_BLOCKS, true, ATOMIC_OR, false, true)
#define S(T, VB, THREADS, ITEMS, MIN_BLOCKS) TUNE_VARIANT_STAGED(T, VB, THREADS, ITEMS, MIN_BLOCKS)
const tune_variant u64_u32[] = {
    X(GPU_U64, 4, 512, 12, 2, ATOMIC_OR), /* values in registers: the starting point */
    X(GPU_U64, 4, 512, 16, 2, ATOMIC_OR), X(GPU_U64, 4, 384, 20, 2, ATOMIC_OR), X(GPU_U64, 4, 768, 12, 1, ATOMIC_OR),
    X(GPU_U64, 4, 1024, 10, 1, ATOMIC_OR),
    A(GPU_U64, 4, 512, 12, 2), A(GPU_U64, 4, 512, 16, 2), A(GPU_U64, 4, 384, 20, 2), A(GPU_U64, 4, 384, 24, 2),
    A(GPU_U64, 4, 256, 20, 3),
    /* values staged at the tile's start */
    S(GPU_U64, 4, 384, 20, 2), S(GPU_U64, 4, 512, 16, 2), S(GPU_U64, 4, 512, 12, 2), S(GPU_U64, 4, 384, 24, 2),
    S(GPU_U64, 4, 384, 22, 2), S(GPU_U64, 4, 448, 18, 2), S(GPU_U64, 4, 416, 20, 2), S(GPU_U64, 4, 352, 24, 2),
};
const tune_variant u64_u64[] = {
    X(GPU_U64, 8, 512, 12, 2, ATOMIC_OR), /* values in registers: the starting point */
    X(GPU_U64, 8, 512, 10, 2, ATOMIC_OR), X(GPU_U64, 8, 768, 10, 1, ATOMIC_OR), X(GPU_U64, 8, 1024, 8, 1, ATOMIC_OR),
    A(GPU_U64, 8, 512, 10, 2), A(GPU_U64, 8, 512, 12, 2), A(GPU_U64, 8, 512, 13, 2), A(GPU_U64, 8, 384, 16, 2),
    A(GPU_U64, 8, 256, 16, 3),
    S(GPU_U64, 8, 512, 12, 2), S(GPU_U64, 8, 512, 13, 2), S(GPU_U64, 8, 384, 16, 2), S(GPU_U64, 8, 256, 16, 3),
    S(GPU_U64, 8, 448, 14, 2), S(GPU_U64, 8, 480, 13, 2), S(GPU_U64, 8, 384, 18, 2), S(GPU_U64, 8, 416, 16, 2),
};
const tune_variant u32_u64[] = {
    X(GPU_U32, 8, 512, 12, 2, ATOMIC_OR), /* values in registers: the starting point */
    X(GPU_U32, 8, 512, 16, 2, ATOMIC_OR), X(GPU_U32, 8, 768, 12, 1, ATOMIC_OR), X(GPU_U32, 8, 1024, 10, 1, ATOMIC_OR),
    A(GPU_U32, 8, 512, 12, 2), A(GPU_U32, 8, 512, 16, 2), A(GPU_U32, 8, 384, 20, 2), A(GPU_U32, 8, 384, 24, 2),
    A(GPU_U32, 8, 256, 20, 3),
    S(GPU_U32, 8, 384, 20, 2), S(GPU_U32, 8, 256, 24, 3), S(GPU_U32, 8, 384, 24, 2), S(GPU_U32, 8, 448, 20, 2),
};
#undef X
#undef A
#undef S
template <size_t N> tune_table table(const tune_variant (&v)[N]) { return {v, int(N)}; }
}  // namespace

tune_table u64_u32_pair_variants() { return table(u64_u32); }
tune_table u64_u64_pair_variants() { return table(u64_u64); }
tune_table u32_u64_pair_variants() { return table(u32_u64); }
