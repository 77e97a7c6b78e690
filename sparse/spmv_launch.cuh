/*
 * CSR SpMV on the segmented reduce (segmented/device/segscan_blocked.cuh): the
 * nonzeros are the elements, the rows are the segments (row_ptr their
 * offsets), and each element's value is its product with x, computed when
 * its tile lands. Work is split by nonzeros, in tiles of equal size, so one
 * long row is spread over many tiles like any long segment, and empty rows
 * cost nothing but their epilogue. Each row's sum comes from the scan's
 * fixed-order tree: the same bits on every run, with or without a plan.
 * Included by spmv_cuda_<value type>.cu.
 */
#pragma once

#include "segmented/segscan_launch.cuh"
#include "spmv_cuda.h"

namespace gp {

/* Rounded products and sums (never contracted into an FMA): the host's bits
 * for a product, and the epilogue's two roundings. */
__device__ inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double add_rn(double a, double b) { return __dadd_rn(a, b); }

/* Element i's value: values[i] * x[col[i]]; a column outside [0, cols)
 * contributes 0 and, where *bad exists, is reported there. The columns are
 * loaded with the tile's values, x is gathered once the flags are found. */
template <typename T, typename Index> struct csr_products {
  const Index *col;
  const T *x;
  uint64_t cols;
  unsigned *bad;
  static constexpr bool transforms = true;
  struct loaded_columns {
    Index c[16]; /* a thread's items: at most Shape::rows * Shape::vec */
  };
  using loaded = loaded_columns;
  template <typename Shape> __device__ loaded load(uint64_t base, uint32_t valid, int warp, int lane) const {
    static_assert(Shape::rows * Shape::vec <= 16, "loaded_columns holds a thread's items");
    loaded l;
#pragma unroll
    for (int r = 0; r < Shape::rows; r++)
#pragma unroll
      for (int k = 0; k < Shape::vec; k++) {
        const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r) + k);
        l.c[r * Shape::vec + k] = i < valid ? col[base + i] : Index(0);
      }
    return l;
  }
  template <typename Shape>
  __device__ void operator()(T (&v)[Shape::rows][Shape::vec], const loaded &l, uint32_t valid, int warp,
                             int lane) const {
#pragma unroll
    for (int r = 0; r < Shape::rows; r++)
#pragma unroll
      for (int k = 0; k < Shape::vec; k++) {
        const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r) + k);
        if (i >= valid) continue;
        const int64_t c = int64_t(l.c[r * Shape::vec + k]);
        if (c >= 0 && uint64_t(c) < cols) {
          v[r][k] = mul_rn(v[r][k], x[c]);
        } else {
          v[r][k] = T(0);
          if (bad) *bad = 1;
        }
      }
  }
};

/* Row j's result: y = alpha * sum + beta * y, BLAS's way (spmv_host.c):
 * beta == 0 does not read y, and an empty row gives beta * y (or 0). */
template <typename T> struct spmv_results {
  T *y;
  T alpha, beta;
  bool read_y;
  __device__ void operator()(uint64_t row, T sum, bool empty) const {
    const T scaled_y = read_y ? mul_rn(beta, y[row]) : T(0);
    y[row] = empty ? scaled_y : read_y ? add_rn(mul_rn(alpha, sum), scaled_y) : mul_rn(alpha, sum);
  }
};

/* y = beta * y (0 where beta == 0): alpha == 0, or no nonzeros at all. */
template <typename T> __global__ void scale_rows(T *y, uint64_t rows, T beta, bool read_y) {
  for (uint64_t r = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += uint64_t(gridDim.x) * blockDim.x)
    y[r] = read_y ? mul_rn(beta, y[r]) : T(0);
}

/* What a plan keeps: tile_first[] of its matrix (pool memory), and whether
 * its row_ptr was found malformed (the plan is made; its runs refuse, as the
 * host backend's do). */
struct spmv_plan_state {
  uint64_t *tile_first;
  bool malformed;
};

/* Tiles of 8 items a thread below 2^21 nonzeros (more blocks for the SMs:
 * the real matrices run 10% faster), of 16 above (more bytes in flight a
 * block: the large generated ones run 5-25% faster). Plans and direct
 * calls choose alike, so their bits agree. */
constexpr uint64_t SPMV_LARGE_NNZ = uint64_t(1) << 21;
template <typename T, typename Index, typename Shape>
gpu_status spmv_product_shaped(const char *fn, const gpu_csr *A, double alpha, const void *x, double beta, void *y,
                               const uint64_t *plan_tile_first);
template <typename T, typename Index, typename Shape>
gpu_status spmv_plan_table_shaped(const gpu_csr *A, spmv_plan_state *plan);

/* One product; plan_tile_first: a plan's table (row_ptr was checked when it
 * was made), or NULL (built here, row_ptr checked). Bad row_ptr entries and
 * columns are deferred errors (gpu_synchronize reports them): no wait. */
template <typename T, typename Index>
gpu_status spmv_product(const char *fn, const gpu_csr *A, double alpha, const void *x, double beta, void *y,
                        const uint64_t *plan_tile_first) {
  return uint64_t(A->nnz) < SPMV_LARGE_NNZ
             ? spmv_product_shaped<T, Index, seg_small_shape<sizeof(T)>>(fn, A, alpha, x, beta, y, plan_tile_first)
             : spmv_product_shaped<T, Index, seg_large_shape<sizeof(T)>>(fn, A, alpha, x, beta, y, plan_tile_first);
}

template <typename T, typename Index, typename Shape>
gpu_status spmv_product_shaped(const char *fn, const gpu_csr *A, double alpha, const void *x, double beta, void *y,
                               const uint64_t *plan_tile_first) {
  cudaStream_t stream = static_cast<cudaStream_t>(gp_stream());
  const uint64_t rows = uint64_t(A->rows), nnz = uint64_t(A->nnz), cols = uint64_t(A->cols);
  T *yy = static_cast<T *>(y);
  const bool read_y = beta != 0;
  if (alpha == 0 || nnz == 0) {
    const uint64_t blocks = (rows + 255) / 256;
    scale_rows<T><<<unsigned(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(yy, rows, T(beta), read_y);
    return check_launch(fn, "scale_rows");
  }
  const uint64_t tiles = (nnz + Shape::tile_items - 1) / Shape::tile_items;
  if (tiles > 0x7fffffffu) return gp_fail(GPU_ERR_UNSUPPORTED, "%s: nnz = %llu is too large", fn, (unsigned long long)nnz);
  const Index *row_ptr = static_cast<const Index *>(A->row_ptr);
  offsets_table table;
  gpu_status s = GPU_OK;
  if (!plan_tile_first)
    s = build_offsets_table<Index>(fn, row_ptr, rows, nnz, Shape::tile_items, tiles, stream, GP_DEFERRED_CSR,
                                   false, &table);
  const heads_from_offsets<Index> src{row_ptr, rows, plan_tile_first ? plan_tile_first : table.tile_first};
  /* A plan run's bad columns go to the deferred word; where no mapped memory
   * exists (gp_deferred_word NULL) they are only clamped, not reported. */
  const csr_products<T, Index> products{static_cast<const Index *>(A->col_idx), static_cast<const T *>(x), cols,
                                        plan_tile_first ? gp_deferred_word(GP_DEFERRED_CSR) : table.bad};
  const spmv_results<T> results{yy, T(alpha), T(beta), read_y};
  const T *values = static_cast<const T *>(A->values);
  if (s == GPU_OK)
    s = segreduce_launch<T, GPU_ADD, Index, csr_products<T, Index>, spmv_results<T>, Shape>(
        fn, values, nnz, aligned16(values), src, tiles, stream, products, results);
  if (!plan_tile_first) {
    if (s == GPU_OK)
      s = offsets_verdict(fn, table, stream, "A is malformed: row_ptr not 0 = row_ptr[0] <= ... <= row_ptr[rows] = nnz, "
                                             "or a column index outside [0, cols)");
    if (table.tile_first) {
      gpu_status f = gp_pool_free(fn, table.tile_first);
      if (s == GPU_OK) s = f;
    }
  }
  return s;
}

/* A plan's table: tile_first[] of A, with A's row_ptr checked once. */
template <typename T, typename Index> gpu_status spmv_plan_table(const gpu_csr *A, spmv_plan_state *plan) {
  return uint64_t(A->nnz) < SPMV_LARGE_NNZ ? spmv_plan_table_shaped<T, Index, seg_small_shape<sizeof(T)>>(A, plan)
                                           : spmv_plan_table_shaped<T, Index, seg_large_shape<sizeof(T)>>(A, plan);
}

template <typename T, typename Index, typename Shape>
gpu_status spmv_plan_table_shaped(const gpu_csr *A, spmv_plan_state *plan) {
  static const char fn[] = "gpu_spmv_plan_create";
  cudaStream_t stream = static_cast<cudaStream_t>(gp_stream());
  const uint64_t rows = uint64_t(A->rows), nnz = uint64_t(A->nnz);
  const uint64_t tiles = (nnz + Shape::tile_items - 1) / Shape::tile_items;
  offsets_table table;
  gpu_status s = build_offsets_table<Index>(fn, static_cast<const Index *>(A->row_ptr), rows, nnz,
                                            Shape::tile_items, tiles, stream, GP_DEFERRED_CSR, true, &table);
  if (s == GPU_OK) {
    s = offsets_verdict(fn, table, stream, "A is malformed");
    if (s == GPU_ERR_INVALID_ARGUMENT) {
      plan->malformed = true;
      s = GPU_OK;
    }
  }
  if (s != GPU_OK) {
    if (table.tile_first) gp_pool_free(fn, table.tile_first);
    return s;
  }
  plan->tile_first = table.tile_first;
  return GPU_OK;
}

}  // namespace gp

/* One value type's entry points (both index types), named gp_spmv_cuda_<suffix>. */
#define GP_DEFINE_SPMV_CUDA_TYPE(T, SUFFIX)                                                                        \
  extern "C" gpu_status gp_spmv_cuda_##SUFFIX(const gpu_csr *A, double alpha, const void *x, double beta, void *y, \
                                              const uint64_t *plan_tile_first) {                                  \
    const char *fn = plan_tile_first ? "gpu_spmv_plan_run" : "gpu_spmv";                                          \
    return A->index_type == GPU_I32                                                                                \
               ? gp::spmv_product<T, int32_t>(fn, A, alpha, x, beta, y, plan_tile_first)                          \
               : gp::spmv_product<T, int64_t>(fn, A, alpha, x, beta, y, plan_tile_first);                         \
  }                                                                                                                \
  extern "C" gpu_status gp_spmv_plan_table_##SUFFIX(const gpu_csr *A, uint64_t **tile_first, bool *malformed) {   \
    gp::spmv_plan_state plan{nullptr, false};                                                                      \
    gpu_status s = A->index_type == GPU_I32 ? gp::spmv_plan_table<T, int32_t>(A, &plan)                           \
                                            : gp::spmv_plan_table<T, int64_t>(A, &plan);                          \
    *tile_first = plan.tile_first;                                                                                 \
    *malformed = plan.malformed;                                                                                   \
    return s;                                                                                                      \
  }
