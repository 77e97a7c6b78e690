/* Scan and reduce kernels for uint32_t elements. */
#include "scan_launch.cuh"

GP_DEFINE_SCAN_CUDA_TYPE(uint32_t, u32)
