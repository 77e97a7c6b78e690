/* The reader's input: the whole file mapped into memory (no copy, pages read
 * as the parser threads touch them), or read in big blocks where it cannot be
 * mapped (pipes, empty files, mmap failing). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mm_internal.h"

static const char fn[] = "gpu_csr_read_mm";

enum { READ_BLOCK = 16 << 20 };

static gpu_status io_error(const char *path, const char *what, int err) {
  return gp_fail(GPU_ERR_IO, "%s: %s: %s: %s", fn, path, what, strerror(err));
}

/* Reads fd to its end into a growing buffer; size_hint sizes the first one. */
static gpu_status read_all(const char *path, int fd, size_t size_hint, gp_mm_file *f) {
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
  }
  f->data = buf;
  f->size = len;
  f->buffer = buf;
  return GPU_OK;
}

gpu_status gp_mm_file_open(const char *path, gp_mm_file *f) {
  memset(f, 0, sizeof *f);
  int fd = open(path, O_RDONLY);
  if (fd < 0) return io_error(path, "cannot open", errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return io_error(path, "cannot stat", err);
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return io_error(path, "cannot read", EISDIR);
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
      s = read_all(path, fd, size, f);
    }
  } else {
    bool fits = regular && st.st_size > 0 && (uintmax_t)st.st_size <= SIZE_MAX;
    s = read_all(path, fd, fits ? (size_t)st.st_size : 0, f);
  }
  close(fd);
  return s;
}

void gp_mm_file_close(gp_mm_file *f) {
  if (f->mapping) munmap(f->mapping, f->size);
  free(f->buffer);
  memset(f, 0, sizeof *f);
}
