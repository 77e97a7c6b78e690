/*
 * The operators of API.md in C for the host backend, one inline function per
 * (type, op), with the same semantics as the device's (scan/device/ops.cuh):
 * integer ADD/MUL wrap through the unsigned type; float MIN/MAX are IEEE
 * 754-2019 minimum/maximum (device: min/max.NaN): NaN propagates and -0 < +0,
 * so the result does not depend on the operands' order. Layers above scan
 * (segmented) use these too.
 *
 * GP_HOST_TYPES(X) and GP_HOST_OPS_<kind>(X) are X-macros that list what
 * exists, so tables and functions are generated from one list.
 */
#ifndef GP_SCAN_HOST_OPS_H
#define GP_SCAN_HOST_OPS_H

#include <math.h>
#include <stdint.h>

/* X(dtype enum, C type, suffix, unsigned twin, is_float) */
#define GP_HOST_TYPES(X)                 \
  X(GPU_I32, int32_t, i32, uint32_t, 0)  \
  X(GPU_U32, uint32_t, u32, uint32_t, 0) \
  X(GPU_I64, int64_t, i64, uint64_t, 0)  \
  X(GPU_U64, uint64_t, u64, uint64_t, 0) \
  X(GPU_F32, float, f32, uint32_t, 1)    \
  X(GPU_F64, double, f64, uint64_t, 1)

/* Integers: plain compare. Floats: a NaN operand wins; equal operands (only
 * +0 and -0 can be equal and differ) are told apart by the sign bit. */
#define GP_DEFINE_HOST_OPS(D, T, S, U, F)                                                   \
  static inline T gp_add_##S(T a, T b) { return F ? (T)(a + b) : (T)((U)a + (U)b); }        \
  static inline T gp_mul_##S(T a, T b) { return F ? (T)(a * b) : (T)((U)a * (U)b); }        \
  static inline T gp_min_##S(T a, T b) {                                                    \
    if (a != a || b != b) return a != a ? a : b;                                            \
    if (F && a == b) return signbit((double)a) ? a : b;                                     \
    return b < a ? b : a;                                                                   \
  }                                                                                         \
  static inline T gp_max_##S(T a, T b) {                                                    \
    if (a != a || b != b) return a != a ? a : b;                                            \
    if (F && a == b) return signbit((double)a) ? b : a;                                     \
    return a < b ? b : a;                                                                   \
  }
GP_HOST_TYPES(GP_DEFINE_HOST_OPS)
#undef GP_DEFINE_HOST_OPS

/* Bitwise operators exist for the integer types only. */
#define GP_DEFINE_HOST_BITWISE(T, S)                          \
  static inline T gp_and_##S(T a, T b) { return a & b; }     \
  static inline T gp_or_##S(T a, T b) { return a | b; }      \
  static inline T gp_xor_##S(T a, T b) { return a ^ b; }
GP_DEFINE_HOST_BITWISE(int32_t, i32)
GP_DEFINE_HOST_BITWISE(uint32_t, u32)
GP_DEFINE_HOST_BITWISE(int64_t, i64)
GP_DEFINE_HOST_BITWISE(uint64_t, u64)
#undef GP_DEFINE_HOST_BITWISE

/* Every (type, op) that exists: X(dtype, C type, suffix, op enum, op name). */
#define GP_HOST_TYPE_OPS(X)                                                             \
  X(GPU_I32, int32_t, i32, GPU_ADD, add) X(GPU_I32, int32_t, i32, GPU_MUL, mul)          \
  X(GPU_I32, int32_t, i32, GPU_MIN, min) X(GPU_I32, int32_t, i32, GPU_MAX, max)          \
  X(GPU_I32, int32_t, i32, GPU_AND, and) X(GPU_I32, int32_t, i32, GPU_OR, or)            \
  X(GPU_I32, int32_t, i32, GPU_XOR, xor)                                                 \
  X(GPU_U32, uint32_t, u32, GPU_ADD, add) X(GPU_U32, uint32_t, u32, GPU_MUL, mul)        \
  X(GPU_U32, uint32_t, u32, GPU_MIN, min) X(GPU_U32, uint32_t, u32, GPU_MAX, max)        \
  X(GPU_U32, uint32_t, u32, GPU_AND, and) X(GPU_U32, uint32_t, u32, GPU_OR, or)          \
  X(GPU_U32, uint32_t, u32, GPU_XOR, xor)                                                \
  X(GPU_I64, int64_t, i64, GPU_ADD, add) X(GPU_I64, int64_t, i64, GPU_MUL, mul)          \
  X(GPU_I64, int64_t, i64, GPU_MIN, min) X(GPU_I64, int64_t, i64, GPU_MAX, max)          \
  X(GPU_I64, int64_t, i64, GPU_AND, and) X(GPU_I64, int64_t, i64, GPU_OR, or)            \
  X(GPU_I64, int64_t, i64, GPU_XOR, xor)                                                 \
  X(GPU_U64, uint64_t, u64, GPU_ADD, add) X(GPU_U64, uint64_t, u64, GPU_MUL, mul)        \
  X(GPU_U64, uint64_t, u64, GPU_MIN, min) X(GPU_U64, uint64_t, u64, GPU_MAX, max)        \
  X(GPU_U64, uint64_t, u64, GPU_AND, and) X(GPU_U64, uint64_t, u64, GPU_OR, or)          \
  X(GPU_U64, uint64_t, u64, GPU_XOR, xor)                                                \
  X(GPU_F32, float, f32, GPU_ADD, add) X(GPU_F32, float, f32, GPU_MUL, mul)              \
  X(GPU_F32, float, f32, GPU_MIN, min) X(GPU_F32, float, f32, GPU_MAX, max)              \
  X(GPU_F64, double, f64, GPU_ADD, add) X(GPU_F64, double, f64, GPU_MUL, mul)            \
  X(GPU_F64, double, f64, GPU_MIN, min) X(GPU_F64, double, f64, GPU_MAX, max)

#endif
