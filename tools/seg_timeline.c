/*
 * Where a scan over offsets by runs spends its time, block by block: runs
 * gpu_segscan_offsets (i32 ADD, inclusive) six times on each of 2^26 and
 * 2^28 elements with random segments of mean 64 and 4096 (lengths uniform
 * in 1 .. 2 mean - 1; with GPUPRIM_TL_GEOMETRIC=1 geometric, as
 * bench_segmented's), and prints one
 * "CALL ..." line a call with the host's time from before the call to
 * after gpu_synchronize (host_us). Against a library built
 * with GP_RUNS_TIMELINE=1 (seg_runs.cuh) every block of seg_runs also
 * prints a "TL ..." line before its call's: the %globaltimer stamps of its
 * steps (ticket, table search and build, loop, second tile, loop end,
 * look-back, end). tools/seg-timeline.sh sums those lines up. Not a test
 * and not a benchmark (the prints slow the calls' ends); a developer tool:
 *
 *   cmake -S . -B build-tl -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS=-DGP_RUNS_TIMELINE=1
 *   cmake --build build-tl -j --target gpuprim
 *   gcc -O2 -std=c11 -Iinclude tools/seg_timeline.c -Lbuild-tl -lgpuprim -o /tmp/seg_timeline
 *   LD_LIBRARY_PATH=build-tl /tmp/seg_timeline | tools/seg-timeline.sh
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tool_common.h" /* gpuprim.h, CHECK, rng_next */

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(void) {
  const size_t sizes[] = {(size_t)1 << 26, (size_t)1 << 28};
  const size_t means[] = {64, 4096};
  const size_t NMAX = (size_t)1 << 28;
  /* GPUPRIM_TL_GEOMETRIC=1: geometric lengths, as bench_segmented makes them. */
  const char *g = getenv("GPUPRIM_TL_GEOMETRIC");
  const int geometric = g && g[0] == '1';
  int32_t *in = malloc(NMAX * sizeof(int32_t));
  int64_t *offsets = malloc((NMAX + 1) * sizeof(int64_t));
  if (!in || !offsets) return fprintf(stderr, "out of memory\n"), 1;
  for (size_t i = 0; i < NMAX; i++) in[i] = (int32_t)(rng_next() >> 50);
  void *d_in, *d_out, *d_offsets;
  CHECK(gpu_alloc(&d_in, NMAX * sizeof(int32_t)));
  CHECK(gpu_alloc(&d_out, NMAX * sizeof(int32_t)));
  CHECK(gpu_alloc(&d_offsets, (NMAX + 1) * sizeof(int64_t)));
  CHECK(gpu_upload(d_in, in, NMAX * sizeof(int32_t)));
  for (size_t si = 0; si < 2; si++)
    for (size_t mi = 0; mi < 2; mi++) {
      const size_t n = sizes[si];
      size_t nseg = 0;
      offsets[0] = 0;
      if (geometric) { /* bench_segmented's: each element starts a segment with probability 1 / mean */
        for (size_t i = 1; i < n; i++)
          if (rng_next() % means[mi] == 0) offsets[++nseg] = (int64_t)i;
        offsets[++nseg] = (int64_t)n;
      } else {
        for (size_t p = 0; p < n;) { /* lengths 1 .. 2 x mean - 1 */
          size_t len = 1 + rng_next() % (2 * means[mi] - 1);
          if (len > n - p) len = n - p;
          p += len;
          offsets[++nseg] = (int64_t)p;
        }
      }
      CHECK(gpu_upload(d_offsets, offsets, (nseg + 1) * sizeof(int64_t)));
      for (int r = 0; r < 6; r++) {
        CHECK(gpu_synchronize());
        fflush(stdout); /* the earlier calls' TL lines stay before this one's */
        const double t0 = now_us();
        CHECK(gpu_segscan_offsets(d_in, d_out, n, d_offsets, nseg, GPU_I32, GPU_ADD, GPU_INCLUSIVE));
        CHECK(gpu_synchronize());
        printf("CALL n=%zu L=%zu r=%d host_us=%.1f\n", n, means[mi], r, now_us() - t0);
        fflush(stdout);
      }
    }
  gpu_free(d_in);
  gpu_free(d_out);
  gpu_free(d_offsets);
  free(in);
  free(offsets);
  return 0;
}
