/* Radix sort kernels for f64 keys (keys only, 4- and 8-byte values). */
#include "sort_launch.cuh"

GP_DEFINE_SORT_CUDA_TYPE(GPU_F64, f64)
