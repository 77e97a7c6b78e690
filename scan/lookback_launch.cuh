/*
 * Host side of the look-back (device/lookback.cuh): the tile state a
 * single-pass launch borrows from core's pool, sized for its tiles. Used by
 * the scans and by every module whose kernels take part in the look-back.
 */
#pragma once

#include "core/core.h"
#include "scan/device/lookback.cuh"

namespace gp {

/* Look-back state for `tiles` tiles of T (plus `extra_words` after it), for
 * a launch whose blocks take `counter_takes` indices from the counter. */
template <typename T>
gpu_status prepare_lookback(const char *fn, uint64_t tiles, size_t extra_words, uint64_t counter_takes, lookback_args *lb,
                            gp_tilestate *ts, uint64_t **extra) {
  *lb = lookback_args{};
  lb->tiles = uint32_t(tiles);
  lb->levels = 1;
  if (tiles == 1 && extra_words == 0) return GPU_OK;
  lookback_layout layout = lookback_plan(uint32_t(tiles));
  size_t words = layout.entries * tagged<T>::WORDS;
  gpu_status s = gp_tilestate_acquire(fn, words + extra_words, counter_takes, ts);
  if (s != GPU_OK) return s;
  lb->words = ts->words;
  lb->counter = ts->counter;
  lb->counter_base = ts->counter_base;
  lb->epoch = ts->epoch;
  lb->levels = layout.levels;
  if (extra) *extra = ts->words + words;
  return GPU_OK;
}

}  // namespace gp
