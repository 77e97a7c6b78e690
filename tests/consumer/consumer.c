/* A program built against an installed gpuprim: an inclusive sum on the
 * current backend, and the header's version against the library's. */
#include <stdio.h>
#include <string.h>

#include <gpuprim.h>

#define STR_(x) #x
#define STR(x) STR_(x)

int main(void) {
  const char *header_version =
      STR(GPUPRIM_VERSION_MAJOR) "." STR(GPUPRIM_VERSION_MINOR) "." STR(GPUPRIM_VERSION_PATCH);
  if (strcmp(header_version, gpu_version()) != 0) {
    fprintf(stderr, "header version %s, library version %s\n", header_version, gpu_version());
    return 1;
  }
  int in[5] = {1, 2, 3, 4, 5}, out[5] = {0};
  void *d_in = NULL, *d_out = NULL;
  if (gpu_alloc(&d_in, sizeof in) != GPU_OK || gpu_alloc(&d_out, sizeof out) != GPU_OK ||
      gpu_upload(d_in, in, sizeof in) != GPU_OK ||
      gpu_scan(d_in, d_out, 5, GPU_I32, GPU_ADD, GPU_INCLUSIVE) != GPU_OK ||
      gpu_download(out, d_out, sizeof out) != GPU_OK) {
    fprintf(stderr, "gpuprim failed: %s\n", gpu_last_error());
    return 1;
  }
  gpu_free(d_in);
  gpu_free(d_out);
  printf("gpuprim %s, %s backend: %d %d %d %d %d\n", gpu_version(),
         gpu_get_backend() == GPU_BACKEND_CUDA ? "CUDA" : "host", out[0], out[1], out[2], out[3], out[4]);
  return out[4] == 15 ? 0 : 1;
}
