/* Scan and reduce kernels for uint64_t elements. */
#include "scan_launch.cuh"

GP_DEFINE_SCAN_CUDA_TYPE(uint64_t, u64)
