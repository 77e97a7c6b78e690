/*
 * The segmented entry points' semantics on small hand-checked cases, and
 * their answers to bad arguments and malformed offsets (on whichever backend
 * is current; part of test_segmented.c's suite).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#ifndef TU_CUDA
#  define TU_CUDA 0
#endif

enum { N = 100 };

/* The status, and (when `needle` is not NULL) words of the message. */
static void expect(gpu_status got, gpu_status want, const char *needle, const char *call) {
  ck_assert_msg(got == want, "%s: %s, expected %s (%s)", call, gpu_status_string(got), gpu_status_string(want),
                gpu_last_error());
  if (needle)
    ck_assert_msg(strstr(gpu_last_error(), needle) != NULL, "%s: message \"%s\" does not say \"%s\"", call,
                  gpu_last_error(), needle);
}
#define EXPECT(call, want, needle) expect((call), (want), (needle), #call)

static void *upload_new(const void *host, size_t bytes) {
  void *d = tu_alloc(bytes);
  tu_upload(d, host, bytes);
  return d;
}

/* Whether `bytes` of backend memory at p still hold tu_poison's pattern. */
static bool still_poisoned(const void *p, size_t bytes) {
  unsigned char h[N * 8];
  tu_download(h, p, bytes);
  for (size_t i = 0; i < bytes; i++)
    if (h[i] != 0xA5) return false;
  return true;
}

/* in = 1..6 in segments [0,2) [2,2) [2,5) [5,6): every flag, both forms, and the reduce. */
START_TEST(segmented_worked_example) {
  if (!tu_in_shard(0)) return;
  const int32_t in[6] = {1, 2, 3, 4, 5, 6};
  const int64_t offsets[5] = {0, 2, 2, 5, 6};
  const uint8_t heads[6] = {0, 0, 7, 0, 0, 1}; /* heads[0] is ignored */
  const int32_t want[4][6] = {{1, 3, 3, 7, 12, 6},   /* inclusive */
                              {0, 1, 0, 3, 7, 0},    /* exclusive */
                              {3, 2, 12, 9, 5, 6},   /* reverse */
                              {2, 0, 9, 5, 0, 0}};   /* exclusive reverse */
  const unsigned flags[4] = {GPU_INCLUSIVE, GPU_EXCLUSIVE, GPU_REVERSE, GPU_EXCLUSIVE | GPU_REVERSE};
  int32_t *d_in = upload_new(in, sizeof in), *d_out = tu_alloc(sizeof in);
  int64_t *d_offsets = upload_new(offsets, sizeof offsets);
  uint8_t *d_heads = upload_new(heads, sizeof heads);
  int32_t got[6];
  for (int f = 0; f < 4; f++)
    for (int form = 0; form < 2; form++) {
      tu_poison(d_out, sizeof in);
      EXPECT(form ? gpu_segscan_offsets(d_in, d_out, 6, d_offsets, 4, GPU_I32, GPU_ADD, flags[f])
                  : gpu_segscan_flags(d_in, d_out, 6, d_heads, GPU_I32, GPU_ADD, flags[f]),
             GPU_OK, NULL);
      tu_download(got, d_out, sizeof got);
      for (int i = 0; i < 6; i++)
        ck_assert_msg(got[i] == want[f][i], "flags %u form %d: out[%d] = %d, expected %d", flags[f], form, i, got[i],
                      want[f][i]);
    }
  const int32_t sums[4] = {3, 0, 12, 6}, maxima[4] = {2, INT32_MIN, 5, 6};
  EXPECT(gpu_segreduce(d_in, d_offsets, 4, d_out, GPU_I32, GPU_ADD), GPU_OK, NULL);
  tu_download(got, d_out, 4 * sizeof(int32_t));
  ck_assert_mem_eq(got, sums, sizeof sums);
  EXPECT(gpu_segreduce(d_in, d_offsets, 4, d_out, GPU_I32, GPU_MAX), GPU_OK, NULL);
  tu_download(got, d_out, 4 * sizeof(int32_t));
  ck_assert_mem_eq(got, maxima, sizeof maxima);
  /* In place. */
  EXPECT(gpu_segscan_offsets(d_in, d_in, 6, d_offsets, 4, GPU_I32, GPU_ADD, GPU_INCLUSIVE), GPU_OK, NULL);
  tu_download(got, d_in, sizeof got);
  ck_assert_mem_eq(got, want[0], sizeof got);
  tu_free(d_in);
  tu_free(d_out);
  tu_free(d_offsets);
  tu_free(d_heads);
}
END_TEST

/* A segment's first element is its inclusive scan and a one-element
 * segment's reduction, bit for bit: a lone -0.0 stays -0.0 under ADD. */
START_TEST(segmented_negative_zero) {
  if (!tu_in_shard(1)) return;
  const float in[3] = {-0.0f, 1.0f, -0.0f};
  const int64_t offsets[3] = {0, 2, 3};
  const uint8_t heads[3] = {0, 0, 1}; /* heads[0] ignored: a segment starts at 0 anyway */
  float *d_in = upload_new(in, sizeof in), *d_out = tu_alloc(sizeof in), got[3];
  int64_t *d_offsets = upload_new(offsets, sizeof offsets);
  uint8_t *d_heads = upload_new(heads, sizeof heads);
  EXPECT(gpu_segscan_flags(d_in, d_out, 3, d_heads, GPU_F32, GPU_ADD, GPU_INCLUSIVE), GPU_OK, NULL);
  tu_download(got, d_out, sizeof got);
  ck_assert(signbit(got[0]) && got[1] == 1.0f && signbit(got[2]));
  EXPECT(gpu_segscan_offsets(d_in, d_out, 3, d_offsets, 2, GPU_F32, GPU_ADD, GPU_REVERSE), GPU_OK, NULL);
  tu_download(got, d_out, sizeof got);
  ck_assert(got[0] == 1.0f && got[1] == 1.0f && signbit(got[2]));
  EXPECT(gpu_segreduce(d_in, d_offsets, 2, d_out, GPU_F32, GPU_ADD), GPU_OK, NULL);
  tu_download(got, d_out, 2 * sizeof(float));
  ck_assert(got[0] == 1.0f && signbit(got[1]) && got[1] == 0.0f);
  tu_free(d_in);
  tu_free(d_out);
  tu_free(d_offsets);
  tu_free(d_heads);
}
END_TEST

/* n == 0 does nothing (NULL pointers allowed); segments over n == 0 are all
 * empty, and their reductions the identities. */
START_TEST(segmented_empty_input) {
  if (!tu_in_shard(2)) return;
  EXPECT(gpu_segscan_flags(NULL, NULL, 0, NULL, GPU_F32, GPU_ADD, 0), GPU_OK, NULL);
  EXPECT(gpu_segscan_offsets(NULL, NULL, 0, NULL, 0, GPU_F32, GPU_ADD, GPU_REVERSE), GPU_OK, NULL);
  EXPECT(gpu_segscan_offsets(NULL, NULL, 0, NULL, 5, GPU_I64, GPU_MIN, GPU_EXCLUSIVE), GPU_OK, NULL);
  EXPECT(gpu_segreduce(NULL, NULL, 0, NULL, GPU_U32, GPU_AND), GPU_OK, NULL);
  const int64_t zeros[4] = {0, 0, 0, 0};
  int64_t *d_offsets = upload_new(zeros, sizeof zeros);
  void *d_out = tu_alloc(3 * 8);
  for (gpu_dtype t = GPU_I32; t <= GPU_F64; t++)
    for (gpu_op op = GPU_ADD; op <= GPU_XOR; op++) {
      if (t >= GPU_F32 && op >= GPU_AND) continue;
      unsigned char want[8], got[3 * 8];
      /* The identity, as gpu_reduce gives it for no elements (test_scan checks that). */
      ck_assert_int_eq(gpu_reduce(NULL, 0, t, op, want), GPU_OK);
      tu_poison(d_out, 3 * 8);
      EXPECT(gpu_segreduce(NULL, d_offsets, 3, d_out, t, op), GPU_OK, NULL);
      tu_download(got, d_out, sizeof got);
      const size_t w = gpu_dtype_size(t);
      for (int s = 0; s < 3; s++)
        ck_assert_msg(memcmp(got + s * w, want, w) == 0, "type %d op %d: segment %d is not the identity", t, op, s);
    }
  tu_free(d_offsets);
  tu_free(d_out);
}
END_TEST

START_TEST(segmented_bad_arguments) {
  if (!tu_in_shard(3)) return;
  int32_t h[N], back[N];
  for (int i = 0; i < N; i++) h[i] = i;
  const int64_t offsets[3] = {0, 40, N};
  uint8_t heads[N] = {0};
  heads[40] = 1;
  int32_t *in = upload_new(h, sizeof h), *out = tu_alloc(sizeof h);
  int64_t *off = upload_new(offsets, sizeof offsets);
  uint8_t *hd = upload_new(heads, sizeof heads);
  tu_poison(out, sizeof h);
  const gpu_op bad_op = (gpu_op)-1;
  const gpu_dtype bad_t = (gpu_dtype)17;

  EXPECT(gpu_segscan_flags(NULL, out, N, hd, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "in is NULL");
  EXPECT(gpu_segscan_flags(in, NULL, N, hd, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "out is NULL");
  EXPECT(gpu_segscan_flags(in, out, N, NULL, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "heads is NULL");
  EXPECT(gpu_segscan_flags(in, out, N, hd, bad_t, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "gpu_segscan_flags");
  EXPECT(gpu_segscan_flags(in, out, N, hd, GPU_I32, bad_op, 0), GPU_ERR_INVALID_ARGUMENT, NULL);
  EXPECT(gpu_segscan_flags(in, out, N, hd, GPU_I32, GPU_ADD, 4u), GPU_ERR_INVALID_ARGUMENT, NULL);
  EXPECT(gpu_segscan_flags(in, out, N, hd, GPU_F32, GPU_XOR, 0), GPU_ERR_UNSUPPORTED, NULL);
  EXPECT(gpu_segscan_flags((char *)in + 1, out, 10, hd, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, NULL);
  EXPECT(gpu_segscan_flags(in, in + 1, 10, hd, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "overlap");
  EXPECT(gpu_segscan_flags(in, out, 10, (uint8_t *)out + 3, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "overlap");
  EXPECT(gpu_segscan_flags(in, out, SIZE_MAX / 2, hd, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, NULL);

  EXPECT(gpu_segscan_offsets(NULL, out, N, off, 2, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "in is NULL");
  EXPECT(gpu_segscan_offsets(in, NULL, N, off, 2, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "out is NULL");
  EXPECT(gpu_segscan_offsets(in, out, N, NULL, 2, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "offsets is NULL");
  EXPECT(gpu_segscan_offsets(in, out, N, off, 2, bad_t, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "gpu_segscan_offsets");
  EXPECT(gpu_segscan_offsets(in, out, N, off, 2, GPU_I32, (gpu_op)7, 0), GPU_ERR_INVALID_ARGUMENT, NULL);
  EXPECT(gpu_segscan_offsets(in, out, N, off, 2, GPU_I32, GPU_ADD, 8u), GPU_ERR_INVALID_ARGUMENT, NULL);
  EXPECT(gpu_segscan_offsets(in, out, N, off, 2, GPU_F64, GPU_AND, 0), GPU_ERR_UNSUPPORTED, NULL);
  EXPECT(gpu_segscan_offsets(in, out, N, off, 0, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "nseg = 0");
  EXPECT(gpu_segscan_offsets(in, out, N, off, SIZE_MAX, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "nseg");
  EXPECT(gpu_segscan_offsets(in, out, N, (int64_t *)((char *)off + 4), 1, GPU_I32, GPU_ADD, 0),
         GPU_ERR_INVALID_ARGUMENT, "aligned");
  EXPECT(gpu_segscan_offsets(in, in + 2, 10, off, 2, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "overlap");
  EXPECT(gpu_segscan_offsets(in, out, 10, (int64_t *)out + 1, 2, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT,
         "overlap");

  EXPECT(gpu_segreduce(in, NULL, 2, out, GPU_I32, GPU_ADD), GPU_ERR_INVALID_ARGUMENT, "offsets is NULL");
  EXPECT(gpu_segreduce(in, off, 2, NULL, GPU_I32, GPU_ADD), GPU_ERR_INVALID_ARGUMENT, "out is NULL");
  EXPECT(gpu_segreduce(in, off, 2, out, bad_t, GPU_ADD), GPU_ERR_INVALID_ARGUMENT, "gpu_segreduce");
  EXPECT(gpu_segreduce(in, off, 2, out, GPU_I32, bad_op), GPU_ERR_INVALID_ARGUMENT, NULL);
  EXPECT(gpu_segreduce(in, off, 2, out, GPU_F32, GPU_OR), GPU_ERR_UNSUPPORTED, NULL);
  EXPECT(gpu_segreduce(in, off, SIZE_MAX - 1, out, GPU_I32, GPU_ADD), GPU_ERR_INVALID_ARGUMENT, "nseg");
  EXPECT(gpu_segreduce(in, off, 2, (char *)out + 2, GPU_I32, GPU_ADD), GPU_ERR_INVALID_ARGUMENT, "aligned");
  EXPECT(gpu_segreduce(in, off, 2, (int32_t *)off + 1, GPU_I32, GPU_ADD), GPU_ERR_INVALID_ARGUMENT, "overlap");
  /* No input with nonempty segments: on CUDA the kernels see offsets beyond n = 0. */
  EXPECT(gpu_segreduce(NULL, off, 2, out, GPU_I32, GPU_ADD), GPU_ERR_INVALID_ARGUMENT, TU_CUDA ? NULL : "in is NULL");
  EXPECT(gpu_segreduce(in, off, 2, in + 50, GPU_I32, GPU_ADD), GPU_ERR_INVALID_ARGUMENT, "overlap");
#if TU_CUDA
  /* Past the end of an allocation, and plain host memory. */
  EXPECT(gpu_segscan_flags(in, out, 2 * N, hd, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "past the end");
  EXPECT(gpu_segscan_flags(in, out, N, heads, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "heads");
  EXPECT(gpu_segscan_offsets(in, out, N, offsets, 2, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "offsets");
  EXPECT(gpu_segscan_offsets(in, out, N, off, 2 * N, GPU_I32, GPU_ADD, 0), GPU_ERR_INVALID_ARGUMENT, "past the end");
  EXPECT(gpu_segreduce(h, off, 2, out, GPU_I32, GPU_ADD), GPU_ERR_INVALID_ARGUMENT, "in");
  EXPECT(gpu_segreduce(in, off, N, out, GPU_I32, GPU_ADD), GPU_ERR_INVALID_ARGUMENT, "past the end");
#endif
  ck_assert_msg(still_poisoned(out, sizeof h), "a refused call wrote to out");
  tu_download(back, in, sizeof back);
  ck_assert_mem_eq(back, h, sizeof h);
  tu_free(in);
  tu_free(out);
  tu_free(off);
  tu_free(hd);
}
END_TEST

/* A call's status, then (CUDA, where it is OK) gpu_synchronize's. */
static gpu_status with_verdict(gpu_status s) { return s == GPU_OK && TU_CUDA ? gpu_synchronize() : s; }

/* Malformed offsets of every kind: refused, nothing written outside out
 * (host: nothing at all), the host's message names the first bad entry. */
START_TEST(segmented_malformed_offsets) {
  if (!tu_in_shard(4)) return;
  enum { n = 10 };
  static const struct {
    int64_t v[5];
    const char *entry; /* what the host's message names */
    bool reduce_too;   /* also malformed without n (gpu_segreduce) */
  } cases[] = {
      {{1, 2, 5, 8, 10}, "offsets[0] = 1", true},          {{-3, 2, 5, 8, 10}, "offsets[0] = -3", true},
      {{0, 2, 5, 8, 9}, "offsets[4] = 9", false},          {{0, 2, 5, 8, 11}, "offsets[4] = 11", false},
      {{0, 5, 3, 8, 10}, "offsets[2] = 3", true},          {{0, 2, 12, 8, 10}, "offsets[2] = 12", false},
      {{0, -1, 5, 8, 10}, "offsets[1] = -1", true},        {{0, 2, 5, INT64_MAX, 10}, "offsets[3]", false},
      {{0, 2, INT64_MIN, 8, 10}, "offsets[2]", true},      {{0, 2, 5, 8, -10}, "offsets[4] = -10", true},
  };
  int32_t h[n + 4];
  for (int i = 0; i < n + 4; i++) h[i] = i + 1;
  int32_t *in = upload_new(h, sizeof h), *out = tu_alloc(sizeof h), back[n + 4];
  int64_t *off = tu_alloc(5 * sizeof(int64_t)), back_off[5];
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int call = 0; call < 4; call++) {
      if (call == 3 && !cases[c].reduce_too) continue;
      tu_upload(off, cases[c].v, sizeof cases[c].v);
      tu_poison(out, sizeof h);
      const unsigned flags = call == 1 ? GPU_EXCLUSIVE | GPU_REVERSE : call == 2 ? GPU_REVERSE : 0;
      /* CUDA does not wait for the check: gpu_synchronize reports it, once
       * (gpu_segreduce reads offsets[nseg] first: a negative one is refused
       * at once, naming it). */
      gpu_status s = call < 3 ? gpu_segscan_offsets(in, call == 2 ? in : out, n, off, 4, GPU_I32, GPU_ADD, flags)
                              : gpu_segreduce(in, off, 4, out, GPU_I32, GPU_ADD);
      const char *needle = cases[c].entry;
      if (TU_CUDA) needle = s == GPU_OK ? "malformed offsets" : "gpu_segreduce: offsets[nseg]";
      EXPECT(with_verdict(s), GPU_ERR_INVALID_ARGUMENT, needle);
      ck_assert_msg(gpu_synchronize() == GPU_OK, "case %zu call %d: reported twice: %s", c, call, gpu_last_error());
      /* CUDA: out's results (n scanned, 4 reduced) may hold anything; never what follows them. */
      const size_t written = call < 3 ? n : 4;
      ck_assert_msg(still_poisoned((char *)out + (TU_CUDA ? written * 4 : 0), TU_CUDA ? sizeof h - written * 4 : sizeof h),
                    "case %zu call %d: wrote to out", c, call);
      tu_download(back_off, off, sizeof back_off);
      ck_assert_mem_eq(back_off, cases[c].v, sizeof back_off);
      /* In place on CUDA, in[0, n) was out; the elements after it stay. */
      const size_t kept_from = call == 2 && TU_CUDA ? n : 0;
      tu_download(back, in, sizeof back);
      ck_assert_msg(memcmp(back + kept_from, h + kept_from, sizeof h - kept_from * 4) == 0,
                    "case %zu call %d: in changed", c, call);
      if (kept_from) tu_upload(in, h, sizeof h);
    }
  tu_free(in);
  tu_free(out);
  tu_free(off);
}
END_TEST

/* Malformed offsets far into a large input, one corruption at a time: on
 * CUDA this n takes the scan by runs, whose tiles check the offsets they
 * read where segments are short (mean 8 here; the table's launch then only
 * searches), else the table's launch checks them (mean 64), so a
 * corruption anywhere must be reported; after each, the call runs
 * well-formed. Forward scans (the runs), inclusive and exclusive, and
 * gpu_segreduce (its warps' searches for their windows over every nseg
 * here: several rounds); nothing written past out, the offsets untouched. */
static void malformed_offsets_large(size_t mean, size_t n, bool every_case) {
  const size_t nseg = n / mean, guard = 64;
  int64_t *h_off = tu_xmalloc((nseg + 1) * sizeof(int64_t)), *back_off = tu_xmalloc((nseg + 1) * sizeof(int64_t));
  h_off[0] = 0;
  for (size_t s = 1; s < nseg; s++) h_off[s] = (int64_t)((s * n) / nseg - tu_below(mean / 2)); /* increasing */
  h_off[nseg] = (int64_t)n;
  int32_t *h_in = tu_xmalloc(n * sizeof(int32_t));
  for (size_t i = 0; i < n; i++) h_in[i] = (int32_t)tu_below(1000);
  int32_t *in = upload_new(h_in, n * sizeof(int32_t)), *out = tu_alloc(n * sizeof(int32_t) + guard);
  int32_t *sums = tu_alloc(nseg * sizeof(int32_t) + guard);
  int64_t *off = upload_new(h_off, (nseg + 1) * sizeof(int64_t));
  free(h_in);
  const size_t at[] = {1, nseg / 3, nseg / 2 + 7, nseg - 1};
  for (size_t c = 0; c < 4 * 3 + 2; c++) {
    if (!every_case && c % 5 != 0 && c != 13) continue; /* decreasing, beyond n, negative; offsets[nseg] = n - 1 */
    /* Which entry and how: decreasing, negative, beyond n; then offsets[0]
     * = 1 and offsets[nseg] = n - 1. */
    const size_t k = c < 12 ? at[c / 3] : c == 12 ? 0 : nseg;
    const int64_t was = h_off[k];
    h_off[k] = c == 12   ? 1
               : c == 13 ? (int64_t)n - 1
               : c % 3 == 0 ? h_off[k - 1] - 1
               : c % 3 == 1 ? -5
                            : (int64_t)n + 3;
    for (int excl = 0; excl < 2; excl++) {
      const unsigned flags = excl ? GPU_EXCLUSIVE : GPU_INCLUSIVE;
      tu_upload(off, h_off, (nseg + 1) * sizeof(int64_t));
      tu_poison((char *)out + n * sizeof(int32_t), guard);
      expect(with_verdict(gpu_segscan_offsets(in, out, n, off, nseg, GPU_I32, GPU_ADD, flags)),
             GPU_ERR_INVALID_ARGUMENT, TU_CUDA ? "malformed offsets" : "offsets[", "malformed, large");
      ck_assert_msg(gpu_synchronize() == GPU_OK, "case %zu: reported twice: %s", c, gpu_last_error());
      ck_assert_msg(still_poisoned((char *)out + n * sizeof(int32_t), guard), "case %zu: wrote past out", c);
      tu_download(back_off, off, (nseg + 1) * sizeof(int64_t));
      ck_assert_msg(memcmp(back_off, h_off, (nseg + 1) * sizeof(int64_t)) == 0, "case %zu: offsets changed", c);
    }
    /* gpu_segreduce takes n from offsets[nseg]: n - 1 there is well formed. */
    if (c != 13) {
      tu_poison((char *)sums + nseg * sizeof(int32_t), guard);
      expect(with_verdict(gpu_segreduce(in, off, nseg, sums, GPU_I32, GPU_ADD)), GPU_ERR_INVALID_ARGUMENT,
             TU_CUDA ? "malformed offsets" : "offsets[", "malformed, large, reduce");
      ck_assert_msg(gpu_synchronize() == GPU_OK, "case %zu: reduce reported twice: %s", c, gpu_last_error());
      ck_assert_msg(still_poisoned((char *)sums + nseg * sizeof(int32_t), guard), "case %zu: reduce wrote past out", c);
      tu_download(back_off, off, (nseg + 1) * sizeof(int64_t));
      ck_assert_msg(memcmp(back_off, h_off, (nseg + 1) * sizeof(int64_t)) == 0, "case %zu: reduce changed offsets", c);
    }
    h_off[k] = was;
    tu_upload(off, h_off, (nseg + 1) * sizeof(int64_t));
    EXPECT(with_verdict(gpu_segscan_offsets(in, out, n, off, nseg, GPU_I32, GPU_ADD, GPU_INCLUSIVE)), GPU_OK, NULL);
    EXPECT(with_verdict(gpu_segreduce(in, off, nseg, sums, GPU_I32, GPU_ADD)), GPU_OK, NULL);
  }
  tu_free(in);
  tu_free(out);
  tu_free(sums);
  tu_free(off);
  free(h_off);
  free(back_off);
}

START_TEST(segmented_malformed_offsets_large) {
  if (!tu_in_shard(5 + (size_t)_i)) return;
  malformed_offsets_large(_i ? 64 : 8, TU_CUDA ? (size_t)1 << 24 : (size_t)1 << 16, true);
}
END_TEST

/* The same at 2^16 elements in segments of 64 (1024 segments): on CUDA
 * gpu_segreduce runs segreduce_direct there, whose group blocks check the
 * offsets they hold instead of the warps' windows. */
START_TEST(segmented_malformed_offsets_direct) {
  if (tu_in_shard(7)) malformed_offsets_large(64, (size_t)1 << 16, true);
}
END_TEST

/* The same in runs of more tiles than the CUDA backend walks, where each
 * block builds its run's table and checks the offsets it spans (segments
 * of 64; test_segmented.c's "runs" case). */
START_TEST(segmented_malformed_offsets_runs) {
  malformed_offsets_large(64, TU_CUDA ? (tu_quick() ? 18000001 : 25165829) : 70001, !tu_quick());
}
END_TEST

/* gpu_segreduce learns n from offsets[nseg]: with out in in's allocation
 * after in (on CUDA the call then reads n back first), and on CUDA with an
 * offsets[nseg] beyond in's allocation (malformed: reported once by
 * gpu_synchronize, nothing written past out, in and offsets unchanged). */
START_TEST(segmented_reduce_n_from_offsets) {
  if (!tu_in_shard(8)) return;
  enum { n = 10, nseg = 3 };
  const int64_t offsets[nseg + 1] = {0, 4, 4, n};
  int32_t h[n + nseg];
  for (int i = 0; i < n + nseg; i++) h[i] = i + 1;
  int32_t *buf = upload_new(h, sizeof h), got[nseg];
  int64_t *d_off = upload_new(offsets, sizeof offsets);
  tu_poison(buf + n, nseg * sizeof(int32_t));
  EXPECT(with_verdict(gpu_segreduce(buf, d_off, nseg, buf + n, GPU_I32, GPU_ADD)), GPU_OK, NULL);
  tu_download(got, buf + n, sizeof got);
  ck_assert_int_eq(got[0], 1 + 2 + 3 + 4);
  ck_assert_int_eq(got[1], 0);
  ck_assert_int_eq(got[2], 5 + 6 + 7 + 8 + 9 + 10);
#if TU_CUDA
  const int64_t beyond[nseg + 1] = {0, 4, 4, n + 100000};
  int32_t *in = upload_new(h, n * sizeof(int32_t)), *out = tu_alloc(N * sizeof(int32_t)), back[n];
  int64_t back_off[nseg + 1];
  tu_upload(d_off, beyond, sizeof beyond);
  tu_poison(out, N * sizeof(int32_t));
  EXPECT(with_verdict(gpu_segreduce(in, d_off, nseg, out, GPU_I32, GPU_ADD)), GPU_ERR_INVALID_ARGUMENT,
         "malformed offsets");
  ck_assert_msg(gpu_synchronize() == GPU_OK, "reported twice: %s", gpu_last_error());
  ck_assert_msg(still_poisoned(out + nseg, (N - nseg) * sizeof(int32_t)), "wrote past out's nseg values");
  tu_download(back, in, sizeof back);
  ck_assert_mem_eq(back, h, sizeof back);
  tu_download(back_off, d_off, sizeof back_off);
  ck_assert_mem_eq(back_off, beyond, sizeof back_off);
  tu_free(in);
  tu_free(out);
#endif
  tu_free(buf);
  tu_free(d_off);
}
END_TEST

/* The arguments case, sharded by a number a test (tu_in_shard). */
void segmented_add_argument_tests(TCase *tc);
void segmented_add_argument_tests(TCase *tc) {
  tcase_add_test(tc, segmented_worked_example);
  tcase_add_test(tc, segmented_negative_zero);
  tcase_add_test(tc, segmented_empty_input);
  tcase_add_test(tc, segmented_bad_arguments);
  tcase_add_test(tc, segmented_malformed_offsets);
  tcase_add_loop_test(tc, segmented_malformed_offsets_large, 0, 2);
  tcase_add_test(tc, segmented_malformed_offsets_direct);
  tcase_add_test(tc, segmented_reduce_n_from_offsets);
}

void segmented_add_runs_argument_tests(TCase *tc) { tcase_add_test(tc, segmented_malformed_offsets_runs); }
