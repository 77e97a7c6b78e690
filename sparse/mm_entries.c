/*
 * The entry lines, "row col [value]", parsed in parallel.
 *
 * The body is cut into chunks at line boundaries. A first pass counts each
 * chunk's lines and entry lines (cheap: memchr), which checks the entry count
 * against the size line before anything is allocated (a corrupt size line
 * cannot make us allocate much), gives every chunk the index of its first
 * entry, and the line number its first line has (for messages). A second pass
 * parses each chunk straight into its slice of the coordinate arrays. The
 * first error in file order wins, so messages do not depend on timing.
 *
 * Blank lines and '%' comment lines are skipped wherever they are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#  include <omp.h>
#endif

#include "mm_internal.h"
#include "mm_number.h"

enum { MIN_CHUNK_BYTES = 1 << 20, CHUNKS_PER_THREAD = 4, WHY_SIZE = 192, TOKEN_SHOWN = 40 };

typedef struct {
  const char *begin, *end;
  int64_t newlines;     /* '\n' in [begin, end) */
  int64_t entries;      /* entry lines in it */
  int64_t first;        /* index in the arrays of its first entry */
  int64_t line;         /* 1-based number of its first line */
  int64_t off_diagonal; /* entries with row != col */
  int64_t error_line;   /* 0 when none, else the 1-based line of its first error */
  char why[WHY_SIZE];
} chunk;

/* What an entry line must satisfy. */
typedef struct {
  int64_t rows, cols;
  gp_mm_field field;
  bool skew, f32;
} entry_rules;

/* The entry text of the line [p, le), or NULL for a blank or comment line. */
static inline const char *entry_text(const char *p, const char *le) {
  p = gp_mm_skip_space(p, le);
  return p < le && *p != '%' ? p : NULL;
}

static int token_length(const char *p, const char *le) {
  const char *e = p;
  while (e < le && !gp_mm_is_space(*e) && e - p < TOKEN_SHOWN) e++;
  return (int)(e - p);
}

static bool parse_index(const char *p, const char *le, int64_t limit, const char *name,
                        int64_t *out, const char **next, char *why) {
  if (p == le) {
    snprintf(why, WHY_SIZE, "the entry has no %s index", name);
    return false;
  }
  int64_t x = 0;
  gp_num_result r = gp_mm_parse_int(p, le, &x, next);
  if (r == GP_NUM_NOT_A_NUMBER) {
    snprintf(why, WHY_SIZE, "the %s index is not an integer: '%.*s'", name, token_length(p, le), p);
    return false;
  }
  if (r == GP_NUM_OUT_OF_RANGE || x < 1 || x > limit) {
    snprintf(why, WHY_SIZE, "the %s index %.*s is outside [1, %lld]", name, token_length(p, le), p,
             (long long)limit);
    return false;
  }
  *out = x - 1;
  return true;
}

/* Parses one entry line; false with why filled in when it is malformed. */
static bool parse_entry(const entry_rules *rules, const char *p, const char *le, int64_t *i,
                        int64_t *j, double *v, char *why) {
  if (!parse_index(p, le, rules->rows, "row", i, &p, why)) return false;
  p = gp_mm_skip_space(p, le);
  if (!parse_index(p, le, rules->cols, "column", j, &p, why)) return false;
  p = gp_mm_skip_space(p, le);
  *v = 1.0;
  if (rules->field != GP_MM_PATTERN) {
    if (p == le) {
      snprintf(why, WHY_SIZE, "the entry has no value");
      return false;
    }
    bool integer = rules->field == GP_MM_INTEGER;
    const char *token = p;
    gp_num_result r = gp_mm_parse_real(p, le, integer, rules->f32, v, &p);
    if (r != GP_NUM_OK) {
      if (r == GP_NUM_NOT_A_NUMBER)
        snprintf(why, WHY_SIZE, "the value is not %s: '%.*s'", integer ? "an integer" : "a number",
                 token_length(token, le), token);
      else
        snprintf(why, WHY_SIZE, "the value %.*s is outside the range of %s",
                 token_length(token, le), token, rules->f32 ? "f32" : "f64");
      return false;
    }
    p = gp_mm_skip_space(p, le);
  }
  if (p != le) {
    snprintf(why, WHY_SIZE, "unexpected text after the entry: '%.*s'", token_length(p, le), p);
    return false;
  }
  if (rules->skew && *i == *j) {
    snprintf(why, WHY_SIZE,
             "a skew-symmetric matrix has no diagonal entries, but (%lld, %lld) is one",
             (long long)*i + 1, (long long)*j + 1);
    return false;
  }
  return true;
}

/* First pass: lines and entry lines of one chunk. */
static void count_chunk(chunk *c) {
  const char *p = c->begin;
  while (p < c->end) {
    const char *nl = memchr(p, '\n', (size_t)(c->end - p));
    const char *le = nl ? nl : c->end;
    c->entries += entry_text(p, le) != NULL;
    if (!nl) break;
    c->newlines++;
    p = nl + 1;
  }
}

/* Second pass: parses a chunk into the arrays, from index c->first. */
static void parse_chunk(chunk *c, const entry_rules *rules, gp_mm_coo *coo) {
  const char *p = c->begin;
  int64_t k = c->first, line = c->line;
  while (p < c->end) {
    const char *nl = memchr(p, '\n', (size_t)(c->end - p));
    const char *le = nl ? nl : c->end;
    const char *text = entry_text(p, le);
    if (text) {
      int64_t i, j;
      double v;
      if (!parse_entry(rules, text, le, &i, &j, &v, c->why)) {
        c->error_line = line;
        return;
      }
      coo->row[k] = i;
      coo->col[k] = j;
      coo->val[k] = v;
      c->off_diagonal += i != j;
      k++;
    }
    if (!nl) break;
    line++;
    p = nl + 1;
  }
}

/* The line number of entry index `target` (0-based, in file order). */
static int64_t line_of_entry(const chunk *chunks, int n, int64_t target) {
  int c = 0;
  while (c + 1 < n && chunks[c + 1].first <= target) c++;
  const char *p = chunks[c].begin;
  int64_t k = chunks[c].first, line = chunks[c].line;
  while (p < chunks[c].end) {
    const char *nl = memchr(p, '\n', (size_t)(chunks[c].end - p));
    const char *le = nl ? nl : chunks[c].end;
    if (entry_text(p, le) && k++ == target) return line;
    if (!nl) break;
    line++;
    p = nl + 1;
  }
  return line;
}

/* Cuts [body, end) into n chunks that start at line starts (some may be empty). */
static void cut_chunks(const char *body, const char *end, chunk *chunks, int n) {
  size_t size = (size_t)(end - body);
  for (int c = 0; c < n; c++) {
    const char *b = body + (size_t)((double)size * c / n);
    if (b > end) b = end;
    if (b > body && b[-1] != '\n') { /* move on to the start of the next line */
      const char *nl = memchr(b, '\n', (size_t)(end - b));
      b = nl ? nl + 1 : end;
    }
    if (c > 0 && b < chunks[c - 1].begin) b = chunks[c - 1].begin;
    memset(&chunks[c], 0, sizeof chunks[c]);
    chunks[c].begin = b;
    if (c > 0) chunks[c - 1].end = b;
  }
  chunks[n - 1].end = end;
}

static int chunk_count(size_t body_size) {
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  size_t n = body_size / MIN_CHUNK_BYTES;
  size_t most = (size_t)threads * CHUNKS_PER_THREAD;
  return n < 1 ? 1 : n > most ? (int)most : (int)n;
}

static gpu_status check_count(const char *path, const gp_mm_file *f, const gp_mm_header *h,
                              const chunk *chunks, int n) {
  const chunk *last = &chunks[n - 1];
  int64_t found = last->first + last->entries;
  if (found > h->nnz)
    return gp_fail(
        GPU_ERR_PARSE, "%s:%lld: more entries than the %lld the size line (line %lld) gives", path,
        (long long)line_of_entry(chunks, n, h->nnz), (long long)h->nnz, (long long)h->size_line);
  if (found < h->nnz) {
    int64_t last_line = last->line + last->newlines;
    if (f->size > h->body && f->data[f->size - 1] == '\n') last_line--;
    if (last_line < h->size_line) last_line = h->size_line;
    return gp_fail(
        GPU_ERR_PARSE,
        "%s:%lld: the file ends after %lld entries; the size line (line %lld) gives %lld", path,
        (long long)last_line, (long long)found, (long long)h->size_line, (long long)h->nnz);
  }
  return GPU_OK;
}

void gp_mm_coo_free(gp_mm_coo *coo) {
  free(coo->row);
  free(coo->col);
  free(coo->val);
  memset(coo, 0, sizeof *coo);
}

gpu_status gp_mm_read_entries(const char *path, const gp_mm_file *f, const gp_mm_header *h,
                              gpu_dtype value_type, gp_mm_coo *coo) {
  memset(coo, 0, sizeof *coo);
  const char *body = f->data + h->body, *end = f->data + f->size;
  int n = chunk_count((size_t)(end - body));
  chunk *chunks = malloc((size_t)n * sizeof *chunks);
  if (!chunks) return gp_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_csr_read_mm: %s: chunk table", path);
  cut_chunks(body, end, chunks, n);

#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
  for (int c = 0; c < n; c++) count_chunk(&chunks[c]);
  int64_t first = 0, line = h->body_line;
  for (int c = 0; c < n; c++) {
    chunks[c].first = first;
    chunks[c].line = line;
    first += chunks[c].entries;
    line += chunks[c].newlines;
  }
  gpu_status s = check_count(path, f, h, chunks, n);

  size_t count = (size_t)h->nnz;
  if (s == GPU_OK && count > 0) {
    bool fits = (uint64_t)h->nnz <= SIZE_MAX / sizeof(int64_t);
    coo->row = fits ? malloc(count * sizeof(int64_t)) : NULL;
    coo->col = fits ? malloc(count * sizeof(int64_t)) : NULL;
    coo->val = fits ? malloc(count * sizeof(double)) : NULL;
    if (!coo->row || !coo->col || !coo->val)
      s = gp_fail(GPU_ERR_OUT_OF_MEMORY, "gpu_csr_read_mm: %s: %lld entries", path,
                  (long long)h->nnz);
  }
  if (s == GPU_OK) {
    entry_rules rules = {h->rows, h->cols, h->field, h->symmetry == GP_MM_SKEW_SYMMETRIC,
                         value_type == GPU_F32};
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (int c = 0; c < n; c++) parse_chunk(&chunks[c], &rules, coo);
    for (int c = 0; c < n && s == GPU_OK; c++) {
      if (chunks[c].error_line)
        s = gp_fail(GPU_ERR_PARSE, "%s:%lld: %s", path, (long long)chunks[c].error_line,
                    chunks[c].why);
      coo->off_diagonal += chunks[c].off_diagonal;
    }
  }
  free(chunks);
  if (s != GPU_OK) {
    gp_mm_coo_free(coo);
    return s;
  }
  coo->n = h->nnz;
  return GPU_OK;
}
