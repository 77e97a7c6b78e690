/*
 * Linear recurrences: the example (h = a h + b) and an exponential
 * moving average, m[t] = (1 - alpha) m[t-1] + alpha x[t], which is the
 * recurrence with a = 1 - alpha and b = alpha x. On the default backend.
 */
#include <stdio.h>

#include "gpuprim.h"

#define CHECK(call)                                                              \
  do {                                                                           \
    gpu_status s_ = (call);                                                      \
    if (s_ != GPU_OK) {                                                          \
      fprintf(stderr, "%s: %s\n", #call, gpu_last_error());                      \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

int main(void) {
  const float a[4] = {0.5f, 0.9f, 0.1f, 1.0f}, b[4] = {1, 2, 3, 4};
  float h[4];
  enum { N = 8 };
  const float x[N] = {10, 12, 11, 15, 14, 13, 20, 18}, alpha = 0.25f;
  float decay[N], scaled[N], ema[N];
  for (int i = 0; i < N; i++) {
    decay[i] = 1 - alpha;
    scaled[i] = alpha * x[i];
  }
  void *d_a, *d_b, *d_h;
  CHECK(gpu_alloc(&d_a, sizeof decay));
  CHECK(gpu_alloc(&d_b, sizeof scaled));
  CHECK(gpu_alloc(&d_h, sizeof ema));

  CHECK(gpu_upload(d_a, a, sizeof a));
  CHECK(gpu_upload(d_b, b, sizeof b));
  CHECK(gpu_linrec(d_a, d_b, d_h, 4, GPU_F32, NULL, 0));
  CHECK(gpu_download(h, d_h, sizeof h));
  printf("h = [%g, %g, %g, %g]\n", h[0], h[1], h[2], h[3]); /* [1, 2.9, 3.29, 7.29] */

  /* The average starts at the first sample: h0 = x[0] (a host pointer). */
  CHECK(gpu_upload(d_a, decay, sizeof decay));
  CHECK(gpu_upload(d_b, scaled, sizeof scaled));
  CHECK(gpu_linrec(d_a, d_b, d_h, N, GPU_F32, &x[0], 0));
  CHECK(gpu_download(ema, d_h, sizeof ema));
  printf("ema:");
  for (int i = 0; i < N; i++) printf(" %.3f", ema[i]);
  printf("\n");
  CHECK(gpu_free(d_a));
  CHECK(gpu_free(d_b));
  CHECK(gpu_free(d_h));
  return 0;
}
