/*
 * The predicate constructors, gpu_compact and gpu_partition: argument checks,
 * then the backend's implementation (compact_host.c, or the CUDA backend).
 *
 * A constructor never fails loudly: given bad arguments it returns a
 * predicate carrying the status, and gpu_compact / gpu_partition fail with it
 * later, repeating the constructor's message (kept in compact_formula.c).
 */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "compact_formula.h"
#include "compact_internal.h"

/* Predicates point at library objects (a formula, a kept message) and hold
 * their entry's serial in a (compact_formula.h: an entry may give way). b
 * holds a tag of the pointer, so that a predicate whose bytes did not come
 * from a constructor is refused instead of followed. */
static uint64_t pointer_tag(const void *p) {
  return ((uint64_t)(uintptr_t)p ^ 0x67707072656474ull) * 0x9e3779b97f4a7c15ull;
}

static gpu_pred new_pred(gp_pred_kind kind, gpu_dtype t) {
  gpu_pred p;
  memset(&p, 0, sizeof p);
  p.private_.kind = (int32_t)kind;
  p.private_.type = (int32_t)t;
  return p;
}

/* The column a formula's message names ("...: column 7: ..."), or 0. */
static int32_t message_column(const char *message) {
  const char *at = strstr(message, ": column ");
  long column = at ? strtol(at + 9, NULL, 10) : 0;
  return column > 0 && column <= INT32_MAX ? (int32_t)column : 0;
}

/* A predicate that makes gpu_compact fail with s; s's message was just
 * recorded by gp_fail on this thread. Its kept copy may give way to newer
 * ones: cmp keeps the column it names for the shorter message then. */
static gpu_pred failed_pred(gp_pred_kind kind, gpu_dtype t, gpu_status s) {
  gpu_pred p = new_pred(kind, t);
  uint64_t serial = 0;
  p.private_.status = (int32_t)s;
  p.private_.cmp = message_column(gpu_last_error());
  p.private_.ptr = gp_pred_message_intern(gpu_last_error(), &serial);
  p.private_.a = serial;
  p.private_.b = pointer_tag(p.private_.ptr);
  return p;
}

static gpu_status check_type(const char *fn, gpu_dtype t) {
  if (!gp_dtype_valid(t)) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown element type %d", fn, (int)t);
  return GPU_OK;
}

static bool cmp_valid(int32_t c) { return c >= GPU_EQ && c <= GPU_GE; }

/* The value's bytes in the low bytes of a zeroed uint64_t (compact_internal.h). */
static uint64_t value_bits(gpu_dtype t, const void *value) {
  uint64_t bits = 0;
  memcpy(&bits, value, gpu_dtype_size(t));
  return bits;
}

gpu_pred gpu_pred_cmp(gpu_dtype t, gpu_cmp c, const void *value) {
  static const char fn[] = "gpu_pred_cmp";
  gpu_status s = check_type(fn, t);
  if (s == GPU_OK && !cmp_valid((int32_t)c))
    s = gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown comparison %d", fn, (int)c);
  if (s == GPU_OK && !value) s = gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: value is NULL", fn);
  if (s != GPU_OK) return failed_pred(GP_PRED_CMP, t, s);
  gpu_pred p = new_pred(GP_PRED_CMP, t);
  p.private_.cmp = (int32_t)c;
  p.private_.a = value_bits(t, value);
  return p;
}

gpu_pred gpu_pred_range(gpu_dtype t, const void *lo, const void *hi) {
  static const char fn[] = "gpu_pred_range";
  gpu_status s = check_type(fn, t);
  if (s == GPU_OK && !lo) s = gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: lo is NULL", fn);
  if (s == GPU_OK && !hi) s = gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: hi is NULL", fn);
  if (s != GPU_OK) return failed_pred(GP_PRED_RANGE, t, s);
  gpu_pred p = new_pred(GP_PRED_RANGE, t);
  p.private_.a = value_bits(t, lo);
  p.private_.b = value_bits(t, hi);
  return p;
}

/* flags may be NULL here: that is only wrong with n > 0, which gpu_compact
 * checks along with the array's memory. */
gpu_pred gpu_pred_flags(gpu_dtype t, const uint8_t *flags) {
  gpu_status s = check_type("gpu_pred_flags", t);
  if (s != GPU_OK) return failed_pred(GP_PRED_FLAGS, t, s);
  gpu_pred p = new_pred(GP_PRED_FLAGS, t);
  p.private_.ptr = flags;
  return p;
}

gpu_pred gpu_pred_expr(gpu_dtype t, const char *expression) {
  static const char fn[] = "gpu_pred_expr";
  gpu_status s = check_type(fn, t);
  if (s == GPU_OK && !expression) s = gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: expression is NULL", fn);
  gp_expr *e = NULL;
  if (s == GPU_OK) s = gp_expr_compile(expression, t, &e); /* the message names the column */
  const gp_formula *f = NULL;
  uint64_t serial = 0;
  if (s == GPU_OK) s = gp_formula_intern(e, &f, &serial);
  if (s != GPU_OK) return failed_pred(GP_PRED_EXPR, t, s);
  gpu_pred p = new_pred(GP_PRED_EXPR, t);
  p.private_.ptr = f;
  p.private_.a = serial;
  p.private_.b = pointer_tag(f);
  return p;
}

/* -------------------------------------------------------- compact, partition */

static gpu_status check_pred(const char *fn, const gpu_pred *pred) {
  const int32_t kind = pred->private_.kind, status = pred->private_.status;
  const void *ptr = pred->private_.ptr;
  const bool tagged = pred->private_.b == pointer_tag(ptr);
  if (kind <= GP_PRED_NONE || kind > GP_PRED_EXPR)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: pred was not made by a gpu_pred_* constructor", fn);
  if (status != GPU_OK) {
    gpu_status s = status > GPU_OK && status <= GPU_ERR_IO ? (gpu_status)status : GPU_ERR_INVALID_ARGUMENT;
    char message[GP_MESSAGE_BYTES];
    if (ptr && tagged && gp_pred_message_copy(ptr, pred->private_.a, message, sizeof message))
      return gp_fail(s, "%s: invalid predicate: %s", fn, message);
    if (pred->private_.cmp > 0)
      return gp_fail(s, "%s: invalid predicate (its constructor failed with %s at column %d)", fn,
                     gpu_status_string(s), (int)pred->private_.cmp);
    return gp_fail(s, "%s: invalid predicate (its constructor failed with %s)", fn, gpu_status_string(s));
  }
  bool intact = gp_dtype_valid((gpu_dtype)pred->private_.type);
  if (kind == GP_PRED_CMP) intact = intact && cmp_valid(pred->private_.cmp);
  if (kind == GP_PRED_EXPR) intact = intact && ptr && tagged;
  if (!intact)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: pred is damaged (not as a gpu_pred_* constructor made it)", fn);
  return GPU_OK;
}

static int64_t run_backend(gpu_backend b, const void *in, size_t n, const gpu_pred *pred, void *out,
                           bool partition) {
  if (n == 0) return 0;
#if GPUPRIM_HAVE_CUDA
  if (b == GPU_BACKEND_CUDA) return gp_compact_cuda(in, n, pred, out, partition);
#else
  (void)b;
#endif
  return gp_compact_host(in, n, pred, out, partition);
}

static int64_t compact_or_partition(const char *fn, const void *in, size_t n, const gpu_pred *pred, void *out,
                                    bool partition) {
  gpu_status s = check_pred(fn, pred);
  gpu_backend b = GPU_BACKEND_HOST;
  if (s == GPU_OK) s = gp_backend(fn, &b);
  if (s != GPU_OK) return gp_neg(s);
  const size_t w = gpu_dtype_size((gpu_dtype)pred->private_.type);
  const bool has_flags = pred->private_.kind == GP_PRED_FLAGS;
  const uint8_t *flags = has_flags ? pred->private_.ptr : NULL;
  s = gp_check_array(fn, "in", in, n, w, b);
  if (s == GPU_OK) s = gp_check_array(fn, "out", out, n, w, b);
  if (s == GPU_OK && has_flags) s = gp_check_array(fn, "flags", flags, n, 1, b);
  /* No output may alias an input, in == out included: elements move to
   * earlier places (compact) and later ones (partition's rejected part) while
   * others are still to be read, so in-place work would need another
   * algorithm. The sizes are checked above, so n * w cannot overflow. */
  if (s == GPU_OK) s = gp_check_disjoint(fn, "in", in, n * w, "out", out, n * w);
  if (s == GPU_OK && has_flags) s = gp_check_disjoint(fn, "flags", flags, n, "out", out, n * w);
  if (s != GPU_OK) return gp_neg(s);
  /* A formula is held for the call: no other thread evicts it meanwhile. */
  const gp_formula *formula = pred->private_.kind == GP_PRED_EXPR ? pred->private_.ptr : NULL;
  if (formula) s = gp_formula_acquire(fn, formula, pred->private_.a);
  if (s != GPU_OK) return gp_neg(s);
  if (formula && formula->type != (gpu_dtype)pred->private_.type) {
    gp_formula_release(formula);
    return gp_neg(gp_fail(GPU_ERR_INVALID_ARGUMENT,
                          "%s: pred is damaged (not as a gpu_pred_* constructor made it)", fn));
  }
  const int64_t kept = run_backend(b, in, n, pred, out, partition);
  if (formula) gp_formula_release(formula);
  return kept;
}

int64_t gpu_compact(const void *in, size_t n, gpu_pred pred, void *out) {
  return compact_or_partition("gpu_compact", in, n, &pred, out, false);
}

int64_t gpu_partition(const void *in, size_t n, gpu_pred pred, void *out) {
  return compact_or_partition("gpu_partition", in, n, &pred, out, true);
}
