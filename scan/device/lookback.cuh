/*
 * Single-pass grid scans: tiles, an in-order tile counter, and a look-back
 * that gives every tile the same prefix bits on every run.
 *
 * Why not the classic decoupled look-back: a tile there adds up a run of
 * predecessors' aggregates that ends at the first tile whose inclusive prefix
 * happened to be ready, so which floats get added together depends on timing.
 * Here every tile's prefix is a fold of fixed groups, like a Fenwick tree of
 * radix 32 built on the fly:
 *
 *   level 0: E0[t] = aggregate of tile t                (published by tile t)
 *   level k: Ek[g] = fold of E(k-1)[32g .. 32g+31]      (published by tile
 *            32^k (g+1) - 1, the last tile of the group, right after its own)
 *
 * With t written in base 32 as (d_{L-1} ... d1 d0), the exclusive prefix of
 * tile t folds, from the top level down, the d_k entries of level k that
 * precede t's group within its parent group:
 *
 *   prefix(t) = F(E_{L-1}[...]) op ... op F(E1[32*(t/1024)*... ]) op F(E0[32*(t/32) .. t-1])
 *
 * Each F is a warp's fixed-tree fold of up to 31 values, so the result is a
 * fixed function of the input. No group depends on any prefix, only on
 * aggregates of earlier tiles, so there is no serial chain: a tile waits only
 * for earlier tiles to finish reading their data, as in decoupled look-back.
 * Levels are folded by separate warps at once (latency of one round trip).
 *
 * Entries are "tagged words": 64-bit words holding 32 bits of the value and
 * a 32-bit tag (the launch's epoch). An entry is ready when every word's tag
 * equals the epoch; each word is one single-copy-atomic access, so no fences
 * are needed, and words left from earlier launches are simply not ready.
 *
 * Tiles are taken in launch order from an atomic counter (never blockIdx):
 * a tile only waits for tiles that took their index earlier, so they are
 * running or done and the wait always ends.
 */
#pragma once

#include <cstdint>

#include "ops.cuh"
#include "warp_scan.cuh"

namespace gp {

constexpr int LOOKBACK_RADIX_BITS = 5; /* groups of 32: one value per lane */
constexpr int LOOKBACK_MAX_LEVELS = 7; /* 32^7 tiles: more than any grid */

/* What a single-pass kernel needs to take part in look-back (by value). */
struct lookback_args {
  uint64_t *words;              /* tagged words of all levels */
  unsigned long long *counter;  /* in-order tile counter */
  unsigned long long counter_base;
  uint32_t epoch;
  uint32_t tiles;
  uint32_t levels;              /* L: tiles <= 32^L */
};

/* First entry of a level: the levels are stored one after another, level k
 * holding ceil(tiles / 32^k) entries. Computed, not tabled: a table in the
 * kernel's parameters indexed at run time would go to local memory. */
__host__ __device__ inline uint64_t level_offset(uint32_t tiles, uint32_t level) {
  uint64_t offset = 0, count = tiles;
  for (uint32_t k = 0; k < level; k++) {
    offset += count;
    count = (count + 31) >> LOOKBACK_RADIX_BITS;
  }
  return offset;
}

/* Host side: how many levels `tiles` tiles need, and entries in all. */
struct lookback_layout {
  uint32_t levels;
  uint64_t entries;
};
inline lookback_layout lookback_plan(uint32_t tiles) {
  lookback_layout l{1, 0};
  while ((uint64_t(1) << (LOOKBACK_RADIX_BITS * l.levels)) < tiles) l.levels++;
  l.entries = level_offset(tiles, l.levels);
  return l;
}

/* Values as tagged words: sizeof(T)/4 words of (tag << 32 | 32 value bits). */
template <typename T> struct tagged {
  static constexpr int WORDS = sizeof(T) / 4;

  __device__ static void store(uint64_t *entry, T v, uint32_t epoch) {
    typename bits_of<T>::type b = to_bits(v);
    uint64_t tag = uint64_t(epoch) << 32;
    if constexpr (WORDS == 1) {
      uint64_t w = tag | uint32_t(b);
      asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(entry), "l"(w) : "memory");
    } else {
      uint64_t lo = tag | uint32_t(b), hi = tag | uint32_t(uint64_t(b) >> 32);
      asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(entry), "l"(lo), "l"(hi)
                   : "memory");
    }
  }

  /* True, with *v set, when the entry was written in this launch. */
  __device__ static bool load(const uint64_t *entry, uint32_t epoch, T *v) {
    if constexpr (WORDS == 1) {
      uint64_t w;
      asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(entry) : "memory");
      if (uint32_t(w >> 32) != epoch) return false;
      *v = from_bits<T>(typename bits_of<T>::type(uint32_t(w)));
      return true;
    } else {
      uint64_t lo, hi;
      asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
                   : "=l"(lo), "=l"(hi)
                   : "l"(entry)
                   : "memory");
      if (uint32_t(lo >> 32) != epoch || uint32_t(hi >> 32) != epoch) return false;
      *v = from_bits<T>(typename bits_of<T>::type((hi << 32) | uint32_t(lo)));
      return true;
    }
  }
};

template <typename T> __device__ inline uint64_t *entry_ptr(const lookback_args &a, int level, uint64_t index) {
  return a.words + (level_offset(a.tiles, level) + index) * tagged<T>::WORDS;
}

/* Thread 0 takes the block's tile index; every thread gets it. */
__device__ inline uint32_t take_tile(const lookback_args &a, uint32_t *shared_slot) {
  if (a.tiles == 1) return 0;
  if (threadIdx.x == 0) *shared_slot = uint32_t(atomicAdd(a.counter, 1ull) - a.counter_base);
  __syncthreads();
  return *shared_slot;
}

/* Warp-wide: waits for entries [first, first + count) of a level (count <= 32;
 * lane 31 may bring its own value instead, `carry`) and folds them in a fixed
 * tree. Lanes past count add Op::neutral(). */
template <typename Op, typename T>
__device__ inline T wait_and_fold(const lookback_args &a, int level, uint64_t first, int count, int lane,
                                  bool use_carry = false, T carry = Op::neutral()) {
  T v = Op::neutral();
  bool ready = lane >= count;
  if (use_carry && lane == WARP - 1) {
    v = carry;
    ready = true;
  }
  const uint64_t *entry = entry_ptr<T>(a, level, first + lane);
  while (!__all_sync(FULL_MASK, ready)) {
    if (!ready) ready = tagged<T>::load(entry, a.epoch, &v);
  }
  return warp_reduce<Op>(v);
}

/* Warp 0, after the tile's aggregate is known: publish it, then, if this tile
 * closes groups, fold and publish them level by level. */
template <typename Op, typename T>
__device__ inline void publish_and_close_groups(const lookback_args &a, uint32_t tile, T aggregate, int lane) {
  if (lane == 0) tagged<T>::store(entry_ptr<T>(a, 0, tile), aggregate, a.epoch);
  T carry = aggregate;
  uint64_t g = tile; /* index of this tile's entry at the current level */
  for (uint32_t k = 1; k < a.levels; k++) {
    if ((g & 31) != 31) break; /* not the last of its group: closes nothing more */
    g >>= LOOKBACK_RADIX_BITS;
    carry = wait_and_fold<Op>(a, k - 1, g << LOOKBACK_RADIX_BITS, WARP, lane, true, carry);
    if (lane == 0) tagged<T>::store(entry_ptr<T>(a, k, g), carry, a.epoch);
  }
}

/* Warp w (1 <= w <= levels) folds the entries of level w-1 that precede the
 * tile's group there; the block combines the folds top level first. */
template <typename Op, typename T>
__device__ inline T fold_level(const lookback_args &a, uint32_t tile, uint32_t level, int lane) {
  uint64_t g = uint64_t(tile) >> (LOOKBACK_RADIX_BITS * level);
  int digit = int(g & 31);
  return wait_and_fold<Op, T>(a, level, g - digit, digit, lane);
}

}  // namespace gp
