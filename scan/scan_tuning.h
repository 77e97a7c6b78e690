/*
 * Tile shapes of the scan kernels, by element size. A tile is
 * THREADS x ROWS x VEC items, VEC * size = 16 bytes (one vector load).
 * Measured on the H200 with bench/scan_tune (see bench/README.md).
 */
#pragma once

#include "device/tile_io.cuh"

namespace gp {

template <int ELEMENT_BYTES> struct scan_tuning;
template <> struct scan_tuning<4> {
  using shape = tile_shape<256, 8, 4>; /* 8192 items, 32 KiB a tile */
};
template <> struct scan_tuning<8> {
  using shape = tile_shape<256, 8, 2>; /* 4096 items, 32 KiB a tile */
};

/* The reference path: Blelloch over 256 threads of 4 items. */
constexpr int REFERENCE_THREADS = 256;
constexpr int REFERENCE_ITEMS = 4;

}  // namespace gp
