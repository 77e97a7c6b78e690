// Host-only sanity check of the persistent prefetching kernel, segscan_prefetch
// (segmented/device/segscan_prefetch.cuh), on its __host__ __device__ pieces:
//  - the cp.async copies (prefetch_map): every 16-byte chunk of a tile is read
//    once, coalesced (a warp's row is 512 consecutive bytes), and lands exactly
//    once, 16-byte aligned, at put_striped's swizzled place, in the copying
//    warp's own run (so wait_group + __syncwarp suffice), conflict-free; then
//    get_blocked's reads see each thread's ITEMS items in order;
//  - the head bytes: each thread copies its own ITEMS bytes, aligned, all once;
//  - the tickets (tile_tickets) in a simulation of persistent blocks, ring of
//    three tickets, random interleavings: every tile scanned once, tiles + grid
//    counter takes (prepare_lookback's counter_takes), and no deadlock when a
//    tile may finish only after ALL smaller tiles finished (stricter than the
//    look-back, which waits for their aggregates).
// No GPU. Not part of ctest. From the repository root:
//   nvcc -std=c++17 --expt-relaxed-constexpr -O2 -I include -I . tools/check_segscan_prefetch.cu -o /tmp/csp && /tmp/csp
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "segmented/device/segscan_prefetch.cuh"

using namespace gp;
static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { if (fails++ < 10) { std::printf("FAIL %s:%d ", __FILE__, __LINE__); std::printf(__VA_ARGS__); std::printf("\n"); } } } while (0)

// tile_io.cuh's item_offset (device-only there): put_striped's and get_blocked's places.
template <typename Shape> static uint32_t item_offset_h(int warp, int lane, int row) {
  return warp * Shape::warp_items + row * 32 * Shape::vec + lane * Shape::vec;
}

template <int THREADS, int ROWS, int VEC> static void check_copies() {
  using S = tile_shape<THREADS, ROWS, VEC>;
  using B = blocked_shape<S>;
  using M = prefetch_map<S>;
  constexpr int TILE = S::tile_items, CHUNKS = TILE / VEC;
  std::vector<int> read(CHUNKS, 0), landed(CHUNKS, 0), writer_warp(CHUNKS, -1);
  std::vector<int64_t> buf(TILE, -1);
  for (int warp = 0; warp < S::warps; warp++)
    for (int r = 0; r < ROWS; r++) {
      unsigned phase_slots[4] = {0, 0, 0, 0};
      for (int lane = 0; lane < 32; lane++) {
        const uint32_t src = M::copy_item(warp, lane, r), dst = M::copy_slot(warp, lane, r);
        CHECK(src == item_offset_h<S>(warp, lane, r), "copy source is not load_tile's striped chunk");
        CHECK(src % VEC == 0 && dst % VEC == 0, "unaligned chunk (16 bytes)");
        CHECK(src == M::copy_item(warp, 0, r) + lane * VEC, "warp's row not one coalesced run");
        CHECK(dst == swizzled<VEC>(src), "not put_striped's place");
        CHECK(src < uint32_t(TILE) && dst < uint32_t(TILE), "out of the tile");
        if (src >= uint32_t(TILE) || dst >= uint32_t(TILE)) continue;
        read[src / VEC]++;
        landed[dst / VEC]++;
        writer_warp[dst / VEC] = warp;
        CHECK(dst / S::warp_items == uint32_t(warp), "lands outside the copying warp's run");
        for (int k = 0; k < VEC; k++) buf[dst + k] = src + k;  // the copy: tile item src + k
        phase_slots[lane / 8] |= 1u << ((dst / VEC) % 8);
      }
      for (unsigned p : phase_slots) CHECK(p == 0xff, "copies' shared writes conflict: %x", p);
    }
  for (int c = 0; c < CHUNKS; c++) CHECK(read[c] == 1 && landed[c] == 1, "chunk %d read %d, landed %d", c, read[c], landed[c]);
  // get_blocked: thread (warp, lane) reads chunk_at(o + j * VEC), o = item_offset<B>(warp, lane, 0).
  for (int warp = 0; warp < S::warps; warp++)
    for (int lane = 0; lane < 32; lane++) {
      const uint32_t o = item_offset_h<B>(warp, lane, 0);
      for (int j = 0; j < ROWS; j++)
        for (int k = 0; k < VEC; k++) {
          const uint32_t at = swizzled<VEC>(o + j * VEC + k);
          CHECK(buf[at] == int64_t(o + j * VEC + k), "blocked read of thread %d item %d sees item %lld", warp * 32 + lane,
                j * VEC + k, (long long)buf[at]);
          CHECK(writer_warp[at / VEC] == warp, "blocked read of another warp's copy");
        }
      // The thread's head bytes: its ITEMS consecutive items, aligned for one ITEMS-byte copy.
      const uint32_t h = M::head_byte(warp, lane);
      CHECK(h == o && h % S::items == 0, "head bytes not the thread's blocked items");
      CHECK(h == uint32_t(warp * 32 + lane) * S::items, "head bytes not one coalesced run");
    }
  // The buffers in dynamic shared memory stay 16-byte aligned (4- and 8-byte values).
  const size_t smem = prefetch_smem<float, S, true>();
  CHECK(smem == size_t(2 * TILE * 4 + 2 * TILE) && (TILE * 4) % 128 == 0, "buffer sizes");
}

// Persistent blocks and their tickets: host model of segscan_prefetch's loop.
struct sim_block {
  tile_tickets tk;
  uint32_t slot[3];
  uint32_t step = 0;
  int phase = 0;  // 0: prologue; 1: step top (take); 2: scan (waits); 3: step end (settle); 4: exited
  uint64_t pending = 0;
  bool took = false;
};

static void simulate(uint32_t tiles, int grid, uint64_t counter_base, std::mt19937 &rng) {
  uint64_t counter = counter_base, takes = 0;
  std::vector<int> scanned(tiles, 0);
  std::vector<char> done(tiles, 0);
  uint32_t done_below = 0;  // tiles [0, done_below) all done
  std::vector<sim_block> blocks(grid);
  for (auto &b : blocks) b.tk = tile_tickets{tiles, false};
  auto take = [&](sim_block &b) -> uint64_t {
    if (!b.tk.takes()) return 0;
    takes++;
    return counter++ - counter_base;
  };
  for (;;) {
    std::vector<int> ready;
    bool all_exited = true;
    for (int i = 0; i < grid; i++) {
      sim_block &b = blocks[i];
      if (b.phase == 4) continue;
      all_exited = false;
      if (b.phase == 2 && done_below < b.slot[b.step % 3]) continue;  // waits for all earlier tiles
      ready.push_back(i);
    }
    if (all_exited) break;
    if (ready.empty()) {
      CHECK(false, "deadlock: tiles %u grid %d", tiles, grid);
      return;
    }
    sim_block &b = blocks[ready[rng() % ready.size()]];
    switch (b.phase) {
      case 0:
        for (int s = 0; s < 2; s++) b.slot[s] = b.tk.settle(take(b));
        b.phase = 1;
        break;
      case 1: {
        const uint32_t tile = b.slot[b.step % 3];
        if (tile >= tiles) {
          b.phase = 4;
          break;
        }
        CHECK(tiles == 1 || uint64_t(tile) < counter - counter_base, "scanning a tile not taken");
        b.took = b.tk.takes();
        b.pending = take(b);
        b.phase = 2;
        break;
      }
      case 2: {
        const uint32_t tile = b.slot[b.step % 3];
        scanned[tile]++;
        done[tile] = 1;
        while (done_below < tiles && done[done_below]) done_below++;
        b.phase = 3;
        break;
      }
      case 3:
        b.slot[(b.step + 2) % 3] = b.tk.settle(b.pending);
        b.step++;
        b.phase = 1;
        break;
    }
  }
  for (uint32_t t = 0; t < tiles; t++) CHECK(scanned[t] == 1, "tile %u scanned %d times (tiles %u grid %d)", t, scanned[t], tiles, grid);
  const uint64_t want = tiles > 1 ? tiles + uint64_t(grid) : 0;
  CHECK(takes == want, "tiles %u grid %d: %llu counter takes, host counts %llu", tiles, grid, (unsigned long long)takes,
        (unsigned long long)want);
}

int main() {
  check_copies<256, 4, 4>();   // seg_prefetch_shape<4>
  check_copies<256, 8, 2>();   // seg_prefetch_shape<8>
  check_copies<512, 4, 4>();   // seg_large_shape<4>
  check_copies<128, 4, 4>();
  check_copies<256, 2, 4>();   // 8 items a thread
  check_copies<256, 4, 2>();
  std::mt19937 rng(7);
  for (uint32_t tiles : {1u, 2u, 3u, 5u, 33u, 100u, 1025u})
    for (int grid : {1, 2, 3, 7, 64})
      for (int rep = 0; rep < 20; rep++) {
        if (tiles == 1 && grid > 1) continue;  // one tile uses no counter: the host launches one block
        simulate(tiles, grid, rep * 1000003ull, rng);
      }
  std::printf(fails ? "%d FAILED\n" : "all passed\n", fails);
  return fails != 0;
}
