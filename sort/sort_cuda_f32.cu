/* Radix sort kernels for f32 keys (keys only, 4- and 8-byte values). */
#include "sort_launch.cuh"

GP_DEFINE_SORT_CUDA_TYPE(GPU_F32, f32)
