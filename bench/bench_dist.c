/*
 * Distributed sort and scan against the single-process call, and the bytes
 * they move per key against the model of docs/distributed.md:
 *
 *   mpiexec -n P bench_dist [-n TOTAL] [-r REPS]        (TOTAL: keys over all ranks, 2^k ok as 1<<k)
 *
 * Every rank holds TOTAL / P random u32 keys (its share in rank order). Each
 * line is the best of REPS runs, timed from a barrier to a barrier
 * (MPI_Wtime; gpu_synchronize before the second barrier), so it is the time
 * of the slowest rank. "local" is the plain gpuprim call on the rank's own
 * part (with -n 1 that is the single-process call on TOTAL keys); "dist" is
 * the call across ranks. Bytes per key: bulk bytes sent by all ranks over
 * TOTAL; the model for random keys is (P - 1) / P x (key bytes).
 * Plain C with MPI, not Google Benchmark: every rank must time the same runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuprim.h>
#include <gpuprim_dist.h>

static void check(gpu_status s, const char *what) {
  if (s == GPU_OK) return;
  fprintf(stderr, "bench_dist: %s: %s (%s%s)\n", what, gpu_status_string(s), gpu_last_error(),
          gpu_dist_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static uint64_t parse_count(const char *text) {
  unsigned shift = 0;
  if (sscanf(text, "1<<%u", &shift) == 1 && shift < 63) return 1ull << shift;
  return strtoull(text, NULL, 0);
}

static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

typedef struct {
  gpu_dist_comm *comm;
  uint32_t *host;   /* this rank's keys, kept to refill */
  void *keys, *out; /* backend buffers of n keys */
  size_t n;
  uint64_t total;
  int reps;
} bench;

/* Best time over the reps of one kind of call (0 local sort, 1 dist sort,
 * 2 local scan, 3 dist scan); *bytes gets the bulk bytes all ranks sent in one. */
static double run(bench *b, int kind, double *bytes) {
  double best = 1e30;
  for (int rep = 0; rep < b->reps; rep++) {
    check(gpu_upload(b->keys, b->host, b->n * sizeof *b->host), "gpu_upload");
    check(gpu_synchronize(), "gpu_synchronize");
    gpu_dist_comm_traffic_reset(b->comm);
    void *sorted = NULL;
    size_t n_out = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    switch (kind) {
      case 0: check(gpu_sort_keys(b->keys, b->n, GPU_U32, GPU_ASCENDING), "gpu_sort_keys"); break;
      case 1:
        check(gpu_dist_sort_keys(b->comm, b->keys, b->n, GPU_U32, GPU_ASCENDING, &sorted, &n_out),
              "gpu_dist_sort_keys");
        break;
      case 2: check(gpu_scan(b->keys, b->out, b->n, GPU_U32, GPU_ADD, GPU_INCLUSIVE), "gpu_scan"); break;
      default:
        check(gpu_dist_scan(b->comm, b->keys, b->out, b->n, GPU_U32, GPU_ADD, GPU_INCLUSIVE),
              "gpu_dist_scan");
    }
    check(gpu_synchronize(), "gpu_synchronize");
    MPI_Barrier(MPI_COMM_WORLD);
    const double seconds = MPI_Wtime() - start;
    if (seconds < best) best = seconds;
    gpu_free(sorted);
    double sent = (double)gpu_dist_comm_traffic(b->comm).bytes_sent;
    MPI_Allreduce(&sent, bytes, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  return best;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bench b = {0};
  b.total = 1ull << 24;
  b.reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-n")) b.total = parse_count(argv[i + 1]);
    if (!strcmp(argv[i], "-r")) b.reps = atoi(argv[i + 1]);
  }
  if (b.reps < 1) b.reps = 1;
  const uint64_t first = b.total / (uint64_t)size * (uint64_t)rank + b.total % (uint64_t)size * (uint64_t)rank / (uint64_t)size;
  const uint64_t end = b.total / (uint64_t)size * (uint64_t)(rank + 1) + b.total % (uint64_t)size * (uint64_t)(rank + 1) / (uint64_t)size;
  b.n = (size_t)(end - first);
  check(gpu_dist_comm_create(&b.comm, MPI_COMM_WORLD), "gpu_dist_comm_create");
  b.host = malloc(b.n * sizeof *b.host + 1);
  if (!b.host) check(GPU_ERR_OUT_OF_MEMORY, "host keys");
  uint64_t state = 12345 + first;
  for (size_t i = 0; i < b.n; i++) b.host[i] = (uint32_t)next_random(&state);
  check(gpu_alloc(&b.keys, b.n * sizeof *b.host), "gpu_alloc");
  check(gpu_alloc(&b.out, b.n * sizeof *b.host), "gpu_alloc");
  if (rank == 0)
    printf("bench_dist: %d rank(s), %s backend, transport %s, %llu u32 keys in total, best of %d\n",
           size, gpu_get_backend() == GPU_BACKEND_CUDA ? "CUDA" : "host",
           gpu_dist_transport_name(gpu_dist_comm_transport(b.comm)), (unsigned long long)b.total,
           b.reps);
  const char *names[4] = {"sort local", "sort dist", "scan local", "scan dist"};
  const double model[4] = {0, (double)(size - 1) / size * 4, 0, 0};
  for (int kind = 0; kind < 4; kind++) {
    double bytes = 0;
    const double seconds = run(&b, kind, &bytes);
    if (rank == 0)
      printf("%-11s %10.3f ms  %8.3f Gkeys/s  %6.3f bytes/key sent (model %.3f)\n", names[kind],
             seconds * 1e3, (double)(kind % 2 ? b.total : b.n) / seconds * 1e-9,
             bytes / (double)b.total, model[kind]);
  }
  gpu_free(b.keys);
  gpu_free(b.out);
  free(b.host);
  gpu_dist_comm_destroy(b.comm);
  MPI_Finalize();
  return 0;
}
