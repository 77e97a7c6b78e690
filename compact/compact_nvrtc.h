/*
 * Formulas on the CUDA backend: the compaction kernel with the formula
 * compiled in, built at run time with NVRTC (loaded with dlopen, so the
 * library needs no CUDA toolkit unless formulas run on the GPU), once per
 * formula and process, and cached in the formula's entry.
 */
#pragma once

#include "compact_internal.h"

namespace gp {

/* The kernels of one compaction (each a __global__ function or a
 * cudaKernel_t): the one-pass kernel, how many of its blocks the device
 * holds at once, and partition's count pass. */
struct compact_kernels {
  const void *compact;
  unsigned resident;
  const void *count;
};

/* The kernels of formula f for the current device (compiled and loaded the
 * first time), for compact or partition. */
gpu_status formula_kernels(const gp_formula *f, bool partition, compact_kernels *out);

}  // namespace gp
