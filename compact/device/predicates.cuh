/*
 * Predicates of the compaction kernel, evaluated on a thread's items of one
 * tile (tile_io.cuh's layout: rows of VEC items). Each sets bit k of
 * keep[r] when item x[r][k] is kept; the kernel clears the bits of items
 * past the end of a partial tile.
 *
 * Comparisons are C++'s on the element type: exact for 64-bit integers,
 * IEEE for floats (a NaN fails every comparison but !=).
 */
#pragma once

#include "scan/device/tile_io.cuh"

namespace gp {

/* Where a thread's items sit: what a predicate that reads other arrays needs. */
struct tile_items_at {
  uint64_t base;   /* global index of the tile's first item */
  uint32_t valid;  /* items of the tile that exist */
  int warp, lane;
};

/* keep[r] bit k = f(x[r][k]). */
template <typename Shape, typename T, typename F>
__device__ inline void keep_where(const T (&x)[Shape::rows][Shape::vec], uint32_t (&keep)[Shape::rows], F f) {
#pragma unroll
  for (int r = 0; r < Shape::rows; r++) {
    uint32_t bits = 0;
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) bits |= uint32_t(f(x[r][k])) << k;
    keep[r] = bits;
  }
}

/* x cmp value, the comparison chosen at run time (uniform over the grid,
 * so the switch costs one branch per tile, not per item). */
template <typename T> struct pred_cmp {
  T value;
  int cmp; /* gpu_cmp */
  template <typename Shape>
  __device__ void operator()(const T (&x)[Shape::rows][Shape::vec], const tile_items_at &,
                             uint32_t (&keep)[Shape::rows]) const {
    const T v = value;
    switch (cmp) {
      case GPU_EQ: keep_where<Shape>(x, keep, [v](T a) { return a == v; }); break;
      case GPU_NE: keep_where<Shape>(x, keep, [v](T a) { return a != v; }); break;
      case GPU_LT: keep_where<Shape>(x, keep, [v](T a) { return a < v; }); break;
      case GPU_LE: keep_where<Shape>(x, keep, [v](T a) { return a <= v; }); break;
      case GPU_GT: keep_where<Shape>(x, keep, [v](T a) { return a > v; }); break;
      default: keep_where<Shape>(x, keep, [v](T a) { return a >= v; }); break;
    }
  }
};

/* lo <= x && x < hi. */
template <typename T> struct pred_range {
  T lo, hi;
  template <typename Shape>
  __device__ void operator()(const T (&x)[Shape::rows][Shape::vec], const tile_items_at &,
                             uint32_t (&keep)[Shape::rows]) const {
    const T l = lo, h = hi;
    keep_where<Shape>(x, keep, [l, h](T a) { return l <= a && a < h; });
  }
};

/* A device function of one element: a run-time compiled formula. */
template <typename F> struct pred_function {
  template <typename Shape, typename T>
  __device__ void operator()(const T (&x)[Shape::rows][Shape::vec], const tile_items_at &,
                             uint32_t (&keep)[Shape::rows]) const {
    keep_where<Shape>(x, keep, [](T a) { return F::eval(a); });
  }
};

template <int VEC> struct row_flags_word { using type = uint32_t; };
template <> struct row_flags_word<2> { using type = uint16_t; };

/* flags[i] != 0: reads the flags of the thread's items, a row's VEC flags in
 * one load when the array allows (vector_ok: VEC-byte aligned). */
struct pred_flags {
  const uint8_t *flags;
  bool vector_ok;
  template <typename Shape, typename T>
  __device__ void operator()(const T (&)[Shape::rows][Shape::vec], const tile_items_at &at,
                             uint32_t (&keep)[Shape::rows]) const {
    constexpr int VEC = Shape::vec;
    static_assert(VEC == 2 || VEC == 4, "a row's flags are one 2- or 4-byte load");
    using row_flags = typename row_flags_word<VEC>::type;
    const uint8_t *tile_flags = flags + at.base;
#pragma unroll
    for (int r = 0; r < Shape::rows; r++) {
      const int first = item_offset<Shape>(at.warp, at.lane, r);
      uint32_t bits = 0;
      if (vector_ok && at.valid == uint32_t(Shape::tile_items)) {
        const row_flags f = *reinterpret_cast<const row_flags *>(tile_flags + first);
#pragma unroll
        for (int k = 0; k < VEC; k++) bits |= uint32_t(((f >> (8 * k)) & 0xff) != 0) << k;
      } else {
#pragma unroll
        for (int k = 0; k < VEC; k++)
          if (uint32_t(first + k) < at.valid) bits |= uint32_t(tile_flags[first + k] != 0) << k;
      }
      keep[r] = bits;
    }
  }
};

/* Whether a predicate looks at the elements (a pass that only counts can
 * skip reading them for flags). */
template <typename Pred> constexpr bool reads_values_v = true;
template <> constexpr bool reads_values_v<pred_flags> = false;

}  // namespace gp
