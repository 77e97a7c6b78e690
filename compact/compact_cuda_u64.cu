#include "compact_launch.cuh"
GP_DEFINE_COMPACT_CUDA_TYPE(uint64_t, u64)
