/* The CUDA backend of segmented scan and reduce (segmented_cuda.h):
 * dispatch on the element type (segscan_cuda_<type>.cu). Arguments arrive
 * checked by segmented.c, except the offsets' values, which live in device
 * memory: the kernels read them clamped, and a malformed set is a deferred
 * error (gpu_synchronize reports it). */
#include "segmented_cuda.h"

#include <cuda_runtime.h>

#include "core/core.h"
#include "core/cuda_memory.h"

extern "C" {
extern const gp_segmented_cuda_type gp_segmented_cuda_i32, gp_segmented_cuda_u32, gp_segmented_cuda_i64,
    gp_segmented_cuda_u64, gp_segmented_cuda_f32, gp_segmented_cuda_f64;

/* The kernels of element type t, or NULL (an error set) for no such type. */
static const gp_segmented_cuda_type *cuda_type(gpu_dtype t) {
  switch (t) {
    case GPU_I32: return &gp_segmented_cuda_i32;
    case GPU_U32: return &gp_segmented_cuda_u32;
    case GPU_I64: return &gp_segmented_cuda_i64;
    case GPU_U64: return &gp_segmented_cuda_u64;
    case GPU_F32: return &gp_segmented_cuda_f32;
    case GPU_F64: return &gp_segmented_cuda_f64;
  }
  gp_fail(GPU_ERR_INVALID_ARGUMENT, "segmented: unknown element type %d", int(t));
  return nullptr;
}

gpu_status gp_segscan_flags_cuda(const void *in, void *out, size_t n, const uint8_t *heads, gpu_dtype t, gpu_op op,
                                 unsigned flags) {
  const gp_segmented_cuda_type *type = cuda_type(t);
  return type ? type->scan_heads(in, out, n, heads, op, flags) : GPU_ERR_INVALID_ARGUMENT;
}

gpu_status gp_segscan_offsets_cuda(const void *in, void *out, size_t n, const int64_t *offsets, size_t nseg,
                                   gpu_dtype t, gpu_op op, unsigned flags) {
  const gp_segmented_cuda_type *type = cuda_type(t);
  return type ? type->scan_offsets(in, out, n, offsets, nseg, op, flags) : GPU_ERR_INVALID_ARGUMENT;
}

gpu_status gp_segreduce_cuda(const void *in, const int64_t *offsets, size_t nseg, void *out, gpu_dtype t, gpu_op op) {
  static const char fn[] = "gpu_segreduce";
  const size_t w = gpu_dtype_size(t);
  /* n is offsets[nseg], in device memory. Where in is device memory of a
   * known allocation and out lies outside all of it from in on, the kernel
   * reads n itself and checks it against what in holds (n_max; a
   * deferred error): no wait. */
  size_t room = 0;
  if (in && gp_cuda_room(in, &room)) {
    const size_t n_max = room / w;
    if (!gp_ranges_overlap(out, nseg * w, in, n_max * w)) {
      const gp_segmented_cuda_type *type = cuda_type(t);
      return type ? type->reduce(in, offsets, nseg, n_max, out, op) : GPU_ERR_INVALID_ARGUMENT;
    }
  }
  /* Otherwise read n (the one wait of this call; the rest of the offsets'
   * check is a deferred error), then in can be checked to hold n elements
   * and to share no byte with out, as the host backend checks. */
  int64_t last = 0;
  cudaStream_t stream = static_cast<cudaStream_t>(gp_stream());
  gpu_status s = gp_cuda_status(cudaMemcpyAsync(&last, offsets + nseg, sizeof last, cudaMemcpyDeviceToHost, stream), fn,
                                "cudaMemcpyAsync");
  if (s == GPU_OK) s = gp_cuda_status(cudaStreamSynchronize(stream), fn, "cudaStreamSynchronize");
  if (s != GPU_OK) return s;
  if (last < 0) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: offsets[nseg] = %lld is negative", fn, (long long)last);
  const size_t n = size_t(last);
  if (n > 0 && !in) return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: in is NULL with offsets[nseg] = %zu", fn, n);
  if (n > 0) s = gp_check_array(fn, "in", in, n, w, GPU_BACKEND_CUDA);
  if (n > 0 && s == GPU_OK) s = gp_check_disjoint(fn, "out", out, nseg * w, "in", in, n * w);
  if (s != GPU_OK) return s;
  const gp_segmented_cuda_type *type = cuda_type(t);
  return type ? type->reduce(in, offsets, nseg, n, out, op) : GPU_ERR_INVALID_ARGUMENT;
}
}
