/* The CUDA backend's radix sort: pick the path, dispatch on the key type. */
#include <cstdint>

#include "sort/sort_cuda.h"
#include "sort/sort_keys.h"
#include "sort/sort_tuning.h"

#define GP_DECLARE_SORT_CUDA_TYPE(SUFFIX)                                                              \
  extern "C" gpu_status gp_sort_cuda_##SUFFIX(void *keys, void *values, size_t n, size_t value_bytes, \
                                              unsigned flags, const gp_sort_cuda_config *cfg);
GP_DECLARE_SORT_CUDA_TYPE(i32)
GP_DECLARE_SORT_CUDA_TYPE(u32)
GP_DECLARE_SORT_CUDA_TYPE(i64)
GP_DECLARE_SORT_CUDA_TYPE(u64)
GP_DECLARE_SORT_CUDA_TYPE(f32)
GP_DECLARE_SORT_CUDA_TYPE(f64)

/* The test hooks' settings, per thread. */
static thread_local gp_sort_cuda_config thread_config = {SIZE_MAX, 0};

extern "C" void gp_sort_cuda_set_single_block_max(size_t n) { thread_config.single_block_max = n; }
extern "C" void gp_sort_cuda_set_portion_tiles(uint32_t tiles) { thread_config.portion_tiles = tiles; }

extern "C" size_t gp_sort_cuda_tile_items(gpu_dtype key_t, size_t value_bytes) {
  using namespace gp::radix;
  const bool wide = gp_sortkey_width(key_t) == 8;
  switch (value_bytes) {
    case 0: return wide ? onesweep_tuning<8, 0>::shape::tile_items : onesweep_tuning<4, 0>::shape::tile_items;
    case 4: return wide ? onesweep_tuning<8, 4>::shape::tile_items : onesweep_tuning<4, 4>::shape::tile_items;
    default: return wide ? onesweep_tuning<8, 8>::shape::tile_items : onesweep_tuning<4, 8>::shape::tile_items;
  }
}

extern "C" size_t gp_sort_cuda_single_block_items(void) { return gp::radix::single_block_shape::tile_items; }

extern "C" gpu_status gp_sort_cuda(void *keys, void *values, size_t n, gpu_dtype t, size_t value_bytes,
                                   unsigned flags) {
  const gp_sort_cuda_config *cfg = &thread_config;
  switch (t) {
    case GPU_I32: return gp_sort_cuda_i32(keys, values, n, value_bytes, flags, cfg);
    case GPU_U32: return gp_sort_cuda_u32(keys, values, n, value_bytes, flags, cfg);
    case GPU_I64: return gp_sort_cuda_i64(keys, values, n, value_bytes, flags, cfg);
    case GPU_U64: return gp_sort_cuda_u64(keys, values, n, value_bytes, flags, cfg);
    case GPU_F32: return gp_sort_cuda_f32(keys, values, n, value_bytes, flags, cfg);
    case GPU_F64: return gp_sort_cuda_f64(keys, values, n, value_bytes, flags, cfg);
  }
  return gp_fail(GPU_ERR_INVALID_ARGUMENT, "%s: unknown key type (gpu_dtype %d)",
                 values ? "gpu_sort_pairs" : "gpu_sort_keys", int(t));
}
