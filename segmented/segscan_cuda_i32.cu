#include "segscan_launch.cuh"
GP_DEFINE_SEGMENTED_CUDA_TYPE(int32_t, i32)
