/*
 * Host check of tile_first_segments' per-thread logic (segmented/device/
 * tile_first.cuh): runs tile_first_thread for every thread index on the
 * host, as the kernel's grid-stride loop would, and compares the table with
 * the one the former kernel built (memset to 0, then one thread per offset
 * writing the tiles between its predecessor and itself) and with a plain
 * lower bound, over random well-formed offsets; over malformed ones it checks
 * that the verdict is set, that every entry is in [0, nseg] and that the
 * table never decreases (so tile_segments' ranges add up to at most
 * nseg + tiles). Reads go through a probe type that checks each index is in
 * [0, nseg] and counts a search's reads against ceil(log2(nseg + 1)).
 * Not a ctest suite; build and run by hand from the repository root:
 *
 *   nvcc -std=c++17 -O2 -I. tools/check_tile_first.cu -o /tmp/check_tile_first && /tmp/check_tile_first [seed]
 *   g++ -std=c++17 -O1 -g -fsanitize=address,undefined -x c++ -I. tools/check_tile_first.cu \
 *       -o /tmp/check_tile_first_asan && /tmp/check_tile_first_asan [seed]
 */
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <random>
#include <vector>

#include "segmented/device/tile_first.cuh"

namespace {

using Offsets = std::vector<int64_t>;

/* The array being read, for the probe's bounds check, and its read count. */
const void *g_begin, *g_end;
uint64_t g_reads;

#ifdef __CUDACC__
#define PROBE_HD __host__ __device__ /* as the functions it goes through; only run on the host */
#else
#define PROBE_HD
#endif

/* An offset that checks where it is read from and counts the reads. */
template <typename Raw> struct probe {
  Raw v;
  PROBE_HD operator int64_t() const {
#ifndef __CUDA_ARCH__
    if (static_cast<const void *>(this) < g_begin || static_cast<const void *>(this) >= g_end) {
      std::fprintf(stderr, "FAIL: offset read outside [0, nseg]\n");
      std::abort();
    }
    g_reads++;
#endif
    return int64_t(v);
  }
};

int g_failures;
uint64_t g_cases, g_malformed_cases;

#define CHECK(cond, ...)                                        \
  do {                                                          \
    if (!(cond)) {                                              \
      if (g_failures++ < 20) {                                  \
        std::fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
        std::fprintf(stderr, __VA_ARGS__);                      \
        std::fprintf(stderr, "\n");                             \
      }                                                         \
    }                                                           \
  } while (0)

uint64_t clamp(int64_t o, uint64_t n) { return o < 0 ? 0 : uint64_t(o) > n ? n : uint64_t(o); }

bool well_formed(const Offsets &o, uint64_t n) {
  if (o.front() != 0 || o.back() < 0 || uint64_t(o.back()) != n) return false;
  for (size_t s = 1; s < o.size(); s++)
    if (o[s] < o[s - 1]) return false;
  return true;
}

/* The former kernel's table: zeroed, then each offset s writes the tiles t
 * with clamped o[s - 1] < t * tile <= clamped o[s] (t * tile <= o[0] for s = 0). */
std::vector<uint64_t> old_table(const Offsets &o, uint64_t n, uint32_t tile, uint64_t tiles) {
  std::vector<uint64_t> tf(tiles, 0);
  for (uint64_t s = 0; s < o.size(); s++) {
    const uint64_t cur = clamp(o[s], n);
    for (uint64_t t = s ? clamp(o[s - 1], n) / tile + 1 : 0; t < tiles && t * tile <= cur; t++) tf[t] = s;
  }
  return tf;
}

/* The definition for well-formed (sorted) offsets: the smallest s with
 * o[s] >= t * tile, by the standard library. */
uint64_t plain_lower_bound(const Offsets &o, uint64_t b) {
  return uint64_t(std::lower_bound(o.begin(), o.end(), int64_t(b)) - o.begin());
}

int bit_length(uint64_t x) {
  int b = 0;
  for (; x; x >>= 1) b++;
  return b;
}

/* Every thread of the kernel, on the host, over offsets stored as Raw. */
template <typename Raw>
std::vector<uint64_t> new_table(const Offsets &o, uint64_t n, uint32_t tile, uint64_t tiles, unsigned *bad,
                                uint64_t *max_search_reads) {
  const uint64_t nseg = o.size() - 1;
  std::vector<probe<Raw>> p(o.size());
  for (size_t s = 0; s < o.size(); s++) p[s].v = Raw(o[s]);
  g_begin = p.data();
  g_end = p.data() + p.size();
  std::vector<uint64_t> tf(tiles + 1, std::numeric_limits<uint64_t>::max()); /* + 1: a guard, never written */
  *bad = 0;
  *max_search_reads = 0;
  const uint64_t threads = gp::tile_first_threads(nseg, tiles);
  CHECK(threads >= nseg + 1 && threads >= tiles, "thread count %" PRIu64, threads);
  for (uint64_t i = 0; i < threads; i++) {
    g_reads = 0;
    if (i < tiles) gp::first_segment_reaching(p.data(), nseg, n, i * uint64_t(tile));
    if (g_reads > *max_search_reads) *max_search_reads = g_reads;
    gp::tile_first_thread(p.data(), nseg, n, tile, tiles, i, tf.data(), bad);
  }
  CHECK(tf[tiles] == std::numeric_limits<uint64_t>::max(), "wrote past the table");
  tf.pop_back();
  return tf;
}

/* What holds for any offsets: entries written, in [0, nseg], non-decreasing,
 * searches of O(log nseg) reads, tile_segments' ranges summing to <= nseg + tiles. */
void check_any(const std::vector<uint64_t> &tf, uint64_t nseg, uint64_t tiles, uint64_t reads, const char *what) {
  for (uint64_t t = 0; t < tiles; t++) {
    CHECK(tf[t] <= nseg, "%s: tile_first[%" PRIu64 "] = %" PRIu64 " > nseg = %" PRIu64, what, t, tf[t], nseg);
    if (t) CHECK(tf[t - 1] <= tf[t], "%s: tile_first decreases at %" PRIu64, what, t);
  }
  CHECK(reads <= uint64_t(bit_length(nseg)), "%s: a search read %" PRIu64 " offsets, nseg = %" PRIu64, what, reads,
        nseg);
  uint64_t work = 0;
  for (uint64_t t = 0; t < tiles; t++) { /* tile_segments, clamps and all */
    const uint64_t a = tf[t], b = t + 1 < tiles ? tf[t + 1] : nseg;
    const uint64_t first = a < nseg ? a : nseg;
    uint64_t last = b < nseg ? b : nseg;
    if (last < first) last = first;
    work += last - first + 1;
  }
  CHECK(work <= nseg + tiles, "%s: per-tile ranges sum to %" PRIu64 " > nseg + tiles", what, work);
}

/* Well-formed: what the scan kernel's per-tile loops must find in a tile's
 * range [tile_first[t], tile_first[t + 1]]: each offset o[s] < n, for the
 * forward flag at o[s] (stage_offset_heads); each non-empty segment s - 1, for its
 * result and the reverse flag at its last element o[s] - 1 (the reverse flag
 * of an empty one is the same position); each empty segment, in the tile
 * holding its start, or the last tile where it starts at n
 * (gather_segment_results). */
void check_coverage(const std::vector<uint64_t> &tf, const Offsets &o, uint64_t n, uint32_t tile, uint64_t tiles) {
  const uint64_t nseg = o.size() - 1;
  auto in_range = [&](uint64_t t, uint64_t s) {
    const uint64_t last = t + 1 < tiles ? tf[t + 1] : nseg;
    return tf[t] <= s && s <= last;
  };
  for (uint64_t s = 0; s <= nseg; s++) {
    const uint64_t end = uint64_t(o[s]);
    if (end < n) CHECK(in_range(end / tile, s), "start at offset %" PRIu64 " outside its tile's range", s);
    if (s == 0 || tiles == 0) continue;
    const uint64_t start = uint64_t(o[s - 1]);
    const uint64_t t = end > start ? (end - 1) / tile : start < n ? start / tile : tiles - 1;
    CHECK(in_range(t, s), "segment %" PRIu64 " (%s) outside its tile's range", s - 1,
          end > start ? "non-empty" : "empty");
  }
}

template <typename Raw> bool fits(const Offsets &o) {
  for (int64_t v : o)
    if (v < int64_t(std::numeric_limits<Raw>::min()) || v > int64_t(std::numeric_limits<Raw>::max())) return false;
  return true;
}

template <typename Raw> void run_case(const Offsets &o, uint64_t n, uint32_t tile, const char *what) {
  const uint64_t nseg = o.size() - 1, tiles = (n + tile - 1) / tile;
  unsigned bad;
  uint64_t reads;
  const std::vector<uint64_t> tf = new_table<Raw>(o, n, tile, tiles, &bad, &reads);
  const bool ok = well_formed(o, n);
  g_cases++;
  check_any(tf, nseg, tiles, reads, what);
  if (!ok) {
    g_malformed_cases++;
    CHECK(bad == 1, "%s: malformed offsets (nseg %" PRIu64 ", n %" PRIu64 ") not reported", what, nseg, n);
    return;
  }
  CHECK(bad == 0, "%s: well-formed offsets reported (nseg %" PRIu64 ", n %" PRIu64 ")", what, nseg, n);
  const std::vector<uint64_t> old = old_table(o, n, tile, tiles);
  for (uint64_t t = 0; t < tiles; t++) {
    CHECK(tf[t] == old[t], "%s: tile %" PRIu64 ": %" PRIu64 ", former kernel %" PRIu64, what, t, tf[t], old[t]);
    CHECK(tf[t] == plain_lower_bound(o, t * tile), "%s: tile %" PRIu64 " not the lower bound", what, t);
  }
  check_coverage(tf, o, n, tile, tiles);
}

void run_all_types(const Offsets &o, uint64_t n, uint32_t tile, const char *what) {
  run_case<int64_t>(o, n, tile, what);
  if (fits<int32_t>(o) && n <= uint64_t(std::numeric_limits<int32_t>::max())) run_case<int32_t>(o, n, tile, what);
}

std::mt19937_64 rng;
uint64_t below(uint64_t k) { return k ? rng() % k : 0; }

/* Segment lengths of one of several shapes; n is their sum. */
Offsets random_offsets(uint64_t nseg, int shape, uint64_t *n) {
  Offsets o(nseg + 1, 0);
  for (uint64_t s = 1; s <= nseg; s++) {
    uint64_t len = 0;
    switch (shape) {
      case 0: len = below(4); break;                                   /* many tiny */
      case 1: len = below(5) == 0 ? below(3) : 0; break;               /* mostly empty */
      case 2: len = below(2000000); break;                             /* few huge */
      case 3: len = below(8) == 0 ? below(100000) : below(3); break;   /* mixed */
      case 4: len = below(16) == 0 ? 4096 * (1 + below(3)) : 0; break; /* tile multiples */
      default: len = below(5000); break;
    }
    o[s] = o[s - 1] + int64_t(len);
  }
  *n = uint64_t(o[nseg]);
  return o;
}

const uint32_t kTiles[] = {1, 2, 3, 7, 32, 1000, 2048, 4096};

void well_formed_cases() {
  for (uint32_t tile : kTiles) {
    run_all_types({0}, 0, tile, "nseg 0, n 0");
    for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(tile - 1), uint64_t(tile), uint64_t(tile) + 1,
                       uint64_t(5) * tile + 3, uint64_t(64) * tile})
      run_all_types({0, int64_t(n)}, n, tile, "nseg 1");
    run_all_types(Offsets(1000, 0), 0, tile, "n 0, all empty");
    Offsets a(1001, 0), b(1001, 100000);
    a.back() = 100000; /* empties, then one huge */
    b.front() = 0;     /* one huge, then empties */
    run_all_types(a, 100000, tile, "empties then one huge");
    run_all_types(b, 100000, tile, "one huge then empties");
  }
  for (int round = 0; round < 400; round++) {
    const int shape = int(below(6));
    const uint64_t nseg = shape == 2 ? 1 + below(40) : below(round < 300 ? 3000 : 200000);
    uint64_t n;
    const Offsets o = random_offsets(nseg, shape, &n);
    const uint32_t tile = kTiles[below(sizeof kTiles / sizeof kTiles[0])];
    if (n / tile > 4000000) continue; /* keep the tables small */
    run_all_types(o, n, tile, "random well-formed");
  }
}

void malformed_cases() {
  for (uint32_t tile : {1u, 3u, 2048u, 4096u}) {
    run_all_types({0}, 5, tile, "nseg 0, n 5");
    run_all_types({3}, 3, tile, "nseg 0, offsets[0] 3");
    run_all_types({-1, 10}, 10, tile, "first negative");
    run_all_types({0, 11}, 10, tile, "last beyond n");
    run_all_types({0, 9}, 10, tile, "last short of n");
    run_all_types({0, std::numeric_limits<int64_t>::max(), 10}, 10, tile, "INT64_MAX");
    run_all_types({0, std::numeric_limits<int64_t>::min(), 10}, 10, tile, "INT64_MIN");
    run_all_types({0, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), 10}, 10, tile,
                  "INT32 extremes");
    for (uint64_t nseg : {uint64_t(1), uint64_t(2), uint64_t(3), uint64_t(1000), uint64_t(100001)}) {
      const uint64_t n = 1000000;
      Offsets z(nseg + 1); /* zig-zag 0, n, 0, n, ... ending at n: one thread per offset wrote every tile */
      for (uint64_t s = 0; s <= nseg; s++) z[s] = s % 2 ? int64_t(n) : 0;
      z[nseg] = int64_t(n);
      run_all_types(z, n, tile, "zig-zag");
    }
  }
  for (int round = 0; round < 2000; round++) {
    const uint64_t nseg = 1 + below(round < 1500 ? 500 : 50000);
    uint64_t n;
    Offsets o = random_offsets(nseg, int(below(6)), &n);
    const uint32_t tile = kTiles[below(sizeof kTiles / sizeof kTiles[0])];
    if (n / tile > 4000000) continue;
    const uint64_t k = below(nseg + 1);
    const int64_t sn = int64_t(n);
    switch (round % 7) {
      case 0: o[k] = -1 - int64_t(below(1000)); break;                      /* negative */
      case 1: o[k] = sn + 1 + int64_t(below(1000)); break;                  /* beyond n */
      case 2: if (k > 0) o[k] = o[k - 1] - 1 - int64_t(below(10)); else o[0] = -1; break; /* decreasing */
      case 3: for (uint64_t s = 0; s <= nseg; s++) o[s] = int64_t(below(2 * n + 2)) - sn; break; /* garbage */
      case 4: for (uint64_t s = 0; s <= nseg; s++) o[s] = sn - o[s]; break; /* reversed */
      case 5: o[k] = int64_t(below(n + 1)); if (well_formed(o, n)) o[nseg] = sn + 1; break; /* out of place */
      default: o[0] = 1 + int64_t(below(10)); break;                       /* bad first */
    }
    if (well_formed(o, n)) continue; /* the change left it well-formed (e.g. reversing all-empty) */
    run_all_types(o, n, tile, "random malformed");
  }
}

}  // namespace

int main(int argc, char **argv) {
  const uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : uint64_t(std::time(nullptr));
  std::printf("check_tile_first: seed %" PRIu64 "\n", seed);
  rng.seed(seed);
  well_formed_cases();
  malformed_cases();
  std::printf("%" PRIu64 " cases (%" PRIu64 " malformed, int64 and int32 offsets): %s\n", g_cases,
              g_malformed_cases, g_failures ? "FAILED" : "all passed");
  return g_failures ? 1 : 0;
}
