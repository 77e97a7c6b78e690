/*
 * `gpuprim demo`'s linear recurrence row: gpu_linrec over n f32 steps,
 * h[t] = a[t] h[t-1] + b[t] with a and b in [-1, 1), against the host
 * backend. The two combine the steps in different orders (a scan of pairs,
 * a loop), so they agree to rounding: within 1e-4 of 1 + |h|.
 */
#include <math.h>
#include <stdio.h>

#include "demo.h"

int demo_linrec(size_t n, gpu_backend backend, void *h_in, void *h_out, void *h_ref, void *d_in, void *d_out) {
  /* The demo's buffers hold n 8-byte elements: a and b side by side. */
  float *ha = h_in, *hb = (float *)h_in + n, *da = d_in, *db = (float *)d_in + n;
  double seconds;
  progress("linrec f32");
  fill(h_in, 2 * n, GPU_F32);
  CHECK(gpu_upload(d_in, h_in, n * 8));
  TIME_CALL(seconds, gpu_linrec(da, db, d_out, n, GPU_F32, NULL, 0));
  CHECK(gpu_download(h_out, d_out, n * 4));
  CHECK(gpu_set_backend(GPU_BACKEND_HOST));
  CHECK(gpu_linrec(ha, hb, h_ref, n, GPU_F32, NULL, 0));
  CHECK(gpu_set_backend(backend));
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    const float got = ((float *)h_out)[i], want = ((float *)h_ref)[i];
    bad += !(fabsf(got - want) <= 1e-4f * (1 + fabsf(want)));
  }
  char check[64];
  snprintf(check, sizeof check, bad ? "FAILED: %zu differ" : "ok", bad);
  /* Bytes: a and b read, h written. */
  row("linrec", "f32, h = a h + b", n, seconds, 12.0 * (double)n, check);
  return bad != 0;
}
