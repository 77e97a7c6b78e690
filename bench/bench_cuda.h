// BENCH_CUDA(call): stops a benchmark program on a CUDA runtime error, naming
// the call and where it was (the figures would mean nothing after one). For
// the shims' .cu files.
#ifndef GP_BENCH_CUDA_H
#define GP_BENCH_CUDA_H

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define BENCH_CUDA(call)                                                                       \
  do {                                                                                         \
    cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(2);                                                                            \
    }                                                                                          \
  } while (0)

#endif
