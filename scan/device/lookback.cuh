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
 * Levels are folded by separate warps at once, and a group sum not yet
 * published is built by the reader from the level below (same bits), so no
 * tile waits on another tile's folding: measured on the H200, waiting for
 * published group sums instead cost a third of the throughput, since tiles
 * finish faster than one round trip per group of 32.
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

#include "scan/device/ops.cuh"
#include "scan/device/warp_scan.cuh"

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
__host__ __device__ inline lookback_layout lookback_plan(uint32_t tiles) {
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

/*
 * Warp-wide fold of entries [first, first + count) of a level (count <= 32),
 * in a fixed tree; lanes past count add Op::neutral(). With FALLBACK > 0 an
 * entry that is not published yet is not waited for: the warp computes it
 * from its 32 children one level down, which is exactly the fold its
 * publisher does, so the bits are the same. Then a tile waits about one round
 * trip after its predecessors' aggregates, not for the tiles that close
 * groups to fold and publish them.
 */
template <typename Op, typename T, int FALLBACK>
__device__ inline T fold_entries(const lookback_args a, uint32_t level, uint64_t first, int count, int lane) {
  T v = Op::neutral();
  bool ready = lane >= count;
  const uint64_t *entry = entry_ptr<T>(a, level, first + lane);
  if (!ready) ready = tagged<T>::load(entry, a.epoch, &v);
  if constexpr (FALLBACK == 0) {
    while (!__all_sync(FULL_MASK, ready))
      if (!ready) ready = tagged<T>::load(entry, a.epoch, &v);
  } else {
    for (unsigned missing = __ballot_sync(FULL_MASK, !ready); missing; missing = __ballot_sync(FULL_MASK, !ready)) {
      const int j = __ffs(missing) - 1; /* the earliest missing entry: build it from its children */
      const T built = fold_entries<Op, T, FALLBACK - 1>(a, level - 1, (first + j) << LOOKBACK_RADIX_BITS, WARP, lane);
      if (lane == j) {
        v = built;
        ready = true;
      }
      if (!ready) ready = tagged<T>::load(entry, a.epoch, &v); /* others may have come meanwhile */
    }
  }
  if constexpr (op_commutes_v<Op>) return warp_reduce<Op>(v);
  else return warp_reduce_ordered<Op, false>(v); /* entries in tile order */
}

/* Levels 1 and 2 build missing entries (their groups close every 32 and
 * 1024 tiles, more often than a round trip); tile aggregates and the rare
 * higher levels are waited for. Inlined, so that the tile's registers stay
 * put. */
template <typename Op, typename T>
__device__ inline T fold_level_entries(const lookback_args a, uint32_t level, uint64_t first, int count, int lane) {
  if (level == 1) return fold_entries<Op, T, 1>(a, 1, first, count, lane);
  if (level == 2) return fold_entries<Op, T, 2>(a, 2, first, count, lane);
  return fold_entries<Op, T, 0>(a, level, first, count, lane);
}

/* Warp 0, once the tile's aggregate is known: publish it, then, if this tile
 * is the last of groups, fold and publish them level by level, so later
 * readers find one entry instead of building it. */
template <typename Op, typename T>
__device__ inline void publish_and_close_groups(const lookback_args &a, uint32_t tile, T aggregate, int lane) {
  if (lane == 0) tagged<T>::store(entry_ptr<T>(a, 0, tile), aggregate, a.epoch);
  __syncwarp(); /* the warp's own reads below see the store */
  uint64_t g = tile; /* index of this tile's entry at the current level */
  for (uint32_t k = 1; k < a.levels; k++) {
    if ((g & 31) != 31) break; /* not the last of its group: closes nothing more */
    g >>= LOOKBACK_RADIX_BITS;
    const T sum = fold_level_entries<Op, T>(a, k - 1, g << LOOKBACK_RADIX_BITS, WARP, lane);
    if (lane == 0) tagged<T>::store(entry_ptr<T>(a, k, g), sum, a.epoch);
    __syncwarp();
  }
}

/* Warp w (1 <= w <= levels) folds the entries of level w-1 that precede the
 * tile's group there; the block combines the folds top level first. */
template <typename Op, typename T>
__device__ inline T fold_level(const lookback_args &a, uint32_t tile, uint32_t level, int lane) {
  uint64_t g = uint64_t(tile) >> (LOOKBACK_RADIX_BITS * level);
  int digit = int(g & 31);
  return fold_level_entries<Op, T>(a, level, g - digit, digit, lane);
}

/*
 * Warp-wide, for an operator that resets (op_resets_v): the exclusive
 * prefix of level-0 entry `tile`, where one of the 32 entries before it
 * resets: the entries from the nearest such one h to tile - 1, folded in
 * order by a fixed tree of the warp (lane l holds entry tile - 32 + l;
 * lanes before h add Op::neutral(); entries before the first count as a
 * reset). Nothing before h matters, since h resets the fold. Waits only for
 * entries h .. tile - 1: where h is the nearest reset among the entries
 * already published, with all entries after it published, no later entry
 * can be a nearer one. False, with nothing set, where none of the 32
 * resets (the caller folds the levels, which waits for every earlier
 * entry). Which of the two, and h, depend on the entries only, not on
 * timing, so the prefix has the same bits on every run.
 */
template <typename Op, typename T>
__device__ inline bool nearest_reset_prefix(const lookback_args &a, uint32_t tile, int lane, T *prefix) {
  static_assert(op_resets_v<Op>, "only an operator that resets can skip earlier entries");
  const int64_t idx = int64_t(tile) - 32 + lane;
  T v = Op::neutral();
  bool ready = idx < 0, reset = idx < 0;
  for (;;) {
    if (!ready) {
      ready = tagged<T>::load(entry_ptr<T>(a, 0, uint64_t(idx)), a.epoch, &v);
      reset = ready && Op::resets(v);
    }
    const unsigned missing = __ballot_sync(FULL_MASK, !ready), resets = __ballot_sync(FULL_MASK, reset);
    /* Resets above the highest lane not yet published: the nearest of them is h. */
    const unsigned usable = missing ? resets & ~((2u << (31 - __clz(missing))) - 1u) : resets;
    if (usable) {
      const int h = 31 - __clz(usable);
      *prefix = warp_reduce_ordered<Op, false>(lane >= h ? v : Op::neutral());
      return true;
    }
    if (!missing) return false;
  }
}

}  // namespace gp
