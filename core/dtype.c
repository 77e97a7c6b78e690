/* Element types and operators: names, validity, identities. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core.h"

size_t gpu_dtype_size(gpu_dtype t) {
  switch (t) {
    case GPU_I32: case GPU_U32: case GPU_F32: return 4;
    case GPU_I64: case GPU_U64: case GPU_F64: return 8;
  }
  return 0;
}

bool gp_dtype_valid(gpu_dtype t) { return gpu_dtype_size(t) != 0; }
bool gp_dtype_is_float(gpu_dtype t) { return t == GPU_F32 || t == GPU_F64; }
bool gp_dtype_is_signed(gpu_dtype t) { return t == GPU_I32 || t == GPU_I64; }

const char *gp_dtype_name(gpu_dtype t) {
  static const char *const names[] = {"i32", "u32", "i64", "u64", "f32", "f64"};
  return gp_dtype_valid(t) ? names[t] : "?";
}

bool gp_op_valid(gpu_op op) { return (unsigned)op <= (unsigned)GPU_XOR; }
bool gp_op_is_bitwise(gpu_op op) { return op == GPU_AND || op == GPU_OR || op == GPU_XOR; }

const char *gp_op_name(gpu_op op) {
  static const char *const names[] = {"add", "mul", "min", "max", "and", "or", "xor"};
  return gp_op_valid(op) ? names[op] : "?";
}

gpu_status gp_check_dtype_op(const char *fn, gpu_dtype t, gpu_op op) {
  if (!gp_dtype_valid(t))
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown gpu_dtype %d", fn, (int)t);
  if (!gp_op_valid(op))
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown gpu_op %d", fn, (int)op);
  if (gp_dtype_is_float(t) && gp_op_is_bitwise(op))
    return gp_fail(GPU_ERR_UNSUPPORTED, "%s: operator %s is for integer types, not %s", fn,
                   gp_op_name(op), gp_dtype_name(t));
  return GPU_OK;
}

gpu_status gp_check_flags(const char *fn, unsigned flags, unsigned allowed) {
  if (flags & ~allowed)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown flag bits 0x%x", fn, flags & ~allowed);
  return GPU_OK;
}

void gp_identity(gpu_dtype t, gpu_op op, void *out) {
  /* The extremes of each type, for MIN (its maximum) and MAX (its minimum). */
  union { int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; float f32; double f64; } v;
  memset(&v, 0, sizeof v);
  bool high = op == GPU_MIN;
  switch (op) {
    case GPU_ADD: case GPU_OR: case GPU_XOR: break; /* zero */
    case GPU_MUL:
      switch (t) {
        case GPU_I32: v.i32 = 1; break;   case GPU_U32: v.u32 = 1; break;
        case GPU_I64: v.i64 = 1; break;   case GPU_U64: v.u64 = 1; break;
        case GPU_F32: v.f32 = 1.0f; break; case GPU_F64: v.f64 = 1.0; break;
      }
      break;
    case GPU_AND: memset(&v, 0xff, sizeof v); break;
    case GPU_MIN: case GPU_MAX:
      switch (t) {
        case GPU_I32: v.i32 = high ? INT32_MAX : INT32_MIN; break;
        case GPU_U32: v.u32 = high ? UINT32_MAX : 0; break;
        case GPU_I64: v.i64 = high ? INT64_MAX : INT64_MIN; break;
        case GPU_U64: v.u64 = high ? UINT64_MAX : 0; break;
        case GPU_F32: v.f32 = high ? INFINITY : -INFINITY; break;
        case GPU_F64: v.f64 = high ? INFINITY : -INFINITY; break;
      }
      break;
  }
  memcpy(out, &v, gpu_dtype_size(t));
}
