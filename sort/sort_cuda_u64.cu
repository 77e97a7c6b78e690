/* Radix sort kernels for u64 keys (keys only, 4- and 8-byte values). */
#include "sort_launch.cuh"

GP_DEFINE_SORT_CUDA_TYPE(GPU_U64, u64)
