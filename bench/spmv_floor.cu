// bench_spmv's floor kernel (spmv_floor.h): A streamed once, x gathered at
// every column, y written, no row sums.
#include <cstdio>

#include <cuda_runtime.h>

#include "cub_shim.h"
#include "spmv_floor.h"

namespace {

constexpr int THREADS = 256, BLOCKS_PER_SM = 8;

// Four nonzeros a thread a step (16 bytes of columns, 16 or 32 of values),
// two steps' loads issued before their gathers so each thread has four
// loads in flight; A with the streaming hint (read once), x through the
// read-only path, as a good product would. The products' sum per block to
// scratch keeps the loads from being optimised away.
template <typename T>
__global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
    floor_kernel(const int *row_ptr, const int *col, const T *val, const T *x, T *y, long long rows,
                 long long nnz, T *scratch) {
  const long long tid = (long long)blockIdx.x * THREADS + threadIdx.x, stride = (long long)gridDim.x * THREADS;
  const long long quads = nnz / 4;
  T acc = 0;
  auto quad = [&](long long q, int4 &c, T (&v)[4]) {
    c = __ldcs(reinterpret_cast<const int4 *>(col) + q);
    if constexpr (sizeof(T) == 4) {
      const float4 f = __ldcs(reinterpret_cast<const float4 *>(val) + q);
      v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
    } else {
      const double2 a = __ldcs(reinterpret_cast<const double2 *>(val) + 2 * q);
      const double2 b = __ldcs(reinterpret_cast<const double2 *>(val) + 2 * q + 1);
      v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
    }
  };
  auto gather = [&](const int4 &c, const T (&v)[4]) {
    acc += v[0] * __ldg(x + c.x) + v[1] * __ldg(x + c.y) + v[2] * __ldg(x + c.z) + v[3] * __ldg(x + c.w);
  };
  long long q = tid;
  for (; q + stride < quads; q += 2 * stride) {
    int4 c0, c1;
    T v0[4], v1[4];
    quad(q, c0, v0);
    quad(q + stride, c1, v1);
    gather(c0, v0);
    gather(c1, v1);
  }
  if (q < quads) {
    int4 c;
    T v[4];
    quad(q, c, v);
    gather(c, v);
  }
  for (long long i = quads * 4 + tid; i < nnz; i += stride) acc += val[i] * __ldg(x + col[i]);
  for (long long r = tid; r < rows; r += stride) y[r] = T(__ldcs(row_ptr + r));
  for (int d = 16; d > 0; d /= 2) acc += __shfl_down_sync(0xffffffffu, acc, d);
  __shared__ T warp_sums[THREADS / 32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    T s = 0;
    for (int w = 0; w < THREADS / 32; w++) s += warp_sums[w];
    scratch[blockIdx.x] = s;
  }
}

int grid_blocks() { return bench_sm_count() * BLOCKS_PER_SM; }

}  // namespace

extern "C" size_t spmv_floor_scratch_bytes(void) { return size_t(grid_blocks()) * sizeof(double); }

extern "C" int spmv_floor_run(const gpu_csr *A, const void *x, void *y, void *scratch) {
  if (A->index_type != GPU_I32) {
    std::fprintf(stderr, "spmv_floor_run: i32 indices only\n");
    return 1;
  }
  const int blocks = grid_blocks();
  const int *row_ptr = static_cast<const int *>(A->row_ptr), *col = static_cast<const int *>(A->col_idx);
  if (A->value_type == GPU_F32)
    floor_kernel<float><<<blocks, THREADS>>>(row_ptr, col, static_cast<const float *>(A->values),
                                             static_cast<const float *>(x), static_cast<float *>(y), A->rows,
                                             A->nnz, static_cast<float *>(scratch));
  else
    floor_kernel<double><<<blocks, THREADS>>>(row_ptr, col, static_cast<const double *>(A->values),
                                              static_cast<const double *>(x), static_cast<double *>(y), A->rows,
                                              A->nnz, static_cast<double *>(scratch));
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "spmv_floor_run: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
