/* Linear recurrence kernels for double elements. */
#include "linrec_launch.cuh"

GP_DEFINE_LINREC_CUDA_TYPE(double, f64)
