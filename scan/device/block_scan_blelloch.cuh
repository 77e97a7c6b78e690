/*
 * Blelloch's work-efficient block scan in shared memory (exclusive), one
 * value per thread: an up-sweep builds a tree of partial folds in place, the
 * root is replaced by the neutral element, and a down-sweep pushes prefixes
 * back down. For eight values:
 *
 *   input          x0   x1   x2   x3   x4   x5   x6   x7
 *   up d=1         x0  x01   x2  x23   x4  x45   x6  x67
 *   up d=2         x0  x01   x2  x03   x4  x45   x6  x47
 *   up d=4         x0  x01   x2  x03   x4  x45   x6  x07   (x07: the total)
 *   clear root     x0  x01   x2  x03   x4  x45   x6   0
 *   down d=4       x0  x01   x2   0    x4  x45   x6  x03
 *   down d=2       x0   0    x2  x01   x4  x03   x6  x05
 *   down d=1        0   x0  x01  x02  x03  x04  x05  x06   (exclusive prefixes)
 *
 * (xab = xa op ... op xb.) Down-sweep step: left child takes the parent's
 * prefix, right child takes parent's prefix op left child's old fold.
 * Indices are padded by one slot per 32 to keep strided accesses off the
 * same shared-memory bank.
 */
#pragma once

#include "scan/device/ops.cuh"

namespace gp {

__device__ constexpr int blelloch_pad(int i) { return i + (i >> 5); }
template <int N> __host__ __device__ constexpr int blelloch_smem_slots() { return N + (N >> 5) + 1; }

/* Exclusive scan of one value per thread over N = blockDim.x threads (a power
 * of two); *total gets the fold of all N. s holds blelloch_smem_slots<N>(). */
template <typename Op, int N, typename T> __device__ inline T block_exclusive_scan_blelloch(T v, T *s, T *total) {
  static_assert((N & (N - 1)) == 0, "Blelloch's tree needs a power of two");
  const int tid = threadIdx.x;
  s[blelloch_pad(tid)] = v;
  int offset = 1;
#pragma unroll
  for (int d = N >> 1; d > 0; d >>= 1) { /* up-sweep */
    __syncthreads();
    if (tid < d) {
      const int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      s[blelloch_pad(bi)] = Op::apply(s[blelloch_pad(ai)], s[blelloch_pad(bi)]);
    }
    offset <<= 1;
  }
  __syncthreads();
  *total = s[blelloch_pad(N - 1)];
  __syncthreads();
  if (tid == 0) s[blelloch_pad(N - 1)] = Op::neutral();
#pragma unroll
  for (int d = 1; d < N; d <<= 1) { /* down-sweep */
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      const int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
      T left = s[blelloch_pad(ai)];
      s[blelloch_pad(ai)] = s[blelloch_pad(bi)];
      s[blelloch_pad(bi)] = Op::apply(s[blelloch_pad(bi)], left);
    }
  }
  __syncthreads();
  T r = s[blelloch_pad(tid)];
  __syncthreads(); /* s may be reused at once */
  return r;
}

}  // namespace gp
