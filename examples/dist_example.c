/*
 * Sorts and scans across MPI ranks with gpuprim_dist:
 *
 *   mpiexec -n 2 dist_example [N]        (GPUPRIM_BACKEND=host runs it without a GPU)
 *
 * Every rank makes its share of N random keys (uneven on purpose: rank r
 * holds r + 1 parts), sorts them across the ranks (afterwards rank r holds the
 * r-th slice of the global order) and takes the global inclusive scan of the
 * sorted keys. It checks what it can see: its slice is in order, its first key
 * is not below the previous rank's last, the counts add up to N, and the last
 * scan value on the last rank equals the global sum (gpu_dist_allreduce).
 * The exit status is 0 only if every check on every rank passed.
 */
#include <stdio.h>
#include <stdlib.h>

#include <gpuprim.h>
#include <gpuprim_dist.h>

static void check(gpu_status s, const char *what) {
  if (s == GPU_OK) return;
  fprintf(stderr, "dist_example: %s: %s (%s)\n", what, gpu_status_string(s), gpu_dist_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char *end = NULL;
  const long long total = argc > 1 ? strtoll(argv[1], &end, 10) : 1000000;
  if (argc > 2 || (argc > 1 && (*end || total < 0))) {
    if (rank == 0) fprintf(stderr, "usage: dist_example [N]\n");
    MPI_Finalize();
    return 2;
  }
  gpu_dist_comm *comm;
  check(gpu_dist_comm_create(&comm, MPI_COMM_WORLD), "gpu_dist_comm_create");

  /* This rank's keys: parts (r + 1) of P (P + 1) / 2. */
  const long long parts = (long long)size * (size + 1) / 2;
  const long long first = total * ((long long)rank * (rank + 1) / 2) / parts;
  const long long last = total * ((long long)(rank + 1) * (rank + 2) / 2) / parts;
  const size_t n = (size_t)(last - first);
  uint32_t *host = malloc(n * sizeof *host + 4);
  srand(1234 + (unsigned)rank);
  for (size_t i = 0; i < n; i++) host[i] = (uint32_t)rand() % 1000u;
  void *keys;
  check(gpu_alloc(&keys, n * sizeof *host), "gpu_alloc");
  check(gpu_upload(keys, host, n * sizeof *host), "gpu_upload");

  /* Sort across the ranks: the rank's slice comes back in a new buffer. */
  void *sorted = NULL;
  size_t n_sorted = 0;
  check(gpu_dist_sort_keys(comm, keys, n, GPU_U32, GPU_ASCENDING, &sorted, &n_sorted),
        "gpu_dist_sort_keys");
  /* The global inclusive scan of the sorted sequence, as 64-bit sums. */
  uint64_t *wide = malloc(n_sorted * sizeof *wide + 8);
  uint32_t *slice = malloc(n_sorted * sizeof *slice + 4);
  check(gpu_download(slice, sorted, n_sorted * sizeof *slice), "gpu_download");
  for (size_t i = 0; i < n_sorted; i++) wide[i] = slice[i];
  void *sums;
  check(gpu_alloc(&sums, n_sorted * sizeof *wide), "gpu_alloc");
  check(gpu_upload(sums, wide, n_sorted * sizeof *wide), "gpu_upload");
  uint64_t global_sum = 0;
  check(gpu_dist_allreduce(comm, sums, n_sorted, GPU_U64, GPU_ADD, &global_sum), "gpu_dist_allreduce");
  check(gpu_dist_scan(comm, sums, sums, n_sorted, GPU_U64, GPU_ADD, GPU_INCLUSIVE), "gpu_dist_scan");
  check(gpu_download(wide, sums, n_sorted * sizeof *wide), "gpu_download");

  /* Checks: order within the slice and across the boundary, counts, the sum. */
  int ok = 1;
  for (size_t i = 1; i < n_sorted; i++) ok &= slice[i - 1] <= slice[i];
  uint32_t edge[2] = {n_sorted ? slice[0] : UINT32_MAX, n_sorted ? slice[n_sorted - 1] : 0};
  uint32_t *edges = malloc(2 * (size_t)size * sizeof *edges);
  MPI_Allgather(edge, 2, MPI_UINT32_T, edges, 2, MPI_UINT32_T, MPI_COMM_WORLD);
  uint32_t before = 0; /* the largest key on the ranks before this one */
  for (int r = 0; r < rank; r++)
    if (edges[2 * r] != UINT32_MAX && edges[2 * r + 1] > before) before = edges[2 * r + 1];
  if (n_sorted) ok &= before <= slice[0];
  unsigned long long count = n_sorted, counted = 0;
  MPI_Allreduce(&count, &counted, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  ok &= counted == (unsigned long long)total;
  if (rank == size - 1 && n_sorted) ok &= wide[n_sorted - 1] == global_sum;
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  printf("rank %d: held %zu keys, now holds %zu sorted keys [%u .. %u], transport %s\n", rank, n,
         n_sorted, n_sorted ? slice[0] : 0, n_sorted ? slice[n_sorted - 1] : 0,
         gpu_dist_transport_name(gpu_dist_comm_transport(comm)));
  if (rank == 0)
    printf("dist_example: %lld keys on %d ranks sorted and scanned (sum %llu): %s\n", total, size,
           (unsigned long long)global_sum, all_ok ? "all checks passed" : "CHECKS FAILED");
  gpu_free(keys);
  gpu_free(sorted);
  gpu_free(sums);
  free(host);
  free(wide);
  free(slice);
  free(edges);
  gpu_dist_comm_destroy(comm);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
