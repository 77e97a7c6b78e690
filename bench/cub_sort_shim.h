/*
 * What bench_sort compares gpuprim's sort with: CUB's DeviceRadixSort as C
 * functions, plus the sort benchmark's own device helpers (random keys, a
 * device-side count of differences). Device pointers, default stream. Kept
 * apart from cub_shim.cu (its CUB instantiations are many); the timing and
 * buffers are cub_shim.h's.
 */
#ifndef GP_BENCH_CUB_SORT_SHIM_H
#define GP_BENCH_CUB_SORT_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "cub_shim.h"
#include "gpuprim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cub::DeviceRadixSort::SortKeys[Descending], keys_in -> keys_out. The
 * temporary storage is sized on first use and kept, as a user of CUB would.
 * Returns 0 on success. */
int cub_sort_keys(const void *keys_in, void *keys_out, size_t n, gpu_dtype t, int descending);
/* SortPairs[Descending]; value_bytes 4 or 8. */
int cub_sort_pairs(const void *keys_in, void *keys_out, const void *values_in, void *values_out, size_t n,
                   gpu_dtype t, size_t value_bytes, int descending);

/* n elements of `width` bytes (4 or 8) of uniformly random bits (seeded):
 * every digit of every key varies, so no radix pass can be skipped. */
void sort_bench_fill_bits(void *p, size_t n, size_t width, uint64_t seed);
/* Random keys of type t; floats all finite and no -0.0 (where CUB's order
 * differs from gpuprim's). */
void sort_bench_fill_keys(void *p, size_t n, gpu_dtype t, uint64_t seed);
/* Number of differing 4-byte words in two device arrays of `bytes` bytes. */
size_t sort_bench_differences(const void *a, const void *b, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
