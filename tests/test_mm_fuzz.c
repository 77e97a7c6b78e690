/*
 * gpu_csr_read_mm never crashes: every small shared matrix, every bad/ file
 * and a few hand-written ones, mutated at random (bytes replaced, inserted,
 * deleted, lines duplicated, truncated) and every prefix of one file. Each
 * read must return OK (and then a matrix that validates), PARSE or
 * UNSUPPORTED, leave A untouched on error, and name the file in a parse
 * message. Run it under valgrind to catch reads out of bounds.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_ref.h"
#include "test_util.h"

typedef struct {
  char *bytes;
  size_t len;
} text;

static text load(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  text t = {tu_xmalloc((size_t)n + 1), (size_t)n};
  ck_assert(fread(t.bytes, 1, t.len, f) == t.len);
  fclose(f);
  return t;
}

/* Bytes a mutation likes to write: the file's own alphabet and its enemies. */
static char interesting_byte(void) {
  static const char pool[] = "0123456789 \t\n\r-+.eE%x\0\v";
  return tu_below(8) == 0 ? (char)tu_below(256) : pool[tu_below(sizeof pool - 1)];
}

/* Applies 1 to 4 random mutations to t (in place; cap bytes available). */
static void mutate(text *t, size_t cap) {
  int n = 1 + (int)tu_below(4);
  for (int m = 0; m < n; m++) {
    size_t at = t->len ? tu_below(t->len) : 0;
    switch (tu_below(6)) {
      case 0:
      case 1: /* replace a byte */
        if (t->len) t->bytes[at] = interesting_byte();
        break;
      case 2: /* insert a byte */
        if (t->len + 1 < cap) {
          memmove(t->bytes + at + 1, t->bytes + at, t->len - at);
          t->bytes[at] = interesting_byte();
          t->len++;
        }
        break;
      case 3: { /* delete up to 8 bytes */
        size_t k = 1 + tu_below(8);
        if (k > t->len - at) k = t->len - at;
        memmove(t->bytes + at, t->bytes + at + k, t->len - at - k);
        t->len -= k;
        break;
      }
      case 4: { /* duplicate the line holding `at` */
        size_t b = at, e = at;
        while (b > 0 && t->bytes[b - 1] != '\n') b--;
        while (e < t->len && t->bytes[e] != '\n') e++;
        if (e < t->len) e++;
        if (t->len + (e - b) < cap) {
          memmove(t->bytes + e + (e - b), t->bytes + e, t->len - e);
          memcpy(t->bytes + e, t->bytes + b, e - b);
          t->len += e - b;
        }
        break;
      }
      default: /* truncate */ t->len = at;
    }
  }
}

static long outcomes[3];

/* Reads one candidate file and checks the rules in the header comment. */
static void read_one(const char *path) {
  gpu_dtype vt = tu_below(2) ? GPU_F32 : GPU_F64, it = tu_below(2) ? GPU_I32 : GPU_I64;
  gpu_csr A, before;
  memset(&A, 0x5A, sizeof A);
  before = A;
  gpu_status s = gpu_csr_read_mm(path, vt, it, &A);
  ck_assert_msg(s == GPU_OK || s == GPU_ERR_PARSE || s == GPU_ERR_UNSUPPORTED, "%s: %s (%s)", path,
                gpu_status_string(s), gpu_last_error());
  if (s == GPU_OK) {
    ck_assert_msg(gpu_csr_validate(&A) == GPU_OK, "%s", gpu_last_error());
    ck_assert(gpu_csr_free(&A) == GPU_OK);
    outcomes[0]++;
    return;
  }
  ck_assert(memcmp(&A, &before, sizeof A) == 0);
  if (s == GPU_ERR_PARSE)
    ck_assert_msg(strncmp(gpu_last_error(), path, strlen(path)) == 0, "%s", gpu_last_error());
  outcomes[s == GPU_ERR_PARSE ? 1 : 2]++;
}

static void fuzz_text(const text *seed, int rounds) {
  size_t cap = seed->len * 2 + 64;
  text t = {tu_xmalloc(cap), 0};
  for (int r = 0; r < rounds; r++) {
    memcpy(t.bytes, seed->bytes, seed->len);
    t.len = seed->len;
    mutate(&t, cap);
    read_one(ref_tmp_write("fuzz.mtx", t.bytes, t.len));
  }
  free(t.bytes);
}

static void fuzz_file(const char *path, int rounds) {
  text seed = load(path);
  fuzz_text(&seed, rounds);
  free(seed.bytes);
}

static const char *const small_matrices[] = {
    "cage5.mtx",    "karate.mtx",  "LFAT5_hypersparse.mtx", "empty.mtx",   "duplicates.mtx",
    "Erdos971.mtx", "494_bus.mtx", "west0479.mtx",          "lp_e226.mtx", "young1c.mtx"};

static const char *const hand_written[] = {
    "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1.5\n2 1 -2e-3\n3 2 7\n3 3 .25\n",
    "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 1 -1.25e+2\n",
    "%%MatrixMarket matrix coordinate integer general\n2 3 3\n1 1 -7\n2 3 12\n1 1 4\n",
    "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n4 4 3\n2 1\n3 1\n4 4\n",
};

START_TEST(mutated_files) {
  ref_tmp_begin();
  int rounds = tu_quick() ? 40 : 2000;
  for (size_t k = 0; k < sizeof hand_written / sizeof hand_written[0]; k++) {
    text seed = {(char *)hand_written[k], strlen(hand_written[k])};
    fuzz_text(&seed, rounds);
  }
  for (size_t k = 0; k < sizeof small_matrices / sizeof small_matrices[0]; k++) {
    char rel[256];
    snprintf(rel, sizeof rel, "matrices/%s", small_matrices[k]);
    const char *p = tu_need_data(rel);
    char path[4096];
    snprintf(path, sizeof path, "%s", p);
    fuzz_file(path, k < 5 ? rounds : rounds / 8);
  }
  const char *bad = tu_need_data("matrices/bad");
  {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", bad);
    DIR *d = opendir(dir);
    ck_assert(d != NULL);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
      if (e->d_name[0] == '.') continue;
      char path[4352];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      fuzz_file(path, rounds / 4);
    }
    closedir(d);
  }
  printf("mutated files: %ld read, %ld parse errors, %ld unsupported\n", outcomes[0], outcomes[1],
         outcomes[2]);
  ref_tmp_end();
}
END_TEST

/* Every prefix of a file that exercises each part of the grammar. */
START_TEST(every_truncation) {
  ref_tmp_begin();
  const char *t = hand_written[0];
  for (size_t len = 0; len <= strlen(t); len++) read_one(ref_tmp_write("cut.mtx", t, len));
  ref_tmp_end();
}
END_TEST

/* A file of exactly one page whose last value runs to the last byte, with no
 * newline: a mapped file has nothing readable after it. */
START_TEST(value_at_the_end_of_a_page) {
  ref_tmp_begin();
  enum { PAGE = 4096 };
  char *buf = tu_xmalloc(PAGE);
  const char *head = "%%MatrixMarket matrix coordinate real general\n1 1 1\n% ";
  size_t len = strlen(head);
  memcpy(buf, head, len);
  const char *tail = "\n1 1 0.12345678901234567890123";
  size_t pad = PAGE - len - strlen(tail);
  memset(buf + len, 'x', pad);
  memcpy(buf + len + pad, tail, strlen(tail));
  gpu_csr A;
  const char *path = ref_tmp_write("page.mtx", buf, PAGE);
  for (int t = 0; t < 2; t++) {
    ck_assert_msg(gpu_csr_read_mm(path, t ? GPU_F64 : GPU_F32, GPU_I32, &A) == GPU_OK, "%s",
                  gpu_last_error());
    double v = 0;
    if (t) tu_download(&v, A.values, sizeof v);
    if (t) ck_assert(v == 0.12345678901234567890123);
    ck_assert(gpu_csr_free(&A) == GPU_OK);
  }
  buf[PAGE - 1] = 'e'; /* now the value is malformed at the very end */
  path = ref_tmp_write("page.mtx", buf, PAGE);
  ck_assert(gpu_csr_read_mm(path, GPU_F64, GPU_I32, &A) == GPU_ERR_PARSE);
  buf[PAGE - 1] = '-';
  buf[PAGE - 2] = '1';
  buf[PAGE - 3] = ' ';
  buf[PAGE - 4] = '1';
  path = ref_tmp_write("page.mtx", buf, PAGE);
  ck_assert(gpu_csr_read_mm(path, GPU_F64, GPU_I32, &A) == GPU_ERR_PARSE);
  free(buf);
  ref_tmp_end();
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("mm_fuzz");
  TCase *tc = tu_tcase("fuzz");
  tcase_add_test(tc, mutated_files);
  tcase_add_test(tc, every_truncation);
  tcase_add_test(tc, value_at_the_end_of_a_page);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  tu_require_data("test_mm_fuzz", "matrices");
  return tu_main(TU_THIS_BACKEND_IS_CUDA ? "test_mm_fuzz_cuda" : "test_mm_fuzz_host", TU_THIS_BACKEND_IS_CUDA, suite);
}
