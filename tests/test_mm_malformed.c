/*
 * gpu_csr_read_mm on input it must refuse: the shared bad/ files, one
 * hand-written file per kind of malformation (each with the line the message
 * must name), the 32-bit index limit, bad arguments and I/O errors. Every
 * refusal must leave A untouched.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_ref.h"
#include "test_util.h"

#define BANNER "%%MatrixMarket matrix coordinate real general\n"

/* Reads path expecting status want; checks A is untouched and the message
 * contains `words` (when given). Returns the message. */
static const char *expect_refusal(const char *path, gpu_dtype vt, gpu_dtype it, gpu_status want,
                                  const char *words) {
  gpu_csr A, before;
  memset(&A, 0x5A, sizeof A);
  before = A;
  gpu_status s = gpu_csr_read_mm(path, vt, it, &A);
  if (s == GPU_OK) gpu_csr_free(&A);
  ck_assert_msg(s == want, "%s: got %s (%s), want %s", path, gpu_status_string(s), gpu_last_error(),
                gpu_status_string(want));
  ck_assert_msg(memcmp(&A, &before, sizeof A) == 0, "%s: A was changed on error", path);
  if (words)
    ck_assert_msg(strstr(gpu_last_error(), words), "%s: message '%s' lacks '%s'", path,
                  gpu_last_error(), words);
  return gpu_last_error();
}

START_TEST(shared_bad_files) {
  const char *dir = tu_need_data("matrices/bad");
  char dir_copy[4096];
  snprintf(dir_copy, sizeof dir_copy, "%s", dir);
  DIR *d = opendir(dir_copy);
  ck_assert(d != NULL);
  int files = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    char path[4352];
    snprintf(path, sizeof path, "%s/%s", dir_copy, e->d_name);
    for (int t = 0; t < 4; t++) {
      gpu_csr A, before;
      memset(&A, 0x5A, sizeof A);
      before = A;
      gpu_status s =
          gpu_csr_read_mm(path, t & 1 ? GPU_F64 : GPU_F32, t & 2 ? GPU_I64 : GPU_I32, &A);
      ck_assert_msg(s == GPU_ERR_PARSE || s == GPU_ERR_UNSUPPORTED, "%s: %s", path,
                    gpu_status_string(s));
      ck_assert(memcmp(&A, &before, sizeof A) == 0);
      if (s == GPU_ERR_PARSE) ck_assert_msg(strstr(gpu_last_error(), path), "%s", gpu_last_error());
      if (t == 0)
        printf("%s: %s: %s\n", e->d_name, s == GPU_ERR_PARSE ? "PARSE" : "UNSUPPORTED",
               gpu_last_error());
    }
    files++;
  }
  closedir(d);
  ck_assert_int_ge(files, 15);
}
END_TEST

typedef struct {
  const char *why; /* what is wrong, for the failure message */
  const char *text;
  gpu_status status;
  const char *words; /* must be in the message, e.g. the line ":4:" */
} bad_case;

static const bad_case bad_cases[] = {
    {"empty file", "", GPU_ERR_PARSE, ":1: the file is empty"},
    {"no banner", "3 3 0\n", GPU_ERR_PARSE, ":1:"},
    {"one % only", "%MatrixMarket matrix coordinate real general\n1 1 0\n", GPU_ERR_PARSE, ":1:"},
    {"banner word missing", "%%MatrixMarket matrix coordinate real\n1 1 0\n", GPU_ERR_PARSE,
     "symmetry"},
    {"banner extra word", "%%MatrixMarket matrix coordinate real general x\n1 1 0\n", GPU_ERR_PARSE,
     ":1:"},
    {"unknown object", "%%MatrixMarket vector coordinate real general\n1 1 0\n", GPU_ERR_PARSE,
     "object"},
    {"unknown format", "%%MatrixMarket matrix sparse real general\n1 1 0\n", GPU_ERR_PARSE,
     "format"},
    {"unknown field", "%%MatrixMarket matrix coordinate double general\n1 1 0\n", GPU_ERR_PARSE,
     "field"},
    {"unknown symmetry", "%%MatrixMarket matrix coordinate real lower\n1 1 0\n", GPU_ERR_PARSE,
     "symmetry"},
    {"misspelt word in an array file", "%%MatrixMarket matrix array reel general\n1 1\n1\n",
     GPU_ERR_PARSE, "field"},
    {"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n",
     GPU_ERR_UNSUPPORTED, "complex"},
    {"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n",
     GPU_ERR_UNSUPPORTED, "hermitian"},
    {"array", "%%MatrixMarket matrix array real general\n1 1\n1\n", GPU_ERR_UNSUPPORTED, "array"},
    {"no size line", BANNER "% only a comment\n\n", GPU_ERR_PARSE,
     ":3: the file ends before the size line"},
    {"size line short", BANNER "3 3\n", GPU_ERR_PARSE, ":2:"},
    {"size line long", BANNER "3 3 0 0\n", GPU_ERR_PARSE, ":2: unexpected text"},
    {"size line negative", BANNER "-3 3 0\n", GPU_ERR_PARSE, "negative"},
    {"negative entries", BANNER "3 3 -1\n", GPU_ERR_PARSE, "negative"},
    {"size not a number", BANNER "3 x 0\n", GPU_ERR_PARSE, ":2:"},
    {"size a fraction", BANNER "3 3 1.5\n1 1 1\n", GPU_ERR_PARSE, ":2:"},
    {"size too large", BANNER "3 99999999999999999999 1\n1 1 1\n", GPU_ERR_PARSE, "out of range"},
    {"symmetric not square", "%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n",
     GPU_ERR_PARSE, "square"},
    {"row index 0", BANNER "3 4 1\n0 1 1\n", GPU_ERR_PARSE,
     ":3: the row index 0 is outside [1, 3]"},
    {"row index past rows", BANNER "3 4 2\n1 1 1\n4 1 1\n", GPU_ERR_PARSE, ":4: the row index 4"},
    {"column index past cols", BANNER "3 4 1\n1 5 1\n", GPU_ERR_PARSE, ":3: the column index 5"},
    {"negative index", BANNER "3 4 1\n-1 1 1\n", GPU_ERR_PARSE, "outside"},
    {"huge index", BANNER "3 4 1\n1 99999999999999999999999 1\n", GPU_ERR_PARSE, "outside"},
    {"index a fraction", BANNER "3 4 1\n1.0 1 1\n", GPU_ERR_PARSE, "not an integer"},
    {"too few entries", BANNER "3 4 3\n1 1 1\n2 2 2\n", GPU_ERR_PARSE,
     ":4: the file ends after 2 entries"},
    {"too many entries", BANNER "3 4 1\n1 1 1\n2 2 2\n", GPU_ERR_PARSE, ":4: more entries"},
    {"entries but nnz 0", BANNER "3 4 0\n1 1 1\n", GPU_ERR_PARSE, ":3: more entries"},
    {"missing column", BANNER "3 4 1\n1\n", GPU_ERR_PARSE, "no column index"},
    {"missing value", BANNER "3 4 1\n1 1\n", GPU_ERR_PARSE, "no value"},
    {"word value", BANNER "3 4 1\n1 1 pi\n", GPU_ERR_PARSE, "not a number: 'pi'"},
    {"two points", BANNER "3 4 1\n1 1 1.2.3\n", GPU_ERR_PARSE, "not a number"},
    {"bare exponent", BANNER "3 4 1\n1 1 1e\n", GPU_ERR_PARSE, "not a number"},
    {"lone point", BANNER "3 4 1\n1 1 .\n", GPU_ERR_PARSE, "not a number"},
    {"two signs", BANNER "3 4 1\n1 1 --1\n", GPU_ERR_PARSE, "not a number"},
    {"nan", BANNER "3 4 1\n1 1 nan\n", GPU_ERR_PARSE, "not a number"},
    {"inf", BANNER "3 4 1\n1 1 -inf\n", GPU_ERR_PARSE, "not a number"},
    {"hexadecimal", BANNER "3 4 1\n1 1 0x10\n", GPU_ERR_PARSE, "not a number"},
    {"junk glued to a value", BANNER "3 4 1\n1 1 1.0x\n", GPU_ERR_PARSE, "not a number"},
    {"junk after the value", BANNER "3 4 1\n1 1 1.0 x\n", GPU_ERR_PARSE, "unexpected text"},
    {"vertical tab after", BANNER "3 4 1\n1 1 1.0\v\n", GPU_ERR_PARSE, ":3:"},
    {"value in a pattern file", "%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 1 1\n",
     GPU_ERR_PARSE, "unexpected text"},
    {"fraction in an integer file",
     "%%MatrixMarket matrix coordinate integer general\n3 4 1\n1 1 1.5\n", GPU_ERR_PARSE,
     "not an integer"},
    {"skew diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n",
     GPU_ERR_PARSE, ":4: a skew-symmetric matrix has no diagonal"},
    {"f64 overflow", BANNER "3 4 1\n1 1 1e309\n", GPU_ERR_PARSE, "outside the range of f64"},
    /* The midpoint between DBL_MAX and 2^1024 rounds (to even) to infinity. */
    {"f64 overflow at the midpoint",
     BANNER "3 4 1\n1 1 "
            "-1797693134862315807937289714053034150799341327100378269361737789804449682927647509466"
            "49017977587207096330286416692887910946555547851940402630657488671505820681908902000708"
            "38367627385484581771153176447573027006985557136695962284291481986083493647529271907416"
            "8444365510704342711559699508093042880177904174497792.0\n",
     GPU_ERR_PARSE, "outside the range of f64"},
};

START_TEST(hand_written_malformed_files) {
  ref_tmp_begin();
  for (size_t k = 0; k < sizeof bad_cases / sizeof bad_cases[0]; k++) {
    const bad_case *c = &bad_cases[k];
    const char *path = ref_tmp_write("bad.mtx", c->text, strlen(c->text));
    for (int t = 0; t < 4; t++) {
      gpu_dtype vt = t & 1 ? GPU_F64 : GPU_F32, it = t & 2 ? GPU_I64 : GPU_I32;
      if (strstr(c->why, "f64") && vt == GPU_F32) continue; /* f32 would also refuse, but say f32 */
      gpu_csr A, before;
      memset(&A, 0x5A, sizeof A);
      before = A;
      gpu_status s = gpu_csr_read_mm(path, vt, it, &A);
      ck_assert_msg(s == c->status, "%s: got %s (%s)", c->why, gpu_status_string(s),
                    gpu_last_error());
      ck_assert_msg(strstr(gpu_last_error(), c->words), "%s: message '%s' lacks '%s'", c->why,
                    gpu_last_error(), c->words);
      if (s == GPU_ERR_PARSE)
        ck_assert_msg(strncmp(gpu_last_error(), path, strlen(path)) == 0,
                      "%s: message '%s' does not start with the path", c->why, gpu_last_error());
      ck_assert(memcmp(&A, &before, sizeof A) == 0);
    }
  }
  ref_tmp_end();
}
END_TEST

START_TEST(value_range_depends_on_type) {
  ref_tmp_begin();
  const char *big =
      ref_tmp_write("big.mtx", BANNER "1 1 1\n1 1 -1e39\n", strlen(BANNER "1 1 1\n1 1 -1e39\n"));
  expect_refusal(big, GPU_F32, GPU_I32, GPU_ERR_PARSE,
                 ":3: the value -1e39 is outside the range of f32");
  gpu_csr A;
  ck_assert(gpu_csr_read_mm(big, GPU_F64, GPU_I32, &A) == GPU_OK);
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  /* Just past the midpoint between FLT_MAX and 2^128 rounds to infinity. */
  const char *edge = ref_tmp_write("edge.mtx", BANNER "1 1 1\n1 1 3.40282357e38\n",
                                   strlen(BANNER "1 1 1\n1 1 3.40282357e38\n"));
  expect_refusal(edge, GPU_F32, GPU_I64, GPU_ERR_PARSE, "outside the range of f32");
  const char *below =
      "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 "
      "-1797693134862315807937289714053034150799341327100378269361737789804449682927647509466490179"
      "77587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854"
      "84581771153176447573027006985557136695962284291481986083493647529271907416844436551070434271"
      "1559699508093042880177904174497791\n";
  gpu_csr B;
  ck_assert(gpu_csr_read_mm(ref_tmp_write("below.mtx", below, strlen(below)), GPU_F64, GPU_I64,
                            &B) == GPU_OK);
  double v;
  tu_download(&v, B.values, sizeof v);
  ck_assert(v == -DBL_MAX);
  ck_assert(gpu_csr_free(&B) == GPU_OK);
  const char *integer =
      "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 "
      "1000000000000000000000000000000000000000\n";
  expect_refusal(ref_tmp_write("int.mtx", integer, strlen(integer)), GPU_F32, GPU_I32,
                 GPU_ERR_PARSE, "outside the range of f32");
  ref_tmp_end();
}
END_TEST

START_TEST(nul_byte_in_a_line) {
  ref_tmp_begin();
  static const char text[] = BANNER "2 2 1\n1 1\0 1\n";
  expect_refusal(ref_tmp_write("nul.mtx", text, sizeof text - 1), GPU_F64, GPU_I64, GPU_ERR_PARSE,
                 ":3:");
  static const char banner[] = "%%MatrixMarket matrix\0coordinate real general\n2 2 0\n";
  expect_refusal(ref_tmp_write("nul2.mtx", banner, sizeof banner - 1), GPU_F64, GPU_I64,
                 GPU_ERR_PARSE, ":1:");
  ref_tmp_end();
}
END_TEST

START_TEST(int32_index_limit) {
  ref_tmp_begin();
  static const char rows[] = BANNER "3000000000 2 1\n1 1 1\n";
  static const char cols[] = BANNER "2 3000000000 1\n1 1 1\n";
  static const char nnz[] = BANNER "2 2 3000000000\n1 1 1\n";
  const char *p = ref_tmp_write("rows.mtx", rows, sizeof rows - 1);
  printf("%s\n", expect_refusal(p, GPU_F32, GPU_I32, GPU_ERR_UNSUPPORTED,
                                "rows = 3000000000 exceeds INT32_MAX"));
  p = ref_tmp_write("cols.mtx", cols, sizeof cols - 1);
  expect_refusal(p, GPU_F64, GPU_I32, GPU_ERR_UNSUPPORTED, "cols = 3000000000 exceeds INT32_MAX");
  gpu_csr A; /* with 64-bit indices wide columns cost nothing */
  ck_assert_msg(gpu_csr_read_mm(p, GPU_F64, GPU_I64, &A) == GPU_OK, "%s", gpu_last_error());
  ck_assert(A.cols == 3000000000LL && A.nnz == 1);
  ck_assert(gpu_csr_validate(&A) == GPU_OK);
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  p = ref_tmp_write("nnz.mtx", nnz, sizeof nnz - 1);
  expect_refusal(p, GPU_F32, GPU_I32, GPU_ERR_UNSUPPORTED, "nnz = 3000000000 exceeds INT32_MAX");
  expect_refusal(p, GPU_F32, GPU_I64, GPU_ERR_PARSE, "the file ends after 1 entries");
  /* Exactly INT32_MAX columns fit 32-bit indices. */
  static const char wide[] = BANNER "1 2147483647 1\n1 2147483647 1\n";
  ck_assert(gpu_csr_read_mm(ref_tmp_write("wide.mtx", wide, sizeof wide - 1), GPU_F32, GPU_I32,
                            &A) == GPU_OK);
  int32_t c;
  tu_download(&c, A.col_idx, sizeof c);
  ck_assert_int_eq(c, INT32_MAX - 1);
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  ref_tmp_end();
}
END_TEST

START_TEST(bad_arguments) {
  ref_tmp_begin();
  static const char ok[] = BANNER "2 2 1\n1 1 1\n";
  const char *path = ref_tmp_write("ok.mtx", ok, sizeof ok - 1);
  gpu_csr A, before;
  memset(&A, 0x5A, sizeof A);
  before = A;
  ck_assert(gpu_csr_read_mm(NULL, GPU_F64, GPU_I32, &A) == GPU_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(gpu_last_error(), "gpu_csr_read_mm: path"));
  ck_assert(gpu_csr_read_mm(path, GPU_F64, GPU_I32, NULL) == GPU_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(gpu_last_error(), "gpu_csr_read_mm: A"));
  const gpu_dtype bad_values[] = {GPU_I32,      GPU_U32,       GPU_I64,      GPU_U64,
                                  (gpu_dtype)6, (gpu_dtype)-1, (gpu_dtype)99};
  for (size_t k = 0; k < sizeof bad_values / sizeof bad_values[0]; k++) {
    ck_assert(gpu_csr_read_mm(path, bad_values[k], GPU_I32, &A) == GPU_ERR_INVALID_ARGUMENT);
    ck_assert(strstr(gpu_last_error(), "value_type"));
  }
  const gpu_dtype bad_indices[] = {GPU_U32, GPU_U64, GPU_F32, GPU_F64, (gpu_dtype)6, (gpu_dtype)-1};
  for (size_t k = 0; k < sizeof bad_indices / sizeof bad_indices[0]; k++) {
    ck_assert(gpu_csr_read_mm(path, GPU_F32, bad_indices[k], &A) == GPU_ERR_INVALID_ARGUMENT);
    ck_assert(strstr(gpu_last_error(), "index_type"));
  }
  ck_assert(memcmp(&A, &before, sizeof A) == 0);
  char missing[512];
  snprintf(missing, sizeof missing, "%s/no_such_file.mtx", ref_tmp_dir());
  expect_refusal(missing, GPU_F64, GPU_I64, GPU_ERR_IO, "no_such_file.mtx");
  expect_refusal(ref_tmp_dir(), GPU_F64, GPU_I64, GPU_ERR_IO, "directory");
  ref_tmp_end();
}
END_TEST

/* Duplicates summed past the value type's range are refused as a single
 * value out of range is (they once gave inf with GPU_OK). */
START_TEST(sums_past_the_range) {
  ref_tmp_begin();
  static const char f32[] = BANNER "2 2 2\n1 1 3e38\n1 1 3e38\n";
  const char *p = ref_tmp_write("sum32.mtx", f32, sizeof f32 - 1);
  expect_refusal(p, GPU_F32, GPU_I32, GPU_ERR_PARSE, "row 1, column 1 sum to a value outside the range of f32");
  gpu_csr A; /* in f64 the sum is in range */
  ck_assert_msg(gpu_csr_read_mm(p, GPU_F64, GPU_I64, &A) == GPU_OK, "%s", gpu_last_error());
  double v;
  tu_download(&v, A.values, sizeof v);
  ck_assert(v == 6e38);
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  static const char sym[] =
      "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1e308\n1 2 1e308\n";
  expect_refusal(ref_tmp_write("sym64.mtx", sym, sizeof sym - 1), GPU_F64, GPU_I64, GPU_ERR_PARSE,
                 "row 1, column 2 sum to a value outside the range of f64");
  /* Below the range too, in a later row, and a sum that cancels first stays. */
  static const char low[] = BANNER "3 3 4\n3 2 -3e38\n1 1 3e38\n1 1 -3e38\n3 2 -3e38\n";
  expect_refusal(ref_tmp_write("low.mtx", low, sizeof low - 1), GPU_F32, GPU_I64, GPU_ERR_PARSE,
                 "row 3, column 2");
  ref_tmp_end();
}
END_TEST

/* Devices and sockets are refused before a byte is read: /dev/zero once read
 * until memory ran out. */
START_TEST(not_a_regular_file) {
  expect_refusal("/dev/zero", GPU_F64, GPU_I64, GPU_ERR_IO, "not a regular file or a pipe");
  expect_refusal("/dev/null", GPU_F32, GPU_I32, GPU_ERR_IO, "not a regular file or a pipe");
}
END_TEST

/* GPUPRIM_MM_MAX_BYTES caps what a file's size line may demand: a 40-byte
 * file declaring 10^8 rows would take gigabytes before its first entry. */
START_TEST(declared_size_cap) {
  ref_tmp_begin();
  static const char huge[] = BANNER "100000000 100000000 1\n1 1 1\n";
  static const char small[] = BANNER "2 2 1\n1 1 1\n";
  const char *p = ref_tmp_write("huge.mtx", huge, sizeof huge - 1);
  const char *q = ref_tmp_write("small.mtx", small, sizeof small - 1);
  setenv("GPUPRIM_MM_MAX_BYTES", "64M", 1);
  expect_refusal(p, GPU_F64, GPU_I64, GPU_ERR_OUT_OF_MEMORY, ":2: 100000000 x 100000000 with 1 entries");
  ck_assert(strstr(gpu_last_error(), "more than GPUPRIM_MM_MAX_BYTES = 67108864"));
  gpu_csr A;
  ck_assert_msg(gpu_csr_read_mm(q, GPU_F64, GPU_I64, &A) == GPU_OK, "%s", gpu_last_error());
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  setenv("GPUPRIM_MM_MAX_BYTES", "100", 1);
  expect_refusal(q, GPU_F64, GPU_I64, GPU_ERR_OUT_OF_MEMORY, "GPUPRIM_MM_MAX_BYTES = 100");
  const char *const bad[] = {"lots", "-5", "12X", "4GB", "99999999999999999999", " 7"};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    setenv("GPUPRIM_MM_MAX_BYTES", bad[k], 1);
    expect_refusal(q, GPU_F64, GPU_I64, GPU_ERR_INVALID_ARGUMENT, "is not a byte count");
  }
  setenv("GPUPRIM_MM_MAX_BYTES", "", 1);
  ck_assert_msg(gpu_csr_read_mm(q, GPU_F64, GPU_I64, &A) == GPU_OK, "%s", gpu_last_error());
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  unsetenv("GPUPRIM_MM_MAX_BYTES");
  ref_tmp_end();
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("mm_malformed");
  TCase *tc = tu_tcase("refused");
  tcase_add_test(tc, shared_bad_files);
  tcase_add_test(tc, hand_written_malformed_files);
  tcase_add_test(tc, value_range_depends_on_type);
  tcase_add_test(tc, nul_byte_in_a_line);
  tcase_add_test(tc, int32_index_limit);
  tcase_add_test(tc, bad_arguments);
  tcase_add_test(tc, sums_past_the_range);
  tcase_add_test(tc, not_a_regular_file);
  tcase_add_test(tc, declared_size_cap);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  tu_require_data("test_mm_malformed", "matrices");
  return tu_main(TU_THIS_BACKEND_IS_CUDA ? "test_mm_malformed_cuda" : "test_mm_malformed_host", TU_THIS_BACKEND_IS_CUDA, suite);
}
