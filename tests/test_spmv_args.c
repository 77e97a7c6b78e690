/*
 * gpu_spmv and its plans given bad arguments (each refused with
 * INVALID_ARGUMENT, named, y untouched) and malformed matrices: the validator
 * names each kind of corruption, and the host backend's product refuses it
 * without reading outside A or x (valgrind checks that part).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spmv_ref.h"
#include "test_util.h"

/* A 10 x 8 matrix (i64, f64) with at least 10 entries, so that y (10
 * doubles) fits inside its values, col_idx and row_ptr for the overlap cases. */
static ref_csr small_matrix(void) {
  ref_csr h = spmv_random_matrix(10, 8, 6, 0);
  while (h.nnz < 10) {
    ref_free(&h);
    h = spmv_random_matrix(10, 8, 6, 0);
  }
  return h;
}

/* Whether the other backend can be used on this machine; leaves the current one set. */
static bool other_backend(gpu_backend *other) {
  gpu_backend here = gpu_get_backend();
  *other = here == GPU_BACKEND_CUDA ? GPU_BACKEND_HOST : GPU_BACKEND_CUDA;
  gpu_set_backend(*other);
  void *p = NULL;
  bool usable = gpu_alloc(&p, 16) == GPU_OK;
  gpu_free(p);
  gpu_set_backend(here);
  return usable;
}

START_TEST(bad_arguments) {
  ref_csr h = small_matrix();
  gpu_csr A = spmv_upload_matrix(&h, GPU_I64, GPU_F64), B;
  double hy[10], before[10], after[10];
  for (int r = 0; r < 10; r++) hy[r] = r + 0.5;
  double *buf = tu_alloc(20 * sizeof(double)), *x = buf, *y = buf + 10;
  tu_upload(y, hy, sizeof hy);
  tu_download(before, y, sizeof before);

  /* The matrix: each field of A, through gpu_spmv and gpu_spmv_plan_create. */
  ck_assert(gpu_spmv(NULL, x, y, 1, 0) == GPU_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(gpu_last_error(), "gpu_spmv: A is NULL"));
  gpu_spmv_plan *plan = (gpu_spmv_plan *)&A;
  spmv_expect_refused(gpu_spmv_plan_create(&plan, NULL), "gpu_spmv_plan_create: A is NULL");
  ck_assert_ptr_null(plan);
  spmv_expect_refused(gpu_spmv_plan_create(NULL, &A), "gpu_spmv_plan_create: plan is NULL");
  for (int k = 0; k <= SPMV_BAD_SHAPES; k++) {
    B = A;
    const char *words = "x: n = ";
    if (k < SPMV_BAD_SHAPES)
      words = spmv_bad_shape(&B, k);
    else
      B.cols = INT64_MAX; /* x: cols doubles overflow a size_t */
    spmv_expect_refused(gpu_spmv(&B, x, y, 1, 0), words);
    ck_assert(strncmp(gpu_last_error(), "gpu_spmv: ", 10) == 0);
    plan = (gpu_spmv_plan *)&A;
    gpu_status s = gpu_spmv_plan_create(&plan, &B);
    if (k < SPMV_BAD_SHAPES) { /* a plan has no x yet: cols alone is fine */
      spmv_expect_refused(s, words);
      ck_assert_ptr_null(plan);
    } else {
      ck_assert_msg(s == GPU_OK, "%s", gpu_last_error());
      gpu_spmv_plan_destroy(plan);
    }
  }

  /* The vectors, through gpu_spmv and a plan's run. */
  ck_assert_msg(gpu_spmv_plan_create(&plan, &A) == GPU_OK, "%s", gpu_last_error());
  struct {
    const void *x;
    void *y;
    const char *words;
  } bad_vectors[] = {
      {NULL, y, "x is NULL"},
      {x, NULL, "y is NULL"},
      {(char *)x + 4, y, "x = "},
      {x, (char *)y + 1, "y = "},
      {x, buf + 3, "y and x overlap"},
      {buf + 12, y, "y and x overlap"},
      {x, A.values, "y and A->values overlap"},
      {x, A.col_idx, "y and A->col_idx overlap"},
      {x, A.row_ptr, "y and A->row_ptr overlap"},
  };
  for (size_t k = 0; k < sizeof bad_vectors / sizeof bad_vectors[0]; k++) {
    spmv_expect_refused(gpu_spmv(&A, bad_vectors[k].x, bad_vectors[k].y, 1, 0), bad_vectors[k].words);
    spmv_expect_refused(gpu_spmv_plan_run(plan, bad_vectors[k].x, bad_vectors[k].y, 1, 0),
                   bad_vectors[k].words);
    ck_assert(strncmp(gpu_last_error(), "gpu_spmv_plan_run: ", 19) == 0);
  }
  spmv_expect_refused(gpu_spmv_plan_run(NULL, x, y, 1, 0), "gpu_spmv_plan_run: plan is NULL");

  /* A plan runs only on the backend it was made on (A's arrays live there). */
  gpu_backend other;
  if (other_backend(&other)) {
    gpu_backend here = gpu_get_backend();
    gpu_set_backend(other);
    spmv_expect_refused(gpu_spmv_plan_run(plan, x, y, 1, 0), "the plan was made on the");
    gpu_set_backend(here);
  } else {
    printf("bad_arguments: one backend only here: a plan run on the other one is not tried\n");
  }
  gpu_spmv_plan_destroy(plan);
  gpu_spmv_plan_destroy(NULL);

  tu_download(after, y, sizeof after);
  ck_assert_msg(memcmp(before, after, sizeof after) == 0, "a refused call wrote y");
  tu_free(buf);
  ck_assert(gpu_csr_free(&A) == GPU_OK);
  ref_free(&h);
}
END_TEST

/* One corruption of a valid matrix: in row_ptr ('r') or col_idx ('c'), at an
 * index, a value (or an extreme of the index type: 'M' max, 'm' min). */
typedef struct {
  char array;
  int64_t at, value;
  char extreme;
  const char *words; /* what gpu_spmv's message says */
} corruption;

static int64_t corrupt_value(const corruption *c, gpu_dtype it) {
  if (c->extreme == 'M') return it == GPU_I32 ? INT32_MAX : INT64_MAX;
  if (c->extreme == 'm') return it == GPU_I32 ? INT32_MIN : INT64_MIN;
  return c->value;
}

/* h with corruption c, uploaded with index type it (h itself is restored). */
static gpu_csr upload_corrupted(ref_csr *h, const corruption *c, gpu_dtype it) {
  int64_t *target = c->array == 'r' ? h->row_ptr : h->col_idx, kept = target[c->at];
  target[c->at] = corrupt_value(c, it);
  gpu_csr A = spmv_upload_matrix(h, it, GPU_F64);
  target[c->at] = kept;
  return A;
}

/* CUDA: a product with a malformed A returns GPU_OK (its check is not waited
 * for) and gpu_synchronize reports it, once; a plan made of a bad row_ptr
 * refuses its runs at once. Products with alpha == 0 still work: y = 2 y.
 * (That nothing is touched outside the arrays is compute-sanitizer's to see.) */
static void cuda_malformed_products(const gpu_csr *A, const double *x, double *y, const double *hy, bool bad_row_ptr) {
  const size_t rows = (size_t)A->rows;
  double *twice = tu_xmalloc(rows * sizeof(double));
  for (int planned = 0; planned < 2; planned++) {
    tu_upload(y, hy, rows * sizeof(double));
    gpu_spmv_plan *plan = NULL;
    if (planned) ck_assert_msg(gpu_spmv_plan_create(&plan, A) == GPU_OK, "%s", gpu_last_error());
    gpu_status s = planned ? gpu_spmv_plan_run(plan, x, y, 1, 1) : gpu_spmv(A, x, y, 1, 1);
    if (planned && bad_row_ptr) {
      spmv_expect_refused(s, "A is malformed");
    } else {
      ck_assert_msg(s == GPU_OK, "%s", gpu_last_error());
      s = gpu_synchronize();
      ck_assert_msg(s == GPU_ERR_INVALID_ARGUMENT, "planned %d: gpu_synchronize gave %s", planned,
                    gpu_status_string(s));
      ck_assert_msg(strstr(gpu_last_error(), "malformed matrix"), "%s", gpu_last_error());
    }
    ck_assert_msg(gpu_synchronize() == GPU_OK, "the deferred error is reported once: %s", gpu_last_error());
    tu_upload(y, hy, rows * sizeof(double));
    s = planned ? gpu_spmv_plan_run(plan, x, y, 0, 2) : gpu_spmv(A, x, y, 0, 2); /* reads neither A nor x */
    ck_assert_msg(s == GPU_OK && gpu_synchronize() == GPU_OK, "%s", gpu_last_error());
    tu_download(twice, y, rows * sizeof(double));
    for (size_t i = 0; i < rows; i++)
      ck_assert_msg(twice[i] == 2 * hy[i], "alpha 0, beta 2: y[%zu] = %g, not %g", i, twice[i], 2 * hy[i]);
    gpu_spmv_plan_destroy(plan);
  }
  free(twice);
}

START_TEST(malformed_matrices) {
  ref_csr h = spmv_random_matrix(40, 30, 6, 0);
  /* Rows 16 and 39 not empty, so that each corruption below breaks what it means to. */
  while (h.row_ptr[17] - h.row_ptr[16] < 2 || h.row_ptr[40] == h.row_ptr[39] || h.row_ptr[16] < 2) {
    ref_free(&h);
    h = spmv_random_matrix(40, 30, 6, 0);
  }
  const int64_t first16 = h.row_ptr[16], nnz = h.nnz;
  const corruption cases[] = {
      {'c', first16 + 1, 30, 0, "row 16 has"},  {'c', first16, -1, 0, "row 16 has"},
      {'c', first16, 0, 'M', "row 16 has"},     {'c', first16, 0, 'm', "row 16 has"},
      {'r', 17, first16 - 1, 0, "row 16 has"},  {'r', 17, nnz + 5, 0, "row 16 has"},
      {'r', 17, -3, 0, "row 16 has"},           {'r', 17, 0, 'M', "row 16 has"},
      {'r', 17, 0, 'm', "row 16 has"},          {'r', 0, 1, 0, "row_ptr[0] = 1 and"},
      {'r', 40, nnz - 1, 0, "not 0 and nnz"},   {'r', 40, nnz + 1, 0, "not 0 and nnz"},
  };
  const bool host = gpu_get_backend() == GPU_BACKEND_HOST;
  double hx[30], hy[40], y_after[40];
  tu_fill(hx, 30, GPU_F64, TU_FULL);
  tu_fill(hy, 40, GPU_F64, TU_FULL);
  double *x = spmv_upload_vector(hx, 30, GPU_F64), *y = tu_alloc(sizeof hy);
  for (int t = 0; t < 2; t++) {
    const gpu_dtype it = t ? GPU_I64 : GPU_I32;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      const corruption *c = &cases[k];
      gpu_csr A = upload_corrupted(&h, c, it);
      ck_assert(gpu_csr_validate(&A) == GPU_ERR_INVALID_ARGUMENT);
      if (!host) {
        cuda_malformed_products(&A, x, y, hy, c->array == 'r');
        ck_assert(gpu_csr_free(&A) == GPU_OK);
        continue;
      }
      for (int planned = 0; planned < 2; planned++) {
        tu_upload(y, hy, sizeof hy);
        gpu_spmv_plan *plan = NULL;
        if (planned) ck_assert(gpu_spmv_plan_create(&plan, &A) == GPU_OK);
        gpu_status s = planned ? gpu_spmv_plan_run(plan, x, y, 1, 1) : gpu_spmv(&A, x, y, 1, 1);
        spmv_expect_refused(s, c->words);
        ck_assert(strstr(gpu_last_error(), "A is malformed"));
        tu_download(y_after, y, sizeof y_after);
        if (strstr(c->words, "row_ptr") || strstr(c->words, "nnz")) /* found before any write */
          ck_assert(memcmp(y_after, hy, sizeof hy) == 0);
        /* alpha == 0 reads neither A nor x: fine. */
        s = planned ? gpu_spmv_plan_run(plan, x, y, 0, 2) : gpu_spmv(&A, x, y, 0, 2);
        ck_assert_msg(s == GPU_OK, "%s", gpu_last_error());
        gpu_spmv_plan_destroy(plan);
      }
      ck_assert(gpu_csr_free(&A) == GPU_OK);
    }
  }
  tu_free(x);
  tu_free(y);
  ref_free(&h);
}
END_TEST

/* The same far into a matrix of many tiles (on CUDA, up to 256 tiles, each
 * tile checks its own share of row_ptr; a corruption near the end is a late
 * tile's to find), and past the last tile's first rows. */
START_TEST(malformed_across_tiles) {
  const int64_t rows = 30000, cols = 500;
  ref_csr h = spmv_random_matrix(rows, cols, 12, 0);
  int64_t r = rows - 1234; /* a row with entries, after one with entries */
  while (h.row_ptr[r + 1] == h.row_ptr[r] || h.row_ptr[r] == h.row_ptr[r - 1]) r++;
  const int64_t nnz = h.nnz;
  const corruption cases[] = {
      {'r', r, h.row_ptr[r - 1] - 1, 0, "A is malformed"}, /* below the row before */
      {'c', h.row_ptr[r], cols, 0, "A is malformed"},
      {'c', nnz - 1, -1, 0, "A is malformed"},
      {'r', rows, nnz + 1, 0, "A is malformed"},
  };
  const bool host = gpu_get_backend() == GPU_BACKEND_HOST;
  double *hx = tu_xmalloc((size_t)cols * sizeof(double)), *hy = tu_xmalloc((size_t)rows * sizeof(double));
  tu_fill(hx, (size_t)cols, GPU_F64, TU_FULL);
  tu_fill(hy, (size_t)rows, GPU_F64, TU_FULL);
  double *x = spmv_upload_vector(hx, cols, GPU_F64), *y = tu_alloc((size_t)rows * sizeof(double));
  for (int t = 0; t < 2; t++) {
    const gpu_dtype it = t ? GPU_I64 : GPU_I32;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      const corruption *c = &cases[k];
      gpu_csr A = upload_corrupted(&h, c, it);
      ck_assert_msg(gpu_csr_validate(&A) == GPU_ERR_INVALID_ARGUMENT, "case %zu", k);
      if (!host) {
        cuda_malformed_products(&A, x, y, hy, c->array == 'r');
      } else {
        for (int planned = 0; planned < 2; planned++) {
          gpu_spmv_plan *plan = NULL;
          if (planned) ck_assert(gpu_spmv_plan_create(&plan, &A) == GPU_OK);
          gpu_status s = planned ? gpu_spmv_plan_run(plan, x, y, 1, 1) : gpu_spmv(&A, x, y, 1, 1);
          spmv_expect_refused(s, c->words);
          gpu_spmv_plan_destroy(plan);
        }
      }
      ck_assert(gpu_csr_free(&A) == GPU_OK);
    }
  }
  tu_free(x);
  tu_free(y);
  free(hx);
  free(hy);
  ref_free(&h);
}
END_TEST

TCase *test_spmv_args_tcase(void) {
  TCase *tc = tu_tcase("arguments");
  tcase_add_test(tc, bad_arguments);
  tcase_add_test(tc, malformed_matrices);
  tcase_add_test(tc, malformed_across_tiles);
  return tc;
}
