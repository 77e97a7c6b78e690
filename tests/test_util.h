/*
 * Helpers every suite shares: reproducible random inputs, poisoned outputs,
 * backend memory, the awkward sizes of DESIGN.md, and the GPU skip rule.
 */
#ifndef GP_TEST_UTIL_H
#define GP_TEST_UTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprim.h"

/* Prints the suite's name, backend and random seed (GPUPRIM_TEST_SEED=... to
 * replay a run); call first in main. */
void tu_init(const char *suite);
/* For suites that need the CUDA backend: selects it, or prints why there is
 * none and exits with 77 (ctest: skipped). */
void tu_require_cuda(const char *suite);
/* GPUPRIM_TEST_QUICK=1 (under compute-sanitizer): smaller sizes. */
bool tu_quick(void);
/* GPUPRIM_TEST_SHARD=k/N (compute-sanitizer's slow tools, N processes side
 * by side): item i of a sharded test is this process's when i % N == k;
 * every item where it is unset. A malformed value exits with status 2. */
bool tu_in_shard(size_t item);

/* Runs a suite; CUDA suites must not fork after CUDA starts (nofork = true).
 * Returns the process exit code. */
int tu_run(Suite *s, bool nofork);

/* The whole main() of a suite built twice, for the host backend and (with
 * TU_CUDA=1) for the CUDA backend: picks the backend or skips, prints the
 * seed, runs `make()` without forking on CUDA. */
#if defined(TU_CUDA) && TU_CUDA
#  define TU_THIS_BACKEND_IS_CUDA true
#else
#  define TU_THIS_BACKEND_IS_CUDA false
#endif
int tu_main(const char *name, bool cuda, Suite *(*make)(void));
/* A test case without Check's 4-second limit. */
TCase *tu_tcase(const char *name);

/* xoshiro256** seeded once per process. */
uint64_t tu_rand(void);
double tu_uniform(void); /* [0, 1) */
uint64_t tu_below(uint64_t bound);

/* Kinds of random contents. */
typedef enum {
  TU_SMALL,     /* integers in [-8, 8) (unsigned: [0, 16)); floats the same, exact */
  TU_FULL,      /* integers over the whole range; floats in [-1, 1) */
  TU_NEAR_ONE,  /* floats +-1 with rare 2 and 1/2 (exact products), integers in {1, 3, -1, 5} */
  TU_SPECIAL    /* floats with NaN, +-inf, +-0 sprinkled in; integers at their extremes */
} tu_kind;
void tu_fill(void *host, size_t n, gpu_dtype t, tu_kind kind);

/* The sizes of DESIGN.md: 0, 1, 2, 31..33, tile-size neighbours, primes, CUDPP's. */
extern const size_t tu_sizes[];
extern const size_t tu_nsizes;

/* Backend memory, aborting the test on failure. */
void *tu_alloc(size_t bytes);
void tu_free(void *p);
void tu_upload(void *dst, const void *host, size_t bytes);
void tu_download(void *host, const void *src, size_t bytes);
/* Fills backend memory with a poison byte pattern (0xA5), so unwritten output shows. */
void tu_poison(void *p, size_t bytes);
void *tu_xmalloc(size_t bytes); /* host malloc that aborts on failure */

/* Element i of a host array of type t, as double / as raw 64 bits. */
double tu_get_f(const void *a, size_t i, gpu_dtype t);
uint64_t tu_get_bits(const void *a, size_t i, gpu_dtype t);
/* Whether two elements agree: integers exactly; floats equal, both NaN, or
 * within rel * scale (scale: a bound on the magnitude of what was summed). */
bool tu_close(const void *a, const void *b, size_t i, gpu_dtype t, double rel, double scale);

/* The path of a file under the test data folder (the environment's
 * GPUPRIM_TEST_DATA, else the CMake cache variable of that name), or NULL
 * when it is absent. Returns a static buffer. */
const char *tu_data_path(const char *relative);
/* The same, failing the running test where the file is absent. */
const char *tu_need_data(const char *relative);
/* Exits with status 1, saying why, where the suite's data is absent: the
 * data ships in tests/data, so its absence is a broken checkout or a wrong
 * GPUPRIM_TEST_DATA, and a suite that needs it fails without it (a skip
 * would leave the run green). */
void tu_require_data(const char *suite, const char *relative);

#endif
