/* The calling thread's backend and stream, and whether a usable GPU exists. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core.h"

#if GPUPRIM_HAVE_CUDA
#  include <cuda_runtime_api.h>
#endif

/* The process default, read once from GPUPRIM_BACKEND. */
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static gpu_backend env_backend = GPU_BACKEND_AUTO;
static char env_bad_word[64]; /* non-empty: the variable held an unknown word */

static pthread_once_t device_once = PTHREAD_ONCE_INIT;
static bool device_usable;

/* Per thread: the backend asked for (or -1 for "the process default") and stream. */
static _Thread_local int thread_backend = -1;
static _Thread_local void *thread_stream;

static void read_env(void) {
  const char *v = getenv("GPUPRIM_BACKEND");
  if (!v || !*v || !strcasecmp(v, "auto")) env_backend = GPU_BACKEND_AUTO;
  else if (!strcasecmp(v, "cuda")) env_backend = GPU_BACKEND_CUDA;
  else if (!strcasecmp(v, "host")) env_backend = GPU_BACKEND_HOST;
  else {
    strncpy(env_bad_word, v, sizeof env_bad_word - 1);
  }
}

static void probe_device(void) {
#if GPUPRIM_HAVE_CUDA
  int count = 0;
  device_usable = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError(); /* a failed probe must not linger as this thread's error */
#else
  device_usable = false;
#endif
}

bool gp_cuda_available(void) {
  pthread_once(&device_once, probe_device);
  return device_usable;
}

gpu_status gpu_set_backend(gpu_backend b) {
  if (b != GPU_BACKEND_AUTO && b != GPU_BACKEND_CUDA && b != GPU_BACKEND_HOST)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "gpu_set_backend: unknown gpu_backend %d", (int)b);
  thread_backend = (int)b;
  return GPU_OK;
}

/* The backend asked for on this thread, before resolving AUTO. */
static gpu_backend requested(void) {
  if (thread_backend >= 0) return (gpu_backend)thread_backend;
  pthread_once(&env_once, read_env);
  return env_backend;
}

gpu_backend gpu_get_backend(void) {
  gpu_backend b = requested();
  if (b == GPU_BACKEND_AUTO) b = gp_cuda_available() ? GPU_BACKEND_CUDA : GPU_BACKEND_HOST;
  return b;
}

gpu_status gp_backend(const char *fn, gpu_backend *resolved) {
  *resolved = GPU_BACKEND_HOST; /* written on every path, read only on GPU_OK */
  gpu_backend b = requested();
  if (thread_backend < 0 && env_bad_word[0])
    return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                   "%s: GPUPRIM_BACKEND=%s is not one of auto, cuda, host", fn, env_bad_word);
  if (b == GPU_BACKEND_AUTO) b = gp_cuda_available() ? GPU_BACKEND_CUDA : GPU_BACKEND_HOST;
  if (b == GPU_BACKEND_CUDA && !gp_cuda_available()) {
#if GPUPRIM_HAVE_CUDA
    return gp_fail(GPU_ERR_NO_DEVICE, "%s: the CUDA backend was asked for and no usable GPU exists",
                   fn);
#else
    return gp_fail(GPU_ERR_NO_DEVICE,
                   "%s: the CUDA backend was asked for and this build of gpuprim has no CUDA", fn);
#endif
  }
  *resolved = b;
  return GPU_OK;
}

gpu_status gpu_set_stream(void *cuda_stream) {
  thread_stream = cuda_stream;
  return GPU_OK;
}

void *gp_stream(void) { return thread_stream; }

gpu_status gpu_synchronize(void) {
  gpu_backend b;
  gpu_status s = gp_backend("gpu_synchronize", &b);
  if (s != GPU_OK || b == GPU_BACKEND_HOST) return s;
#if GPUPRIM_HAVE_CUDA
  s = gp_cuda_status(cudaStreamSynchronize((cudaStream_t)thread_stream), "gpu_synchronize",
                     "cudaStreamSynchronize");
  return s != GPU_OK ? s : gp_take_deferred("gpu_synchronize");
#else
  return GPU_OK;
#endif
}
