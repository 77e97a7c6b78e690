/* Status words, the per-thread last error, and the version string. */
#include <stdarg.h>
#include <stdio.h>

#include "core.h"

#ifndef GPUPRIM_VERSION_STRING
#  define GPUPRIM_VERSION_STRING "0.0.0"
#endif

/* Each thread keeps the words of its own last failure. */
static _Thread_local char last_error[1024];

const char *gpu_status_string(gpu_status s) {
  switch (s) {
    case GPU_OK: return "GPU_OK: success";
    case GPU_ERR_INVALID_ARGUMENT: return "GPU_ERR_INVALID_ARGUMENT: invalid argument";
    case GPU_ERR_UNSUPPORTED: return "GPU_ERR_UNSUPPORTED: valid but not supported";
    case GPU_ERR_OUT_OF_MEMORY: return "GPU_ERR_OUT_OF_MEMORY: out of memory";
    case GPU_ERR_NO_DEVICE: return "GPU_ERR_NO_DEVICE: no usable CUDA device";
    case GPU_ERR_DEVICE: return "GPU_ERR_DEVICE: CUDA error";
    case GPU_ERR_PARSE: return "GPU_ERR_PARSE: malformed input";
    case GPU_ERR_IO: return "GPU_ERR_IO: input/output error";
  }
  return "unknown gpu_status";
}

const char *gpu_last_error(void) { return last_error; }

const char *gpu_version(void) { return GPUPRIM_VERSION_STRING; }

gpu_status gp_fail(gpu_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  return s;
}
