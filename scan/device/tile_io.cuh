/*
 * Moving one tile between global memory and registers.
 *
 * Layout ("warp-striped rows"): warp w owns a contiguous run of the tile;
 * in it, row r is 32 * VEC consecutive items, lane l holding items
 * [l * VEC, (l + 1) * VEC) of each row. With VEC * sizeof(T) == 16 a row is
 * one 16-byte load per lane and 512 consecutive bytes per warp: fully
 * coalesced, and ROWS independent loads in flight per thread.
 *
 *   warp 0:  row 0: lane0[v v v v] lane1[v v v v] ... lane31[....]
 *            row 1: lane0[....] ...
 *   warp 1:  ...
 *
 * Partial tiles load item by item and pad with a neutral value.
 */
#pragma once

#include <cstdint>

namespace gp {

template <int THREADS, int ROWS, int VEC> struct tile_shape {
  static constexpr int threads = THREADS;
  static constexpr int warps = THREADS / 32;
  static constexpr int rows = ROWS;
  static constexpr int vec = VEC;
  static constexpr int items = ROWS * VEC; /* per thread */
  static constexpr int warp_items = 32 * items;
  static constexpr int tile_items = THREADS * items;
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "whole warps, at most 1024 threads");
};

/* Offset within the tile of (row, item 0) for this thread. */
template <typename Shape> __device__ inline int item_offset(int warp, int lane, int row) {
  return warp * Shape::warp_items + row * 32 * Shape::vec + lane * Shape::vec;
}

/* 16-byte vector of VEC items. */
template <typename T, int VEC> struct alignas(16) vec16 { T v[VEC]; };

/* A 16-byte vector read once (ld.global.cs: evicted first from L1 and
 * L2), so that what is read many times (SpMV's x) stays in L2. (This file
 * is also compiled by NVRTC, which has no <cstring>: no memcpy.) */
template <typename V> __device__ inline V load_streaming(const V *p) {
  static_assert(sizeof(V) == 16 && alignof(V) == 16, "16-byte vectors");
  V v;
  *reinterpret_cast<uint4 *>(&v) = __ldcs(reinterpret_cast<const uint4 *>(p));
  return v;
}

/* An item, read once where STREAM (ld.global.cs), else plainly. */
template <bool STREAM, typename T> __device__ inline T load_item(const T *p) {
  if constexpr (STREAM) return __ldcs(p);
  else return *p;
}

/* STREAM: the tile is read once (load_streaming). */
template <typename Shape, bool STREAM = false, typename T>
__device__ inline void load_tile(const T *tile, uint32_t valid, bool vector_ok, int warp, int lane,
                                 T (&x)[Shape::rows][Shape::vec], T pad) {
  constexpr int VEC = Shape::vec;
  if (vector_ok && valid == uint32_t(Shape::tile_items)) {
#pragma unroll
    for (int r = 0; r < Shape::rows; r++) {
      const vec16<T, VEC> *at = reinterpret_cast<const vec16<T, VEC> *>(tile + item_offset<Shape>(warp, lane, r));
      vec16<T, VEC> v;
      if constexpr (STREAM) v = load_streaming(at);
      else v = *at;
#pragma unroll
      for (int k = 0; k < VEC; k++) x[r][k] = v.v[k];
    }
  } else {
#pragma unroll
    for (int r = 0; r < Shape::rows; r++)
#pragma unroll
      for (int k = 0; k < VEC; k++) {
        uint32_t i = item_offset<Shape>(warp, lane, r) + k;
        x[r][k] = i < valid ? load_item<STREAM>(tile + i) : pad;
      }
  }
}

template <typename Shape, typename T>
__device__ inline void store_tile(T *tile, uint32_t valid, bool vector_ok, int warp, int lane,
                                  const T (&x)[Shape::rows][Shape::vec]) {
  constexpr int VEC = Shape::vec;
  if (vector_ok && valid == uint32_t(Shape::tile_items)) {
#pragma unroll
    for (int r = 0; r < Shape::rows; r++) {
      vec16<T, VEC> v;
#pragma unroll
      for (int k = 0; k < VEC; k++) v.v[k] = x[r][k];
      *reinterpret_cast<vec16<T, VEC> *>(tile + item_offset<Shape>(warp, lane, r)) = v;
    }
  } else {
#pragma unroll
    for (int r = 0; r < Shape::rows; r++)
#pragma unroll
      for (int k = 0; k < VEC; k++) {
        uint32_t i = item_offset<Shape>(warp, lane, r) + k;
        if (i < valid) tile[i] = x[r][k];
      }
  }
}

}  // namespace gp
