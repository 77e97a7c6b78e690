/*
 * What the developer tools built by hand in tools/ (seg_bits_diff.c)
 * share: a fixed pseudo-random sequence, so that their inputs are the same
 * on every run and build, and a check that ends the tool on any gpuprim
 * error.
 */
#ifndef GPUPRIM_TOOL_COMMON_H
#define GPUPRIM_TOOL_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpuprim.h"

static uint64_t rng_state = 88172645463325252ull;
static inline uint64_t rng_next(void) { /* xorshift64 */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

#define CHECK(call)                                                                    \
  do {                                                                                 \
    gpu_status s_ = (call);                                                            \
    if (s_ != GPU_OK) {                                                                \
      fprintf(stderr, "%s: %s (%s)\n", #call, gpu_status_string(s_), gpu_last_error()); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

#endif
