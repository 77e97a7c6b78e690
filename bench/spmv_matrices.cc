#include "spmv_matrices.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

const uint64_t GOLDEN = 0x9e3779b97f4a7c15ull;

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform in (0, 1].
double unit_open(uint64_t r) { return double((r >> 11) + 1) * 0x1.0p-53; }

// len distinct columns in increasing order over [lo, lo + span), one drawn in
// each of len equal strata (len <= span). first: where in col[] they go,
// which seeds the draws.
void spread_columns(int32_t *col, int64_t len, int64_t lo, int64_t span, uint64_t first) {
  const int64_t width = span / len;
  for (int64_t k = 0; k < len; k++)
    col[k] = int32_t(lo + k * width + int64_t(mix(0x5eed + (uint64_t(first) + uint64_t(k)) * GOLDEN) % uint64_t(width)));
}

// rows x cols with row i's length row_len(i) and its columns from
// fill(i, col of its first entry, length, where it starts); values uniform
// in [-1, 1).
template <typename Len, typename Fill>
spmv_host_csr build(int64_t rows, int64_t cols, Len row_len, Fill fill) {
  spmv_host_csr m;
  m.rows = rows, m.cols = cols;
  m.row_ptr.resize(size_t(rows) + 1);
  int64_t nnz = 0;
  for (int64_t i = 0; i < rows; i++) {
    m.row_ptr[size_t(i)] = int32_t(nnz);
    nnz += row_len(i);
    if (nnz > INT32_MAX) {
      std::fprintf(stderr, "bench_spmv: a generated matrix has more than 2^31 - 1 nonzeros\n");
      std::exit(2);
    }
  }
  m.row_ptr[size_t(rows)] = int32_t(nnz);
  m.col.resize(size_t(nnz));
  m.val.resize(size_t(nnz));
  for (int64_t i = 0; i < rows; i++) {
    const int64_t start = m.row_ptr[size_t(i)];
    fill(i, &m.col[size_t(start)], m.row_ptr[size_t(i) + 1] - start, start);
  }
  for (size_t k = 0; k < m.val.size(); k++) m.val[k] = double(mix(0xfeed + k * GOLDEN) >> 11) * 0x1.0p-52 - 1.0;
  return m;
}

spmv_host_csr uniform16(int64_t n) {
  return build(n, n, [](int64_t) { return int64_t(16); },
               [n](int64_t, int32_t *c, int64_t len, int64_t first) { spread_columns(c, len, 0, n, uint64_t(first)); });
}

spmv_host_csr powerlaw(int64_t n) {
  const double tail = 1.6, least = 6.5, most = std::min<double>(65536, double(n));
  auto len = [=](int64_t i) {
    const double l = std::floor(least * std::pow(unit_open(mix(0x1e27 + uint64_t(i) * GOLDEN)), -1.0 / tail));
    return int64_t(std::clamp(l, 1.0, most));
  };
  return build(n, n, len,
               [n](int64_t, int32_t *c, int64_t l, int64_t first) { spread_columns(c, l, 0, n, uint64_t(first)); });
}

spmv_host_csr banded16(int64_t n) {
  auto lo = [](int64_t i) { return std::max<int64_t>(0, i - 8); };
  auto hi = [n](int64_t i) { return std::min<int64_t>(n - 1, i + 7); };
  return build(n, n, [=](int64_t i) { return hi(i) - lo(i) + 1; },
               [=](int64_t i, int32_t *c, int64_t len, int64_t) {
                 for (int64_t k = 0; k < len; k++) c[k] = int32_t(lo(i) + k);
               });
}

spmv_host_csr arrow(int64_t n) {
  return build(n, n, [n](int64_t i) { return i == 0 ? n : std::min<int64_t>(16, n); },
               [n](int64_t i, int32_t *c, int64_t len, int64_t first) {
                 if (i == 0) {
                   for (int64_t k = 0; k < len; k++) c[k] = int32_t(k);
                   return;
                 }
                 c[0] = 0;
                 spread_columns(c + 1, len - 1, 1, n - 1, uint64_t(first));
               });
}

// Neighbour offsets -1, 0, +1 of a grid coordinate that stay on [0, edge).
int64_t first_step(int64_t v) { return v > 0 ? -1 : 0; }
int64_t last_step(int64_t v, int64_t edge) { return v + 1 < edge ? 1 : 0; }

spmv_host_csr stencil27(int64_t edge) {
  const int64_t n = edge * edge * edge;
  auto steps = [edge](int64_t v) { return last_step(v, edge) - first_step(v) + 1; };
  auto len = [=](int64_t i) { return steps(i % edge) * steps(i / edge % edge) * steps(i / (edge * edge)); };
  return build(n, n, len, [edge](int64_t i, int32_t *c, int64_t, int64_t) {
    const int64_t x = i % edge, y = i / edge % edge, z = i / (edge * edge);
    for (int64_t dz = first_step(z); dz <= last_step(z, edge); dz++)  // increasing columns
      for (int64_t dy = first_step(y); dy <= last_step(y, edge); dy++)
        for (int64_t dx = first_step(x); dx <= last_step(x, edge); dx++)
          *c++ = int32_t(((z + dz) * edge + (y + dy)) * edge + (x + dx));
  });
}

}  // namespace

spmv_host_csr spmv_generate(const spmv_matrix_spec &s) {
  switch (s.shape) {
    case spmv_shape::uniform16: return uniform16(s.size);
    case spmv_shape::powerlaw: return powerlaw(s.size);
    case spmv_shape::banded16: return banded16(s.size);
    case spmv_shape::arrow: return arrow(s.size);
    case spmv_shape::stencil27: return stencil27(s.size);
    case spmv_shape::file: break;
  }
  std::fprintf(stderr, "bench_spmv: %s is not a generated matrix\n", s.label.c_str());
  std::exit(2);
}

const gpu_csr *spmv_matrix_cache::get(const spmv_matrix_spec &s, gpu_dtype t, std::string *error) {
  const int k = t == GPU_F32 ? 0 : 1;
  if (label_ != s.label) {
    clear();
    label_ = s.label;
    from_file_ = s.shape == spmv_shape::file;
    if (!from_file_) {
      host_ = spmv_generate(s);
      if (upload_structure(error) != GPU_OK) {
        clear();
        return nullptr;
      }
    }
  }
  if (have_[k]) return &a_[k];
  gpu_status st;
  if (from_file_) {
    st = gpu_csr_read_mm(s.path.c_str(), t, GPU_I32, &a_[k]);
    if (st != GPU_OK) *error = std::string("gpu_csr_read_mm: ") + gpu_last_error();
  } else {
    st = upload_values(&a_[k], t, error);
  }
  have_[k] = st == GPU_OK;
  return have_[k] ? &a_[k] : nullptr;
}

gpu_status spmv_matrix_cache::upload_structure(std::string *error) {
  gpu_csr &A = a_[0];
  A.rows = host_.rows, A.cols = host_.cols, A.nnz = int64_t(host_.col.size());
  A.index_type = GPU_I32;
  const size_t ptr_bytes = host_.row_ptr.size() * sizeof(int32_t), col_bytes = host_.col.size() * sizeof(int32_t);
  gpu_status s = gpu_alloc(&A.row_ptr, ptr_bytes);
  if (s == GPU_OK) s = gpu_alloc(&A.col_idx, col_bytes);
  if (s == GPU_OK) s = gpu_upload(A.row_ptr, host_.row_ptr.data(), ptr_bytes);
  if (s == GPU_OK) s = gpu_upload(A.col_idx, host_.col.data(), col_bytes);
  if (s != GPU_OK) *error = std::string("uploading the structure: ") + gpu_last_error();
  a_[1] = A;  // both value types share it
  host_.row_ptr = {}, host_.col = {};  // on the device now: only the values are needed again
  return s;
}

gpu_status spmv_matrix_cache::upload_values(gpu_csr *A, gpu_dtype t, std::string *error) {
  A->value_type = t;
  gpu_status s;
  if (t == GPU_F64) {
    const size_t bytes = host_.val.size() * sizeof(double);
    s = gpu_alloc(&A->values, bytes);
    if (s == GPU_OK) s = gpu_upload(A->values, host_.val.data(), bytes);
  } else {
    const std::vector<float> v(host_.val.begin(), host_.val.end());
    const size_t bytes = v.size() * sizeof(float);
    s = gpu_alloc(&A->values, bytes);
    if (s == GPU_OK) s = gpu_upload(A->values, v.data(), bytes);
  }
  if (s != GPU_OK) {
    *error = std::string("uploading the values: ") + gpu_last_error();
    gpu_free(A->values);
    A->values = nullptr;
  }
  return s;
}

void spmv_matrix_cache::clear() {
  if (from_file_) {
    for (int k = 0; k < 2; k++)
      if (have_[k]) gpu_csr_free(&a_[k]);
  } else {
    gpu_free(a_[0].row_ptr);
    gpu_free(a_[0].col_idx);
    for (int k = 0; k < 2; k++) gpu_free(a_[k].values);
  }
  for (int k = 0; k < 2; k++) a_[k] = gpu_csr{}, have_[k] = false;
  host_ = spmv_host_csr{};
  label_.clear();
}
