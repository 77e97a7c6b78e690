/*
 * The segmented scan / reduce kernel (segscan_tile.cuh has its inputs and
 * outputs), in a "blocked" arrangement: each thread scans ITEMS = ROWS * VEC
 * consecutive items of the tile.
 *
 * Why: in the warp-striped layout that loads and stores coalesced
 * (tile_io.cuh) a thread's items lie in ROWS separate rows, so scan_tile
 * would do ROWS warp scans of pairs a tile (each 5 steps of 2-3 shuffles
 * and the pair operator's selects, plus the exclusive and warp-total
 * shuffles): about 2.5-5 shuffles an item, where a plain scan of 4-byte
 * values needs under 1. Holding consecutive items, a thread folds them
 * serially (a select and an add an item) and its warp does ONE warp scan of
 * pairs a tile: faster than scanning in the striped layout at the same
 * shapes, for scans, reduce and SpMV alike (bench/NOTES.md).
 *
 * Per tile:
 *   1. load the tile coalesced (load_tile: 16-byte vectors, striped), and
 *      for SpMV the columns, and apply the transform (still striped)
 *   2. start flags for the thread's ITEMS consecutive items: one 16- or
 *      8-byte load of head bytes where aligned (bits from the bytes with a
 *      few integer operations), or one word of the offsets' shared bits
 *   3. transpose striped -> blocked through shared memory (warp-local: a
 *      warp's striped and blocked items are the same run of the tile)
 *   4. scan_tile on the blocked shape tile_shape<THREADS, 1, ITEMS>: that
 *      is exactly "fold ITEMS serially, one warp scan, block scan of warp
 *      totals, look-back, apply serially" (its one row is the thread's run)
 *   5. scans: transpose back and store coalesced; reduce: stage the results
 *      in shared memory (permuted, see swizzled()) and gather them per
 *      segment (gather_segment_results)
 *
 * Results: the same combination order on every run (scan_tile's fixed
 * order: serially within a thread's ITEMS, then across lanes, warps and
 * tiles), so floats give the same bits run to run.
 *
 * Offsets are read as in segscan_tile.cuh (clamped; tile_segments), so
 * malformed offsets never lead outside in, out or offsets.
 */
#pragma once

#include "segmented/device/segscan_tile.cuh"

namespace gp {

/* A striped shape's blocked arrangement: same threads and tile, one "row"
 * of ITEMS consecutive items a thread, so item_offset<blocked_shape<S>>(warp,
 * lane, 0) = warp * warp_items + lane * ITEMS. */
template <typename Shape> using blocked_shape = tile_shape<Shape::threads, 1, Shape::items>;

/*
 * Where tile item i lives in the transpose buffer: its 16-byte chunk
 * c = i / VEC moves to c ^ ((c >> 3) & 7) (bits 0-2 of the chunk index
 * XORed with bits 3-5: a permutation within each group of 8 chunks).
 *
 * A warp's 16-byte shared accesses are served 8 lanes (128 bytes, all 32
 * banks) at a time; they are conflict-free when those 8 lanes hit 8
 * different chunks modulo 8. Striped accesses (lane l: chunk 32 r + l) are
 * already; blocked ones (lane l: chunk ROWS l + j) are not: for ROWS = 4,
 * lanes 0, 2, 4, 6 all hit chunk 0 mod 8 (4-way). After the XOR, lanes
 * 0..7 hit 8 different chunks mod 8 for ROWS = 2, 4 and 8, and the
 * striped ones stay conflict-free (their bits 3-5 are the same for 8 lanes).
 */
template <int VEC> __host__ __device__ constexpr uint32_t swizzled(uint32_t i) {
  const uint32_t c = i / VEC;
  return (c ^ ((c >> 3) & 7u)) * VEC + i % VEC;
}

/* The transpose buffer's 16-byte chunk that holds tile item i (a multiple of VEC). */
template <typename Shape, typename T> __device__ inline vec16<T, Shape::vec> *chunk_at(T *buf, uint32_t i) {
  return reinterpret_cast<vec16<T, Shape::vec> *>(buf + swizzled<Shape::vec>(i));
}
template <typename Shape, typename T> __device__ inline const vec16<T, Shape::vec> *chunk_at(const T *buf, uint32_t i) {
  return reinterpret_cast<const vec16<T, Shape::vec> *>(buf + swizzled<Shape::vec>(i));
}

/* The transposes. Each warp touches only its own run of the buffer, so
 * __syncwarp, not __syncthreads, orders its writes and reads (and its
 * reads before the next writes). */
template <typename Shape, typename T>
__device__ inline void put_striped(T *buf, const T (&v)[Shape::rows][Shape::vec], int warp, int lane) {
#pragma unroll
  for (int r = 0; r < Shape::rows; r++) {
    vec16<T, Shape::vec> c;
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) c.v[k] = v[r][k];
    *chunk_at<Shape>(buf, item_offset<Shape>(warp, lane, r)) = c;
  }
}
template <typename Shape, typename T>
__device__ inline void get_striped(const T *buf, T (&v)[Shape::rows][Shape::vec], int warp, int lane) {
#pragma unroll
  for (int r = 0; r < Shape::rows; r++) {
    const vec16<T, Shape::vec> c = *chunk_at<Shape>(buf, item_offset<Shape>(warp, lane, r));
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) v[r][k] = c.v[k];
  }
}
template <typename Shape, typename T>
__device__ inline void put_blocked(T *buf, const T (&b)[1][Shape::items], int warp, int lane) {
  const uint32_t o = item_offset<blocked_shape<Shape>>(warp, lane, 0);
#pragma unroll
  for (int j = 0; j < Shape::rows; j++) {
    vec16<T, Shape::vec> c;
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) c.v[k] = b[0][j * Shape::vec + k];
    *chunk_at<Shape>(buf, o + j * Shape::vec) = c;
  }
}
template <typename Shape, typename T>
__device__ inline void get_blocked(const T *buf, T (&b)[1][Shape::items], int warp, int lane) {
  const uint32_t o = item_offset<blocked_shape<Shape>>(warp, lane, 0);
#pragma unroll
  for (int j = 0; j < Shape::rows; j++) {
    const vec16<T, Shape::vec> c = *chunk_at<Shape>(buf, o + j * Shape::vec);
#pragma unroll
    for (int k = 0; k < Shape::vec; k++) b[0][j * Shape::vec + k] = c.v[k];
  }
}

template <typename Shape, typename T>
__device__ inline void striped_to_blocked(T *buf, const T (&v)[Shape::rows][Shape::vec], T (&b)[1][Shape::items],
                                          int warp, int lane) {
  __syncwarp(); /* the warp's earlier reads of its run are done */
  put_striped<Shape>(buf, v, warp, lane);
  __syncwarp();
  get_blocked<Shape>(buf, b, warp, lane);
}
template <typename Shape, typename T>
__device__ inline void blocked_to_striped(T *buf, const T (&b)[1][Shape::items], T (&v)[Shape::rows][Shape::vec],
                                          int warp, int lane) {
  __syncwarp();
  put_blocked<Shape>(buf, b, warp, lane);
  __syncwarp();
  get_striped<Shape>(buf, v, warp, lane);
}

/* Segmented reduce's results staged blocked: item i of the tile, read
 * through the same permutation. */
template <typename T, int VEC> struct swizzled_results {
  const T *buf;
  __device__ T operator[](uint32_t i) const { return buf[swizzled<VEC>(i)]; }
};

/* Bit j (j = 0..3) set for each nonzero byte j of w: bit 7 of each byte is
 * set where the byte is nonzero ((b & 0x7f) + 0x7f carries into bit 7 unless
 * the low 7 bits are 0; no carry leaves a byte), then one multiply gathers
 * the four bits 0, 8, 16, 24 into bits 24..27 (no other partial product
 * reaches bits 24..31). */
__host__ __device__ constexpr uint32_t nonzero_bytes(uint32_t w) {
  const uint32_t high = (w | ((w & 0x7f7f7f7fu) + 0x7f7f7f7fu)) & 0x80808080u;
  return ((high >> 7) * 0x01020408u) >> 24;
}

/*
 * This thread's start flags (scan order) for its ITEMS consecutive items,
 * bit j for item j (physical order), from head bytes. A whole tile with
 * aligned flags takes one 16-byte (ITEMS 16) or 8-byte (ITEMS 8) load a
 * thread (a warp: 512 or 256 consecutive bytes); otherwise the byte-by-byte
 * thread_heads on the blocked shape.
 */
template <typename Shape, bool REVERSE>
__device__ inline uint32_t blocked_heads(const heads_from_flags &src, stage_heads<blocked_shape<Shape>> &, uint32_t,
                                         uint32_t, uint64_t base, uint32_t valid, uint64_t n, int warp, int lane) {
  using Blocked = blocked_shape<Shape>;
  constexpr int ITEMS = Shape::items;
  static_assert(ITEMS == 8 || ITEMS == 16, "a thread's flags are one 8- or 16-byte load");
  /* base and the thread's offset in the tile are multiples of ITEMS: its
   * bytes are aligned when heads is. */
  if (valid != uint32_t(Shape::tile_items) || reinterpret_cast<uintptr_t>(src.heads) % ITEMS != 0)
    return thread_heads<Blocked, REVERSE>(src, base, valid, n, warp, lane);
  const uint64_t g = base + item_offset<Blocked>(warp, lane, 0);
  uint32_t raw; /* bit j: heads[g + j] != 0 */
  if constexpr (ITEMS == 16) {
    const uint4 w = *reinterpret_cast<const uint4 *>(src.heads + g);
    raw = nonzero_bytes(w.x) | nonzero_bytes(w.y) << 4 | nonzero_bytes(w.z) << 8 | nonzero_bytes(w.w) << 12;
  } else {
    const uint2 w = *reinterpret_cast<const uint2 *>(src.heads + g);
    raw = nonzero_bytes(w.x) | nonzero_bytes(w.y) << 4;
  }
  if constexpr (!REVERSE) return raw | uint32_t(g == 0); /* element 0 always starts a segment */
  /* Reverse: item j ends a segment where item j + 1 starts one (or is past
   * the end): the flags shifted by one, the last from the next lane's first
   * byte, or for lane 31 from memory. */
  uint32_t next = ::__shfl_down_sync(FULL_MASK, raw, 1) & 1u;
  if (lane == WARP - 1) next = g + ITEMS >= n || src.heads[g + ITEMS] != 0;
  return raw >> 1 | next << (ITEMS - 1);
}

/* This thread's ITEMS start flags from a tile's bits in shared memory (set
 * by stage_offset_heads or seg_runs' walk), in one shared load (ITEMS
 * divides 32, so they lie in one word), with the input's edge added and
 * the items past a partial tile's end cleared. */
template <typename Shape, bool REVERSE>
__device__ inline uint32_t staged_heads(const stage_heads<blocked_shape<Shape>> &sh, uint64_t base, uint32_t valid,
                                        uint64_t n, int warp, int lane) {
  using Blocked = blocked_shape<Shape>;
  constexpr int ITEMS = Shape::items;
  static_assert(32 % ITEMS == 0, "a thread's flags lie in one word");
  const uint32_t o = item_offset<Blocked>(warp, lane, 0);
  constexpr uint32_t all = ITEMS == 32 ? ~0u : (1u << ITEMS) - 1;
  uint32_t bits = (sh.bits[o >> 5] >> (o & 31)) & all;
  /* The input's first element (forward) or last (reverse) always counts. */
  const uint64_t edge = REVERSE ? n - 1 : 0;
  if (edge >= base + o && edge < base + o + ITEMS) bits |= 1u << (edge - base - o);
  /* Items past the end of a partial tile have no flags. */
  if (o >= valid) bits = 0;
  else if (valid - o < uint32_t(ITEMS)) bits &= (1u << (valid - o)) - 1;
  return bits;
}

/* The same from offsets (`off`: the tile's, tile_offsets): the tile's bits
 * staged in shared memory (stage_offset_heads), then staged_heads. */
template <typename Shape, bool REVERSE, typename Offset>
__device__ inline uint32_t blocked_heads(const tile_offsets<Offset> &off, stage_heads<blocked_shape<Shape>> &sh,
                                         uint64_t base, uint32_t valid, int warp, int lane) {
  stage_offset_heads<blocked_shape<Shape>, REVERSE>(off, sh, base, valid);
  return staged_heads<Shape, REVERSE>(sh, base, valid, off.n, warp, lane);
}
template <typename Shape, bool REVERSE, typename Offset>
__device__ inline uint32_t blocked_heads(const heads_from_offsets<Offset> &src, stage_heads<blocked_shape<Shape>> &sh,
                                         uint32_t tile, uint32_t tiles, uint64_t base, uint32_t valid, uint64_t n,
                                         int warp, int lane) {
  return blocked_heads<Shape, REVERSE>(global_tile_offsets(src, tile, tiles, n), sh, base, valid, warp, lane);
}

/* What the blocked kernels (this one, seg_runs) need of their tile
 * shape for elements of T. */
template <typename T, typename Shape> constexpr bool blocked_tile_fits() {
  static_assert(Shape::items <= 32, "a thread's flags fit a word");
  static_assert(Shape::vec * sizeof(T) == 16, "the transposes move 16-byte chunks");
  static_assert(Shape::rows >= 2 && Shape::rows <= 8, "swizzled() is conflict-free for 2 to 8 rows");
  return true;
}

/*
 * The kernel, one tile per block. Values (sparse: products with x) says
 * how the loaded elements become the scanned values; REDUCE writes each
 * segment's result to the epilogue instead of the scan (out unused).
 *
 * Why one small tile per block and not the scan's persistent pipeline
 * (scan_pipelined): a segmented tile needs loads that depend on other loads
 * (tile_first[], then the offsets starting segments in it; for SpMV the
 * columns, then x) and the epilogue's scattered accesses. A persistent
 * block per SM runs those chains one after another; several blocks per SM
 * run them side by side, which measured faster (bench/NOTES.md). The
 * look-back is the scan's: take_tile hands tiles out in launch order, so a
 * block only waits for blocks already running (or, by_index, for blocks
 * that all fit at once).
 */
template <typename T, gpu_op OP, typename Shape, bool REVERSE, typename Source, bool REDUCE, typename Values,
          typename Epilogue>
__global__ void __launch_bounds__(Shape::threads, Shape::min_blocks)
    segscan_blocked(const T *in, T *out, uint64_t n, bool exclusive, bool vector_ok, lookback_args lb, Source src,
                    Values values, Epilogue epilogue, bool by_index) {
  using Pair = seg_pair<T>;
  using Op = seg_op<T, OP>;
  using Base = scan_op<T, OP>;
  using Blocked = blocked_shape<Shape>;
  constexpr int ITEMS = Shape::items;
  static_assert(blocked_tile_fits<T, Shape>());
  __shared__ uint32_t s_tile;
  __shared__ tile_scan_shared<Pair, Shape::warps> sh;
  __shared__ stage_heads<Blocked> s_heads;
  __shared__ __align__(16) T s_buf[Shape::tile_items]; /* the transposes; reduce: the tile's results */
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  /* by_index: the whole grid fits the device at once (segscan_launch asks
   * the occupancy API), so block b takes tile b without a ticket (an atomic
   * and a barrier before the first loads, a round trip of the chain that
   * small scans are made of): the look-back waits only for lower tiles,
   * whose blocks run or will get a place. */
  const uint32_t tile = by_index ? blockIdx.x : take_tile(lb, &s_tile);
  const tile_place<Shape, REVERSE> at(tile, lb.tiles, n);
  /* 1. The values (and what a transform loads) first: in flight while the flags are found. */
  T v[Shape::rows][Shape::vec];
  load_tile<Shape, Values::stream_loads>(in + at.base, at.valid, vector_ok, warp, lane, v, Base::neutral());
  const auto loaded = values.template load<Shape>(at.base, at.valid, warp, lane);
  /* 2. Over offsets: the tile's segments, from the table or searched. */
  const uint32_t position = REVERSE ? lb.tiles - 1 - tile : tile;
  uint32_t heads;
  [[maybe_unused]] tile_offsets<offset_type<Source>> off{};
  if constexpr (offsets_source<Source>) {
    __shared__ uint64_t s_entries[2];
    off = src.tile_first ? global_tile_offsets(src, position, lb.tiles, n)
                         : search_tile_offsets(src, position, lb.tiles, Shape::tile_items, n, s_entries);
    heads = blocked_heads<Shape, REVERSE>(off, s_heads, at.base, at.valid, warp, lane);
  } else {
    heads = blocked_heads<Shape, REVERSE>(src, s_heads, position, lb.tiles, at.base, at.valid, n, warp, lane);
  }
  if constexpr (Values::transforms) values.template operator()<Shape>(v, loaded, at.valid, warp, lane);
  /* 3. */
  Pair x[1][ITEMS];
  {
    T b[1][ITEMS];
    striped_to_blocked<Shape>(s_buf, v, b, warp, lane);
#pragma unroll
    for (int j = 0; j < ITEMS; j++) x[0][j] = Pair{b[0][j], (heads >> j) & 1u};
  }
  /* 4. */
  scan_tile<Pair, Op, Blocked, REVERSE>(x, tile, at.valid, exclusive && !REDUCE, lb, prefix_source::lookback, sh, warp,
                                        lane);
  T y[1][ITEMS];
#pragma unroll
  for (int j = 0; j < ITEMS; j++) {
    /* Exclusive: where a segment starts (scan order), the identity. */
    const bool restart = (heads >> j) & 1u;
    y[0][j] = exclusive && !REDUCE && restart ? Base::identity() : x[0][j].value;
  }
  /* 5. scan_tile's barriers lie between step 3's reads and these writes. */
  if constexpr (!REDUCE) {
    T w[Shape::rows][Shape::vec];
    blocked_to_striped<Shape>(s_buf, y, w, warp, lane);
    store_tile<Shape>(out + at.base, at.valid, vector_ok, warp, lane, w); /* vector_ok: in and out aligned */
  } else {
    put_blocked<Shape>(s_buf, y, warp, lane);
    __syncthreads();
    gather_segment_results<T, Shape>(off, swizzled_results<T, Shape::vec>{s_buf}, tile + 1 == lb.tiles, at.base,
                                     at.valid, epilogue);
  }
}

}  // namespace gp
