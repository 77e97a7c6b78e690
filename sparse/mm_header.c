/*
 * The banner and the size line:
 *
 *   %%MatrixMarket matrix coordinate real general      <- line 1, words in any case
 *   % comments (and blank lines)
 *   rows cols nnz                                       <- the size line
 *
 * Every word of the banner is checked before any is judged unsupported, so a
 * misspelt word is a parse error even in an array or complex file.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "mm_internal.h"
#include "mm_number.h"

typedef struct {
  const char *begin, *end; /* the line, without its '\n' */
  size_t next;             /* offset of the following line */
} line_span;

static line_span line_at(const gp_mm_file *f, size_t offset) {
  const char *begin = f->data + offset, *stop = f->data + f->size;
  const char *nl = memchr(begin, '\n', (size_t)(stop - begin));
  line_span l = {begin, nl ? nl : stop, nl ? (size_t)(nl + 1 - f->data) : f->size};
  return l;
}

/* The next space-separated word of [*p, end), or an empty one at the end. */
static size_t next_word(const char **p, const char *end, const char **word) {
  const char *s = gp_mm_skip_space(*p, end), *e = s;
  while (e < end && !gp_mm_is_space(*e)) e++;
  *word = s;
  *p = e;
  return (size_t)(e - s);
}

/* Index of word in the list (case-insensitive), or -1. */
static int word_index(const char *word, size_t len, const char *const *list, int n) {
  for (int i = 0; i < n; i++)
    if (strlen(list[i]) == len && strncasecmp(word, list[i], len) == 0) return i;
  return -1;
}

static gpu_status parse_error(const char *path, int64_t line, const char *why, const char *word,
                              size_t len) {
  if (!word) return gp_fail(GPU_ERR_PARSE, "%s:%lld: %s", path, (long long)line, why);
  return gp_fail(GPU_ERR_PARSE, "%s:%lld: %s '%.*s'", path, (long long)line, why,
                 (int)(len > 40 ? 40 : len), word);
}

static const char *const objects[] = {"matrix"};
static const char *const formats[] = {"coordinate", "array"};
static const char *const fields[] = {"real", "integer", "pattern", "complex"};
static const char *const symmetries[] = {"general", "symmetric", "skew-symmetric", "hermitian"};
enum { FORMAT_ARRAY = 1, FIELD_COMPLEX = 3, SYMMETRY_HERMITIAN = 3 };

static gpu_status read_banner(const char *path, line_span l, gp_mm_header *h) {
  const char *p = l.begin, *w;
  size_t len = next_word(&p, l.end, &w);
  static const char magic[] = "%%MatrixMarket";
  if (len != sizeof magic - 1 || strncasecmp(w, magic, len) != 0)
    return parse_error(path, 1, "the file does not start with '%%MatrixMarket'", NULL, 0);
  const char *const *lists[] = {objects, formats, fields, symmetries};
  const int sizes[] = {1, 2, 4, 4};
  const char *what[] = {"object", "format", "field", "symmetry"};
  int pick[4];
  for (int k = 0; k < 4; k++) {
    len = next_word(&p, l.end, &w);
    if (len == 0) return gp_fail(GPU_ERR_PARSE, "%s:1: the banner has no %s word", path, what[k]);
    pick[k] = word_index(w, len, lists[k], sizes[k]);
    if (pick[k] < 0) {
      char why[64];
      snprintf(why, sizeof why, "unknown %s", what[k]);
      return parse_error(path, 1, why, w, len);
    }
  }
  if (next_word(&p, l.end, &w) != 0)
    return parse_error(path, 1, "unexpected text after the banner:", w, (size_t)(l.end - w));
  if (pick[1] == FORMAT_ARRAY)
    return gp_fail(GPU_ERR_UNSUPPORTED, "%s:1: array (dense) files are not supported", path);
  if (pick[2] == FIELD_COMPLEX)
    return gp_fail(GPU_ERR_UNSUPPORTED, "%s:1: complex matrices are not supported", path);
  if (pick[3] == SYMMETRY_HERMITIAN)
    return gp_fail(GPU_ERR_UNSUPPORTED, "%s:1: hermitian matrices are not supported", path);
  h->field = (gp_mm_field)pick[2];
  h->symmetry = (gp_mm_symmetry)pick[3];
  return GPU_OK;
}

static gpu_status read_size_line(const char *path, line_span l, int64_t line, gp_mm_header *h) {
  static const char *const names[] = {"rows", "columns", "entries"};
  int64_t v[3];
  const char *p = l.begin, *next;
  for (int k = 0; k < 3; k++) {
    p = gp_mm_skip_space(p, l.end);
    if (p == l.end) {
      char why[96];
      snprintf(why, sizeof why, "the size line needs rows, columns and entries; %s missing",
               names[k]);
      return parse_error(path, line, why, NULL, 0);
    }
    gp_num_result r = gp_mm_parse_int(p, l.end, &v[k], &next);
    if (r == GP_NUM_NOT_A_NUMBER) {
      const char *e = p;
      while (e < l.end && !gp_mm_is_space(*e)) e++;
      char why[64];
      snprintf(why, sizeof why, "the number of %s is not an integer:", names[k]);
      return parse_error(path, line, why, p, (size_t)(e - p));
    }
    if (r == GP_NUM_OUT_OF_RANGE || v[k] < 0) {
      char why[64];
      snprintf(why, sizeof why, "the number of %s is %s:", names[k],
               r == GP_NUM_OUT_OF_RANGE ? "out of range" : "negative");
      return parse_error(path, line, why, p, (size_t)(next - p));
    }
    p = next;
  }
  p = gp_mm_skip_space(p, l.end);
  if (p != l.end)
    return parse_error(path, line, "unexpected text after the size line:", p, (size_t)(l.end - p));
  h->rows = v[0];
  h->cols = v[1];
  h->nnz = v[2];
  if (h->symmetry != GP_MM_GENERAL && h->rows != h->cols)
    return gp_fail(GPU_ERR_PARSE, "%s:%lld: a %s matrix must be square, not %lld x %lld", path,
                   (long long)line, h->symmetry == GP_MM_SYMMETRIC ? "symmetric" : "skew-symmetric",
                   (long long)h->rows, (long long)h->cols);
  return GPU_OK;
}

gpu_status gp_mm_read_header(const char *path, const gp_mm_file *f, gp_mm_header *h) {
  if (f->size == 0) return parse_error(path, 1, "the file is empty", NULL, 0);
  line_span l = line_at(f, 0);
  gpu_status s = read_banner(path, l, h);
  if (s != GPU_OK) return s;
  /* Comments and blank lines, then the size line. */
  int64_t line = 1;
  while (l.next < f->size) {
    l = line_at(f, l.next);
    line++;
    const char *p = gp_mm_skip_space(l.begin, l.end);
    if (p == l.end || *p == '%') continue;
    s = read_size_line(path, l, line, h);
    if (s != GPU_OK) return s;
    h->size_line = line;
    h->body = l.next;
    h->body_line = line + 1;
    return GPU_OK;
  }
  return gp_fail(GPU_ERR_PARSE, "%s:%lld: the file ends before the size line", path,
                 (long long)line);
}
