/* Scan and reduce kernels for int32_t elements. */
#include "scan_launch.cuh"

GP_DEFINE_SCAN_CUDA_TYPE(int32_t, i32)
