/* Scan and reduce kernels for int64_t elements. */
#include "scan_launch.cuh"

GP_DEFINE_SCAN_CUDA_TYPE(int64_t, i64)
