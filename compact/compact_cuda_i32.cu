#include "compact_launch.cuh"
GP_DEFINE_COMPACT_CUDA_TYPE(int32_t, i32)
