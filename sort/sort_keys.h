/*
 * Radix sort keys: order-preserving maps from a key's bits to an unsigned
 * integer of the same width whose plain unsigned order is gpuprim's sort
 * order (API.md "Radix sort"). Radix passes look only at these integers, so
 * the sort never compares keys.
 *
 *   unsigned  as is
 *   signed    flip the sign bit: INT_MIN..-1 -> 0..2^(w-1)-1, 0..INT_MAX above
 *   float     negative (sign bit set): invert all bits, so that a larger
 *             magnitude gives a smaller integer and -0.0 lands just below +0.0;
 *             positive: flip the sign bit, so that it lands above every
 *             negative. -inf < negatives < -0.0 < +0.0 < positives < +inf.
 *             Every NaN (either sign, any payload) becomes all ones, a value
 *             no other float reaches (+inf maps to 0xFF800000 for f32), so
 *             NaNs sort after +inf and, being equal keys, keep their order.
 *   DESCENDING: complement the result. That reverses the order exactly (NaN
 *             first) and, since the passes stay stable, equal keys still keep
 *             their original order.
 *
 * The NaN rule makes the map many-to-one, so it cannot be undone: sort
 * arrays hold the caller's original bits and each pass derives its digit from
 * gp_sortkey(...) afresh (cheap: a few integer operations).
 *
 * Plain C and CUDA: under nvcc the functions are __host__ __device__, so the
 * kernels use the very same maps.
 */
#ifndef GP_SORT_KEYS_H
#define GP_SORT_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "gpuprim.h"

#ifdef __CUDACC__
#  define GP_SORT_HD __host__ __device__
#else
#  define GP_SORT_HD
#endif

static inline GP_SORT_HD uint32_t gp_sortkey_i32(uint32_t bits) { return bits ^ 0x80000000u; }
static inline GP_SORT_HD uint64_t gp_sortkey_i64(uint64_t bits) {
  return bits ^ 0x8000000000000000ull;
}

static inline GP_SORT_HD uint32_t gp_sortkey_f32(uint32_t bits) {
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return 0xFFFFFFFFu; /* NaN */
  return bits ^ ((bits & 0x80000000u) ? 0xFFFFFFFFu : 0x80000000u);
}

static inline GP_SORT_HD uint64_t gp_sortkey_f64(uint64_t bits) {
  if ((bits & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull) return ~0ull; /* NaN */
  return bits ^ ((bits & 0x8000000000000000ull) ? ~0ull : 0x8000000000000000ull);
}

/* Key width in bytes (4 or 8); t is a valid key type. */
static inline GP_SORT_HD size_t gp_sortkey_width(gpu_dtype t) {
  return (t == GPU_I32 || t == GPU_U32 || t == GPU_F32) ? 4 : 8;
}

/* The ascending map for any key type, on the key's bits zero-extended to 64.
 * With t a compile-time constant the switch folds away. */
static inline GP_SORT_HD uint64_t gp_sortkey(gpu_dtype t, uint64_t bits) {
  switch (t) {
    case GPU_I32: return gp_sortkey_i32((uint32_t)bits);
    case GPU_F32: return gp_sortkey_f32((uint32_t)bits);
    case GPU_I64: return gp_sortkey_i64(bits);
    case GPU_F64: return gp_sortkey_f64(bits);
    case GPU_U32: case GPU_U64: break;
  }
  return bits;
}

/* XOR this into gp_sortkey(t, bits) for flags' direction: all ones for
 * DESCENDING (of the key's width), 0 for ascending. */
static inline GP_SORT_HD uint64_t gp_sortkey_direction(gpu_dtype t, unsigned flags) {
  if (!(flags & GPU_DESCENDING)) return 0;
  return gp_sortkey_width(t) == 4 ? 0xFFFFFFFFull : ~0ull;
}

#endif /* GP_SORT_KEYS_H */
