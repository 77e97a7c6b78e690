/* Linear recurrence kernels for float elements. */
#include "linrec_launch.cuh"

GP_DEFINE_LINREC_CUDA_TYPE(float, f32)
