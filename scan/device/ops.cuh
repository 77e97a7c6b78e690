/*
 * Element types and operators on the device, one place for all kernels.
 *
 * scan_op<T, OP> gives apply(a, b) (a is the earlier element), identity()
 * (what API.md promises, e.g. an exclusive scan's first output) and
 * neutral(): an element with apply(x, neutral) == x bit for bit for every x,
 * used to pad partial tiles and empty lanes. They differ only for float ADD:
 * the identity is +0.0 but -0.0 is the exact neutral (+0.0 + -0.0 = +0.0).
 */
#pragma once

#include <cstdint>
#ifndef __CUDACC_RTC__ /* NVRTC (compaction's formulas) has the runtime built in */
#  include <cuda_runtime.h>
#endif

#include "gpuprim.h"

namespace gp {

/* gpu_dtype -> C++ type. */
template <gpu_dtype D> struct dtype_traits;
template <> struct dtype_traits<GPU_I32> { using type = int32_t; };
template <> struct dtype_traits<GPU_U32> { using type = uint32_t; };
template <> struct dtype_traits<GPU_I64> { using type = int64_t; };
template <> struct dtype_traits<GPU_U64> { using type = uint64_t; };
template <> struct dtype_traits<GPU_F32> { using type = float; };
template <> struct dtype_traits<GPU_F64> { using type = double; };

/* Same-size unsigned type: integer ADD/MUL wrap through it without the
 * undefined behaviour of signed overflow; also the bits of a float. */
template <typename T> struct bits_of { using type = uint32_t; };
template <> struct bits_of<int64_t> { using type = uint64_t; };
template <> struct bits_of<uint64_t> { using type = uint64_t; };
template <> struct bits_of<double> { using type = uint64_t; };

template <typename T> constexpr bool is_float_v = false;
template <> constexpr bool is_float_v<float> = true;
template <> constexpr bool is_float_v<double> = true;

template <typename T> struct limits;
template <> struct limits<int32_t> { __host__ __device__ static int32_t lo() { return INT32_MIN; } __host__ __device__ static int32_t hi() { return INT32_MAX; } };
template <> struct limits<uint32_t> { __host__ __device__ static uint32_t lo() { return 0; } __host__ __device__ static uint32_t hi() { return UINT32_MAX; } };
template <> struct limits<int64_t> { __host__ __device__ static int64_t lo() { return INT64_MIN; } __host__ __device__ static int64_t hi() { return INT64_MAX; } };
template <> struct limits<uint64_t> { __host__ __device__ static uint64_t lo() { return 0; } __host__ __device__ static uint64_t hi() { return UINT64_MAX; } };
/* +inf (NVRTC, which compiles device code only, lacks the host builtins). */
#ifdef __CUDACC_RTC__
__device__ inline float inf_f32() { return __int_as_float(0x7f800000); }
__device__ inline double inf_f64() { return __longlong_as_double(0x7ff0000000000000ll); }
#else
__host__ __device__ inline float inf_f32() { return __builtin_huge_valf(); }
__host__ __device__ inline double inf_f64() { return __builtin_huge_val(); }
#endif
template <> struct limits<float> { __host__ __device__ static float lo() { return -inf_f32(); } __host__ __device__ static float hi() { return inf_f32(); } };
template <> struct limits<double> { __host__ __device__ static double lo() { return -inf_f64(); } __host__ __device__ static double hi() { return inf_f64(); } };

template <typename T> __host__ __device__ inline bool is_nan(T x) {
  if constexpr (is_float_v<T>) return x != x;
  else return false;
}

template <typename T, gpu_op OP> struct scan_op;

template <typename T> struct scan_op<T, GPU_ADD> {
  using Bits = typename bits_of<T>::type;
  __host__ __device__ static T apply(T a, T b) {
    if constexpr (is_float_v<T>) return a + b;
    else return (T)((Bits)a + (Bits)b);
  }
  __host__ __device__ static T identity() { return T(0); }
  __host__ __device__ static T neutral() {
    if constexpr (is_float_v<T>) return -T(0); /* -0.0 */
    else return T(0);
  }
};

template <typename T> struct scan_op<T, GPU_MUL> {
  using Bits = typename bits_of<T>::type;
  __host__ __device__ static T apply(T a, T b) {
    if constexpr (is_float_v<T>) return a * b;
    else return (T)((Bits)a * (Bits)b);
  }
  __host__ __device__ static T identity() { return T(1); }
  __host__ __device__ static T neutral() { return T(1); }
};

/* MIN/MAX. Integers: the smaller/larger. Floats: IEEE 754-2019 minimum and
 * maximum: NaN propagates (as numpy.minimum) and -0 < +0, so the result does
 * not depend on the operands' order. On the device one instruction does it
 * for f32 (min/max.NaN) and two for f64; each combine sits on the scan's
 * path many times per element, and a compare-and-select chain was measured
 * to cost f64 MAX scans half their speed. */
__device__ inline float min_nan(float a, float b) {
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ inline float max_nan(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ inline double min_nan(double a, double b) {
  double r;
  asm("{ .reg .pred p; setp.nan.f64 p, %1, %2; min.f64 %0, %1, %2; @p add.f64 %0, %1, %2; }"
      : "=&d"(r) : "d"(a), "d"(b));
  return r;
}
__device__ inline double max_nan(double a, double b) {
  double r;
  asm("{ .reg .pred p; setp.nan.f64 p, %1, %2; max.f64 %0, %1, %2; @p add.f64 %0, %1, %2; }"
      : "=&d"(r) : "d"(a), "d"(b));
  return r;
}

template <typename T> struct scan_op<T, GPU_MIN> {
  __device__ static T apply(T a, T b) {
    if constexpr (is_float_v<T>) return min_nan(a, b);
    else return b < a ? b : a;
  }
  __host__ __device__ static T identity() { return limits<T>::hi(); }
  __host__ __device__ static T neutral() { return limits<T>::hi(); }
};

template <typename T> struct scan_op<T, GPU_MAX> {
  __device__ static T apply(T a, T b) {
    if constexpr (is_float_v<T>) return max_nan(a, b);
    else return a < b ? b : a;
  }
  __host__ __device__ static T identity() { return limits<T>::lo(); }
  __host__ __device__ static T neutral() { return limits<T>::lo(); }
};

template <typename T> struct scan_op<T, GPU_AND> {
  __host__ __device__ static T apply(T a, T b) { return a & b; }
  __host__ __device__ static T identity() { return (T)~(T)0; }
  __host__ __device__ static T neutral() { return (T)~(T)0; }
};
template <typename T> struct scan_op<T, GPU_OR> {
  __host__ __device__ static T apply(T a, T b) { return a | b; }
  __host__ __device__ static T identity() { return T(0); }
  __host__ __device__ static T neutral() { return T(0); }
};
template <typename T> struct scan_op<T, GPU_XOR> {
  __host__ __device__ static T apply(T a, T b) { return a ^ b; }
  __host__ __device__ static T identity() { return T(0); }
  __host__ __device__ static T neutral() { return T(0); }
};

/* Whether an operator commutes (bit for bit), so that folds may combine in
 * any fixed order. All of gpu_op's do; the segmented scan's pairs do not. */
template <typename Op> constexpr bool op_commutes_v = true;

/* Whether a fold starts over at some values: Op::resets(b) means
 * apply(a, b) does not depend on a, so a fold of a sequence equals the fold
 * from its last such value on (the segmented scan's head). The look-back
 * then needs only the entries from the nearest one (lookback.cuh,
 * nearest_reset_prefix). None of gpu_op's do. */
template <typename Op> constexpr bool op_resets_v = false;

/* Whether (T, OP) exists: bitwise operators only for integers. */
template <typename T, gpu_op OP>
constexpr bool op_supported_v = !(is_float_v<T> && (OP == GPU_AND || OP == GPU_OR || OP == GPU_XOR));

/* Raw bits of a value and back, for tagged look-back words. */
template <typename T> __device__ inline typename bits_of<T>::type to_bits(T v) {
  typename bits_of<T>::type b;
  memcpy(&b, &v, sizeof b);
  return b;
}
template <typename T> __device__ inline T from_bits(typename bits_of<T>::type b) {
  T v;
  memcpy(&v, &b, sizeof v);
  return v;
}

}  // namespace gp
