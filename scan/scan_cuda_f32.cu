/* Scan and reduce kernels for float elements. */
#include "scan_launch.cuh"

GP_DEFINE_SCAN_CUDA_TYPE(float, f32)
