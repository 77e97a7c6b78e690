// What sort_tune.cu (the harness) and its variant tables share. Each table
// (sort_tune_<case>.cu) instantiates the onesweep sort for one (key type,
// value width) with several tile shapes and knobs (sort_variant in
// sort/sort_tuning.h); the tables compile in parallel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sort/sort_launch.cuh"

struct tune_kernel_info {
  int regs, local_bytes; /* local_bytes > 0: the pass kernel spills */
  size_t smem_bytes;     /* the pass kernel's dynamic shared memory */
  int blocks_per_sm;     /* resident pass blocks per SM */
};

struct tune_variant {
  int threads, items, min_blocks; /* min_blocks: the launch bounds' blocks per SM (1: no register cap) */
  bool ballots;                   /* ranking by 8 ballots; false: match.any */
  int rank;                       /* gp::radix::rank_method: 0 store, 1 atomic, 2 atomicOr (sort_tuning.h) */
  bool persistent;                /* grid of resident blocks taking tiles in a loop */
  bool values_async;              /* values by cp.async straight to shared memory (pairs) */
  /* The whole onesweep path (histogram, then a pass per digit), ascending,
   * in place; values NULL for keys only. */
  gpu_status (*sort)(void *keys, void *values, size_t n);
  /* The pass kernel's resources; valid once sort has run (which opts in to
   * its shared memory). */
  void (*info)(tune_kernel_info *k);
  bool values_staged; /* values staged by cp.async at the tile's start, moved to rank in shared memory */
};

struct tune_table {
  const tune_variant *variants;
  int count;
};
tune_table u32_key_variants();
tune_table u32_pair_variants();
tune_table u64_key_variants();
tune_table u64_u32_pair_variants();
tune_table u64_u64_pair_variants();
tune_table u32_u64_pair_variants();

template <gpu_dtype T, int VALUE_BYTES, typename Shape>
gpu_status tune_sort(void *keys, void *values, size_t n) {
  const gp_sort_cuda_config cfg{SIZE_MAX, 0};
  return gp::radix::sort_onesweep<T, VALUE_BYTES, Shape>("sort_tune", keys, values, n, 0, cfg,
                                                         static_cast<cudaStream_t>(gp_stream()));
}

template <gpu_dtype T, int VALUE_BYTES, typename Shape> void tune_info(tune_kernel_info *k) {
  using Launches = gp::radix::onesweep_launches<T, VALUE_BYTES, Shape>;
  cudaFuncAttributes a{};
  cudaFuncGetAttributes(&a, Launches::pass_kernel);
  k->regs = a.numRegs;
  k->local_bytes = int(a.localSizeBytes);
  k->smem_bytes = Launches::pass_smem;
  k->blocks_per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k->blocks_per_sm, Launches::pass_kernel, Shape::threads,
                                                Launches::pass_smem);
  cudaGetLastError();
}

/* One table row: THREADS x ITEMS keys a tile, launch bounds asking for
 * MIN_BLOCKS blocks per SM, ranking by ballots (true) or match.any, the
 * rank method RANK (STORE, ATOMIC or ATOMIC_OR), a persistent grid or not,
 * and (TUNE_VARIANT_XA) values by cp.async or not. TUNE_VARIANT is the
 * library's method and grid. */
#define TUNE_SHAPE(THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT, ASYNC) \
  gp::radix::sort_variant<THREADS, ITEMS, MIN_BLOCKS, BALLOTS, gp::radix::RANK_##RANK, PERSISTENT, ASYNC>
#define TUNE_VARIANT_XA(T, VALUE_BYTES, THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT, ASYNC)      \
  {THREADS,                                                                                              \
   ITEMS,                                                                                                \
   MIN_BLOCKS,                                                                                           \
   BALLOTS,                                                                                              \
   gp::radix::RANK_##RANK,                                                                               \
   PERSISTENT,                                                                                           \
   ASYNC,                                                                                                \
   tune_sort<T, VALUE_BYTES, TUNE_SHAPE(THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT, ASYNC)>, \
   tune_info<T, VALUE_BYTES, TUNE_SHAPE(THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT, ASYNC)>}
/* Values staged at the tile's start (sort_tuning.h values_staged), ranking by atomicOr. */
#define TUNE_SHAPE_S(THREADS, ITEMS, MIN_BLOCKS) \
  gp::radix::sort_variant<THREADS, ITEMS, MIN_BLOCKS, true, gp::radix::RANK_ATOMIC_OR, false, false, true>
#define TUNE_VARIANT_STAGED(T, VALUE_BYTES, THREADS, ITEMS, MIN_BLOCKS)                                              \
  {THREADS, ITEMS, MIN_BLOCKS, true, gp::radix::RANK_ATOMIC_OR, false, true,                                        \
   tune_sort<T, VALUE_BYTES, TUNE_SHAPE_S(THREADS, ITEMS, MIN_BLOCKS)>,                                           \
   tune_info<T, VALUE_BYTES, TUNE_SHAPE_S(THREADS, ITEMS, MIN_BLOCKS)>, true}
#define TUNE_VARIANT_X(T, VALUE_BYTES, THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT) \
  TUNE_VARIANT_XA(T, VALUE_BYTES, THREADS, ITEMS, MIN_BLOCKS, BALLOTS, RANK, PERSISTENT, false)
#define TUNE_VARIANT(T, VALUE_BYTES, THREADS, ITEMS, MIN_BLOCKS, BALLOTS) \
  TUNE_VARIANT_X(T, VALUE_BYTES, THREADS, ITEMS, MIN_BLOCKS, BALLOTS, STORE, false)
