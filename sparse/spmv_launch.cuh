/*
 * CSR SpMV on the segmented reduce (segmented/device/segscan_blocked.cuh up
 * to SPMV_SEARCH_TILES tiles, seg_runs.cuh above): the nonzeros are the
 * elements, the rows are the segments (row_ptr their offsets), and each
 * element's value is its product with x, computed when its tile lands. Work
 * is split by nonzeros in equal tiles, so a long row spreads over many tiles
 * like any long segment and empty rows cost only their epilogue; each row's
 * sum is the scan's fixed-order tree: the same bits every run, plan or not.
 * Included by spmv_cuda_<value type>.cu.
 */
#pragma once

#include <type_traits>

#include "segmented/segscan_launch.cuh"
#include "spmv_cuda.h"
#include "spmv_tuning.h"

namespace gp {

/* Rounded products and sums (never contracted into an FMA): the host's bits
 * for a product, and the epilogue's two roundings. */
__device__ inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double add_rn(double a, double b) { return __dadd_rn(a, b); }

/* A thread's VEC consecutive columns of one row from p, read in loads of
 * index_run_part bytes (all of them, or 16 where they take more) and
 * aligned to that. */
template <typename Index, int VEC>
constexpr int index_run_part = VEC * int(sizeof(Index)) < 16 ? VEC * int(sizeof(Index)) : 16;
template <typename Index, int VEC> struct alignas(index_run_part<Index, VEC>) index_run {
  Index c[VEC];
};
template <typename Index, int VEC, bool STREAM> __device__ inline void load_index_run(const Index *p, Index *out) {
  constexpr int PART = index_run_part<Index, VEC>, PER = PART / int(sizeof(Index));
#pragma unroll
  for (int k = 0; k < VEC; k += PER) {
    const index_run<Index, PER> *at = reinterpret_cast<const index_run<Index, PER> *>(p + k);
    index_run<Index, PER> r;
    if constexpr (STREAM && PART == 16) r = load_streaming(at);
    else r = *at;
#pragma unroll
    for (int j = 0; j < PER; j++) out[k + j] = r.c[j];
  }
}

/* Element i's value: values[i] * x[col[i]]; a column outside [0, cols)
 * contributes 0 and, where *bad exists, is reported there. The columns are
 * loaded with the tile's values, x is gathered once the flags are found. */
template <typename T, typename Index> struct csr_products {
  const Index *col;
  const T *x;
  uint64_t cols;
  unsigned *bad;
  bool cols_vector_ok; /* col_idx aligned for index_run of a tile's VEC */
  static constexpr bool transforms = true;
  /* The values and columns are read with ld.global.cs (evicted first) and
   * x by the read-only path, so that x, read many times, stays in L2 while
   * the matrix streams past it. */
  static constexpr bool stream_loads = true;
  struct loaded_columns {
    Index c[16]; /* a thread's items: at most Shape::rows * Shape::vec */
  };
  using loaded = loaded_columns;
  template <typename Shape> __device__ loaded load(uint64_t base, uint32_t valid, int warp, int lane) const {
    static_assert(Shape::rows * Shape::vec <= 16, "loaded_columns holds a thread's items");
    loaded l;
    /* A full tile's columns come as vectors (a thread's VEC consecutive
     * columns of a row, 16 bytes a load) where col_idx is aligned for them. */
    if (cols_vector_ok && valid == uint32_t(Shape::tile_items)) {
#pragma unroll
      for (int r = 0; r < Shape::rows; r++)
        load_index_run<Index, Shape::vec, stream_loads>(col + base + item_offset<Shape>(warp, lane, r),
                                                        l.c + r * Shape::vec);
      return l;
    }
#pragma unroll
    for (int r = 0; r < Shape::rows; r++)
#pragma unroll
      for (int k = 0; k < Shape::vec; k++) {
        const uint32_t i = uint32_t(item_offset<Shape>(warp, lane, r) + k);
        l.c[r * Shape::vec + k] = i < valid ? load_item<stream_loads>(col + base + i) : Index(0);
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
          v[r][k] = mul_rn(v[r][k], stream_loads ? __ldg(x + c) : x[c]);
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

/* Tiles of 8 items a thread below SPMV_LARGE_NNZ nonzeros (seg_small_shape:
 * more blocks for the SMs). Above, for 4-byte values the segmented scans'
 * large shape (more bytes in flight a block), for 8-byte values 256 threads
 * of 8 items at 4 blocks an SM. Plans and direct calls choose alike, so
 * their bits agree. */
template <int BYTES>
using spmv_large_shape =
    std::conditional_t<BYTES == 8, seg_tile_shape<SPMV_LARGE_8_THREADS, SPMV_LARGE_8_ROWS, 2, SPMV_LARGE_8_BLOCKS>,
                       seg_tile_shape<SPMV_LARGE_4_THREADS, SPMV_LARGE_4_ROWS, 4, SPMV_LARGE_4_BLOCKS>>;

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
             : spmv_product_shaped<T, Index, spmv_large_shape<sizeof(T)>>(fn, A, alpha, x, beta, y, plan_tile_first);
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
  /* Few tiles: one tile a block (segscan_blocked), and a direct product's
   * tiles find their rows themselves (and check their share of row_ptr):
   * no table, one launch. A plan runs the same kernel on its table, so the
   * two give the same bits. */
  constexpr bool small = std::is_same_v<Shape, seg_small_shape<sizeof(T)>>; /* large: more tiles than that */
  const bool blocked = small && tiles <= SPMV_SEARCH_TILES;
  offsets_table table;
  gpu_status s = GPU_OK;
  if (!plan_tile_first)
    s = blocked ? prepare_offsets_check_only(fn, stream, &table, GP_DEFERRED_CSR)
                : build_offsets_table<Index>(fn, row_ptr, rows, nnz, Shape::tile_items, tiles, stream,
                                             GP_DEFERRED_CSR, false, &table);
  const uint64_t *tile_first = plan_tile_first ? plan_tile_first : blocked ? nullptr : table.tile_first;
  const heads_from_offsets<Index> src{row_ptr, rows, tile_first, table.bad};
  /* A plan run's bad columns go to the deferred word; where no mapped memory
   * exists (gp_deferred_word NULL) they are only clamped, not reported. */
  const Index *col = static_cast<const Index *>(A->col_idx);
  const csr_products<T, Index> products{col, static_cast<const T *>(x), cols,
                                        plan_tile_first ? gp_deferred_word(GP_DEFERRED_CSR) : table.bad,
                                        reinterpret_cast<uintptr_t>(col) % alignof(index_run<Index, Shape::vec>) == 0};
  const spmv_results<T> results{yy, T(alpha), T(beta), read_y};
  const T *values = static_cast<const T *>(A->values);
  if constexpr (small) {
    if (s == GPU_OK && blocked)
      s = segscan_launch<T, GPU_ADD, false, heads_from_offsets<Index>, true, csr_products<T, Index>,
                         spmv_results<T>, Shape>(fn, values, nullptr, nnz, false, aligned16(values), src, tiles,
                                                 stream, products, results);
  }
  if (s == GPU_OK && !blocked)
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
                                           : spmv_plan_table_shaped<T, Index, spmv_large_shape<sizeof(T)>>(A, plan);
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
