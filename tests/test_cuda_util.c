#include "test_cuda_util.h"

#include <stdio.h>

#include "gpuprim.h"

bool tu_device_has_memory(const char *test, size_t bytes) {
  size_t free_b = 0, total_b = 0;
  CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
  if (free_b >= bytes + ((size_t)1 << 30)) return true;
  printf("%s: SKIPPED: needs %zu bytes of device memory, %zu free\n", test, bytes, free_b);
  return false;
}

void tu_graph_begin(tu_graph *g) {
  *g = (tu_graph){0};
  CUDA_OK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
  gpu_set_stream(g->stream);
  CUDA_OK(cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeThreadLocal));
}

cudaError_t tu_graph_end(tu_graph *g) {
  const cudaError_t end = cudaStreamEndCapture(g->stream, &g->graph);
  if (end == cudaSuccess) CUDA_OK(cudaGraphInstantiate(&g->exec, g->graph, 0));
  return end;
}

void tu_graph_free(tu_graph *g) {
  if (g->exec) CUDA_OK(cudaGraphExecDestroy(g->exec));
  if (g->graph) CUDA_OK(cudaGraphDestroy(g->graph));
  gpu_set_stream(NULL);
  CUDA_OK(cudaStreamDestroy(g->stream));
  *g = (tu_graph){0};
}
