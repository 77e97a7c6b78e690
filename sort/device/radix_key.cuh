/*
 * Keys and values as the radix-sort kernels see them.
 *
 * Arrays always hold the caller's bits; a digit is taken from
 * gp_sortkey(T, bits) (sort_keys.h: the same order-preserving map as the
 * host sort, NaNs all mapped to the top) each time it is needed, so NaN
 * payloads and signs come out exactly as they went in, and equal keys (all
 * NaNs among them) keep their order. Descending flips each digit (x ^ 255),
 * which is the digit of the complemented key.
 */
#pragma once

#include <cstdint>
#include <type_traits>

#include "sort/sort_keys.h"

namespace gp {
namespace radix {

constexpr int RADIX_BITS = 8;
constexpr int RADIX = 1 << RADIX_BITS; /* digit values, one bucket each */

template <gpu_dtype T> struct radix_key {
  static constexpr int bytes = (T == GPU_I32 || T == GPU_U32 || T == GPU_F32) ? 4 : 8;
  static constexpr int digits = bytes; /* 8-bit digits per key */
  using bits = std::conditional_t<bytes == 4, uint32_t, uint64_t>;

  /* The key's order bits (ascending). */
  __device__ __forceinline__ static bits ordered(bits k) { return bits(gp_sortkey(T, k)); }

  /* Digit at bit `shift` of order bits o; flip is 0 (ascending) or 255
   * (descending). */
  __device__ __forceinline__ static uint32_t digit_of_ordered(bits o, int shift, uint32_t flip) {
    return (uint32_t(o >> shift) & (RADIX - 1)) ^ flip;
  }
  __device__ __forceinline__ static uint32_t digit(bits k, int shift, uint32_t flip) {
    return digit_of_ordered(ordered(k), shift, flip);
  }
};

/* Values by width: 0 (keys only), 4 or 8 bytes, moved as raw bits. */
template <int VALUE_BYTES> struct radix_value { using type = uint32_t; };
template <> struct radix_value<8> { using type = uint64_t; };

/* Look-back words: 32 bits, the top two say what the low 30 hold. 0 is
 * "not yet published" (the word is cleared before the launch that uses it). */
constexpr uint32_t LOOKBACK_AGGREGATE = 1u << 30; /* this tile's count of the digit */
constexpr uint32_t LOOKBACK_INCLUSIVE = 1u << 31; /* count in tiles 0..this one */
constexpr uint32_t LOOKBACK_VALUE = LOOKBACK_AGGREGATE - 1;

/* Look-back words are read in spin loops and written by other blocks:
 * single-copy-atomic 32-bit accesses at GPU scope. Relaxed is enough: the
 * word itself is the data, nothing else is published through it. */
__device__ __forceinline__ uint32_t load_relaxed(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_relaxed(uint32_t *p, uint32_t v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* N small numbers in registers, packed (ITEMS digits would take ITEMS
 * registers, and 8-byte keys need every register they can get). Indices
 * are compile-time constants after unrolling, so get/set are one bit-field
 * instruction each. Each element is set at most once, with v < 2^BITS. */
template <int N, int BITS> struct packed_array {
  static constexpr int PER = 32 / BITS;
  static constexpr uint32_t MASK = (1u << BITS) - 1;
  uint32_t w[(N + PER - 1) / PER] = {};
  __device__ __forceinline__ uint32_t get(int i) const { return (w[i / PER] >> (BITS * (i % PER))) & MASK; }
  __device__ __forceinline__ void set(int i, uint32_t v) { w[i / PER] |= v << (BITS * (i % PER)); }
};
template <int N> using digit_array = packed_array<N, 8>;  /* digits < 256 */
template <int N> using slot_array = packed_array<N, 16>;  /* tile slots < 65536 */

__device__ __forceinline__ uint32_t lanemask_le() {
  uint32_t m;
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(m));
  return m;
}

}  // namespace radix
}  // namespace gp
