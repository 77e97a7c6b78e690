/*
 * Bulk copies of whole tiles into shared-memory stages (cp.async.bulk,
 * Hopper's copy engine), so a persistent block can have its next tiles in
 * flight while it works on earlier ones (scan_tile.cuh says why and how);
 * and each thread's own asynchronous copies (cp.async), for data that
 * lands in shared memory in another order than it lies in global memory
 * (sort's values at their ranks, segmented tiles at their swizzled places).
 *
 * Each stage has an mbarrier that thread 0 arms with the copy's byte count;
 * the copy engine completes it; all threads wait on its phase parity.
 *
 * The instructions are written as PTX (the same ones cuda::ptx emits) so
 * that these headers also compile under NVRTC without the toolkit's
 * libcu++ headers (compaction's run-time compiled formulas include them).
 */
#pragma once

#include <cstdint>

namespace gp {

__device__ inline uint32_t shared_address(const void *p) { return uint32_t(__cvta_generic_to_shared(p)); }

template <int STAGES> struct stage_barriers {
  uint64_t bar[STAGES];
};

/* Thread 0, once per block before the first copy (then __syncthreads). */
template <int STAGES> __device__ inline void init_stage_barriers(stage_barriers<STAGES> &b) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; s++)
      asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(shared_address(&b.bar[s])), "r"(1) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
}

/* Thread 0: copy `bytes` (a multiple of 16, 16-byte aligned both sides) into
 * a stage. The fence orders the block's earlier reads of that stage (made
 * visible to thread 0 by a barrier) before the copy engine overwrites it. */
__device__ inline void bulk_load(void *stage, const void *src, uint32_t bytes, uint64_t *bar) {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
               "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(stage)),
               "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
}

/* Each thread that wrote a stage with ordinary stores, before the barrier
 * after which a bulk copy may overwrite it: orders its writes before the
 * copy engine's (generic proxy before async proxy, PTX memory model). */
__device__ inline void stage_written_by_threads() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

/* cp.async of one 4-, 8- or 16-byte element from global to shared memory
 * (16 bytes bypass L1: .cg; smaller ones can only go through it: .ca).
 * copy_async_commit closes the thread's group of copies since the last;
 * copy_async_wait<N> waits until at most the N newest of the thread's
 * groups are in flight (the others' data is then visible to this thread;
 * to other threads after a barrier or __syncwarp that follows). Before
 * sm_80: a plain load and store. */
template <typename E> __device__ __forceinline__ void copy_async(E *shared_dst, const E *global_src) {
  static_assert(sizeof(E) == 4 || sizeof(E) == 8 || sizeof(E) == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof(E) == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address(shared_dst)),
                 "l"(__cvta_generic_to_global(global_src))
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(shared_address(shared_dst)),
                 "l"(__cvta_generic_to_global(global_src)), "n"(int(sizeof(E)))
                 : "memory"); /* stays between the barriers around it */
#else
  *shared_dst = *global_src;
#endif
}
__device__ __forceinline__ void copy_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
template <int PENDING = 0> __device__ __forceinline__ void copy_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory");
#endif
}

/* All threads: wait until the stage's copy with this phase parity landed. */
__device__ inline void bulk_wait(uint64_t *bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done)
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.b32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity)
        : "memory");
}

}  // namespace gp
