/*
 * The channel path in one pass, for time-major [T][C] batches: tiles of
 * WIDTH adjacent channels x TILE_STEPS steps, a block each, taken in order
 * from a counter, time tile k of every channel group before time tile
 * k + 1. A tile reads a and b once, into shared memory, and writes h once.
 *
 * A block of 256 threads is ROWS rows of LROW threads; a row covers WIDTH =
 * LROW x VEC channels (one 16-byte vector a thread), and each thread STEPS
 * consecutive steps of them. Per tile:
 *   0. each thread copies its steps of a and b (cp.async) into its own
 *      slots of shared memory
 *   1. each thread folds its steps of each of its channels into a pair
 *   2. a thread per channel folds the rows' pairs into the tile's aggregate
 *      (A, B) and publishes it, then takes the tile's incoming state (the
 *      look-back below), publishes its outgoing state A s + B, and turns
 *      the rows' pairs into each row's incoming state
 *   3. each thread runs h = a h + b over its steps from its row's state
 *
 * The values wait in shared memory, not registers, so that three blocks
 * fit an SM (46-80 registers a thread, the f64 tiles of 4 threads a row
 * spilling 4 bytes; 64 KiB of values and 8 KiB of row pairs a block): a
 * tile's wait for its incoming state holds its block, and a third block
 * keeps loading while two wait (bench/NOTES.md has the measurements). A
 * thread reads back only the slots it copied, so its own
 * cp.async.wait_group is all the copies need.
 *
 * The look-back along time is a policy, a thread per channel:
 * linrec_radix_lookback.cuh's tree, or linrec_state_lookback.cuh's chain
 * of states where channel groups are many (linrec_tuning.h).
 *
 * SHIFTED runs the backward pass on the same tiles: scanned in the
 * direction opposite to the forward's (p.reverse), over (a one step
 * earlier in that order, 0 at the first step; dh), h being db = g, and da
 * = g * the forward's h one step later (p.grad) stored beside it.
 */
#pragma once

#include "linrec_radix_lookback.cuh"
#include "scan/device/tile_io.cuh"
#include "scan/device/tile_pipeline.cuh"

namespace gp {

constexpr int CHANNEL_TILE_THREADS = 256;
constexpr int CHANNEL_TILE_BLOCKS = 3; /* blocks an SM the launch bounds ask for */

template <typename T> struct channel_tiles_args {
  const T *a, *b;
  T *h;
  const T *h0;      /* a state per channel, or NULL (zero) */
  uint64_t len, count;
  uint32_t groups;  /* channel groups of WIDTH channels */
  state_lookback states; /* stride: groups */
  unsigned long long *counter;
  unsigned long long counter_base;
  bool reverse;     /* the scan's direction */
  bool vector_ok;   /* count a multiple of VEC, every array 16-byte aligned */
  backward_gradients<T> grad; /* SHIFTED only */
};

/* A tile's shape: LROW threads a row, STEPS steps a thread. */
template <typename T, int LROW, int STEPS> struct channel_tile_shape {
  static constexpr int vec = 16 / int(sizeof(T));
  static constexpr int lrow = LROW, steps = STEPS;
  static constexpr int width = LROW * vec;
  static constexpr int rows = CHANNEL_TILE_THREADS / LROW;
  static constexpr int tile_steps = rows * STEPS;
  /* Dynamic shared memory a block stages its values in: STEPS 16-byte
   * vectors of a and of b a thread. */
  static constexpr size_t staged_bytes = size_t(2) * STEPS * CHANNEL_TILE_THREADS * 16;
  /* Groups of `width` channels that cover `count`. */
  static constexpr uint64_t groups(uint64_t count) { return (count + width - 1) / width; }
};

/* Physical index of scan-order step i of channel c. */
template <typename T> __device__ inline uint64_t channel_at(const channel_tiles_args<T> &p, uint64_t c, uint64_t i) {
  return (p.reverse ? p.len - 1 - i : i) * p.count + c;
}

/* A thread's slots in the staged values: step s of thread t at s x
 * CHANNEL_TILE_THREADS + t of each array, so that a warp's vectors of one
 * step lie side by side. */
template <typename Shape, typename T> struct channel_stage {
  vec16<T, Shape::vec> *a, *b;
  __device__ vec16<T, Shape::vec> &a_at(int s) const { return a[s * CHANNEL_TILE_THREADS + threadIdx.x]; }
  __device__ vec16<T, Shape::vec> &b_at(int s) const { return b[s * CHANNEL_TILE_THREADS + threadIdx.x]; }
};

/* Copies this thread's steps i0 .. i0 + STEPS - 1 of channels c0 .. c0 +
 * VEC - 1 into its slots (16-byte cp.async where the channels are whole
 * and aligned, else element by element); past the end, the neutral pair
 * (1, -0). SHIFTED: each step's a is the previous step's in scan order, 0
 * at step 0. The copies are complete, for this thread, on return. */
template <typename Shape, bool SHIFTED, typename T>
__device__ __forceinline__ void stage_channel_steps(const channel_tiles_args<T> &p, uint64_t c0, uint64_t i0,
                                                    const channel_stage<Shape, T> &stage) {
  constexpr int VEC = Shape::vec;
  using V = vec16<T, VEC>;
#pragma unroll
  for (int s = 0; s < Shape::steps; s++) {
    const uint64_t i = i0 + s;
    const bool step_ok = i < p.len, a_ok = step_ok && (!SHIFTED || i > 0);
    const uint64_t at = step_ok ? channel_at(p, c0, i) : 0;
    const uint64_t at_a = SHIFTED ? (a_ok ? channel_at(p, c0, i - 1) : 0) : at;
    const T a_missing = step_ok ? T(0) : T(1);
    if (step_ok && p.vector_ok && c0 < p.count) {
      copy_async(&stage.b_at(s), reinterpret_cast<const V *>(p.b + at));
      if (a_ok) {
        copy_async(&stage.a_at(s), reinterpret_cast<const V *>(p.a + at_a));
      } else {
        V va;
#pragma unroll
        for (int v = 0; v < VEC; v++) va.v[v] = a_missing;
        stage.a_at(s) = va;
      }
    } else {
      V va, vb;
#pragma unroll
      for (int v = 0; v < VEC; v++) {
        const bool ok = step_ok && c0 + v < p.count;
        va.v[v] = ok && a_ok ? p.a[at_a + v] : ok ? a_missing : T(1);
        vb.v[v] = ok ? p.b[at + v] : -T(0);
      }
      stage.a_at(s) = va, stage.b_at(s) = vb;
    }
  }
  copy_async_commit();
  copy_async_wait<0>();
}

/* Stores the VEC channels' values at physical index `at`. */
template <typename Shape, typename T>
__device__ __forceinline__ void store_channels(const channel_tiles_args<T> &p, T *out, uint64_t c0, uint64_t at,
                                               const vec16<T, Shape::vec> &x) {
  if (p.vector_ok && c0 < p.count) {
    *reinterpret_cast<vec16<T, Shape::vec> *>(out + at) = x;
  } else {
#pragma unroll
    for (int v = 0; v < Shape::vec; v++)
      if (c0 + v < p.count) out[at + v] = x.v[v];
  }
}

/* h over this thread's steps from each channel's incoming state. SHIFTED:
 * h is db = g, and da = g * the forward's h one step later in scan order
 * (p.grad.edge past the last step) is stored too. */
template <typename Shape, bool SHIFTED, typename T>
__device__ __forceinline__ void run_channel_steps(const channel_tiles_args<T> &p, uint64_t c0, uint64_t i0,
                                                  const channel_stage<Shape, T> &stage, T (&state)[Shape::vec]) {
  constexpr int VEC = Shape::vec;
#pragma unroll
  for (int s = 0; s < Shape::steps; s++) {
    const uint64_t i = i0 + s;
    if (i >= p.len) break;
    const vec16<T, VEC> av = stage.a_at(s), bv = stage.b_at(s);
    vec16<T, VEC> hv;
#pragma unroll
    for (int v = 0; v < VEC; v++) hv.v[v] = state[v] = lr_step(av.v[v], state[v], bv.v[v]);
    const uint64_t at = channel_at(p, c0, i);
    store_channels<Shape>(p, p.h, c0, at, hv);
    if constexpr (SHIFTED) {
      vec16<T, VEC> later;
      if (i + 1 < p.len) {
        const uint64_t next = channel_at(p, c0, i + 1);
        if (p.vector_ok && c0 < p.count) later = *reinterpret_cast<const vec16<T, VEC> *>(p.grad.h_fwd + next);
        else
#pragma unroll
          for (int v = 0; v < VEC; v++) later.v[v] = c0 + v < p.count ? p.grad.h_fwd[next + v] : T(0);
      } else {
#pragma unroll
        for (int v = 0; v < VEC; v++) later.v[v] = p.grad.edge && c0 + v < p.count ? p.grad.edge[c0 + v] : T(0);
      }
#pragma unroll
      for (int v = 0; v < VEC; v++) later.v[v] = lr_mul(hv.v[v], later.v[v]);
      store_channels<Shape>(p, p.grad.da, c0, at, later);
    }
  }
}

/* Launched with Shape::staged_bytes of dynamic shared memory. */
template <typename Shape, bool SHIFTED, typename Lookback = radix_lookback, typename T>
__global__ void __launch_bounds__(CHANNEL_TILE_THREADS, CHANNEL_TILE_BLOCKS)
    channels_lookback(channel_tiles_args<T> p) {
  using P = lr_pair<T>;
  using V = vec16<T, Shape::vec>;
  constexpr int VEC = Shape::vec, LROW = Shape::lrow, ROWS = Shape::rows;
  /* [r][v][col]: row r's fold of channel col * VEC + v, then (in .b) the
   * row's incoming state. */
  __shared__ P s_row[ROWS][VEC][LROW];
  __shared__ uint32_t s_tile;
  extern __shared__ __align__(16) unsigned char s_staged[];
  const channel_stage<Shape, T> stage{reinterpret_cast<V *>(s_staged),
                                      reinterpret_cast<V *>(s_staged) + Shape::steps * CHANNEL_TILE_THREADS};
  if (threadIdx.x == 0) s_tile = uint32_t(atomicAdd(p.counter, 1ull) - p.counter_base);
  __syncthreads();
  const uint64_t tile = s_tile, group = tile % p.groups, k = tile / p.groups;
  const int row = threadIdx.x / LROW, col = threadIdx.x % LROW;
  const uint64_t c0 = group * Shape::width + uint64_t(col) * VEC;
  const uint64_t i0 = k * Shape::tile_steps + uint64_t(row) * Shape::steps;

  stage_channel_steps<Shape, SHIFTED>(p, c0, i0, stage);
  P fold[VEC];
#pragma unroll
  for (int s = 0; s < Shape::steps; s++) {
    const V av = stage.a_at(s), bv = stage.b_at(s);
#pragma unroll
    for (int v = 0; v < VEC; v++) {
      const P x{av.v[v], bv.v[v]};
      fold[v] = s == 0 ? x : lr_op<T>::apply(fold[v], x);
    }
  }
#pragma unroll
  for (int v = 0; v < VEC; v++) s_row[row][v][col] = fold[v];
  __syncthreads();

  /* Thread (row v, col) of the first VEC rows: channel col * VEC + v. */
  if (row < VEC) {
    const int v = row, channel = col * VEC + v;
    const uint64_t c = c0 + uint64_t(v);
    const bool last = (k + 1) * Shape::tile_steps >= p.len;
    if (c < p.count) {
      P agg = s_row[0][v][col];
#pragma unroll
      for (int r = 1; r < ROWS; r++) agg = lr_op<T>::apply(agg, s_row[r][v][col]);
      const T initial = p.h0 ? p.h0[c] : T(0);
      T state = Lookback::tile_state(p.states, Shape::width, tile, k, channel, agg, initial, last);
#pragma unroll
      for (int r = 0; r < ROWS; r++) {
        const P x = s_row[r][v][col];
        s_row[r][v][col].b = state;
        state = lr_step(x.a, state, x.b);
      }
    }
  }
  __syncthreads();

  T state[VEC];
#pragma unroll
  for (int v = 0; v < VEC; v++) state[v] = s_row[row][v][col].b;
  run_channel_steps<Shape, SHIFTED>(p, c0, i0, stage, state);
}

}  // namespace gp
