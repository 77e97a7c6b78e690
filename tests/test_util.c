#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static uint64_t rng[4];

static uint64_t splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void tu_init(const char *suite) {
  const char *env = getenv("GPUPRIM_TEST_SEED");
  uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) rng[i] = splitmix(&x);
  printf("%s: seed %llu (GPUPRIM_TEST_SEED=%llu replays it)\n", suite, (unsigned long long)seed,
         (unsigned long long)seed);
  fflush(stdout);
}

void tu_require_cuda(const char *suite) {
  if (gpu_set_backend(GPU_BACKEND_CUDA) != GPU_OK) abort();
  void *p = NULL;
  gpu_status s = gpu_alloc(&p, 16);
  if (s != GPU_OK) {
    printf("%s: SKIPPED: %s (%s)\n", suite, gpu_status_string(s), gpu_last_error());
    fflush(stdout);
    exit(77);
  }
  gpu_free(p);
}

bool tu_quick(void) {
  const char *q = getenv("GPUPRIM_TEST_QUICK");
  return q && *q && strcmp(q, "0") != 0;
}

bool tu_in_shard(size_t item) {
  static bool parsed = false;
  static unsigned long shard = 0, shards = 1;
  if (!parsed) {
    const char *e = getenv("GPUPRIM_TEST_SHARD");
    if (e && *e) {
      char *slash = NULL, *end = NULL;
      shard = strtoul(e, &slash, 10);
      shards = slash && *slash == '/' ? strtoul(slash + 1, &end, 10) : 0;
      if (slash == e || !end || end == slash + 1 || *end || shards == 0 || shard >= shards) {
        fprintf(stderr, "GPUPRIM_TEST_SHARD=%s: expected k/N with 0 <= k < N\n", e);
        exit(2);
      }
    }
    parsed = true;
  }
  return item % shards == shard;
}

int tu_run(Suite *s, bool nofork) {
  SRunner *sr = srunner_create(s);
  if (nofork) srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

int tu_main(const char *name, bool cuda, Suite *(*make)(void)) {
  if (cuda) tu_require_cuda(name);
  else gpu_set_backend(GPU_BACKEND_HOST);
  tu_init(name);
  int rc = tu_run(make(), cuda);
  /* What the library keeps for later calls (pool, look-back workspaces) is
   * handed back, so that compute-sanitizer's leak check sees real leaks only. */
  if (cuda) gpu_release_cached_memory();
  return rc;
}

TCase *tu_tcase(const char *name) {
  TCase *tc = tcase_create(name);
  tcase_set_timeout(tc, 3600);
  return tc;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t tu_rand(void) {
  uint64_t r = rotl(rng[1] * 5, 7) * 9, t = rng[1] << 17;
  rng[2] ^= rng[0];
  rng[3] ^= rng[1];
  rng[1] ^= rng[2];
  rng[0] ^= rng[3];
  rng[2] ^= t;
  rng[3] = rotl(rng[3], 45);
  return r;
}

double tu_uniform(void) { return (double)(tu_rand() >> 11) * 0x1.0p-53; }

uint64_t tu_below(uint64_t bound) { return bound ? tu_rand() % bound : 0; }

static double special_float(void) {
  static const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0};
  return specials[tu_below(sizeof specials / sizeof specials[0])];
}

void tu_fill(void *host, size_t n, gpu_dtype t, tu_kind kind) {
  for (size_t i = 0; i < n; i++) {
    uint64_t r = tu_rand();
    int64_t small = (int64_t)(r % 16) - 8;
    double f = 0;
    switch (kind) {
      case TU_SMALL: f = (double)small; break;
      case TU_FULL: f = tu_uniform() * 2 - 1; break;
      case TU_NEAR_ONE: /* +-1, and now and then 2 or 1/2: every product is exact */
        f = (r >> 40) % 32768 == 0 ? 2.0 : (r >> 40) % 32768 == 1 ? 0.5 : (r & 1) ? 1.0 : -1.0;
        break;
      case TU_SPECIAL: f = (r & 7) == 0 ? special_float() : tu_uniform() * 2 - 1; break;
    }
    int64_t iv = small;
    if (kind == TU_FULL) iv = (int64_t)r;
    if (kind == TU_NEAR_ONE) {
      static const int64_t ones[] = {1, 3, -1, 5};
      iv = ones[r % 4];
    }
    if (kind == TU_SPECIAL && (r & 3) == 0) iv = (r & 4) ? INT64_MAX : INT64_MIN;
    switch (t) {
      case GPU_I32: ((int32_t *)host)[i] = kind == TU_SPECIAL && (r & 3) == 0 ? ((r & 4) ? INT32_MAX : INT32_MIN) : (int32_t)iv; break;
      case GPU_U32: ((uint32_t *)host)[i] = kind == TU_SMALL ? (uint32_t)(r % 16) : (uint32_t)iv; break;
      case GPU_I64: ((int64_t *)host)[i] = iv; break;
      case GPU_U64: ((uint64_t *)host)[i] = kind == TU_SMALL ? r % 16 : (uint64_t)iv; break;
      case GPU_F32: ((float *)host)[i] = (float)f; break;
      case GPU_F64: ((double *)host)[i] = f; break;
    }
  }
}

const size_t tu_sizes[] = {
    0, 1, 2, 3, 7, 31, 32, 33, 39, 63, 64, 65, 127, 128, 129, 255, 256, 257, 500, 511, 512, 513,
    1000, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 8193, 16383, 16384,
    16385, 32767, 32768, 32769, 45537, 65535, 65536, 65537, 131072, 262143, 262144, 262145,
    500001, 524288, 1048575, 1048576, 1048577, 1048581, 2097152, 4194304, 8388608, 8388617};
const size_t tu_nsizes = sizeof tu_sizes / sizeof tu_sizes[0];

void *tu_xmalloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "test: out of host memory (%zu bytes)\n", bytes);
    abort();
  }
  return p;
}

void *tu_alloc(size_t bytes) {
  void *p = NULL;
  gpu_status s = gpu_alloc(&p, bytes);
  ck_assert_msg(s == GPU_OK, "gpu_alloc(%zu): %s", bytes, gpu_last_error());
  return p;
}

void tu_free(void *p) { ck_assert_msg(gpu_free(p) == GPU_OK, "gpu_free: %s", gpu_last_error()); }

void tu_upload(void *dst, const void *host, size_t bytes) {
  ck_assert_msg(gpu_upload(dst, host, bytes) == GPU_OK, "gpu_upload: %s", gpu_last_error());
}

void tu_download(void *host, const void *src, size_t bytes) {
  ck_assert_msg(gpu_download(host, src, bytes) == GPU_OK, "gpu_download: %s", gpu_last_error());
}

void tu_poison(void *p, size_t bytes) {
  if (!bytes) return;
  enum { CHUNK = 1 << 24 };
  size_t len = bytes < CHUNK ? bytes : CHUNK;
  unsigned char *h = tu_xmalloc(len);
  memset(h, 0xA5, len);
  for (size_t off = 0; off < bytes; off += len)
    tu_upload((char *)p + off, h, bytes - off < len ? bytes - off : len);
  free(h);
}

double tu_get_f(const void *a, size_t i, gpu_dtype t) {
  switch (t) {
    case GPU_I32: return ((const int32_t *)a)[i];
    case GPU_U32: return ((const uint32_t *)a)[i];
    case GPU_I64: return (double)((const int64_t *)a)[i];
    case GPU_U64: return (double)((const uint64_t *)a)[i];
    case GPU_F32: return ((const float *)a)[i];
    case GPU_F64: return ((const double *)a)[i];
  }
  return 0;
}

uint64_t tu_get_bits(const void *a, size_t i, gpu_dtype t) {
  size_t w = gpu_dtype_size(t);
  if (w == 4) {
    uint32_t v;
    memcpy(&v, (const char *)a + i * 4, 4);
    return v;
  }
  uint64_t v;
  memcpy(&v, (const char *)a + i * 8, 8);
  return v;
}

bool tu_close(const void *a, const void *b, size_t i, gpu_dtype t, double rel, double scale) {
  if (t != GPU_F32 && t != GPU_F64) return tu_get_bits(a, i, t) == tu_get_bits(b, i, t);
  double x = tu_get_f(a, i, t), y = tu_get_f(b, i, t);
  if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
  if (x == y) return true;
  if (isinf(x) || isinf(y)) return false;
  return fabs(x - y) <= rel * scale;
}

static const char *data_root(void) {
  const char *root = getenv("GPUPRIM_TEST_DATA");
  return root && *root ? root : GPUPRIM_TEST_DATA_DEFAULT;
}

const char *tu_data_path(const char *relative) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/%s", data_root(), relative);
  struct stat st;
  return stat(path, &st) == 0 ? path : NULL;
}

const char *tu_need_data(const char *relative) {
  const char *p = tu_data_path(relative);
  if (!p) ck_abort_msg("test data %s/%s is missing", data_root(), relative);
  return p;
}

void tu_require_data(const char *suite, const char *relative) {
  if (tu_data_path(relative)) return;
  fprintf(stderr, "%s: FAILED: no %s in the test data folder %s (set GPUPRIM_TEST_DATA)\n", suite, relative,
          data_root());
  exit(1);
}
