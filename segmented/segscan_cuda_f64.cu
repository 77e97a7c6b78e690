#include "segscan_launch.cuh"
GP_DEFINE_SEGMENTED_CUDA_TYPE(double, f64)
