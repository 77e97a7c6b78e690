/*
 * core's CUDA side: error words, pointer checks, the library's memory pool and
 * the look-back tile-state workspaces. Plain C over the CUDA runtime API.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "cuda_memory.h"

/* ------------------------------------------------------------------ errors */

gpu_status gp_cuda_status(int cuda_error, const char *fn, const char *call) {
  cudaError_t e = (cudaError_t)cuda_error;
  if (e == cudaSuccess) return GPU_OK;
  gpu_status s = GPU_ERR_DEVICE;
  switch (e) {
    case cudaErrorMemoryAllocation: s = GPU_ERR_OUT_OF_MEMORY; break;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice: s = GPU_ERR_NO_DEVICE; break;
    default: break;
  }
  /* Clear a non-sticky error so it does not resurface in a later, unrelated call. */
  cudaGetLastError();
  return gp_fail(s, "%s: %s: %s (%s)", fn, call, cudaGetErrorName(e), cudaGetErrorString(e));
}

/* ---------------------------------------------------------- pointer checks */

/* cuMemGetAddressRange tells the allocation holding a pointer. It comes from
 * the driver through the runtime, so that the library never links libcuda
 * (a machine without a driver must still load it and run the host backend). */
typedef CUresult (*address_range_fn)(CUdeviceptr *base, size_t *size, CUdeviceptr p);
static pthread_once_t range_once = PTHREAD_ONCE_INIT;
static address_range_fn address_range;

static void load_address_range(void) {
  void *f = NULL;
  enum cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &f, 12000, cudaEnableDefault,
                                       &q) == cudaSuccess &&
      q == cudaDriverEntryPointSuccess)
    address_range = (address_range_fn)f;
  cudaGetLastError();
}

/* Whether p (with attributes *a) is device memory whose allocation the
 * driver tells; then *left gets the bytes from p to its end. */
static bool allocation_left(const struct cudaPointerAttributes *a, const void *p, size_t *left) {
  if (a->type != cudaMemoryTypeDevice) return false;
  pthread_once(&range_once, load_address_range);
  CUdeviceptr base = 0;
  size_t size = 0;
  if (!address_range || address_range(&base, &size, (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS) return false;
  *left = (size_t)(base + size - (CUdeviceptr)(uintptr_t)p);
  return true;
}

gpu_status gp_cuda_check_range(const char *fn, const char *name, const void *p, size_t bytes) {
  struct cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: %s = %p is not memory the GPU can reach", fn,
                   name, p);
  }
  /* Plain host memory is refused even where the device could page it in:
   * there is no telling a valid host pointer from a stray one, and a stray
   * one would fault the kernel and the whole context with it. */
  if (a.type == cudaMemoryTypeUnregistered)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                   "%s: %s = %p is not CUDA memory; the CUDA backend needs device, managed or "
                   "pinned memory (gpu_alloc), or select the host backend",
                   fn, name, p);
  /* Device memory of a known allocation: the bytes must fit (pinned host
   * or managed memory, or an allocation the driver does not tell: no check). */
  size_t left = 0;
  if (allocation_left(&a, p, &left) && bytes > left)
    return gp_fail(GPU_ERR_INVALID_ARGUMENT,
                   "%s: %s: %zu bytes from %p run past the end of its allocation (%zu bytes "
                   "left)",
                   fn, name, bytes, p, left);
  return GPU_OK;
}

bool gp_cuda_room(const void *p, size_t *bytes) {
  struct cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return allocation_left(&a, p, bytes);
}

/* -------------------------------------------------------------------- pool */

/* One pool per device, owned by the library: freed blocks stay in it (release
 * threshold: never), so temporaries in a loop are served without cudaMalloc. */
enum { MAX_DEVICES = 64 };
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static cudaMemPool_t pools[MAX_DEVICES];

static gpu_status device_pool(const char *fn, cudaMemPool_t *pool) {
  *pool = NULL;
  int dev = 0;
  gpu_status s = gp_cuda_status(cudaGetDevice(&dev), fn, "cudaGetDevice");
  if (s != GPU_OK) return s;
  if (dev < 0 || dev >= MAX_DEVICES)
    return gp_fail(GPU_ERR_UNSUPPORTED, "%s: device %d is beyond the %d gpuprim supports", fn,
                   dev, MAX_DEVICES);
  pthread_mutex_lock(&pool_lock);
  if (!pools[dev]) {
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    s = gp_cuda_status(cudaMemPoolCreate(&pools[dev], &props), fn, "cudaMemPoolCreate");
    if (s == GPU_OK) {
      uint64_t keep = UINT64_MAX;
      s = gp_cuda_status(cudaMemPoolSetAttribute(pools[dev], cudaMemPoolAttrReleaseThreshold,
                                                 &keep),
                         fn, "cudaMemPoolSetAttribute");
    }
  }
  *pool = pools[dev];
  pthread_mutex_unlock(&pool_lock);
  return s;
}

gpu_status gp_pool_alloc(const char *fn, void **p, size_t bytes) {
  cudaMemPool_t pool;
  gpu_status s = device_pool(fn, &pool);
  if (s != GPU_OK) return s;
  return gp_cuda_status(cudaMallocFromPoolAsync(p, bytes, pool, (cudaStream_t)gp_stream()), fn,
                        "cudaMallocFromPoolAsync");
}

gpu_status gp_pool_free(const char *fn, void *p) {
  if (!p) return GPU_OK;
  return gp_cuda_status(cudaFreeAsync(p, (cudaStream_t)gp_stream()), fn, "cudaFreeAsync");
}

/* -------------------------------------------------------------- tile state */

/*
 * One workspace per stream (keyed by cudaStreamGetId, unique for the life of
 * the process, so a destroyed stream's handle reused by a new stream never
 * shares state with work still in flight). Layout: the tile counter, padded
 * to 256 bytes, then the tagged words.
 */
enum { COUNTER_BYTES = 256, MAX_WORKSPACES = 64 };
typedef struct {
  int device;
  unsigned long long stream_id;
  void *buf;
  size_t words;          /* capacity */
  uint32_t epoch;        /* the last epoch handed out */
  uint64_t counter_next; /* the counter's value once all launches so far ran */
} workspace;

static pthread_mutex_t ws_lock = PTHREAD_MUTEX_INITIALIZER;
static workspace workspaces[MAX_WORKSPACES];
static int n_workspaces;

/* Fresh, cleared state in pool memory for a launch being captured into a graph. */
static gpu_status acquire_captured(const char *fn, size_t state_words, gp_tilestate *ts) {
  size_t bytes = COUNTER_BYTES + state_words * sizeof(uint64_t);
  void *buf = NULL;
  gpu_status s = gp_pool_alloc(fn, &buf, bytes);
  if (s != GPU_OK) return s;
  s = gp_cuda_status(cudaMemsetAsync(buf, 0, bytes, (cudaStream_t)gp_stream()), fn,
                     "cudaMemsetAsync");
  if (s != GPU_OK) {
    gp_pool_free(fn, buf);
    return s;
  }
  ts->counter = (unsigned long long *)buf;
  ts->words = (uint64_t *)((char *)buf + COUNTER_BYTES);
  ts->counter_base = 0;
  ts->epoch = 1;
  ts->owned = buf;
  return GPU_OK;
}

/* Frees a workspace's memory after all work queued so far (any stream). */
static void drop_workspace(workspace *w) {
  if (w->buf) {
    /* Its stream may be gone: wait for the whole device, then free in order. */
    cudaDeviceSynchronize();
    cudaFreeAsync(w->buf, 0);
    cudaStreamSynchronize(0);
    cudaGetLastError();
  }
  memset(w, 0, sizeof *w);
}

static workspace *find_workspace(int dev, unsigned long long id) {
  for (int i = 0; i < n_workspaces; i++)
    if (workspaces[i].device == dev && workspaces[i].stream_id == id) return &workspaces[i];
  if (n_workspaces == MAX_WORKSPACES) {
    /* Streams come and go; the oldest entry's stream is the likeliest gone. */
    drop_workspace(&workspaces[0]);
    memmove(&workspaces[0], &workspaces[1], (MAX_WORKSPACES - 1) * sizeof(workspace));
    n_workspaces--;
  }
  workspace *w = &workspaces[n_workspaces++];
  memset(w, 0, sizeof *w);
  w->device = dev;
  w->stream_id = id;
  return w;
}

/* Makes w hold at least `words` words, cleared, ordered on stream. */
static gpu_status grow_workspace(const char *fn, workspace *w, size_t words, cudaStream_t stream) {
  if (w->buf && w->words >= words) return GPU_OK;
  size_t cap = w->words * 2 > words ? w->words * 2 : words;
  if (cap < 4096) cap = 4096;
  if (w->buf) {
    /* Ordered after this stream's earlier launches, the only users of it. */
    gpu_status s = gp_pool_free(fn, w->buf);
    w->buf = NULL;
    if (s != GPU_OK) return s;
  }
  size_t bytes = COUNTER_BYTES + cap * sizeof(uint64_t);
  gpu_status s = gp_pool_alloc(fn, &w->buf, bytes);
  if (s != GPU_OK) {
    w->buf = NULL;
    w->words = 0;
    return s;
  }
  w->words = cap;
  w->epoch = 0;
  w->counter_next = 0;
  return gp_cuda_status(cudaMemsetAsync(w->buf, 0, bytes, stream), fn, "cudaMemsetAsync");
}

gpu_status gp_tilestate_acquire(const char *fn, size_t state_words, uint64_t tiles,
                                gp_tilestate *ts) {
  cudaStream_t stream = (cudaStream_t)gp_stream();
  memset(ts, 0, sizeof *ts);
  enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  gpu_status s = gp_cuda_status(cudaStreamIsCapturing(stream, &capture), fn,
                                "cudaStreamIsCapturing");
  if (s != GPU_OK) return s;
  if (capture != cudaStreamCaptureStatusNone) return acquire_captured(fn, state_words, ts);

  int dev = 0;
  unsigned long long id = 0;
  s = gp_cuda_status(cudaGetDevice(&dev), fn, "cudaGetDevice");
  if (s == GPU_OK) s = gp_cuda_status(cudaStreamGetId(stream, &id), fn, "cudaStreamGetId");
  if (s != GPU_OK) return s;

  pthread_mutex_lock(&ws_lock);
  workspace *w = find_workspace(dev, id);
  s = grow_workspace(fn, w, state_words, stream);
  if (s == GPU_OK && w->epoch == UINT32_MAX) {
    /* Tags would wrap and match stale words: clear once every 2^32 launches. */
    s = gp_cuda_status(cudaMemsetAsync((char *)w->buf + COUNTER_BYTES, 0,
                                       w->words * sizeof(uint64_t), stream),
                       fn, "cudaMemsetAsync");
    w->epoch = 0;
  }
  if (s == GPU_OK) {
    ts->epoch = ++w->epoch;
    ts->counter = (unsigned long long *)w->buf;
    ts->words = (uint64_t *)((char *)w->buf + COUNTER_BYTES);
    ts->counter_base = w->counter_next;
    w->counter_next += tiles;
  }
  pthread_mutex_unlock(&ws_lock);
  return s;
}

gpu_status gp_tilestate_release(const char *fn, gp_tilestate *ts) {
  gpu_status s = ts->owned ? gp_pool_free(fn, ts->owned) : GPU_OK;
  ts->owned = NULL;
  return s;
}

static void release_thread_host_words(void);

gpu_status gp_cuda_release_cached(const char *fn) {
  int dev = 0;
  gpu_status s = gp_cuda_status(cudaGetDevice(&dev), fn, "cudaGetDevice");
  if (s != GPU_OK) return s;
  pthread_mutex_lock(&ws_lock);
  int kept = 0;
  for (int i = 0; i < n_workspaces; i++) {
    if (workspaces[i].device == dev) drop_workspace(&workspaces[i]);
    else workspaces[kept++] = workspaces[i];
  }
  n_workspaces = kept;
  pthread_mutex_unlock(&ws_lock);

  pthread_mutex_lock(&pool_lock);
  if (dev < MAX_DEVICES && pools[dev]) {
    s = gp_cuda_status(cudaDeviceSynchronize(), fn, "cudaDeviceSynchronize");
    if (s == GPU_OK) s = gp_cuda_status(cudaMemPoolDestroy(pools[dev]), fn, "cudaMemPoolDestroy");
    pools[dev] = NULL;
  }
  pthread_mutex_unlock(&pool_lock);
  release_thread_host_words();
  return s;
}

/* --------------------------------------------------- mapped host word */

static pthread_key_t host_word_key;
static pthread_once_t host_word_once = PTHREAD_ONCE_INIT;

static void free_host_word(void *p) {
  if (p) cudaFreeHost(p);
}
static void make_host_word_key(void) { pthread_key_create(&host_word_key, free_host_word); }

/* Per thread: the result word, then the deferred-error words. */
typedef struct {
  uint64_t result;
  unsigned deferred[GP_DEFERRED_KINDS];
} host_words;

static host_words *thread_host_words(void) {
  pthread_once(&host_word_once, make_host_word_key);
  host_words *w = pthread_getspecific(host_word_key);
  if (!w) {
    void *p = NULL;
    if (cudaHostAlloc(&p, sizeof(host_words), cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      return NULL;
    }
    w = p;
    memset(w, 0, sizeof *w);
    pthread_setspecific(host_word_key, w);
  }
  return w;
}

/* After the device is idle (gp_cuda_release_cached): a later call allocates again. */
static void release_thread_host_words(void) {
  pthread_once(&host_word_once, make_host_word_key);
  void *w = pthread_getspecific(host_word_key);
  if (!w) return;
  pthread_setspecific(host_word_key, NULL);
  free_host_word(w);
}

uint64_t *gp_mapped_host_word(void) {
  host_words *w = thread_host_words();
  return w ? &w->result : NULL;
}

unsigned *gp_deferred_word(gp_deferred_kind kind) {
  host_words *w = thread_host_words();
  return w && kind < GP_DEFERRED_KINDS ? &w->deferred[kind] : NULL;
}

gpu_status gp_take_deferred(const char *fn) {
  pthread_once(&host_word_once, make_host_word_key);
  host_words *w = pthread_getspecific(host_word_key); /* none yet: nothing deferred */
  if (!w) return GPU_OK;
  /* Taken and cleared in one step: a kernel still running elsewhere (another
   * stream or device of this thread) that sets a word now is reported next time. */
  const unsigned offsets = __atomic_exchange_n(&w->deferred[GP_DEFERRED_OFFSETS], 0u, __ATOMIC_ACQ_REL);
  const unsigned csr = __atomic_exchange_n(&w->deferred[GP_DEFERRED_CSR], 0u, __ATOMIC_ACQ_REL);
  if (!offsets && !csr) return GPU_OK;
  return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: %s%s%s", fn,
                 offsets ? "an earlier gpu_segscan_offsets or gpu_segreduce on this thread had malformed offsets "
                           "(not 0 = offsets[0] <= ... <= offsets[nseg] = n, or for gpu_segreduce offsets[nseg] beyond "
                           "the end of in's allocation); its output is unspecified"
                         : "",
                 offsets && csr ? "; and " : "",
                 csr ? "an earlier gpu_spmv or gpu_spmv_plan_run on this thread had a malformed matrix "
                       "(row_ptr not 0 = row_ptr[0] <= ... <= row_ptr[rows] = nnz, or a column index outside "
                       "[0, cols)); its y is unspecified"
                     : "");
}
