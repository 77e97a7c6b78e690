#include "segmented_reference.h"

#include <stdlib.h>
#include <string.h>

#include "scan_reference.h"
#include "test_util.h"

const char *seg_kind_name(seg_kind k) {
  static const char *names[] = {"tiny", "huge", "mixed", "single", "unit", "bursts", "skewed", "?", "mean"};
  return k <= SEG_MEAN ? names[k] : "?";
}

typedef struct {
  int64_t *v;
  size_t len, cap;
} offset_list;

static void push(offset_list *l, size_t x) {
  if (l->len == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    int64_t *grown = realloc(l->v, l->cap * sizeof *grown);
    if (!grown) abort();
    l->v = grown;
  }
  l->v[l->len++] = (int64_t)x;
}

/* Appends stretches of 5000-30000 elements until n is reached, each in
 * segments of 0-2 elements (dense: thousands of segments a tile, beyond
 * what one staged window of a tile's offsets holds while the mean length
 * stays about 3) or of 16-48, in turn. */
static void push_bursts(offset_list *l, size_t n) {
  size_t pos = 0;
  for (int dense = (int)tu_below(2); pos < n; dense = !dense) {
    const size_t stretch_end = pos + 5000 + tu_below(25001);
    while (pos < n && pos < stretch_end) {
      const size_t len = dense ? tu_below(3) : 16 + tu_below(33);
      pos += len < n - pos ? len : n - pos;
      push(l, pos);
    }
  }
}

/* Appends n / 64 segments of 0-64 elements with one more among them, at a
 * random place, that holds the rest: a mean segment of about 64 with one
 * holding half the elements (CUDA's gpu_segreduce reduces short segments
 * a block a group at small n, and must still balance this one). */
static void push_skewed(offset_list *l, size_t n) {
  const size_t count = n / 64, at = tu_below(count + 1);
  size_t *len = tu_xmalloc((count + 1) * sizeof *len), sum = 0;
  for (size_t i = 0; i < count; i++) {
    len[i] = tu_below(65);
    if (len[i] > n - sum) len[i] = n - sum;
    sum += len[i];
  }
  size_t pos = 0;
  for (size_t i = 0; i <= count; i++) {
    if (i == at) {
      pos += n - sum;
      push(l, pos);
    }
    if (i < count) {
      pos += len[i];
      push(l, pos);
    }
  }
  free(len);
}

/* Appends segments of random lengths (drawn by `kind`) until n is reached. */
static void push_lengths(offset_list *l, size_t n, seg_kind kind) {
  size_t pos = 0;
  while (pos < n) {
    size_t len;
    if (kind == SEG_TINY) {
      len = tu_below(5);
    } else {
      uint64_t r = tu_below(100);
      len = r < 25 ? 0 : r < 75 ? 1 + tu_below(8) : r < 95 ? 1 + tu_below(300) : 1 + tu_below(20000);
    }
    pos += len < n - pos ? len : n - pos;
    push(l, pos);
  }
}

/* The segmentation of the offsets in l (which it takes), with its heads. */
static segmentation seg_from_list(offset_list *l, size_t n) {
  segmentation s = {n, l->len - 1, l->v, tu_xmalloc(n)};
  memset(s.heads, 0, n);
  for (size_t i = 0; i < s.nseg; i++)
    if ((size_t)s.offsets[i] < n) s.heads[s.offsets[i]] = (uint8_t)(1 + tu_below(255));
  if (n) s.heads[0] = (uint8_t)tu_below(256); /* ignored: zero or not */
  return s;
}

segmentation seg_make(seg_kind kind, size_t n) {
  offset_list l = {0};
  push(&l, 0);
  switch (kind) {
    case SEG_TINY: push_lengths(&l, n, kind); break;
    case SEG_HUGE: {
      size_t cuts[3], k = tu_below(4);
      for (size_t i = 0; i < k; i++) {
        size_t c = tu_below(n + 1), j = i;
        for (; j > 0 && cuts[j - 1] > c; j--) cuts[j] = cuts[j - 1];
        cuts[j] = c;
      }
      for (size_t i = 0; i < k; i++) push(&l, cuts[i]);
      push(&l, n);
      break;
    }
    case SEG_MIXED:
      for (uint64_t e = tu_below(4); e > 0; e--) push(&l, 0);
      push_lengths(&l, n, kind);
      for (uint64_t e = tu_below(4); e > 0; e--) push(&l, n);
      break;
    case SEG_SINGLE: push(&l, n); break;
    case SEG_BURSTS: push_bursts(&l, n); break;
    case SEG_SKEWED: push_skewed(&l, n); break;
    case SEG_UNIT:
    case SEG_KINDS:
    case SEG_MEAN:
      for (size_t i = 1; i <= n; i++) push(&l, i);
      break;
  }
  return seg_from_list(&l, n);
}

segmentation seg_make_mean(size_t n, size_t mean, size_t long_every) {
  offset_list l = {0};
  push(&l, 0);
  for (size_t pos = 0, k = 1; pos < n; k++) {
    const size_t len = long_every && k % long_every == 0 ? 1 + tu_below(25000) : tu_below(2 * mean + 1);
    pos += len < n - pos ? len : n - pos;
    push(&l, pos);
  }
  return seg_from_list(&l, n);
}

void seg_free(segmentation *s) {
  free(s->offsets);
  free(s->heads);
  s->offsets = NULL;
  s->heads = NULL;
}

void ref_segscan(const void *in, void *out, const segmentation *seg, gpu_dtype t, gpu_op op, unsigned flags,
                 double *scale) {
  const size_t w = gpu_dtype_size(t);
  for (size_t s = 0; s < seg->nseg; s++) {
    const size_t a = (size_t)seg->offsets[s], b = (size_t)seg->offsets[s + 1];
    if (b > a)
      ref_scan((const char *)in + a * w, (char *)out + a * w, b - a, t, op, flags, scale ? scale + a : NULL);
  }
}

void ref_segreduce(const void *in, const segmentation *seg, gpu_dtype t, gpu_op op, void *out, double *scale) {
  const size_t w = gpu_dtype_size(t);
  for (size_t s = 0; s < seg->nseg; s++) {
    const size_t a = (size_t)seg->offsets[s], b = (size_t)seg->offsets[s + 1];
    ref_reduce((const char *)in + a * w, b - a, t, op, (char *)out + s * w, scale ? scale + s : NULL);
  }
}
