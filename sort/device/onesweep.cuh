/*
 * One onesweep pass: a stable scatter of all keys (and values) by one 8-bit
 * digit, from one buffer to the other, in a single kernel.
 *
 * Each block takes the next tile from an atomic counter (never blockIdx: a
 * tile then only ever waits for tiles taken earlier, whose blocks are
 * running, so the look-back always ends), and
 *   1. loads its keys (warp-striped, block_rank.cuh) and counts their digits;
 *   2. publishes its count of every digit at once (look-back "aggregate"),
 *      before the long ranking step, so that later tiles rarely wait;
 *   3. ranks its keys within the tile (block_rank.cuh) and stores them in
 *      shared memory in rank order, i.e. ordered by digit, stably;
 *   4. thread b looks back over earlier tiles' words for digit b, summing
 *      aggregates until a tile's inclusive count, publishes its own
 *      inclusive count, and so knows where the tile's run of digit b goes:
 *        bucket start (from the histogram pass, 64-bit)
 *        + count of digit b in earlier tiles of this portion (look-back)
 *        - start of digit b's run in the tile's shared memory;
 *   5. writes shared slot j to that offset + j: consecutive slots of one
 *      digit go to consecutive addresses, so stores coalesce by digit run;
 *      then the values the same way through the same shared memory. The
 *      offset is kept per digit as a byte address (64-bit: runs of one
 *      digit spread over the whole array, which may exceed 2^32 keys), so
 *      a key's address is one wide multiply-add of its 32-bit slot.
 *
 * Values (pairs) are loaded into registers in step 3, after the ranking,
 * so that their loads overlap the look-back, and go through the same
 * shared memory as the keys once the keys are out. With Shape::values_async
 * (sort_tuning.h) they skip the registers instead: in step 3 each thread
 * has cp.async copy each of its values from global memory straight to the
 * shared slot of its rank, in a shared array of their own beside the keys'
 * (so that the copies can land during the look-back and the key scatter);
 * the thread waits for its copies after the key scatter, and one barrier
 * later every value is in place. Neither the values (ITEMS registers, 8-byte
 * values 2 x ITEMS) nor the ranks are then live across the look-back, at
 * the cost of a tile of shared memory more. With Shape::values_staged (the
 * library's pairs) the copies start earlier, in step 1: 16-byte cp.async in
 * tile order, into the values' array (the ranking's storage lies below
 * it), landing while the keys are ranked; in step 3 each thread moves its
 * own values from their tile slots to their ranked slots (reads, a
 * barrier, writes), and nothing is waited for after the key scatter.
 *
 * A block sorts one tile, or with a persistent shape (sort_tuning.h) the
 * grid is what fits the device at once and each block takes tiles until
 * none is left.
 *
 * Look-back words are 32-bit (2 status bits, 30 bits of count), so one
 * launch handles at most 2^30 - 1 keys: larger n is cut into portions of
 * whole tiles, one launch each, the last tile of a portion handing the next
 * its bucket starts. Each launch's words must start cleared: two regions
 * alternate between consecutive launches that sort, and each launch clears
 * the other region for the next one (the histogram kernel clears the first).
 *
 * What a launch does is read from the plan the histogram kernel wrote
 * (histogram.cuh): sort, skip (the digit is the same for every key), or copy
 * (an odd number of sorting passes: one skipped digit's launch moves the
 * keys across instead, so that the last pass writes the caller's array).
 * A copy is a grid-stride copy of tile-sized chunks, 16-byte vectors when
 * both arrays allow, every load of a chunk issued before its stores; a
 * skipping launch's blocks return at once (a persistent grid makes that one
 * wave of blocks: the plan is only known on the device, and a launch's grid
 * is fixed on the host).
 */
#pragma once

#include <cstdint>

#include "core/cuda_launch.cuh"
#include "scan/device/tile_pipeline.cuh"
#include "sort/device/block_rank.cuh"
#include "sort/device/radix_key.cuh"
#include "sort/sort_tuning.h"

namespace gp {
namespace radix {

/* Plan word of a digit position: bits 0-1 what to do, bit 2 whether the
 * keys are in the library's buffer (else in the caller's array), bits 3..
 * how many sorting passes come before it. */
enum : uint32_t { PASS_SKIP = 0, PASS_SORT = 1, PASS_COPY = 2 };
__host__ __device__ inline uint32_t plan_word(uint32_t what, uint32_t in_buffer, uint32_t sorted_before) {
  return what | (in_buffer << 2) | (sorted_before << 3);
}

struct onesweep_args {
  void *keys, *key_buffer;          /* the caller's array and the library's */
  void *values, *value_buffer;      /* NULL for keys only */
  const uint32_t *plan;             /* one word per digit position */
  const uint64_t *bucket_start;     /* RADIX: where this portion's run of each digit starts */
  uint64_t *next_bucket_start;      /* the next portion's, written by the last tile; NULL if none */
  uint32_t *lookback;               /* two regions of region_words words */
  uint64_t region_words;            /* max_tiles * RADIX */
  unsigned long long *tile_counter; /* this launch's, zeroed */
  uint64_t portion_first;           /* the portion's first key */
  uint32_t portion_items;           /* its keys: at most 2^30 - 1 */
  uint32_t max_tiles;               /* tiles of the largest portion */
  uint32_t portion, portions;
  int digit;                        /* digit position, 0 = least significant */
  uint32_t flip;                    /* 0 ascending, 255 descending */
};

template <gpu_dtype T, int VALUE_BYTES, typename Shape> struct onesweep_storage {
  using KeyBits = typename radix_key<T>::bits;
  using Value = typename radix_value<VALUE_BYTES>::type;
  static constexpr bool values_async = VALUE_BYTES != 0 && Shape::values_async;
  static constexpr bool values_staged = VALUE_BYTES != 0 && Shape::values_staged;
  static constexpr int TILE = Shape::tile_items;
  /* Staged values land beside the keys while the ranking's storage is in use. */
  static_assert(!values_staged || sizeof(typename block_rank<Shape>::storage) <= TILE * sizeof(KeyBits),
                "the ranking's storage fits below the values");
  /* The ranking's storage is free once every key is ranked (a barrier),
   * before keys or values are stored: they share it. Values by cp.async go
   * right after the keys (keys_and_values reserves the room; shared_values()). */
  union {
    typename block_rank<Shape>::storage rank;
    KeyBits keys[TILE];
    Value values[VALUE_BYTES ? TILE : 1];
    unsigned char keys_and_values[values_async ? TILE * (sizeof(KeyBits) + sizeof(Value)) : 1];
  } x;
  /* Per digit, the byte address that shared slot 0 would go to (modulo
   * 2^64): slot j of that digit goes to run_base[d] + j * sizeof(element),
   * one wide multiply-add a key. Keys' addresses, then the values' (with
   * values_async the values' are in run_base[RADIX + d] from the start: no
   * barrier between the key scatter and a rewrite). */
  uint64_t run_base[values_async ? 2 * RADIX : RADIX];
  uint32_t tile;

  /* The tile's values in shared memory, slot by slot. */
  __device__ __forceinline__ Value *shared_values() {
    if constexpr (values_async)
      return reinterpret_cast<Value *>(x.keys + TILE); /* TILE * sizeof(KeyBits): a multiple of 1 KiB */
    else
      return x.values;
  }
};

/* Thread b: the count of digit b in this launch's tiles before `tile`. */
__device__ __forceinline__ uint32_t look_back(const uint32_t *lookback, uint32_t tile, int b) {
  uint32_t sum = 0;
  const uint32_t *word = lookback + uint64_t(tile - 1) * RADIX + b;
  for (;;) {
    uint32_t w = load_relaxed(word);
    while (w == 0) w = load_relaxed(word);
    sum += w & LOOKBACK_VALUE;
    if (w & LOOKBACK_INCLUSIVE) return sum; /* tile 0 always is: the walk ends */
    word -= RADIX;
  }
}

/* A copy pass's share of one tile's worth of elements (count <= TILE), in
 * rounds of BATCH loads a thread issued before their stores (enough bytes
 * in flight for the bandwidth, few registers: the sorting path's register
 * budget is tight). 16-byte vectors when both arrays are 16-byte aligned
 * and the chunk is whole (chunks start at multiples of TILE elements and
 * TILE * sizeof(E) is a multiple of 128 bytes: a chunk is as aligned as its
 * array); else one element a load. */
template <typename W, int COUNT, int THREADS, int BATCH>
__device__ __forceinline__ void copy_batched(const W *src, W *dst, uint32_t count, int t) {
#pragma unroll
  for (int first = 0; first < COUNT; first += BATCH * THREADS) {
    W r[BATCH];
#pragma unroll
    for (int u = 0; u < BATCH; u++) {
      const uint32_t j = first + u * THREADS + t;
      if (j < count) r[u] = src[j]; /* count <= COUNT */
    }
#pragma unroll
    for (int u = 0; u < BATCH; u++) {
      const uint32_t j = first + u * THREADS + t;
      if (j < count) dst[j] = r[u];
    }
  }
}

template <typename E, int THREADS, int TILE>
__device__ __forceinline__ void copy_chunk(const E *src, E *dst, uint32_t count, int t, bool vectors) {
  constexpr int VECS = int(TILE * sizeof(E) / 16);
  static_assert(TILE * sizeof(E) % 16 == 0, "whole vectors a tile");
  if (vectors && count == uint32_t(TILE))
    copy_batched<uint4, VECS, THREADS, 4>(reinterpret_cast<const uint4 *>(src), reinterpret_cast<uint4 *>(dst),
                                          uint32_t(VECS), t);
  else
    copy_batched<E, TILE, THREADS, 16 / sizeof(E) * 2>(src, dst, count, t);
}

/* Step 1: a thread's keys of a tile and their digits. Slots past the end
 * get digit RADIX-1: they rank after every real key (they come last in tile
 * order), so they fill the slots >= valid, which are never written out;
 * their counts go only into the last tile's words, which no tile reads
 * (portions before the last are whole tiles). */
template <gpu_dtype T, typename Shape>
__device__ __forceinline__ void load_keys(const typename radix_key<T>::bits *tile_keys, uint32_t valid, int shift,
                                          uint32_t flip, int warp, int lane,
                                          typename radix_key<T>::bits (&keys)[Shape::items],
                                          typename block_rank<Shape>::Digits &digit) {
  using Key = radix_key<T>;
  using Rank = block_rank<Shape>;
  constexpr int ITEMS = Shape::items;
  const typename Key::bits *in = tile_keys + Rank::item_index(warp, lane, 0);
  if (valid == uint32_t(Shape::tile_items)) {
#pragma unroll
    for (int i = 0; i < ITEMS; i++) keys[i] = in[i * WARP];
#pragma unroll
    for (int i = 0; i < ITEMS; i++) digit.set(i, Key::digit(keys[i], shift, flip));
  } else {
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
      const bool ok = uint32_t(Rank::item_index(warp, lane, i)) < valid;
      keys[i] = ok ? in[i * WARP] : typename Key::bits(0);
      digit.set(i, ok ? Key::digit(keys[i], shift, flip) : RADIX - 1);
    }
  }
}

/* Steps 1-5 (above) for one tile of a sorting launch. */
template <gpu_dtype T, int VALUE_BYTES, typename Shape>
__device__ __forceinline__ void sort_tile(const onesweep_args &a, onesweep_storage<T, VALUE_BYTES, Shape> &s,
                                          uint32_t *const lookback, const uint32_t tile, const uint32_t tiles,
                                          const typename radix_key<T>::bits *src,
                                          typename radix_key<T>::bits *dst,
                                          const typename radix_value<VALUE_BYTES>::type *vsrc,
                                          typename radix_value<VALUE_BYTES>::type *vdst, const int t,
                                          const int warp, const int lane) {
  using Key = radix_key<T>;
  using KeyBits = typename Key::bits;
  using Value = typename radix_value<VALUE_BYTES>::type;
  using Rank = block_rank<Shape>;
  constexpr int THREADS = Shape::threads, ITEMS = Shape::items, TILE = Shape::tile_items;
  constexpr bool ASYNC = onesweep_storage<T, VALUE_BYTES, Shape>::values_async;
  constexpr bool STAGED = onesweep_storage<T, VALUE_BYTES, Shape>::values_staged;
  const uint32_t tile_first = tile * TILE;
  const uint32_t valid = min(uint32_t(TILE), a.portion_items - tile_first);
  const int shift = RADIX_BITS * a.digit;

  /* 1. Keys and digits. */
  KeyBits keys[ITEMS];
  typename Rank::Digits digit;
  load_keys<T, Shape>(src + a.portion_first + tile_first, valid, shift, a.flip, warp, lane, keys, digit);
  if constexpr (STAGED) { /* the values' copies, in tile order, in flight through the ranking */
    const Value *in = vsrc + a.portion_first + tile_first;
    Value *const to = s.shared_values();
    if (valid == TILE && aligned16(in)) {
      constexpr int CHUNKS = TILE * int(sizeof(Value)) / 16;
      for (int c = t; c < CHUNKS; c += THREADS)
        copy_async(reinterpret_cast<uint4 *>(to) + c, reinterpret_cast<const uint4 *>(in) + c);
    } else {
      for (uint32_t j = t; j < valid; j += THREADS) copy_async(to + j, in + j);
    }
    copy_async_commit();
  }
  Rank::count(s.x.rank, digit, warp, lane);
  __syncthreads();

  /* 2. Publish the tile's counts (tile 0's are already inclusive). */
  uint32_t total = 0, incl = 0, start_in_tile = 0;
  uint64_t bucket_start = 0;
  if (t < RADIX) {
    total = Rank::bucket_total(s.x.rank, t);
    store_relaxed(lookback + uint64_t(tile) * RADIX + t, (tile == 0 ? LOOKBACK_INCLUSIVE : LOOKBACK_AGGREGATE) | total);
    incl = Rank::scan_totals_begin(s.x.rank, total, warp, lane);
    bucket_start = a.bucket_start[t];
  }
  __syncthreads();
  if (t < RADIX) start_in_tile = Rank::scan_totals_end(s.x.rank, t, total, incl, warp);
  __syncthreads();

  /* 3. Ranks, then the keys in rank order in shared memory (which held the
   * histograms: hence the barrier). */
  typename Rank::Ranks rank;
  Rank::rank(s.x.rank, digit, rank, warp, lane);
  if constexpr (STAGED) copy_async_wait(); /* this thread's staged values; the barrier shows everyone's */
  __syncthreads();
#pragma unroll
  for (int i = 0; i < ITEMS; i++) s.x.keys[rank.get(i)] = keys[i];
  if constexpr (STAGED) { /* each value from its tile slot to its ranked slot, within shared memory */
    Value *const staged = s.shared_values();
    Value moved[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; i++) moved[i] = staged[Rank::item_index(warp, lane, i)];
    __syncthreads(); /* every value read before any is overwritten */
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
      if (valid == TILE || uint32_t(Rank::item_index(warp, lane, i)) < valid) staged[rank.get(i)] = moved[i];
  } else if constexpr (ASYNC) { /* the keys' registers free first */
    const Value *in = vsrc + a.portion_first + tile_first + Rank::item_index(warp, lane, 0);
    Value *const to = s.shared_values();
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
      if (valid == TILE || uint32_t(Rank::item_index(warp, lane, i)) < valid)
        copy_async(to + rank.get(i), in + i * WARP);
    copy_async_commit();
  }

  /* Values are read now, so that their loads overlap the look-back. */
  Value values[VALUE_BYTES && !ASYNC ? ITEMS : 1];
  if constexpr (VALUE_BYTES != 0 && !ASYNC) {
    const Value *in = vsrc + a.portion_first + tile_first + Rank::item_index(warp, lane, 0);
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
      if (valid == TILE || uint32_t(Rank::item_index(warp, lane, i)) < valid) values[i] = in[i * WARP];
  }

  /* 4. Look-back, one digit per thread. run_offset: where shared slot 0
   * would go, modulo 2^64 (+ any slot of the digit >= start_in_tile). */
  if (t < RADIX) {
    uint32_t before = 0;
    if (tile > 0) {
      before = look_back(lookback, tile, t);
      store_relaxed(lookback + uint64_t(tile) * RADIX + t, LOOKBACK_INCLUSIVE | (before + total));
    }
    const uint64_t run_offset = bucket_start + before - start_in_tile;
    s.run_base[t] = reinterpret_cast<uintptr_t>(dst) + run_offset * sizeof(KeyBits);
    if constexpr (ASYNC) s.run_base[RADIX + t] = reinterpret_cast<uintptr_t>(vdst) + run_offset * sizeof(Value);
    if (a.next_bucket_start && tile == tiles - 1) a.next_bucket_start[t] = bucket_start + before + total;
  }
  __syncthreads();

  /* 5. Shared slot j to its place; digits kept for the values (live only
   * from here on, when the keys no longer are: cheaper than reading the
   * keys back from shared memory for them). */
  digit_array<ITEMS> out_digit;
#pragma unroll
  for (int u = 0; u < ITEMS; u++) {
    const uint32_t j = t + u * THREADS;
    if (valid == TILE || j < valid) {
      const KeyBits k = s.x.keys[j];
      const uint32_t d = Key::digit(k, shift, a.flip);
      *reinterpret_cast<KeyBits *>(s.run_base[d] + uint64_t(j) * sizeof(KeyBits)) = k;
      if constexpr (VALUE_BYTES != 0) out_digit.set(u, d);
    }
  }
  if constexpr (ASYNC) {
    if constexpr (!STAGED) {
      copy_async_wait(); /* this thread's values have landed */
      __syncthreads();   /* and so have every thread's, visible to all */
    } /* staged: in their slots before the look-back's barrier */
    const Value *const from = s.shared_values();
#pragma unroll
    for (int u = 0; u < ITEMS; u++) {
      const uint32_t j = t + u * THREADS;
      if (valid == TILE || j < valid)
        *reinterpret_cast<Value *>(s.run_base[RADIX + out_digit.get(u)] + uint64_t(j) * sizeof(Value)) = from[j];
    }
  } else if constexpr (VALUE_BYTES != 0) {
    __syncthreads(); /* every key read from shared memory, every key address used */
    if (t < RADIX) { /* the values' addresses: run_offset again from the keys' (exact, signed) */
      const int64_t offset = int64_t(s.run_base[t] - reinterpret_cast<uintptr_t>(dst)) / int64_t(sizeof(KeyBits));
      s.run_base[t] = reinterpret_cast<uintptr_t>(vdst) + uint64_t(offset) * sizeof(Value);
    }
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
      if (valid == TILE || uint32_t(Rank::item_index(warp, lane, i)) < valid) s.x.values[rank.get(i)] = values[i];
    __syncthreads();
#pragma unroll
    for (int u = 0; u < ITEMS; u++) {
      const uint32_t j = t + u * THREADS;
      if (valid == TILE || j < valid)
        *reinterpret_cast<Value *>(s.run_base[out_digit.get(u)] + uint64_t(j) * sizeof(Value)) = s.x.values[j];
    }
  }
}

template <gpu_dtype T, int VALUE_BYTES, typename Shape>
__global__ void __launch_bounds__(Shape::threads, Shape::min_blocks) onesweep_pass(const onesweep_args a) {
  using KeyBits = typename radix_key<T>::bits;
  using Value = typename radix_value<VALUE_BYTES>::type;
  constexpr int THREADS = Shape::threads, TILE = Shape::tile_items;
  extern __shared__ __align__(16) unsigned char smem[];
  auto &s = *reinterpret_cast<onesweep_storage<T, VALUE_BYTES, Shape> *>(smem);
  const int t = threadIdx.x, warp = t / WARP, lane = t % WARP;

  const uint32_t plan = a.plan[a.digit];
  const uint32_t what = plan & 3;
  if (what == PASS_SKIP) return;
  const bool in_buffer = plan & 4;
  const KeyBits *src = static_cast<const KeyBits *>(in_buffer ? a.key_buffer : a.keys);
  KeyBits *dst = static_cast<KeyBits *>(in_buffer ? a.keys : a.key_buffer);
  const Value *vsrc = static_cast<const Value *>(in_buffer ? a.value_buffer : a.values);
  Value *vdst = static_cast<Value *>(in_buffer ? a.values : a.value_buffer);
  const uint32_t tiles = (a.portion_items + TILE - 1) / TILE;

  if (what == PASS_COPY) { /* no order needed: chunks of a tile, grid-stride */
    const bool key_vectors = aligned16(src, dst);
    const bool value_vectors = VALUE_BYTES != 0 && aligned16(vsrc, vdst);
    for (uint32_t c = blockIdx.x; c < tiles; c += gridDim.x) {
      const uint64_t first = a.portion_first + uint64_t(c) * TILE;
      const uint32_t count = min(uint32_t(TILE), a.portion_items - c * TILE);
      copy_chunk<KeyBits, THREADS, TILE>(src + first, dst + first, count, t, key_vectors);
      if constexpr (VALUE_BYTES != 0) copy_chunk<Value, THREADS, TILE>(vsrc + first, vdst + first, count, t, value_vectors);
    }
    return;
  }

  const uint64_t sorted_before = plan >> 3;
  const uint32_t region = uint32_t((sorted_before * a.portions + a.portion) & 1);
  uint32_t *const lookback = a.lookback + region * a.region_words;
  {
    /* Clear the other region for the next sorting launch (the previous
     * sorting launch used it; this one never reads it). */
    uint4 *next = reinterpret_cast<uint4 *>(a.lookback + (region ^ 1) * a.region_words);
    const uint64_t vectors = a.region_words / 4;
    for (uint64_t v = uint64_t(blockIdx.x) * THREADS + t; v < vectors; v += uint64_t(gridDim.x) * THREADS)
      next[v] = make_uint4(0, 0, 0, 0);
  }
  /* One tile a block, or (persistent) tiles until none is left. Tiles are
   * taken in order from the counter, so a tile only ever waits for tiles
   * taken by running blocks. */
  for (;;) {
    if (t == 0) s.tile = uint32_t(atomicAdd(a.tile_counter, 1ull));
    __syncthreads();
    const uint32_t tile = s.tile;
    if (Shape::persistent && tile >= tiles) return;
    sort_tile<T, VALUE_BYTES, Shape>(a, s, lookback, tile, tiles, src, dst, vsrc, vdst, t, warp, lane);
    if constexpr (!Shape::persistent) return;
    __syncthreads(); /* this tile's shared memory read before the next one's counts */
  }
}

}  // namespace radix
}  // namespace gp
