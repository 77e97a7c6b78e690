// Kernels and tile shapes of the linear recurrence's look-back path (one
// sequence), timed against a copy of the same bytes. Variants:
//   tiles      one tile per block (linrec_tiles)
//   pipelined  persistent blocks, three stages of a and b (linrec_pipelined);
//              "held": land's row scans held for finish (hold_scans)
//   backward   the backward pass, pipelined at 1024x2, held and not
// Each variant is checked before it is timed: within a relative error
// (|x - y| / max(|y|, 1): 1e-4 f32, 1e-12 f64) of gpu_linrec's result, and
// the pipelined kernel also bitwise equal to linrec_tiles of its shape
// (the backward pass: bitwise only); FAIL and exit status 1 otherwise.
// The pipelined kernel is also checked at awkward lengths, reversed, with
// h0 (a value and on the device), and on inputs that are not 16-byte
// aligned, against linrec_tiles bit for bit and against the host backend.
// linrec/linrec_tuning.h takes the winners.
//
//   linrec_tune          checks, then the sweep
//   linrec_tune check    the checks only
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cub_shim.h"
#include "linrec/linrec_launch.cuh"

namespace {

enum kernel_kind { TILES, PIPELINED };
const char *kind_name[] = {"tiles", "pipelined"};

template <typename T, int THREADS, int ROWS, int MIN_BLOCKS, bool HOLD = false>
using shape_of = gp::linrec_tile_shape<THREADS, ROWS, 16 / int(sizeof(T)), MIN_BLOCKS, HOLD>;

cudaStream_t stream() { return static_cast<cudaStream_t>(gp_stream()); }

template <typename T, bool REVERSE, int KIND, typename Shape, typename Source, typename Sink>
gpu_status launch(const Source &src, const Sink &sink, uint64_t n) {
  using Op = gp::lr_op<T>;
  if constexpr (KIND == PIPELINED) return gp::launch_pipelined<T, REVERSE, Op, Shape>("tune", src, sink, n, stream());
  else return gp::launch_tiles<T, REVERSE, Op, Shape>("tune", src, sink, n, stream());
}

/* The forward pass of one sequence with a kernel at a shape (as linrec_run). */
template <typename T, int KIND, typename Shape>
gpu_status forward(const T *a, const T *b, T *h, uint64_t n, bool reverse, const T *h0_dev, T h0_value) {
  const bool vector_ok = gp::aligned16(a, b, h);
  const gp::single_source<T> src{a, b, gp::initial_state<T>{h0_dev, h0_value}, n, vector_ok};
  const gp::store_h<T> sink{h, vector_ok};
  return reverse ? launch<T, true, KIND, Shape>(src, sink, n) : launch<T, false, KIND, Shape>(src, sink, n);
}

/* The backward pass (h0 = 0) with a kernel at a shape (as linrec_backward). */
template <typename T, int KIND, typename Shape>
gpu_status backward(const T *a, const T *h, const T *dh, T *da, T *db, uint64_t n, bool reverse) {
  const bool vector_ok = gp::aligned16(a, h, dh, da, db);
  const gp::shifted_source<T> src{a, dh, n, vector_ok};
  if (reverse) {
    const gp::store_gradients<T, true> sink{da, db, h, T(0), n, vector_ok};
    return launch<T, false, KIND, Shape>(src, sink, n);
  }
  const gp::store_gradients<T, false> sink{da, db, h, T(0), n, vector_ok};
  return launch<T, true, KIND, Shape>(src, sink, n);
}

/* The floor: IN arrays read, OUT written (their sum), 16-byte vectors. */
template <typename T, int K> struct outputs {
  T *array[K];
};
template <typename T, int IN, int OUT>
__global__ void copy_arrays(gp::tile_inputs<T, IN> in, outputs<T, OUT> out, size_t vectors) {
  constexpr int VEC = 16 / sizeof(T);
  using V = gp::vec16<T, VEC>;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += size_t(gridDim.x) * blockDim.x) {
    V sum = gp::load_streaming(reinterpret_cast<const V *>(in.array[0]) + i);
    for (int j = 1; j < IN; j++) {
      const V v = gp::load_streaming(reinterpret_cast<const V *>(in.array[j]) + i);
      for (int k = 0; k < VEC; k++) sum.v[k] += v.v[k];
    }
    for (int j = 0; j < OUT; j++) reinterpret_cast<V *>(out.array[j])[i] = sum;
  }
}
template <typename T, int IN, int OUT> void copy_floor(gp::tile_inputs<T, IN> in, outputs<T, OUT> out, size_t n) {
  copy_arrays<T, IN, OUT><<<unsigned(bench_sm_count() * 8), 256, 0, stream()>>>(in, out, n / (16 / sizeof(T)));
}

/* Largest |x - want| / max(|want|, 1) (NaN: infinite), on the device. */
template <typename T> __global__ void max_error(const T *x, const T *want, size_t n, unsigned long long *out) {
  double m = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const double d = fabs(double(x[i]) - double(want[i])) / fmax(fabs(double(want[i])), 1.0);
    m = d != d ? INFINITY : fmax(m, d);
  }
  atomicMax(out, static_cast<unsigned long long>(__double_as_longlong(m)));
}
template <typename T> double relative_error(const T *x, const T *want, size_t n) {
  auto *d = static_cast<unsigned long long *>(bench_buffer(11, 8));
  unsigned long long bits = 0;
  cudaMemset(d, 0, 8);
  max_error<<<unsigned(bench_sm_count() * 8), 256>>>(x, want, n, d);
  cudaMemcpy(&bits, d, 8, cudaMemcpyDeviceToHost);
  double r;
  std::memcpy(&r, &bits, 8);
  return r;
}

template <typename T> double error_bound() { return sizeof(T) == 4 ? 1e-4 : 1e-12; }

void fail(const std::string &what) {
  std::printf("FAIL %s\n", what.c_str());
  std::exit(1);
}
void must(gpu_status s, const std::string &what) {
  const cudaError_t e = cudaDeviceSynchronize();
  if (s != GPU_OK || e != cudaSuccess)
    fail(what + ": " + (s != GPU_OK ? gpu_last_error() : cudaGetErrorString(e)));
}
/* x and want agree bit for bit. */
template <typename T> void same_bits(const T *x, const T *want, size_t n, const std::string &what) {
  const int64_t at = bench_first_difference(x, want, n, sizeof(T));
  if (at >= 0) fail(what + ": differs from linrec_tiles at " + std::to_string(at));
}

/* The device buffers of one size (one more element, for offset 1): the
 * inputs a, b, dh; outputs h, da, db and linrec_tiles' ref, ref_da, ref_db. */
template <typename T> struct buffers {
  T *a, *b, *h, *ref, *dh, *da, *db, *ref_da, *ref_db;
  size_t n;
  explicit buffers(size_t count, gpu_dtype d) : n(count) {
    T **all[] = {&a, &b, &h, &ref, &dh, &da, &db, &ref_da, &ref_db};
    for (int i = 0; i < 9; i++) *all[i] = static_cast<T *>(bench_buffer(i, (n + 1) * sizeof(T)));
    bench_fill_random(a, n + 1, d, 1); /* [-1, 1) */
    bench_fill_random(b, n + 1, d, 2);
    bench_fill_random(dh, n + 1, d, 3);
  }
};

/* h of the host backend (an independent reference) into the device's want. */
template <typename T>
void host_linrec(const T *a, const T *b, T *want, size_t n, const T *h0, bool reverse, const std::string &what) {
  std::vector<T> ha(n), hb(n), hh(n);
  cudaMemcpy(ha.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost);
  cudaMemcpy(hb.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost);
  if (gpu_set_backend(GPU_BACKEND_HOST) != GPU_OK) fail(what + ": no host backend");
  const gpu_status s = gpu_linrec(ha.data(), hb.data(), hh.data(), n, sizeof(T) == 4 ? GPU_F32 : GPU_F64, h0,
                                  reverse ? GPU_REVERSE : 0u);
  if (gpu_set_backend(GPU_BACKEND_CUDA) != GPU_OK || s != GPU_OK) fail(what + ": the host backend failed");
  cudaMemcpy(want, hh.data(), n * sizeof(T), cudaMemcpyHostToDevice);
}

/* The pipelined kernel at Shape against linrec_tiles at Shape, bit for bit:
 * forward both ways, with and without h0, and backward; `off` elements
 * into every array (1: not 16-byte aligned). */
template <typename T, typename Shape>
void check_pipelined(buffers<T> &d, size_t n, size_t off, const T *h0_dev, const char *type) {
  const std::string at = std::string(type) + " n=" + std::to_string(n) + " offset=" + std::to_string(off);
  const std::string kind = Shape::hold_scans ? "held" : "pipelined";
  const T *a = d.a + off, *b = d.b + off, *dh = d.dh + off;
  T *h = d.h + off, *ref = d.ref + off;
  for (int reverse = 0; reverse < 2; reverse++)
    for (int h0 = 0; h0 < 3; h0++) { /* none, a value, on the device */
      const T *dev = h0 == 2 ? h0_dev : nullptr;
      const T value = h0 == 1 ? T(0.75) : T(0);
      const std::string what = kind + " " + at + (reverse ? " reverse" : "") + " h0=" + std::to_string(h0);
      bench_poison(h, n * sizeof(T));
      bench_poison(ref, n * sizeof(T));
      must(forward<T, PIPELINED, Shape>(a, b, h, n, reverse, dev, value), what);
      must(forward<T, TILES, Shape>(a, b, ref, n, reverse, dev, value), what + " (linrec_tiles)");
      same_bits(h, ref, n, what);
      if (h0 == 1) { /* the host backend's loop */
        host_linrec(a, b, ref, n, &value, reverse, what);
        if (!(relative_error(h, ref, n) < error_bound<T>())) fail(what + ": differs from the host backend");
      }
    }
  for (int reverse = 0; reverse < 2; reverse++) {
    const std::string what = kind + " backward " + at + (reverse ? " reverse" : "");
    T *da = d.da + off, *db = d.db + off, *ref_da = d.ref_da + off, *ref_db = d.ref_db + off;
    must(forward<T, TILES, Shape>(a, b, h, n, reverse, nullptr, T(0)), what + " (the forward's h)");
    for (T *p : {da, db, ref_da, ref_db}) bench_poison(p, n * sizeof(T));
    must(backward<T, PIPELINED, Shape>(a, h, dh, da, db, n, reverse), what);
    must(backward<T, TILES, Shape>(a, h, dh, ref_da, ref_db, n, reverse), what + " (linrec_tiles)");
    same_bits(da, ref_da, n, what + " da");
    same_bits(db, ref_db, n, what + " db");
  }
  std::printf("check ok  %s %s\n", kind.c_str(), at.c_str());
}

template <typename T> void awkward_checks(const char *type, gpu_dtype dt) {
  using Shape = typename gp::linrec_tuning<sizeof(T)>::pipelined;
  const size_t sizes[] = {17, size_t(Shape::tile_items), 3 * 8192 + 17, (size_t(1) << 24) + 5};
  buffers<T> d((size_t(1) << 24) + 8, dt);
  T *h0_dev = static_cast<T *>(bench_buffer(12, sizeof(T)));
  const T h0 = T(-0.625);
  cudaMemcpy(h0_dev, &h0, sizeof(T), cudaMemcpyHostToDevice);
  for (size_t n : sizes)
    for (size_t off = 0; off < 2; off++) {
      check_pipelined<T, Shape>(d, n, off, h0_dev, type);
      /* the other of held and not */
      check_pipelined<T, shape_of<T, Shape::threads, Shape::rows, Shape::min_blocks, !Shape::hold_scans>>(d, n, off,
                                                                                                   h0_dev, type);
    }
}

/* One timed variant: the forward pass (BACKWARD: the backward pass). */
template <typename T, int KIND, typename Shape, bool BACKWARD> struct variant {
  buffers<T> *d;
  static void run(void *arg) {
    buffers<T> &d = *static_cast<variant *>(arg)->d;
    if constexpr (BACKWARD) backward<T, KIND, Shape>(d.a, d.ref, d.dh, d.da, d.db, d.n, false);
    else forward<T, KIND, Shape>(d.a, d.b, d.h, d.n, false, nullptr, T(0));
  }
  static void copy(void *arg) {
    buffers<T> &d = *static_cast<variant *>(arg)->d;
    if constexpr (BACKWARD) copy_floor<T, 3, 2>({{d.a, d.ref, d.dh}}, {{d.da, d.db}}, d.n);
    else copy_floor<T, 2, 1>({{d.a, d.b}}, {{d.h}}, d.n);
  }
};

/* Checks a variant at full size, then times it beside the copy. `want`:
 * gpu_linrec's h. The backward pass is checked against linrec_tiles'. */
template <typename T, int KIND, typename Shape, bool BACKWARD = false>
void measure(const char *type, buffers<T> &d, const T *want) {
  const size_t n = d.n;
  const std::string name =
      std::string(BACKWARD ? "backward-" : "") + kind_name[KIND] + (Shape::hold_scans ? "-held" : "");
  const std::string what = name + " " + type + " n=2^" + std::to_string(__builtin_ctzll(n)) + " " +
                           std::to_string(Shape::threads) + "x" + std::to_string(Shape::rows);
  if constexpr (BACKWARD) {
    must(forward<T, TILES, Shape>(d.a, d.b, d.ref, n, false, nullptr, T(0)), what); /* the forward's h */
    must(backward<T, KIND, Shape>(d.a, d.ref, d.dh, d.da, d.db, n, false), what);
    if constexpr (KIND == PIPELINED) {
      must(backward<T, TILES, Shape>(d.a, d.ref, d.dh, d.ref_da, d.ref_db, n, false), what + " (linrec_tiles)");
      same_bits(d.da, d.ref_da, n, what + " da");
      same_bits(d.db, d.ref_db, n, what + " db");
    }
  } else {
    bench_poison(d.h, n * sizeof(T));
    must(forward<T, KIND, Shape>(d.a, d.b, d.h, n, false, nullptr, T(0)), what);
    if constexpr (KIND == PIPELINED) {
      must(forward<T, TILES, Shape>(d.a, d.b, d.ref, n, false, nullptr, T(0)), what + " (linrec_tiles)");
      same_bits(d.h, d.ref, n, what);
    }
    const double e = relative_error(d.h, want, n);
    if (!(e < error_bound<T>())) fail(what + ": relative error " + std::to_string(e) + " from gpu_linrec");
  }
  variant<T, KIND, Shape, BACKWARD> v{&d};
  const bench_fn fns[2] = {variant<T, KIND, Shape, BACKWARD>::run, variant<T, KIND, Shape, BACKWARD>::copy};
  void *const args[2] = {&v, &v};
  double us[2];
  bench_medians_us(2, fns, args, 3, 21, us);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("tune %-23s %-3s n=2^%-2d threads=%-4d rows=%-2d blocks=%d tile=%-5d %9.1f us  copy %9.1f us  "
              "vs_copy %.3f%s\n",
              name.c_str(), type, __builtin_ctzll(n), Shape::threads, Shape::rows, Shape::min_blocks, Shape::tile_items,
              us[0], us[1], us[1] / us[0], e == cudaSuccess ? "" : cudaGetErrorString(e));
  std::fflush(stdout);
  if (e != cudaSuccess) std::exit(1);
}

template <typename T> void sweep(const char *type, gpu_dtype dt, size_t n) {
  buffers<T> d(n, dt);
  T *want = static_cast<T *>(bench_buffer(13, n * sizeof(T)));
  must(gpu_linrec(d.a, d.b, want, n, dt, nullptr, 0), std::string("gpu_linrec ") + type);
  measure<T, TILES, shape_of<T, 256, 4, 2>>(type, d, want); /* linrec_tuning's tiles */
  measure<T, TILES, shape_of<T, 512, 4, 1>>(type, d, want);
  measure<T, TILES, shape_of<T, 256, 8, 1>>(type, d, want);
  measure<T, TILES, shape_of<T, 1024, 4, 1>>(type, d, want);
  /* 3 stages x (a, b) x tile: 192 KiB of shared memory */
  measure<T, PIPELINED, shape_of<T, 512, 4, 1>>(type, d, want);
  measure<T, PIPELINED, shape_of<T, 1024, 2, 1>>(type, d, want);
  measure<T, PIPELINED, shape_of<T, 1024, 2, 1, true>>(type, d, want);
  measure<T, PIPELINED, shape_of<T, 256, 8, 1>>(type, d, want);
  /* several blocks an SM (64 registers a thread), 3 x (a, b) x tile each: 96 KiB at 512x2, 48 KiB at 256x4 */
  measure<T, PIPELINED, shape_of<T, 512, 2, 2>>(type, d, want);
  measure<T, PIPELINED, shape_of<T, 256, 4, 4>>(type, d, want);
  /* backward, held and not */
  measure<T, PIPELINED, shape_of<T, 1024, 2, 1>, true>(type, d, want);
  measure<T, PIPELINED, shape_of<T, 1024, 2, 1, true>, true>(type, d, want);
}

}  // namespace

int main(int argc, char **argv) {
  if (gpu_set_backend(GPU_BACKEND_CUDA) != GPU_OK) return 1;
  awkward_checks<float>("f32", GPU_F32);
  awkward_checks<double>("f64", GPU_F64);
  if (argc > 1 && std::string(argv[1]) == "check") return 0;
  sweep<float>("f32", GPU_F32, size_t(1) << 24);
  sweep<float>("f32", GPU_F32, size_t(1) << 28);
  sweep<double>("f64", GPU_F64, size_t(1) << 24);
  sweep<double>("f64", GPU_F64, size_t(1) << 27);
  return 0;
}
