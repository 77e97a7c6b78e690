/*
 * The CUDA backend's segmented scan and reduce, callable from C.
 *
 * segmented.c has checked everything the host can check without reading
 * device memory: type and operator, flags, each array's pointer, alignment and
 * extent (in and out of n elements, heads of n bytes, offsets of nseg + 1
 * entries), in == out or disjoint, out disjoint from heads and offsets.
 *
 * The offsets themselves live in device memory and arrive UNVALIDATED. The
 * rule, the same as the host backend's (which checks them on the host):
 *   - well formed: offsets[0] == 0, offsets[s] <= offsets[s + 1],
 *     offsets[nseg] == n (empty segments allowed);
 *   - the kernels never read or write outside in[0, n), out and offsets, even
 *     for malformed offsets: each offset read is clamped into [0, n], and a
 *     segment whose end is below its start (after clamping) is empty;
 *   - when any offset was malformed (one outside [0, n], a decrease,
 *     offsets[0] != 0 or offsets[nseg] != n), GPU_ERR_INVALID_ARGUMENT
 *     with a message of malformed offsets: deferred to gpu_synchronize (the
 *     thread's deferred-error word in mapped memory; the call does not
 *     wait), or, where no mapped memory can be had, returned by the call
 *     after it waits for its stream. out then holds unspecified values
 *     within its bounds (the host backend leaves it untouched); in and
 *     offsets are unchanged.
 */
#ifndef GP_SEGMENTED_CUDA_H
#define GP_SEGMENTED_CUDA_H

#include "core/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * gpu_segscan_flags: n > 0, heads of n bytes (heads[0] is ignored: a segment
 * always starts at 0). gpu_segscan_offsets: n > 0, nseg >= 1 segments.
 * flags: GPU_EXCLUSIVE, GPU_REVERSE as in gpu_scan; in == out allowed. Float
 * results must be bitwise identical from run to run. Ordered on the
 * thread's stream.
 */
gpu_status gp_segscan_flags_cuda(const void *in, void *out, size_t n, const uint8_t *heads, gpu_dtype t,
                                 gpu_op op, unsigned flags);
gpu_status gp_segscan_offsets_cuda(const void *in, void *out, size_t n, const int64_t *offsets, size_t nseg,
                                   gpu_dtype t, gpu_op op, unsigned flags);

/*
 * gpu_segreduce: out[s] = in[offsets[s]] op ... op in[offsets[s+1] - 1], the
 * identity for an empty segment; nseg >= 1. n is not known on the host: it
 * is offsets[nseg], read on the device, and the clamping rule above applies
 * with that n (a negative offsets[nseg] counts as 0 and as malformed). in may
 * be NULL, which means n == 0: every offset must then be 0, and any other
 * value is clamped to 0 and reported as malformed. When in is not NULL,
 * segmented.c has checked that it is aligned device-reachable memory, but
 * NOT that it holds offsets[nseg] elements (that needs n on the host): where
 * in's allocation is known (device memory) the kernel takes n beyond it as
 * malformed (clamped to it); elsewhere the call reads n back first.
 */
gpu_status gp_segreduce_cuda(const void *in, const int64_t *offsets, size_t nseg, void *out,
                             gpu_dtype t, gpu_op op);

/* One element type's kernels (segscan_cuda_<type>.cu): the entries above
 * for that type; reduce takes n_max, the elements in holds at most. */
typedef struct {
  gpu_status (*scan_heads)(const void *in, void *out, size_t n, const uint8_t *heads, gpu_op op, unsigned flags);
  gpu_status (*scan_offsets)(const void *in, void *out, size_t n, const int64_t *offsets, size_t nseg, gpu_op op,
                             unsigned flags);
  gpu_status (*reduce)(const void *in, const int64_t *offsets, size_t nseg, size_t n_max, void *out, gpu_op op);
} gp_segmented_cuda_type;

#ifdef __cplusplus
}
#endif

#endif
