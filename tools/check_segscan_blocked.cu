// Host-only sanity check of the segmented kernel, segscan_blocked: its swizzle
// (a permutation, conflict-free for 2, 4, 8 rows), nonzero_bytes, the vector
// path of its head-flag bits (forward and reverse, lanes emulated), and an
// emulation of its data path (striped load -> swizzled transpose -> blocked
// flags -> serial segmented scan -> transpose back) on int32 ADD. No GPU.
// Not part of ctest. From the repository root:
//   nvcc -std=c++17 --expt-relaxed-constexpr -O2 -I include -I . tools/check_segscan_blocked.cu -o /tmp/csb && /tmp/csb
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "segmented/device/segscan_blocked.cuh"

using namespace gp;
static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { if (fails++ < 10) { std::printf("FAIL %s:%d ", __FILE__, __LINE__); std::printf(__VA_ARGS__); std::printf("\n"); } } } while (0)

// tile_io.cuh's item_offset (device-only there).
template <typename Shape> static uint32_t item_offset_h(int warp, int lane, int row) {
  return warp * Shape::warp_items + row * 32 * Shape::vec + lane * Shape::vec;
}

static uint32_t naive_nz(uint32_t w) {
  uint32_t r = 0;
  for (int j = 0; j < 4; j++) r |= uint32_t(((w >> (8 * j)) & 0xff) != 0) << j;
  return r;
}

template <int ROWS, int VEC> static void check_swizzle() {
  using S = tile_shape<256, ROWS, VEC>;
  using B = blocked_shape<S>;
  std::vector<int> seen(S::tile_items, 0);
  for (uint32_t i = 0; i < uint32_t(S::tile_items); i++) {
    const uint32_t p = swizzled<VEC>(i);
    CHECK(p < uint32_t(S::tile_items), "swizzle out of range");
    if (p < uint32_t(S::tile_items)) seen[p]++;
    CHECK(i / S::warp_items == p / S::warp_items, "swizzle leaves the warp's run");
  }
  for (int c : seen) CHECK(c == 1, "swizzle not a bijection (ROWS %d)", ROWS);
  // 16-byte accesses, 8 lanes a phase: distinct chunk slots mod 8.
  for (int warp = 0; warp < S::warps; warp++)
    for (int q = 0; q < 4; q++)
      for (int r = 0; r < ROWS; r++) {
        unsigned striped = 0, blocked = 0;
        for (int l = 8 * q; l < 8 * q + 8; l++) {
          striped |= 1u << ((swizzled<VEC>(item_offset_h<S>(warp, l, r)) / VEC) % 8);
          blocked |= 1u << ((swizzled<VEC>(item_offset_h<B>(warp, l, 0) + r * VEC) / VEC) % 8);
        }
        CHECK(striped == 0xff && blocked == 0xff, "bank conflict ROWS %d VEC %d: %x %x", ROWS, VEC, striped, blocked);
      }
}

// The vector path of blocked_heads(heads_from_flags), lanes emulated.
template <int ITEMS, bool REVERSE>
static void check_flag_bits(const std::vector<uint8_t> &heads, uint64_t base, uint64_t n, int warps) {
  for (int warp = 0; warp < warps; warp++) {
    uint32_t raw[32];
    for (int lane = 0; lane < 32; lane++) {
      const uint64_t g = base + uint64_t(warp) * 32 * ITEMS + lane * ITEMS;
      uint32_t w[4];
      std::memcpy(w, &heads[g], ITEMS);
      raw[lane] = 0;
      for (int k = 0; k < ITEMS / 4; k++) raw[lane] |= nonzero_bytes(w[k]) << (4 * k);
    }
    for (int lane = 0; lane < 32; lane++) {
      const uint64_t g = base + uint64_t(warp) * 32 * ITEMS + lane * ITEMS;
      uint32_t bits;
      if (!REVERSE) bits = raw[lane] | uint32_t(g == 0);
      else {
        uint32_t next = lane < 31 ? raw[lane + 1] & 1u : raw[lane];  // __shfl_down_sync keeps lane 31's own
        if (lane == 31) next = g + ITEMS >= n || heads[g + ITEMS] != 0;
        bits = raw[lane] >> 1 | next << (ITEMS - 1);
      }
      for (int j = 0; j < ITEMS; j++) {
        const uint64_t i = g + j;
        const bool want = REVERSE ? (i + 1 == n || heads[i + 1] != 0) : (i == 0 || heads[i] != 0);
        CHECK(((bits >> j) & 1u) == want, "flag bit ITEMS %d rev %d at %llu", ITEMS, REVERSE, (unsigned long long)i);
      }
    }
  }
}

// Blocked data path for one full tile of int32 ADD, inclusive/exclusive,
// forward only, prefix (value, head) carried in from earlier tiles.
template <int ROWS, int VEC>
static void emulate_tile(const std::vector<int32_t> &in, const std::vector<uint8_t> &heads, uint64_t base,
                         bool exclusive, std::vector<int32_t> &out, int32_t &carry) {
  using S = tile_shape<256, ROWS, VEC>;
  using B = blocked_shape<S>;
  constexpr int ITEMS = S::items;
  std::vector<int32_t> buf(S::tile_items, 0x7eadbeef);
  for (int warp = 0; warp < S::warps; warp++)
    for (int lane = 0; lane < 32; lane++)
      for (int r = 0; r < ROWS; r++)
        for (int k = 0; k < VEC; k++) {
          const uint32_t i = item_offset_h<S>(warp, lane, r) + k;
          buf[swizzled<VEC>(i)] = in[base + i];  // put_striped (chunk_at + k == swizzled(i) as i % VEC == k)
        }
  std::vector<int32_t> res(S::tile_items);
  for (int t = 0; t < S::threads; t++) {  // threads in scan order: the serial equivalent of scan_tile
    const int warp = t / 32, lane = t % 32;
    const uint32_t o = item_offset_h<B>(warp, lane, 0);
    for (int j = 0; j < ITEMS; j++) {
      const uint32_t i = o + j;
      const int32_t v = buf[swizzled<VEC>(i)];  // get_blocked
      const bool h = base + i == 0 || heads[base + i] != 0;
      const int32_t before = h ? 0 : carry;
      carry = before + v;
      res[i] = exclusive ? (h ? 0 : before) : carry;
    }
  }
  // put_blocked + get_striped
  for (uint32_t i = 0; i < uint32_t(S::tile_items); i++) buf[swizzled<VEC>(i)] = res[i];
  for (int warp = 0; warp < S::warps; warp++)
    for (int lane = 0; lane < 32; lane++)
      for (int r = 0; r < ROWS; r++)
        for (int k = 0; k < VEC; k++) {
          const uint32_t i = item_offset_h<S>(warp, lane, r) + k;
          out[base + i] = buf[swizzled<VEC>(i)];
        }
}

int main() {
  // nonzero_bytes: every byte value in every position, and random words.
  for (int pos = 0; pos < 4; pos++)
    for (uint32_t b = 0; b < 256; b++)
      for (uint32_t other : {0u, 0xffffffffu, 0x01010101u, 0x80808080u, 0x7f7f7f7fu}) {
        const uint32_t w = (other & ~(0xffu << (8 * pos))) | b << (8 * pos);
        CHECK(nonzero_bytes(w) == naive_nz(w), "nonzero_bytes(%08x)", w);
      }
  std::mt19937 rng(1);
  for (int i = 0; i < 1 << 24; i++) {
    const uint32_t w = rng() & rng();  // more zero bytes
    CHECK(nonzero_bytes(w) == naive_nz(w), "nonzero_bytes(%08x)", w);
  }
  check_swizzle<2, 4>();
  check_swizzle<4, 4>();
  check_swizzle<4, 2>();
  check_swizzle<8, 2>();

  for (int density : {1, 3, 16, 200}) {
    const uint64_t n = 3 * 4096;
    std::vector<uint8_t> heads(n + 16);
    for (auto &h : heads) h = (rng() % density == 0) ? uint8_t(1 + rng() % 255) : 0;
    for (uint64_t base = 0; base < n; base += 4096) {
      check_flag_bits<16, false>(heads, base, n, 8);
      check_flag_bits<16, true>(heads, base, n, 8);
    }
    for (uint64_t base = 0; base < n; base += 2048) {
      check_flag_bits<8, false>(heads, base, n, 8);
      check_flag_bits<8, true>(heads, base, n, 8);
    }
    std::vector<int32_t> in(n), out(n), ref(n);
    for (auto &v : in) v = int32_t(rng() % 1000) - 500;
    for (bool exclusive : {false, true}) {
      int32_t acc = 0;
      for (uint64_t i = 0; i < n; i++) {
        const bool h = i == 0 || heads[i];
        const int32_t before = h ? 0 : acc;
        acc = before + in[i];
        ref[i] = exclusive ? before : acc;
      }
      int32_t carry = 0;
      for (uint64_t base = 0; base < n; base += 4096) emulate_tile<4, 4>(in, heads, base, exclusive, out, carry);
      CHECK(out == ref, "emulated tile path (4x4) density %d excl %d", density, exclusive);
      carry = 0;
      for (uint64_t base = 0; base < n; base += 4096) emulate_tile<8, 2>(in, heads, base, exclusive, out, carry);
      CHECK(out == ref, "emulated tile path (8x2) density %d excl %d", density, exclusive);
    }
  }
  std::printf(fails ? "%d FAILED\n" : "all passed\n", fails);
  return fails != 0;
}
