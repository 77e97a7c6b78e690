/*
 * Bulk copies of whole tiles into shared-memory stages (cp.async.bulk,
 * Hopper's copy engine), so a persistent block can have its next tiles in
 * flight while it works on earlier ones (scan_tile.cuh says why and how).
 *
 * Each stage has an mbarrier that thread 0 arms with the copy's byte count;
 * the copy engine completes it; all threads wait on its phase parity.
 */
#pragma once

#include <cuda/ptx>

namespace gp {

template <int STAGES> struct stage_barriers {
  uint64_t bar[STAGES];
};

/* Thread 0, once per block before the first copy (then __syncthreads). */
template <int STAGES> __device__ inline void init_stage_barriers(stage_barriers<STAGES> &b) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; s++) cuda::ptx::mbarrier_init(&b.bar[s], 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
}

/* Thread 0: copy `bytes` (a multiple of 16, 16-byte aligned both sides) into
 * a stage. The fence orders the block's earlier reads of that stage (made
 * visible to thread 0 by a barrier) before the copy engine overwrites it. */
__device__ inline void bulk_load(void *stage, const void *src, uint32_t bytes, uint64_t *bar) {
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, bar,
                                       bytes);
  cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, stage, src, bytes, bar);
}

/* All threads: wait until the stage's copy with this phase parity landed. */
__device__ inline void bulk_wait(uint64_t *bar, uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

}  // namespace gp
