/* The CUDA backend's linear recurrences: dispatch on the element type. */
#include "linrec_cuda.h"

#define GP_DECLARE_LINREC_CUDA_TYPE(SUFFIX)                                                                   \
  extern "C" gpu_status gp_linrec_cuda_##SUFFIX(const void *a, const void *b, void *h,                      \
                                                const gp_linrec_shape *shape);                              \
  extern "C" gpu_status gp_linrec_backward_cuda_##SUFFIX(const void *a, const void *h, const void *dh,      \
                                                         void *da, void *db, const gp_linrec_shape *shape);
GP_DECLARE_LINREC_CUDA_TYPE(f32)
GP_DECLARE_LINREC_CUDA_TYPE(f64)

extern "C" gpu_status gp_linrec_cuda(const void *a, const void *b, void *h, const gp_linrec_shape *shape) {
  if (shape->t == GPU_F64) return gp_linrec_cuda_f64(a, b, h, shape);
  return gp_linrec_cuda_f32(a, b, h, shape);
}

extern "C" gpu_status gp_linrec_backward_cuda(const void *a, const void *h, const void *dh, void *da, void *db,
                                              const gp_linrec_shape *shape) {
  if (shape->t == GPU_F64) return gp_linrec_backward_cuda_f64(a, h, dh, da, db, shape);
  return gp_linrec_backward_cuda_f32(a, h, dh, da, db, shape);
}
