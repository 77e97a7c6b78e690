/* The reader's input: the whole file mapped into memory (no copy, pages read
 * as the parser threads touch them), or read in big blocks where it cannot be
 * mapped (pipes, empty files, mmap failing). Only regular files and pipes are
 * read: a device such as /dev/zero never ends. What is read in blocks stops
 * as soon as its first bytes cannot be a Matrix Market banner, and at the
 * GPUPRIM_MM_MAX_BYTES cap. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mm_internal.h"
#include "mm_number.h"

static const char fn[] = "gpu_csr_read_mm";

enum { READ_BLOCK = 16 << 20 };

static gpu_status io_error(const char *path, const char *what, int err) {
  return gp_fail(GPU_ERR_IO, "%s: %s: %s: %s", fn, path, what, strerror(err));
}

/* Whether data[0, len) may still begin a file whose first word is the banner's
 * (case-insensitive, after spaces): false once a byte rules it out. */
static bool may_start_banner(const char *data, size_t len) {
  static const char magic[] = "%%matrixmarket";
  size_t i = 0;
  while (i < len && gp_mm_is_space(data[i])) i++;
  for (size_t k = 0; i + k < len && k < sizeof magic - 1; k++)
    if (tolower((unsigned char)data[i + k]) != magic[k]) return false;
  return true;
}

/* Reads fd to its end into a growing buffer; size_hint sizes the first one.
 * Stops early where the text cannot be a Matrix Market file (the header's
 * parse then says why). */
static gpu_status read_all(const char *path, int fd, size_t size_hint, uint64_t max_bytes,
                           gp_mm_file *f) {
  size_t cap = size_hint > 0 && size_hint < SIZE_MAX - 1 ? size_hint + 1 : READ_BLOCK;
  size_t len = 0;
  char *buf = malloc(cap);
  if (!buf) return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %s: %zu bytes to read it", fn, path, cap);
  for (;;) {
    if (len == cap) {
      size_t grown = cap <= SIZE_MAX / 2 ? cap * 2 : SIZE_MAX;
      char *bigger = grown > cap ? realloc(buf, grown) : NULL;
      if (!bigger) {
        free(buf);
        return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %s: more than %zu bytes", fn, path, cap);
      }
      buf = bigger;
      cap = grown;
    }
    size_t want = cap - len < READ_BLOCK ? cap - len : READ_BLOCK;
    ssize_t got = read(fd, buf + len, want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      int err = errno;
      free(buf);
      return io_error(path, "read", err);
    }
    if (got == 0) break;
    len += (size_t)got;
    if (!may_start_banner(buf, len)) break;
    if (max_bytes && len > max_bytes) {
      free(buf);
      return gp_fail(GPU_ERR_OUT_OF_MEMORY, "%s: %s: more than GPUPRIM_MM_MAX_BYTES = %llu bytes", fn,
                     path, (unsigned long long)max_bytes);
    }
  }
  f->data = buf;
  f->size = len;
  f->buffer = buf;
  return GPU_OK;
}

gpu_status gp_mm_file_open(const char *path, uint64_t max_bytes, gp_mm_file *f) {
  memset(f, 0, sizeof *f);
  struct stat st;
  /* Judged before opening too: opening some devices does something. */
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISDIR(st.st_mode))
    return gp_fail(GPU_ERR_IO, "%s: %s: not a regular file or a pipe", fn, path);
  int fd = open(path, O_RDONLY);
  if (fd < 0) return io_error(path, "cannot open", errno);
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return io_error(path, "cannot stat", err);
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return io_error(path, "cannot read", EISDIR);
  }
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
    close(fd);
    return gp_fail(GPU_ERR_IO, "%s: %s: not a regular file or a pipe", fn, path);
  }
  gpu_status s = GPU_OK;
  bool regular = S_ISREG(st.st_mode);
  if (regular && st.st_size > 0 && (uintmax_t)st.st_size <= SIZE_MAX) {
    size_t size = (size_t)st.st_size;
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      /* The parser threads each walk their own stretch front to back. */
      posix_madvise(m, size, POSIX_MADV_WILLNEED);
      f->data = m;
      f->size = size;
      f->mapping = m;
    } else {
      s = read_all(path, fd, size, max_bytes, f);
    }
  } else {
    bool fits = regular && st.st_size > 0 && (uintmax_t)st.st_size <= SIZE_MAX;
    s = read_all(path, fd, fits ? (size_t)st.st_size : 0, max_bytes, f);
  }
  close(fd);
  return s;
}

void gp_mm_file_close(gp_mm_file *f) {
  if (f->mapping) munmap(f->mapping, f->size);
  free(f->buffer);
  memset(f, 0, sizeof *f);
}
