/*
 * Stream compaction's entry points until issue 3 lands them: each refuses
 * with GPU_ERR_UNSUPPORTED and says so, so that programs written against
 * API.md link and fail clearly instead of not linking.
 */
#include "core/core.h"

static gpu_pred pending_pred(const char *fn, gpu_dtype t) {
  gpu_pred p = {{0}};
  p.private_.type = (int32_t)t;
  p.private_.status = gp_fail(GPU_ERR_UNSUPPORTED, "%s: not in this version of gpuprim yet", fn);
  return p;
}

gpu_pred gpu_pred_cmp(gpu_dtype t, gpu_cmp c, const void *value) {
  (void)c, (void)value;
  return pending_pred("gpu_pred_cmp", t);
}
gpu_pred gpu_pred_range(gpu_dtype t, const void *lo, const void *hi) {
  (void)lo, (void)hi;
  return pending_pred("gpu_pred_range", t);
}
gpu_pred gpu_pred_flags(gpu_dtype t, const uint8_t *flags) {
  (void)flags;
  return pending_pred("gpu_pred_flags", t);
}
gpu_pred gpu_pred_expr(gpu_dtype t, const char *expression) {
  (void)expression;
  return pending_pred("gpu_pred_expr", t);
}
int64_t gpu_compact(const void *in, size_t n, gpu_pred pred, void *out) {
  (void)in, (void)n, (void)pred, (void)out;
  return gp_neg(gp_fail(GPU_ERR_UNSUPPORTED, "gpu_compact: not in this version of gpuprim yet"));
}
int64_t gpu_partition(const void *in, size_t n, gpu_pred pred, void *out) {
  (void)in, (void)n, (void)pred, (void)out;
  return gp_neg(gp_fail(GPU_ERR_UNSUPPORTED, "gpu_partition: not in this version of gpuprim yet"));
}
