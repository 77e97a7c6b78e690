/*
 * gpu_csr_read_mm on valid input: the shared real matrices, hand-written edge
 * cases, random matrices and random decimal values, each checked entry by
 * entry against the test's own reference reader (mm_ref.c), on the current
 * backend (host, or CUDA with TU_CUDA).
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mm_ref.h"
#include "test_util.h"

static const gpu_dtype value_types[] = {GPU_F32, GPU_F64};

static const char *type_name(gpu_dtype t) {
  switch (t) {
    case GPU_I32: return "i32";
    case GPU_I64: return "i64";
    case GPU_F32: return "f32";
    case GPU_F64: return "f64";
    default: return "?";
  }
}
static const gpu_dtype index_types[] = {GPU_I32, GPU_I64};

/* Reads path with the library and the reference and compares them; also
 * checks gpu_csr_validate agrees and gpu_csr_free clears A. */
static void check_file(const char *path, gpu_dtype vt, gpu_dtype it) {
  char why[512];
  ref_csr want, got;
  ck_assert_msg(ref_read_mm(path, vt, &want, why, sizeof why), "%s", why);
  gpu_csr A;
  gpu_status s = gpu_csr_read_mm(path, vt, it, &A);
  ck_assert_msg(s == GPU_OK, "%s (%s, %s): %s", path, type_name(vt), type_name(it),
                gpu_last_error());
  ck_assert(A.value_type == vt && A.index_type == it);
  ck_assert_msg(gpu_csr_validate(&A) == GPU_OK, "%s", gpu_last_error());
  ref_download(&A, &got);
  bool same = ref_equal(&got, &want, why, sizeof why);
  ck_assert_msg(same, "%s (%s, %s): %s", path, type_name(vt), type_name(it), why);
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  gpu_csr zero;
  memset(&zero, 0, sizeof zero);
  ck_assert(memcmp(&A, &zero, sizeof A) == 0);
  ref_free(&want);
  ref_free(&got);
}

static void check_all_types(const char *path) {
  for (int v = 0; v < 2; v++)
    for (int i = 0; i < 2; i++) check_file(path, value_types[v], index_types[i]);
}

/* The path of a test matrix; the running test fails where it is absent. */
static const char *matrix(const char *name) {
  char rel[256];
  snprintf(rel, sizeof rel, "matrices/%s", name);
  return tu_need_data(rel);
}

/* Reads a matrix that must be valid, as f64/i64, for tests that look inside. */
static bool read_f64(const char *path, ref_csr *got) {
  gpu_csr A;
  ck_assert_msg(gpu_csr_read_mm(path, GPU_F64, GPU_I64, &A) == GPU_OK, "%s", gpu_last_error());
  ref_download(&A, got);
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  return true;
}

/* ------------------------------------------------------ shared matrices */

START_TEST(every_shared_matrix) {
  static const char *const names[] = {"west0479.mtx", "cage5.mtx",    "494_bus.mtx",
                                      "bcsstk13.mtx", "cryg2500.mtx", "bayer10.mtx",
                                      "arrow.mtx",    "rajat01.mtx",  "pushpull.mtx",
                                      "karate.mtx",   "Erdos971.mtx", "LFAT5_hypersparse.mtx",
                                      "lp_e226.mtx",  "empty.mtx",    "duplicates.mtx"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    const char *p = matrix(names[k]);
    char path[4096];
    snprintf(path, sizeof path, "%s", p);
    check_all_types(path);
    printf("%s: read as f32/f64 x i32/i64, same as the reference\n", names[k]);
  }
}
END_TEST

START_TEST(duplicates_are_summed) {
  const char *p = matrix("duplicates.mtx");
  ref_csr got;
  read_f64(p, &got);
  /* (2,2) 1-based is row 1, column 1 0-based: one entry of 10.5. */
  int found = 0;
  for (int64_t k = got.row_ptr[1]; k < got.row_ptr[2]; k++)
    if (got.col_idx[k] == 1) {
      found++;
      ck_assert_msg(got.values[k] == 10.5, "(2,2) = %g", got.values[k]);
    }
  ck_assert_int_eq(found, 1);
  ck_assert_int_eq(got.nnz, 2);
  ref_free(&got);
}
END_TEST

/* A pattern symmetric file reads as a symmetric matrix of ones, both halves. */
static void check_pattern_symmetric(const char *name, int64_t n, int64_t stored) {
  const char *p = matrix(name);
  ref_csr got;
  read_f64(p, &got);
  ck_assert_int_eq(got.rows, n);
  ck_assert_int_eq(got.cols, n);
  int64_t diagonal = 0;
  for (int64_t r = 0; r < n; r++)
    for (int64_t k = got.row_ptr[r]; k < got.row_ptr[r + 1]; k++) {
      int64_t c = got.col_idx[k];
      diagonal += c == r;
      ck_assert(got.values[k] == 1.0);
      if (k > got.row_ptr[r]) ck_assert(got.col_idx[k - 1] < c);
      bool mirrored = false; /* (c, r) must be there too */
      for (int64_t m = got.row_ptr[c]; m < got.row_ptr[c + 1]; m++) mirrored |= got.col_idx[m] == r;
      ck_assert_msg(mirrored, "%s: (%lld,%lld) without its mirror", name, (long long)r,
                    (long long)c);
    }
  ck_assert_int_eq(got.nnz, 2 * stored - diagonal);
  ref_free(&got);
}

START_TEST(pattern_symmetric_is_expanded) {
  check_pattern_symmetric("karate.mtx", 34, 78);
  check_pattern_symmetric("pushpull.mtx", 4000, 99208);
}
END_TEST

START_TEST(rectangular_and_empty) {
  const char *p = matrix("lp_e226.mtx");
  if (p) {
    ref_csr got;
    read_f64(p, &got);
    ck_assert_int_eq(got.rows, 223);
    ck_assert_int_eq(got.cols, 472);
    ck_assert_int_eq(got.nnz, 2768);
    ref_free(&got);
  }
  p = matrix("empty.mtx");
  if (p) {
    for (int i = 0; i < 2; i++) {
      gpu_csr A;
      ck_assert(gpu_csr_read_mm(p, GPU_F32, index_types[i], &A) == GPU_OK);
      ck_assert_int_eq(A.rows, 3);
      ck_assert_int_eq(A.cols, 4);
      ck_assert_int_eq(A.nnz, 0);
      ck_assert(A.row_ptr != NULL);
      ck_assert(gpu_csr_validate(&A) == GPU_OK);
      ref_csr got;
      ref_download(&A, &got);
      for (int r = 0; r <= 3; r++) ck_assert_int_eq(got.row_ptr[r], 0);
      ref_free(&got);
      ck_assert(gpu_csr_free(&A) == GPU_OK);
    }
  }
}
END_TEST

START_TEST(complex_is_unsupported) {
  const char *p = matrix("young1c.mtx");
  gpu_csr A, before;
  memset(&A, 0x5A, sizeof A);
  before = A;
  gpu_status s = gpu_csr_read_mm(p, GPU_F64, GPU_I32, &A);
  ck_assert_msg(s == GPU_ERR_UNSUPPORTED, "%s: %s", gpu_status_string(s), gpu_last_error());
  ck_assert(strstr(gpu_last_error(), "complex") != NULL);
  ck_assert(memcmp(&A, &before, sizeof A) == 0);
  printf("young1c.mtx: %s\n", gpu_last_error());
}
END_TEST

/* --------------------------------------------------- hand-written files */

typedef struct {
  const char *name, *text;
} named_text;

/* Valid files, each compared with the reference in all four type pairs. */
static const named_text valid_files[] = {
    {"case.mtx", "%%matrixmarket MATRIX Coordinate REAL General\n2 2 2\n1 1 1.5\n2 1 -2\n"},
    {"crlf.mtx",
     "%%MatrixMarket matrix coordinate real general\r\n% c\r\n2 3 2\r\n1 3 1.5\r\n2 1 2\r\n"},
    {"tabs.mtx",
     "%%MatrixMarket\tmatrix coordinate real general\n\t2\t2\t2 \n\t1\t1\t1.5\t\n 2  2  2.5  \n"},
    {"blank_and_comments.mtx",
     "%%MatrixMarket matrix coordinate real general\n\n% a\n  \n2 2 2\n\n1 1 1\n% b\n\n2 2 2\n\n"},
    {"no_final_newline.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 2"},
    {"upper_symmetric.mtx",
     "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 2 5\n1 3 6\n2 2 7\n"},
    {"both_halves.mtx",
     "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 2 1\n2 1 2\n1 1 4\n"},
    {"skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n1 3 -4.5\n"},
    {"pattern_skew.mtx", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n"},
    {"integer.mtx",
     "%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 -7\n2 2 +12\n1 2 0\n"},
    {"stored_zero.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 0\n2 2 -0\n"},
    {"zero_by_zero.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n"},
    {"empty_rows.mtx", "%%MatrixMarket matrix coordinate real general\n5 3 2\n4 3 1e3\n2 1 .5\n"},
    {"unsorted_rows.mtx",
     "%%MatrixMarket matrix coordinate real general\n1 40 40\n"
     "1 40 1\n1 39 2\n1 38 3\n1 37 4\n1 36 5\n1 35 6\n1 34 7\n1 33 8\n1 32 9\n1 31 10\n"
     "1 30 11\n1 29 12\n1 28 13\n1 27 14\n1 26 15\n1 25 16\n1 24 17\n1 23 18\n1 22 19\n1 21 20\n"
     "1 20 21\n1 19 22\n1 18 23\n1 17 24\n1 16 25\n1 15 26\n1 14 27\n1 13 28\n1 12 29\n1 11 30\n"
     "1 10 31\n1 9 32\n1 8 33\n1 7 34\n1 6 35\n1 5 36\n1 4 37\n1 3 38\n1 2 39\n1 1 40\n"},
    {"extremes.mtx",
     "%%MatrixMarket matrix coordinate real general\n1 6 6\n1 1 3.4028235e38\n"
     "1 2 -3.402823567e38\n1 3 1e-50\n1 4 1.401298464324817e-45\n1 5 0.1\n1 6 "
     "1.0000000596046448\n"},
    {"long_tokens.mtx",
     "%%MatrixMarket matrix coordinate real general\n1 2 2\n0000001 000002 "
     "0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "00000000000000000000000000000000000000000000000000000000000000000000000000012345678901234567"
     "8901234567890123456789e100\n1 1 123456789012345678901234567890123456789\n"},
};

START_TEST(hand_written_valid_files) {
  ref_tmp_begin();
  for (size_t k = 0; k < sizeof valid_files / sizeof valid_files[0]; k++) {
    const char *path =
        ref_tmp_write(valid_files[k].name, valid_files[k].text, strlen(valid_files[k].text));
    check_all_types(path);
  }
  ref_tmp_end();
}
END_TEST

/* Hand-checked values, beyond agreeing with the reference. */
START_TEST(hand_written_values) {
  ref_tmp_begin();
  ref_csr got;
  /* skew: (2,1) = 3 gives (1,2) = -3; (1,3) = -4.5 gives (3,1) = 4.5. */
  read_f64(ref_tmp_write("skew.mtx", valid_files[7].text, strlen(valid_files[7].text)), &got);
  ck_assert_int_eq(got.nnz, 4);
  ck_assert(got.col_idx[0] == 1 && got.values[0] == -3 && got.col_idx[1] == 2 &&
            got.values[1] == -4.5);
  ck_assert(got.col_idx[2] == 0 && got.values[2] == 3 && got.col_idx[3] == 0 &&
            got.values[3] == 4.5);
  ref_free(&got);
  /* Both halves of a symmetric file stored: (1,2) = 1 + 2 and (2,1) = 2 + 1. */
  read_f64(ref_tmp_write("both.mtx", valid_files[6].text, strlen(valid_files[6].text)), &got);
  ck_assert_int_eq(got.nnz, 3);
  ck_assert(got.values[0] == 4 && got.values[1] == 3 && got.values[2] == 3);
  ref_free(&got);
  /* Stored zeros are entries; -0 keeps its sign. */
  read_f64(ref_tmp_write("zero.mtx", valid_files[10].text, strlen(valid_files[10].text)), &got);
  ck_assert_int_eq(got.nnz, 2);
  ck_assert(got.values[0] == 0 && !signbit(got.values[0]) && signbit(got.values[1]));
  ref_free(&got);
  /* Three duplicates summed in file order, in the value type: in f32,
   * (1e8 + 1) - 1e8 = 0 since 1e8 + 1 rounds back to 1e8; in f64 it is 1. */
  const char *dup =
      "%%MatrixMarket matrix coordinate real general\n1 1 3\n1 1 1e8\n1 1 1\n1 1 -1e8\n";
  const char *path = ref_tmp_write("order.mtx", dup, strlen(dup));
  read_f64(path, &got);
  ck_assert(got.nnz == 1 && got.values[0] == 1.0);
  ref_free(&got);
  gpu_csr A;
  ck_assert(gpu_csr_read_mm(path, GPU_F32, GPU_I32, &A) == GPU_OK);
  float v;
  tu_download(&v, A.values, sizeof v);
  ck_assert(v == 0.0f);
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  /* f32 extremes: FLT_MAX, a value that rounds to -FLT_MAX, underflow to 0,
   * the smallest subnormal, and a double-rounding trap: 1.0000000596046448
   * is just above the midpoint between 1 and the next float, so it rounds up,
   * while via double (1.00000005960464478) it would round to even, 1. */
  const char *ext = valid_files[14].text;
  ck_assert(gpu_csr_read_mm(ref_tmp_write("ext.mtx", ext, strlen(ext)), GPU_F32, GPU_I64, &A) ==
            GPU_OK);
  float e[6];
  tu_download(e, A.values, sizeof e);
  ck_assert(e[0] == FLT_MAX && e[1] == -FLT_MAX && e[2] == 0 && e[3] == 0x1p-149f);
  ck_assert(e[4] == 0.1f && e[5] == nextafterf(1.0f, 2.0f));
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  ref_tmp_end();
}
END_TEST

/* ------------------------------------------------------ random matrices */

/* Writes a random coordinate file: random shape, symmetry and field,
 * duplicates likely, blank and comment lines sprinkled in. */
static size_t random_matrix_text(char *buf, size_t cap, int64_t max_rows, int64_t max_cols,
                                 int64_t max_entries) {
  static const char *const fields[] = {"real", "integer", "pattern"};
  static const char *const symmetries[] = {"general", "symmetric", "skew-symmetric"};
  int field = (int)tu_below(3), sym = (int)tu_below(3);
  if (max_rows != max_cols) sym = 0; /* a wide matrix is general */
  int64_t rows = (int64_t)tu_below((uint64_t)max_rows + 1),
          cols = sym ? rows : (int64_t)tu_below((uint64_t)max_cols + 1);
  if (sym == 2 && rows < 2) rows = cols = 2; /* room for an off-diagonal entry */
  int64_t n = rows && cols ? (int64_t)tu_below((uint64_t)max_entries + 1) : 0;
  size_t len = (size_t)snprintf(
      buf, cap, "%%%%MatrixMarket matrix coordinate %s %s\n%lld %lld %lld\n", fields[field],
      symmetries[sym], (long long)rows, (long long)cols, (long long)n);
  for (int64_t k = 0; k < n; k++) {
    int64_t i = (int64_t)tu_below((uint64_t)rows), j = (int64_t)tu_below((uint64_t)cols);
    if (sym == 2 && i == j) j = (i + 1) % cols;
    if (tu_below(8) == 0)
      len += (size_t)snprintf(buf + len, cap - len, tu_below(2) ? "%% note\n" : "\n");
    len += (size_t)snprintf(buf + len, cap - len, "%lld %lld", (long long)i + 1, (long long)j + 1);
    if (field == 0) {
      double v = (tu_uniform() * 2 - 1) * pow(10, (double)tu_below(20) - 10);
      len += (size_t)snprintf(buf + len, cap - len, tu_below(2) ? " %.17g\n" : " %.6e\n", v);
    } else if (field == 1) {
      len += (size_t)snprintf(buf + len, cap - len, " %lld\n", (long long)tu_below(2001) - 1000);
    } else {
      len += (size_t)snprintf(buf + len, cap - len, "\n");
    }
    ck_assert(len < cap);
  }
  return len;
}

START_TEST(random_matrices) {
  ref_tmp_begin();
  enum { CAP = 1 << 20 };
  char *buf = tu_xmalloc(CAP);
  /* Small ones; middling ones; and wide ones, whose long unsorted rows hold
   * each column several times (the merge sort, and f32 sums in file order). */
  for (int t = 0; t < 75; t++) {
    size_t len = t < 30   ? random_matrix_text(buf, CAP, 6, 6, 30)
                 : t < 60 ? random_matrix_text(buf, CAP, 300, 300, 3000)
                          : random_matrix_text(buf, CAP, 3, 200, 4000);
    check_all_types(ref_tmp_write("random.mtx", buf, len));
  }
  free(buf);
  ref_tmp_end();
}
END_TEST

/* A body of several MiB is parsed in several chunks: the result, and the
 * line numbers in messages, must not depend on where the chunks fall. */
START_TEST(large_file_in_chunks) {
  ref_tmp_begin();
  enum { ROWS = 50000 };
  const int ENTRIES = tu_quick() ? 120000 : 400000; /* at least 3 MiB: 3 chunks or more */
  size_t cap = (size_t)ENTRIES * 48 + 4096, len = 0;
  char *buf = tu_xmalloc(cap);
  len += (size_t)snprintf(buf, cap, "%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n",
                          ROWS, ROWS, ENTRIES);
  int64_t line = 2, bad_line = 0;
  for (int k = 0; k < ENTRIES; k++) {
    if (tu_below(50) == 0) {
      len += (size_t)snprintf(buf + len, cap - len, "%% comment\n");
      line++;
    }
    long long i = (long long)tu_below(ROWS) + 1, j = (long long)tu_below(ROWS) + 1;
    len += (size_t)snprintf(buf + len, cap - len, "%lld %lld %.17g\n", i, j, tu_uniform());
    line++;
    if (k == ENTRIES - 1000) bad_line = line;
  }
  const char *path = ref_tmp_write("big.mtx", buf, len);
  check_file(path, GPU_F64, GPU_I32);
  check_file(path, GPU_F32, GPU_I64);
  /* One more entry than declared: the message names the line of the extra one. */
  const char extra[] = "1 1 1\n";
  memcpy(buf + len, extra, sizeof extra - 1);
  gpu_csr A;
  path = ref_tmp_write("extra.mtx", buf, len + sizeof extra - 1);
  ck_assert(gpu_csr_read_mm(path, GPU_F64, GPU_I64, &A) == GPU_ERR_PARSE);
  char want[64];
  snprintf(want, sizeof want, ":%lld: more entries", (long long)line + 1);
  ck_assert_msg(strstr(gpu_last_error(), want), "%s (want %s)", gpu_last_error(), want);
  /* A bad value late in the file: its own line number. */
  char *p = buf;
  for (int64_t l = 1; l < bad_line; l++) p = strchr(p, '\n') + 1;
  char *value = strchr(strchr(p, ' ') + 1, ' ') + 1; /* "i j value" */
  value[0] = 'x';
  path = ref_tmp_write("bad.mtx", buf, len);
  ck_assert(gpu_csr_read_mm(path, GPU_F64, GPU_I64, &A) == GPU_ERR_PARSE);
  snprintf(want, sizeof want, ":%lld: the value is not a number", (long long)bad_line);
  ck_assert_msg(strstr(gpu_last_error(), want), "%s (want %s)", gpu_last_error(), want);
  free(buf);
  ref_tmp_end();
}
END_TEST

/* ------------------------------------------------------ decimal values */

/* One random decimal string: printed doubles and floats, and raw digit
 * strings of up to 30 digits with a random point and exponent. */
static void random_decimal(char *out, size_t cap, bool f32) {
  switch (tu_below(4)) {
    case 0:
      snprintf(out, cap, "%.17g", (tu_uniform() - 0.5) * pow(10, (double)tu_below(60) - 30));
      break;
    case 1:
      snprintf(out, cap, "%.9g",
               (double)(float)((tu_uniform() - 0.5) * pow(10, (double)tu_below(40) - 20)));
      break;
    case 2:
      snprintf(out, cap, "%.*f", (int)tu_below(8), (double)tu_below(2000000) - 1000000);
      break;
    default: {
      size_t len = 0, digits = 1 + tu_below(30), point = tu_below(digits + 1);
      if (tu_below(2)) out[len++] = '-';
      for (size_t d = 0; d < digits; d++) {
        if (d == point) out[len++] = '.';
        out[len++] = (char)('0' + tu_below(10));
      }
      /* Up to 10^30 before the exponent: keep the result below the type's maximum. */
      int low = f32 ? -45 : -330, high = f32 ? 8 : 270;
      snprintf(out + len, cap - len, "e%d", low + (int)tu_below((uint64_t)(high - low + 1)));
    }
  }
}

START_TEST(decimal_values_round_correctly) {
  ref_tmp_begin();
  enum { N = 20000 };
  char *buf = tu_xmalloc((size_t)N * 64 + 256);
  for (int f = 0; f < 2; f++) {
    bool f32 = f == 0;
    double *want = tu_xmalloc(N * sizeof *want);
    size_t len =
        (size_t)sprintf(buf, "%%%%MatrixMarket matrix coordinate real general\n%d 1 %d\n", N, N);
    for (int k = 0; k < N; k++) {
      char tok[64];
      random_decimal(tok, sizeof tok, f32);
      want[k] = f32 ? (double)strtof(tok, NULL) : strtod(tok, NULL);
      len += (size_t)sprintf(buf + len, "%d 1 %s\n", k + 1, tok);
    }
    gpu_csr A;
    const char *path = ref_tmp_write("values.mtx", buf, len);
    ck_assert_msg(gpu_csr_read_mm(path, f32 ? GPU_F32 : GPU_F64, GPU_I32, &A) == GPU_OK, "%s",
                  gpu_last_error());
    ref_csr got;
    ref_download(&A, &got);
    for (int k = 0; k < N; k++)
      ck_assert_msg(memcmp(&got.values[k], &want[k], sizeof(double)) == 0,
                    "line %d: %.17g, want %.17g", k + 3, got.values[k], want[k]);
    ref_free(&got);
    ck_assert(gpu_csr_free(&A) == GPU_OK);
    free(want);
  }
  free(buf);
  ref_tmp_end();
}
END_TEST

/* A pipe cannot be mapped: the reader falls back to reading it in blocks. */
typedef struct {
  const char *fifo, *text;
} pipe_job;

static void *write_pipe(void *arg) {
  const pipe_job *job = arg;
  FILE *f = fopen(job->fifo, "w");
  if (f) {
    fputs(job->text, f);
    fclose(f);
  }
  return NULL;
}

START_TEST(reads_from_a_pipe) {
  ref_tmp_begin();
  const char *text = valid_files[5].text; /* upper_symmetric.mtx */
  const char *path = ref_tmp_write("plain.mtx", text, strlen(text));
  ref_csr want, got;
  char why[256];
  ck_assert(ref_read_mm(path, GPU_F64, &want, why, sizeof why));
  const char *fifo = ref_tmp_write("pipe.mtx", "", 0);
  remove(fifo);
  ck_assert(mkfifo(fifo, 0600) == 0);
  pipe_job job = {fifo, text};
  pthread_t writer;
  ck_assert(pthread_create(&writer, NULL, write_pipe, &job) == 0);
  gpu_csr A;
  gpu_status s = gpu_csr_read_mm(fifo, GPU_F64, GPU_I64, &A);
  pthread_join(writer, NULL);
  ck_assert_msg(s == GPU_OK, "%s", gpu_last_error());
  ref_download(&A, &got);
  ck_assert_msg(ref_equal(&got, &want, why, sizeof why), "%s", why);
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  ref_free(&want);
  ref_free(&got);
  ref_tmp_end();
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("mm_read");
  TCase *tc = tu_tcase("shared");
  tcase_add_test(tc, every_shared_matrix);
  tcase_add_test(tc, duplicates_are_summed);
  tcase_add_test(tc, pattern_symmetric_is_expanded);
  tcase_add_test(tc, rectangular_and_empty);
  tcase_add_test(tc, complex_is_unsupported);
  suite_add_tcase(s, tc);
  tc = tu_tcase("written");
  tcase_add_test(tc, hand_written_valid_files);
  tcase_add_test(tc, hand_written_values);
  tcase_add_test(tc, random_matrices);
  tcase_add_test(tc, large_file_in_chunks);
  tcase_add_test(tc, decimal_values_round_correctly);
  tcase_add_test(tc, reads_from_a_pipe);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  tu_require_data("test_mm_read", "matrices");
  return tu_main(TU_THIS_BACKEND_IS_CUDA ? "test_mm_read_cuda" : "test_mm_read_host", TU_THIS_BACKEND_IS_CUDA, suite);
}
