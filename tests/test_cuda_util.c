#include "test_cuda_util.h"

#include <stdio.h>

bool tu_device_has_memory(const char *test, size_t bytes) {
  size_t free_b = 0, total_b = 0;
  CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
  if (free_b >= bytes + ((size_t)1 << 30)) return true;
  printf("%s: SKIPPED: needs %zu bytes of device memory, %zu free\n", test, bytes, free_b);
  return false;
}
