// The matrices bench_spmv multiplies with: real ones read from Matrix Market
// files (gpu_csr_read_mm), and large generated ones built on the host with a
// plain loop (int32 indices, values uniform in [-1, 1), the same every run),
// then uploaded. Every generated row has its columns sorted and distinct.
#ifndef GP_BENCH_SPMV_MATRICES_H
#define GP_BENCH_SPMV_MATRICES_H

#include <cstdint>
#include <string>
#include <vector>

#include "gpuprim.h"

enum class spmv_shape {
  file,       // a Matrix Market file (path)
  uniform16,  // 16 per row, one in each sixteenth of the columns (x read all over)
  powerlaw,   // Pareto row lengths (tail index 1.6, scale 6.5: 6 to 2^16 a row,
              // about 16.5 on average), spread like uniform16's
  banded16,   // row i: columns i-8 .. i+7 (x read in order)
  arrow,      // row 0 dense, column 0 dense, 15 more per row spread over the rest
  stencil27,  // the 27-point stencil on an edge^3 grid, rows in x-fastest order
};

struct spmv_matrix_spec {
  std::string label;
  spmv_shape shape;
  int64_t size;      // rows (stencil27: the grid's edge); unused for files
  std::string path;  // files only
};

// A CSR matrix in host memory.
struct spmv_host_csr {
  int64_t rows = 0, cols = 0;
  std::vector<int32_t> row_ptr, col;
  std::vector<double> val;
};

spmv_host_csr spmv_generate(const spmv_matrix_spec &s);

// Holds one matrix in device memory at a time (the benchmarks of one matrix
// run one after another): asking for another frees the one held first, so
// the largest (the stencil, 189M nonzeros: about 3 GB with both value
// types) bounds what it takes.
class spmv_matrix_cache {
 public:
  // s's matrix in device memory, int32 indices, value type t; NULL, with
  // *error saying why, when it cannot be read or does not fit.
  const gpu_csr *get(const spmv_matrix_spec &s, gpu_dtype t, std::string *error);
  // Frees what is held (before the program ends, while CUDA is still up).
  void clear();
  ~spmv_matrix_cache() { clear(); }

 private:
  gpu_status upload_structure(std::string *error);
  gpu_status upload_values(gpu_csr *A, gpu_dtype t, std::string *error);

  std::string label_;
  bool from_file_ = false;
  gpu_csr a_[2] = {};  // [0] f32, [1] f64; generated ones share row_ptr and col_idx
  bool have_[2] = {};
  spmv_host_csr host_;  // generated ones: kept for the other value type
};

#endif
