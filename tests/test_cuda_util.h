/*
 * What the CUDA suites share beyond test_util.h: a check of CUDA runtime
 * calls, the device-memory check of their cases above 2^32 elements, and
 * the set-up of their graph-capture tests.
 */
#ifndef GP_TEST_CUDA_UTIL_H
#define GP_TEST_CUDA_UTIL_H

#include <check.h>
#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>

/* A CUDA runtime call that must succeed: the test fails, naming it, if not. */
#define CUDA_OK(call) ck_assert_msg((call) == cudaSuccess, "%s failed", #call)

/* True when the device has `bytes` free and 1 GiB to spare; else prints
 * "<test>: SKIPPED: ..." with both figures and returns false. */
bool tu_device_has_memory(const char *test, size_t bytes);

/* A gpuprim call captured into a CUDA graph on a stream of its own. */
typedef struct {
  cudaStream_t stream;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
} tu_graph;

/* Creates a non-blocking stream, makes it this thread's gpuprim stream
 * (gpu_set_stream) and begins capturing it, thread-local mode. */
void tu_graph_begin(tu_graph *g);
/* Ends the capture and, where it ended cleanly, instantiates the graph;
 * returns how the capture ended. */
cudaError_t tu_graph_end(tu_graph *g);
/* Destroys the graph and the stream; gpuprim back on the default stream. */
void tu_graph_free(tu_graph *g);

#endif
