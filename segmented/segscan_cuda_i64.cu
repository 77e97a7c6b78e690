#include "segscan_launch.cuh"
GP_DEFINE_SEGMENTED_CUDA_TYPE(int64_t, i64)
