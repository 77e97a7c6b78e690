/* Scan and reduce kernels for double elements. */
#include "scan_launch.cuh"

GP_DEFINE_SCAN_CUDA_TYPE(double, f64)
