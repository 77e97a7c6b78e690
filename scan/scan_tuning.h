/*
 * Tile shapes of the scan kernels, by element size. A tile is
 * THREADS x ROWS x VEC items, VEC * size = 16 bytes (one vector load).
 *
 * Measured on the H200 with bench/scan_tune (scan_pipelined, vs a copy):
 *   i32 add 2^28: 256x4 0.59, 256x8 0.70, 512x4 0.70, 512x8 0.80, 1024x4 0.83
 *   f64 max 2^27: 256x4 0.42, 256x8 0.55, 512x4 0.52, 512x8 0.55, 1024x4 0.53
 * Big tiles win: every tile pays a look-back round trip and four barriers
 * (ncu: 45% of warp cycles wait at barriers). Three stages of 64 KiB leave
 * one block per SM.
 */
#pragma once

#include "scan/device/tile_io.cuh"

namespace gp {

template <int ELEMENT_BYTES> struct scan_tuning;
template <> struct scan_tuning<4> {
  using shape = tile_shape<1024, 4, 4>; /* 16384 items, 64 KiB a tile */
};
template <> struct scan_tuning<8> {
  using shape = tile_shape<512, 8, 2>; /* 8192 items, 64 KiB a tile */
};

/* The reference path: Blelloch over 256 threads of 4 items. */
constexpr int REFERENCE_THREADS = 256;
constexpr int REFERENCE_ITEMS = 4;

}  // namespace gp
