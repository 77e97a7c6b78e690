/*
 * Host side of the CUDA radix sort for one (key type, value width): picks
 * the single-block or the onesweep path, lays out the temporary memory,
 * launches. Included by one sort_cuda_<type>.cu per key type.
 *
 * Onesweep path, all on the thread's stream, no host round trip:
 *   memset     counters and the histogram (a few KiB)
 *   histogram  all digits in one read; its last block writes the plan
 *   passes     one launch per digit position (and per portion of 2^30 keys),
 *              each reading the plan: sort, skip, or copy
 * Temporary memory, one pool allocation: a buffer the size of the keys (and
 * one of the values), the histogram, plan and bucket starts, and two
 * look-back regions of 1 KiB per tile (together 0.25-0.33 bytes a key at the
 * tile sizes of sort_tuning.h).
 */
#pragma once

#include <cuda_runtime.h>

#include "core/core.h"
#include "core/cuda_launch.cuh"
#include "sort/device/histogram.cuh"
#include "sort/device/onesweep.cuh"
#include "sort/device/single_block.cuh"
#include "sort/sort_cuda.h"
#include "sort/sort_tuning.h"

namespace gp {
namespace radix {

inline size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* Byte offsets in the one temporary allocation. */
struct sort_layout {
  size_t key_buffer, value_buffer, zeroed, zeroed_bytes, counts, blocks_done, tile_counters;
  size_t plan, bucket_start, lookback, total;
  uint64_t portion_items;
  uint32_t portions, max_tiles;
};

inline sort_layout plan_layout(size_t n, size_t key_bytes, size_t value_bytes, int digits, uint32_t tile_items,
                               uint32_t portion_tiles) {
  sort_layout l{};
  l.portion_items = uint64_t(portion_tiles) * tile_items;
  l.portions = uint32_t((n + l.portion_items - 1) / l.portion_items);
  const uint64_t first_portion = n < l.portion_items ? n : l.portion_items;
  l.max_tiles = uint32_t((first_portion + tile_items - 1) / tile_items);
  size_t at = 0;
  l.key_buffer = at;
  at = align_up(at + n * key_bytes, 256);
  l.value_buffer = at;
  at = align_up(at + n * value_bytes, 256);
  l.zeroed = l.counts = at;
  at += size_t(digits) * RADIX * sizeof(uint64_t);
  l.blocks_done = at;
  at += sizeof(uint64_t);
  l.tile_counters = at;
  at += size_t(digits) * l.portions * sizeof(uint64_t);
  l.zeroed_bytes = at - l.zeroed;
  at = align_up(at, 256);
  l.plan = at;
  at = align_up(at + digits * sizeof(uint32_t), 256);
  l.bucket_start = at;
  at = align_up(at + size_t(digits) * (l.portions + 1) * RADIX * sizeof(uint64_t), 256);
  l.lookback = at;
  at += 2 * size_t(l.max_tiles) * RADIX * sizeof(uint32_t);
  l.total = at;
  return l;
}

template <gpu_dtype T, int VALUE_BYTES>
gpu_status sort_one_block(const char *fn, void *keys, void *values, size_t n, uint32_t flip, cudaStream_t stream) {
  using Shape = single_block_shape;
  constexpr auto kernel = sort_single_block<T, VALUE_BYTES, Shape>;
  constexpr size_t smem = sizeof(single_block_storage<T, VALUE_BYTES, Shape>);
  gpu_status s = allow_shared_memory<kernel>(fn, Shape::threads, smem);
  if (s != GPU_OK) return s;
  kernel<<<1, Shape::threads, smem, stream>>>(keys, values, uint32_t(n), flip);
  return check_launch(fn, "sort_single_block");
}

/* The onesweep path's steps, one call each, so that bench/sort_tune.cu can
 * time every launch: begin (temporary memory, counters cleared), the
 * histogram, one pass per (digit, portion), end (frees the memory; returns
 * the first failure). Shape is the passes' tile shape and knobs. */
template <gpu_dtype T, int VALUE_BYTES, typename Shape> struct onesweep_launches {
  using Key = radix_key<T>;
  static constexpr auto histogram_kernel = histogram_all_digits<T>;
  static constexpr auto pass_kernel = onesweep_pass<T, VALUE_BYTES, Shape>;
  static constexpr size_t pass_smem = sizeof(onesweep_storage<T, VALUE_BYTES, Shape>);
  static constexpr uint32_t TILE = Shape::tile_items;
  /* Look-back counts are 30 bits: a launch takes fewer than 2^30 keys. */
  static constexpr uint32_t MAX_PORTION_TILES = ((1u << 30) - 1) / TILE;

  const char *fn;
  void *keys, *values;
  size_t n;
  uint32_t flip;
  cudaStream_t stream;
  sort_layout layout{};
  unsigned char *mem = nullptr; /* the temporary memory, from begin to end */

  /* portion_tiles: tiles per pass launch, 0 for as many as the counts allow. */
  gpu_status begin(uint32_t portion_tiles) {
    if (portion_tiles == 0 || portion_tiles >= MAX_PORTION_TILES) portion_tiles = MAX_PORTION_TILES;
    if (n > SIZE_MAX / 64)
      return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: n = %zu keys: temporary memory size overflows", fn, n);
    layout = plan_layout(n, Key::bytes, VALUE_BYTES, Key::digits, TILE, portion_tiles);
    gpu_status s = allow_shared_memory<pass_kernel>(fn, Shape::threads, pass_smem);
    if (s != GPU_OK) return s;
    s = gp_pool_alloc(fn, reinterpret_cast<void **>(&mem), layout.total);
    if (s != GPU_OK) return s; /* nothing touched yet */
    return gp_cuda_status(cudaMemsetAsync(mem + layout.zeroed, 0, layout.zeroed_bytes, stream), fn,
                          "cudaMemsetAsync");
  }

  uint32_t portions() const { return layout.portions; }

  gpu_status histogram() {
    constexpr uint64_t chunk = HISTOGRAM_THREADS * histogram_tuning<Key::bytes>::items;
    const uint64_t chunks = (n + chunk - 1) / chunk;
    const unsigned resident = resident_blocks<histogram_kernel>(HISTOGRAM_THREADS, 0);
    const unsigned grid = unsigned(chunks < resident ? chunks : resident);
    histogram_args h{};
    h.keys = keys;
    h.n = n;
    h.flip = flip;
    h.counts = counts();
    h.blocks_done = reinterpret_cast<unsigned int *>(mem + layout.blocks_done);
    h.plan = plan();
    h.bucket_start = bucket_start();
    h.portions = layout.portions;
    h.lookback = lookback();
    h.lookback_words = region_words();
    histogram_kernel<<<grid, HISTOGRAM_THREADS, 0, stream>>>(h);
    return check_launch(fn, "histogram_all_digits");
  }

  /* Digit position d's launch for portion q (reads the plan: sort, skip or copy). */
  gpu_status pass(int d, uint32_t q) {
    const uint64_t first = uint64_t(q) * layout.portion_items;
    const uint64_t items = n - first < layout.portion_items ? n - first : layout.portion_items;
    const uint64_t base = (uint64_t(d) * (layout.portions + 1) + q) * RADIX;
    onesweep_args a{};
    a.keys = keys;
    a.key_buffer = mem + layout.key_buffer;
    a.values = values;
    a.value_buffer = VALUE_BYTES ? mem + layout.value_buffer : nullptr;
    a.plan = plan();
    a.bucket_start = bucket_start() + base;
    a.next_bucket_start = q + 1 < layout.portions ? bucket_start() + base + RADIX : nullptr;
    a.lookback = lookback();
    a.region_words = region_words();
    a.tile_counter =
        reinterpret_cast<unsigned long long *>(mem + layout.tile_counters) + uint64_t(d) * layout.portions + q;
    a.portion_first = first;
    a.portion_items = uint32_t(items);
    a.max_tiles = layout.max_tiles;
    a.portion = q;
    a.portions = layout.portions;
    a.digit = d;
    a.flip = flip;
    unsigned grid = unsigned((items + TILE - 1) / TILE); /* one block a tile */
    if constexpr (Shape::persistent) {
      const unsigned resident = resident_blocks<pass_kernel>(Shape::threads, pass_smem);
      if (resident < grid) grid = resident;
    }
    pass_kernel<<<grid, Shape::threads, pass_smem, stream>>>(a);
    return check_launch(fn, "onesweep_pass");
  }

  gpu_status end(gpu_status s) {
    if (!mem) return s;
    const gpu_status f = gp_pool_free(fn, mem);
    mem = nullptr;
    return s != GPU_OK ? s : f;
  }

  unsigned long long *counts() const { return reinterpret_cast<unsigned long long *>(mem + layout.counts); }
  uint32_t *plan() const { return reinterpret_cast<uint32_t *>(mem + layout.plan); }
  uint64_t *bucket_start() const { return reinterpret_cast<uint64_t *>(mem + layout.bucket_start); }
  uint32_t *lookback() const { return reinterpret_cast<uint32_t *>(mem + layout.lookback); }
  uint64_t region_words() const { return uint64_t(layout.max_tiles) * RADIX; }
};

template <gpu_dtype T, int VALUE_BYTES,
          typename Shape = typename onesweep_tuning<radix_key<T>::bytes, VALUE_BYTES>::shape>
gpu_status sort_onesweep(const char *fn, void *keys, void *values, size_t n, uint32_t flip,
                         const gp_sort_cuda_config &cfg, cudaStream_t stream) {
  onesweep_launches<T, VALUE_BYTES, Shape> run{fn, keys, values, n, flip, stream};
  gpu_status s = run.begin(cfg.portion_tiles);
  if (s == GPU_OK) s = run.histogram();
  for (int d = 0; d < radix_key<T>::digits && s == GPU_OK; d++)
    for (uint32_t q = 0; q < run.portions() && s == GPU_OK; q++) s = run.pass(d, q);
  return run.end(s);
}

template <gpu_dtype T, int VALUE_BYTES>
gpu_status sort_cuda(void *keys, void *values, size_t n, unsigned flags, const gp_sort_cuda_config &cfg) {
  const char *fn = VALUE_BYTES ? "gpu_sort_pairs" : "gpu_sort_keys";
  cudaStream_t stream = static_cast<cudaStream_t>(gp_stream());
  const uint32_t flip = (flags & GPU_DESCENDING) ? RADIX - 1 : 0;
  if (n <= size_t(single_block_shape::tile_items) && n <= cfg.single_block_max)
    return sort_one_block<T, VALUE_BYTES>(fn, keys, values, n, flip, stream);
  return sort_onesweep<T, VALUE_BYTES>(fn, keys, values, n, flip, cfg, stream);
}

template <gpu_dtype T>
gpu_status sort_cuda_type(void *keys, void *values, size_t n, size_t value_bytes, unsigned flags,
                          const gp_sort_cuda_config &cfg) {
  switch (value_bytes) {
    case 0: return sort_cuda<T, 0>(keys, nullptr, n, flags, cfg);
    case 4: return sort_cuda<T, 4>(keys, values, n, flags, cfg);
    case 8: return sort_cuda<T, 8>(keys, values, n, flags, cfg);
  }
  return gp_fail(GPU_ERR_INVALID_ARGUMENT, "gpu_sort_pairs: value_bytes is %zu, not 4 or 8", value_bytes);
}

}  // namespace radix
}  // namespace gp

/* One key type's entry point, gp_sort_cuda_<suffix>. */
#define GP_DEFINE_SORT_CUDA_TYPE(T, SUFFIX)                                                              \
  extern "C" gpu_status gp_sort_cuda_##SUFFIX(void *keys, void *values, size_t n, size_t value_bytes,  \
                                              unsigned flags, const gp_sort_cuda_config *cfg) {         \
    return gp::radix::sort_cuda_type<T>(keys, values, n, value_bytes, flags, *cfg);                      \
  }
