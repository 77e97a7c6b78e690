#include "spmv_launch.cuh"
GP_DEFINE_SPMV_CUDA_TYPE(double, f64)
