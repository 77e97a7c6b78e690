/* The README's example: an inclusive prefix sum of device data from C. */
#include <stdio.h>

#include <gpuprim.h>

int main(void) {
  int32_t host[8] = {3, 1, 4, 1, 5, 9, 2, 6}, sums[8];
  int32_t *data;
  if (gpu_alloc((void **)&data, sizeof host) != GPU_OK) return 1;
  gpu_upload(data, host, sizeof host);
  gpu_status s = gpu_scan(data, data, 8, GPU_I32, GPU_ADD, GPU_INCLUSIVE); /* in place */
  if (s != GPU_OK) fprintf(stderr, "gpu_scan: %s\n", gpu_last_error());
  gpu_download(sums, data, sizeof sums);
  for (int i = 0; i < 8; i++) printf("%d ", sums[i]); /* 3 4 8 9 14 23 25 31 */
  printf("\n");
  gpu_free(data);
  return s == GPU_OK ? 0 : 1;
}
