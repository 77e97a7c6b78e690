/* The CUB pair scan, the plain loop and the copy floor of bench_linrec,
 * and gpuprim's paths forced (cub_linrec_shim.h). */
#include <cub/device/device_scan.cuh>

#include "cub_linrec_shim.h"
#include "cub_shim.h"
#include "linrec/linrec_launch.cuh"
#include "linrec_fenwick_lookback.cuh"

namespace {

struct pair_then {
  __device__ float2 operator()(float2 x, float2 y) const {
    return make_float2(__fmul_rn(x.x, y.x), __fadd_rn(__fmul_rn(y.x, x.y), y.y));
  }
};

__global__ void interleave(const float *a, const float *b, float2 *p, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = make_float2(a[i], b[i]);
}

__global__ void plain_loop(const float *a, const float *b, float *h, size_t len, size_t count, int time_major) {
  const size_t c = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= count) return;
  float state = 0;
  for (size_t t = 0; t < len; t++) {
    const size_t p = time_major ? t * count + c : c * len + t;
    state = __fadd_rn(__fmul_rn(a[p], state), b[p]);
    h[p] = state;
  }
}

/* The backward pass, a thread per channel walking time backwards: g = dh +
 * a[t + 1] g, db = g, da = g h[t - 1] (h0 = 0). */
__global__ void plain_loop_backward(const float *a, const float *h, const float *dh, float *da, float *db, size_t len,
                                    size_t count, int time_major) {
  const size_t c = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= count) return;
  float g = 0, next_a = 0;
  for (size_t t = len; t-- > 0;) {
    const size_t p = time_major ? t * count + c : c * len + t;
    const size_t before = time_major ? p - count : p - 1;
    g = __fadd_rn(__fmul_rn(next_a, g), dh[p]);
    db[p] = g;
    da[p] = __fmul_rn(g, t > 0 ? h[before] : 0.0f);
    next_a = a[p];
  }
}

__global__ void copy_floor(const float4 *a, const float4 *b, float4 *h, size_t n4) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x) {
    const float4 x = __ldcs(a + i), y = __ldcs(b + i);
    h[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

/* The backward's bytes: three arrays read, two written. */
__global__ void copy_floor_backward(const float4 *a, const float4 *h, const float4 *dh, float4 *da, float4 *db,
                                    size_t n4) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x) {
    const float4 x = __ldcs(a + i), y = __ldcs(h + i), z = __ldcs(dh + i);
    da[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    db[i] = make_float4(x.x + z.x, x.y + z.y, x.z + z.z, x.w + z.w);
  }
}

__global__ void max_difference(const float *h, const float2 *p, const float *y, size_t n, unsigned *out) {
  float m = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const float d = fabsf(h[i] - (p ? p[i].y : y[i]));
    m = d != d ? INFINITY : fmaxf(m, d);
  }
  atomicMax(out, __float_as_uint(m));
}

unsigned grid_for(size_t n) { return unsigned(std::min<size_t>((n + 255) / 256, 132 * 16)); }

float max_diff(const float *h, const float2 *p, const float *y, size_t n) {
  unsigned *d = nullptr, r = 0;
  cudaMalloc(&d, 4);
  cudaMemset(d, 0, 4);
  max_difference<<<grid_for(n), 256>>>(h, p, y, n, d);
  cudaMemcpy(&r, d, 4, cudaMemcpyDeviceToHost);
  cudaFree(d);
  float f;
  memcpy(&f, &r, 4);
  return f;
}

}  // namespace

extern "C" void linrec_interleave(const float *a, const float *b, void *pairs, size_t n) {
  interleave<<<grid_for(n), 256>>>(a, b, static_cast<float2 *>(pairs), n);
  cudaDeviceSynchronize();
}

extern "C" int linrec_cub_pair_scan(const void *pairs, void *out, size_t n) {
  size_t need = 0;
  const float2 *in = static_cast<const float2 *>(pairs);
  float2 *o = static_cast<float2 *>(out);
  if (cub::DeviceScan::InclusiveScan(nullptr, need, in, o, pair_then{}, n) != cudaSuccess) return 1;
  return cub::DeviceScan::InclusiveScan(bench_cub_temp(need), need, in, o, pair_then{}, n) != cudaSuccess;
}

extern "C" void linrec_plain_loop(const float *a, const float *b, float *h, size_t len, size_t count, int time_major) {
  plain_loop<<<unsigned((count + 255) / 256), 256>>>(a, b, h, len, count, time_major);
}

extern "C" void linrec_copy_floor(const float *a, const float *b, float *h, size_t n) {
  copy_floor<<<grid_for(n / 4), 256>>>(reinterpret_cast<const float4 *>(a), reinterpret_cast<const float4 *>(b),
                                        reinterpret_cast<float4 *>(h), n / 4);
}

extern "C" void linrec_plain_loop_backward(const float *a, const float *h, const float *dh, float *da, float *db,
                                           size_t len, size_t count, int time_major) {
  plain_loop_backward<<<unsigned((count + 255) / 256), 256>>>(a, h, dh, da, db, len, count, time_major);
}

extern "C" void linrec_copy_floor_backward(const float *a, const float *h, const float *dh, float *da, float *db,
                                           size_t n) {
  copy_floor_backward<<<grid_for(n / 4), 256>>>(
      reinterpret_cast<const float4 *>(a), reinterpret_cast<const float4 *>(h), reinterpret_cast<const float4 *>(dh),
      reinterpret_cast<float4 *>(da), reinterpret_cast<float4 *>(db), n / 4);
}

extern "C" float linrec_max_difference(const float *h, const void *pairs, size_t n) {
  return max_diff(h, static_cast<const float2 *>(pairs), nullptr, n);
}

extern "C" float linrec_max_difference_plain(const float *x, const float *y, size_t n) {
  return max_diff(x, nullptr, y, n);
}

namespace {

/* The batch shape and the plan along a forced path (see the header). */
gp::linrec_plan shape_and_plan(int path, size_t len, size_t count, int time_major, gp_linrec_shape *s) {
  *s = gp_linrec_shape{};
  s->t = GPU_F32;
  s->n = len * count;
  s->len = len;
  s->count = count;
  s->layout = count == 1 && path != 3 ? GP_LINREC_SINGLE : time_major ? GP_LINREC_TIME_MAJOR : GP_LINREC_SEQ_MAJOR;
  if (path == 1) return gp::linrec_plan{gp::linrec_path::lookback, 0, 0};
  if (path == 2) return gp::linrec_plan{gp::linrec_path::lookback_segments, 0, 0};
  if (path == 3) return gp::channel_plan(len, count);
  if (path == 4)
    return gp::linrec_plan{time_major ? gp::linrec_path::channel_tiles : gp::linrec_path::sequence_tiles, 0, 0};
  return gp::plan_linrec(*s);
}

/* Sequence tiles of one shape, whatever the count, with a look-back policy. */
template <typename Shape, typename Lookback = gp::state_chain_lookback>
int sequence_tiles_at(const float *a, const float *b, float *h, const gp_linrec_shape &s) {
  return int(gp::launch_sequence_tiles<float, false, false, Shape, Lookback>("bench", a, b, h, nullptr, s,
                                                                             static_cast<cudaStream_t>(gp_stream())));
}

/* The time-major channel tiles LROW threads (LROW x 4 channels) wide, with
 * a look-back policy (the library's from 4096 steps: 8 threads wide, the
 * policy by the count of groups). */
template <int LROW, typename Lookback = gp::radix_lookback>
int channel_tiles_at(const float *a, const float *b, float *h, const gp_linrec_shape &s) {
  using Shape = gp::channel_tile_shape<float, LROW, gp::LINREC_CHANNEL_TILE_STEPS>;
  const float *no_h0 = nullptr;
  return int(gp::launch_channel_tiles<Shape, false, Lookback>("bench", a, b, h, no_h0, s, false,
                                                              static_cast<cudaStream_t>(gp_stream())));
}

/* The sequence walk at one shape, whatever the count; split: in strands
 * (as many as fit beside each other, at most 8; the sequence tiles where
 * only one fits). */
template <typename Shape>
int sequence_walk_at(const float *a, const float *b, float *h, const gp_linrec_shape &s, bool split = false) {
  const auto stream = static_cast<cudaStream_t>(gp_stream());
  if (split) return int(gp::launch_sequence_strands<float, false, Shape>("bench", a, b, h, nullptr, s, stream));
  return int(gp::launch_sequence_walk<float, false, Shape>("bench", a, b, h, nullptr, s, stream));
}

/* The sequence tiles half as long at four blocks an SM (bench-only). */
using sequence_tiles_2k = gp::linrec_tile_shape<256, 2, 4, 4>;

}  // namespace

extern "C" int linrec_gpuprim_path(int path, const float *a, const float *b, float *h, size_t len, size_t count,
                                   int time_major) {
  gp_linrec_shape s;
  const gp::linrec_plan plan = shape_and_plan(path, len, count, time_major, &s);
  if (path >= 5 && count == 1) return GPU_ERR_UNSUPPORTED;
  constexpr int NARROW = gp::LINREC_CHANNEL_TILE_ROW_THREADS;
  if (path == 10 && time_major) return channel_tiles_at<NARROW, gp::state_chain_lookback>(a, b, h, s);
  if (path == 12 && time_major) return channel_tiles_at<NARROW, gp::radix_lookback_of<3>>(a, b, h, s);
  if (path == 13 && time_major) return channel_tiles_at<NARROW, gp::fenwick_lookback>(a, b, h, s);
  if (path == 14 && time_major) return channel_tiles_at<NARROW>(a, b, h, s);
  if (path == 15 && !time_major) return sequence_walk_at<gp::linrec_tuning<4>::sequence_walk>(a, b, h, s, true);
  if (path == 16 && !time_major)
    return sequence_walk_at<gp::linrec_tuning<4>::sequence_walk_long>(a, b, h, s, true);
  if (path >= 12) return GPU_ERR_UNSUPPORTED;
  if (path >= 5 && time_major) return GPU_ERR_UNSUPPORTED;
  if (path == 5) return sequence_tiles_at<gp::linrec_tuning<4>::sequence_tiles>(a, b, h, s);
  if (path == 6) return sequence_tiles_at<sequence_tiles_2k>(a, b, h, s);
  if (path == 7) return sequence_walk_at<gp::linrec_tuning<4>::sequence_walk>(a, b, h, s);
  if (path == 8) return sequence_walk_at<gp::linrec_tuning<4>::sequence_walk_long>(a, b, h, s);
  if (path == 9) return sequence_walk_at<gp::linrec_tile_shape<1024, 1, 4, 1, true>>(a, b, h, s);
  if (path == 10) return sequence_tiles_at<gp::linrec_tuning<4>::sequence_tiles, gp::fenwick_lookback>(a, b, h, s);
  if (path == 11)
    return sequence_tiles_at<sequence_tiles_2k, gp::fenwick_lookback>(a, b, h, s);
  return int(gp::linrec_run<float>(plan, a, b, h, s, static_cast<cudaStream_t>(gp_stream())));
}

extern "C" int linrec_gpuprim_backward_path(int path, const float *a, const float *h, const float *dh, float *da,
                                            float *db, size_t len, size_t count, int time_major) {
  gp_linrec_shape s;
  const gp::linrec_plan plan = shape_and_plan(path, len, count, time_major, &s);
  const gp::backward_gradients<float> grad{h, nullptr, da};
  using narrow = gp::channel_tile_shape<float, gp::LINREC_CHANNEL_TILE_ROW_THREADS, gp::LINREC_CHANNEL_TILE_STEPS>;
  if (path == 14 && time_major)
    return int(gp::launch_channel_tiles<narrow, true>("bench", a, dh, db, static_cast<const float *>(nullptr), s, true,
                                                      static_cast<cudaStream_t>(gp_stream()), grad));
  return int(gp::linrec_backward_run<float>(plan, a, h, dh, da, db, s, static_cast<cudaStream_t>(gp_stream())));
}
