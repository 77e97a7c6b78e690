#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>

#include <cusparse.h>

#include "bench_cuda.h"
#include "cusparse_shim.h"

struct cusparse_spmv {
  cusparseConstSpMatDescr_t A = nullptr;
  cusparseConstDnVecDescr_t x = nullptr;
  cusparseDnVecDescr_t y = nullptr;
  cudaDataType type = CUDA_R_32F;
  cusparseSpMVAlg_t alg = CUSPARSE_SPMV_CSR_ALG1;
  void *buffer = nullptr;
  // alpha and beta in the value type, where cusparseSpMV reads them (host pointers).
  union {
    float f32;
    double f64;
  } alpha{}, beta{};
};

namespace {

// One handle for the whole run, on the default stream, made on first use.
cusparseHandle_t handle() {
  static cusparseHandle_t h = nullptr;
  if (!h) {
    const cusparseStatus_t s = cusparseCreate(&h);
    if (s != CUSPARSE_STATUS_SUCCESS) {
      std::fprintf(stderr, "cusparseCreate: %s\n", cusparseGetErrorString(s));
      std::exit(2);
    }
  }
  return h;
}

const void *scalar(const cusparse_spmv *p, bool beta) {
  const auto &v = beta ? p->beta : p->alpha;
  return p->type == CUDA_R_32F ? static_cast<const void *>(&v.f32) : static_cast<const void *>(&v.f64);
}

// Warp per row: lanes stride over the row, then a shuffle sum; a grid-stride
// loop over rows, so one long row costs one warp's time, not a block's.
template <typename T, typename I>
__global__ void row_scale_kernel(const I *row_ptr, const I *col, const T *val, const T *x, const T *y0, double beta,
                                 double *scale, int64_t rows) {
  const int lane = threadIdx.x % 32;
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / 32);
  for (int64_t r = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; r < rows; r += warps) {
    double s = 0;
    for (int64_t k = int64_t(row_ptr[r]) + lane; k < int64_t(row_ptr[r + 1]); k += 32)
      s += fabs(double(val[k]) * double(x[col[k]]));
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) scale[r] = s + (y0 ? fabs(beta * double(y0[r])) : 0.0);
  }
}

template <typename T, typename I>
void row_scale(const gpu_csr *A, const void *x, const void *y0, double beta, double *scale) {
  const unsigned blocks = unsigned(std::min<int64_t>((A->rows + 7) / 8, 16384) + (A->rows == 0));
  row_scale_kernel<T, I><<<blocks, 256>>>(static_cast<const I *>(A->row_ptr), static_cast<const I *>(A->col_idx),
                                          static_cast<const T *>(A->values), static_cast<const T *>(x),
                                          static_cast<const T *>(y0), beta, scale, A->rows);
  BENCH_CUDA(cudaGetLastError());
  BENCH_CUDA(cudaDeviceSynchronize());
}

template <typename T>
__global__ void mismatch_kernel(const T *a, const T *b, const double *scale, size_t n, double rel_tol,
                                unsigned long long *first) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (!(fabs(double(a[i]) - double(b[i])) <= rel_tol * scale[i])) {  // NaN fails too
      atomicMin(first, (unsigned long long)i);
      return;
    }
}

template <typename T> int64_t first_mismatch(const void *a, const void *b, const double *scale, size_t n, double tol) {
  static unsigned long long *d_first = nullptr;
  if (!d_first) BENCH_CUDA(cudaMalloc(&d_first, sizeof *d_first));
  unsigned long long first = ULLONG_MAX;
  BENCH_CUDA(cudaMemcpy(d_first, &first, sizeof first, cudaMemcpyHostToDevice));
  const unsigned blocks = unsigned(std::min<size_t>((n + 255) / 256, 8192) + (n == 0));
  mismatch_kernel<T><<<blocks, 256>>>(static_cast<const T *>(a), static_cast<const T *>(b), scale, n, tol, d_first);
  BENCH_CUDA(cudaGetLastError());
  BENCH_CUDA(cudaMemcpy(&first, d_first, sizeof first, cudaMemcpyDeviceToHost));
  return first == ULLONG_MAX ? -1 : int64_t(first);
}

}  // namespace

extern "C" cusparse_spmv *cusparse_spmv_create(const gpu_csr *A, const void *x, void *y, double alpha, double beta,
                                               int alg, const char **why) {
  const bool f32 = A->value_type == GPU_F32;
  if ((!f32 && A->value_type != GPU_F64) || (A->index_type != GPU_I32 && A->index_type != GPU_I64) ||
      (alg != 1 && alg != 2)) {
    *why = "cusparse_spmv_create: value type, index type or algorithm not provided by the shim";
    return nullptr;
  }
  auto *p = new (std::nothrow) cusparse_spmv;
  if (!p) {
    *why = "cusparse_spmv_create: out of host memory";
    return nullptr;
  }
  p->type = f32 ? CUDA_R_32F : CUDA_R_64F;
  p->alg = alg == 1 ? CUSPARSE_SPMV_CSR_ALG1 : CUSPARSE_SPMV_CSR_ALG2;
  if (f32) p->alpha.f32 = float(alpha), p->beta.f32 = float(beta);
  else p->alpha.f64 = alpha, p->beta.f64 = beta;
  const cusparseIndexType_t it = A->index_type == GPU_I32 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
  cusparseStatus_t s = cusparseCreateConstCsr(&p->A, A->rows, A->cols, A->nnz, A->row_ptr, A->col_idx, A->values, it,
                                              it, CUSPARSE_INDEX_BASE_ZERO, p->type);
  if (s == CUSPARSE_STATUS_SUCCESS) s = cusparseCreateConstDnVec(&p->x, A->cols, x, p->type);
  if (s == CUSPARSE_STATUS_SUCCESS) s = cusparseCreateDnVec(&p->y, A->rows, y, p->type);
  size_t bytes = 0;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  if (s == CUSPARSE_STATUS_SUCCESS)
    s = cusparseSpMV_bufferSize(handle(), op, scalar(p, false), p->A, p->x, scalar(p, true), p->y, p->type, p->alg,
                                &bytes);
  if (s == CUSPARSE_STATUS_SUCCESS && bytes > 0) BENCH_CUDA(cudaMalloc(&p->buffer, bytes));
  if (s == CUSPARSE_STATUS_SUCCESS)
    s = cusparseSpMV_preprocess(handle(), op, scalar(p, false), p->A, p->x, scalar(p, true), p->y, p->type, p->alg,
                                p->buffer);
  if (s != CUSPARSE_STATUS_SUCCESS) {
    *why = cusparseGetErrorString(s);
    cusparse_spmv_destroy(p);
    return nullptr;
  }
  return p;
}

extern "C" int cusparse_spmv_run(cusparse_spmv *p) {
  const cusparseStatus_t s = cusparseSpMV(handle(), CUSPARSE_OPERATION_NON_TRANSPOSE, scalar(p, false), p->A, p->x,
                                          scalar(p, true), p->y, p->type, p->alg, p->buffer);
  if (s == CUSPARSE_STATUS_SUCCESS) return 0;
  std::fprintf(stderr, "cusparseSpMV: %s\n", cusparseGetErrorString(s));
  return 1;
}

extern "C" void cusparse_spmv_destroy(cusparse_spmv *p) {
  if (!p) return;
  if (p->A) cusparseDestroySpMat(p->A);
  if (p->x) cusparseDestroyDnVec(p->x);
  if (p->y) cusparseDestroyDnVec(p->y);
  if (p->buffer) BENCH_CUDA(cudaFree(p->buffer));  // waits for the products that used it
  delete p;
}

extern "C" void spmv_bench_row_scale(const gpu_csr *A, const void *x, const void *y0, double beta, double *scale) {
  const bool i32 = A->index_type == GPU_I32;
  if (A->value_type == GPU_F32) {
    if (i32) row_scale<float, int32_t>(A, x, y0, beta, scale);
    else row_scale<float, int64_t>(A, x, y0, beta, scale);
  } else {
    if (i32) row_scale<double, int32_t>(A, x, y0, beta, scale);
    else row_scale<double, int64_t>(A, x, y0, beta, scale);
  }
}

extern "C" int64_t spmv_bench_first_mismatch(const void *a, const void *b, const double *scale, size_t n, gpu_dtype t,
                                             double rel_tol) {
  if (n == 0) return -1;
  return t == GPU_F32 ? first_mismatch<float>(a, b, scale, n, rel_tol)
                      : first_mismatch<double>(a, b, scale, n, rel_tol);
}
