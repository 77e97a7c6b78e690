// bench_runs_floor's copies (runs_floor.cu): the grid and tiles of gpuprim's
// scans by runs, static runs or tiles by ticket, no scan work.
#ifndef GP_BENCH_RUNS_FLOOR_H
#define GP_BENCH_RUNS_FLOOR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device state of the copies: the tile ticket (zeroed once; it only grows,
 * `base` is its value when the next dynamic launch starts), and 3 words a
 * block that each launch writes: start and end (%globaltimer, ns) and tiles
 * copied. */
typedef struct {
  unsigned long long *ticket;
  unsigned long long base;
  unsigned long long *stamps;
} runs_floor_state;

size_t runs_floor_tile_bytes(void); /* bytes a tile: copies move whole tiles */
int runs_floor_blocks(void);        /* the grid: two blocks an SM */
/* Copies bytes (a whole number of tiles) from src to dst on the default
 * stream: static runs (dynamic 0) or tiles by ticket (1). */
void runs_floor_copy(void *dst, const void *src, size_t bytes, int dynamic, runs_floor_state *state);

#ifdef __cplusplus
}
#endif

#endif
