# The CUDA backend of compaction: the one-pass kernels per element type, and
# run-time compiled formulas (NVRTC, opened with dlopen).
target_sources(gpuprim PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/compact_cuda.cu
  ${CMAKE_CURRENT_LIST_DIR}/compact_cuda_i32.cu ${CMAKE_CURRENT_LIST_DIR}/compact_cuda_u32.cu
  ${CMAKE_CURRENT_LIST_DIR}/compact_cuda_i64.cu ${CMAKE_CURRENT_LIST_DIR}/compact_cuda_u64.cu
  ${CMAKE_CURRENT_LIST_DIR}/compact_cuda_f32.cu ${CMAKE_CURRENT_LIST_DIR}/compact_cuda_f64.cu
  ${CMAKE_CURRENT_LIST_DIR}/compact_nvrtc.cu)
target_link_libraries(gpuprim PRIVATE ${CMAKE_DL_LIBS})

# The kernel's headers, embedded for NVRTC under the names their #include
# lines use (NVRTC matches those names exactly: every header is included by
# its path from the repository root).
set(_src ${PROJECT_SOURCE_DIR})
set(_std ${_src}/compact/device/nvrtc_std.h)
set(GP_NVRTC_HEADERS
  "cstdint=${_std}" "stdint.h=${_std}" "stddef.h=${_std}"
  "gpuprim.h=${_src}/include/gpuprim.h"
  "compact/device/compact_tile.cuh=${_src}/compact/device/compact_tile.cuh"
  "compact/device/predicates.cuh=${_src}/compact/device/predicates.cuh"
  "scan/scan_tuning.h=${_src}/scan/scan_tuning.h"
  "scan/device/scan_tile.cuh=${_src}/scan/device/scan_tile.cuh"
  "scan/device/lookback.cuh=${_src}/scan/device/lookback.cuh"
  "scan/device/ops.cuh=${_src}/scan/device/ops.cuh"
  "scan/device/warp_scan.cuh=${_src}/scan/device/warp_scan.cuh"
  "scan/device/tile_pipeline.cuh=${_src}/scan/device/tile_pipeline.cuh"
  "scan/device/tile_io.cuh=${_src}/scan/device/tile_io.cuh")
set(_files "")
foreach(entry IN LISTS GP_NVRTC_HEADERS)
  string(REGEX REPLACE "^[^=]*=" "" f "${entry}")
  list(APPEND _files "${f}")
endforeach()
list(REMOVE_DUPLICATES _files)
string(REPLACE ";" "|" _entries "${GP_NVRTC_HEADERS}")
set(_out ${CMAKE_CURRENT_BINARY_DIR}/compact_nvrtc_headers.c)
add_custom_command(OUTPUT ${_out}
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${_out} "-DENTRIES=${_entries}" -P ${CMAKE_CURRENT_LIST_DIR}/embed_headers.cmake
  DEPENDS ${_files} ${CMAKE_CURRENT_LIST_DIR}/embed_headers.cmake
  COMMENT "Embedding the compaction kernel's headers for NVRTC" VERBATIM)
# The library is defined one directory up: a custom target here produces the
# file, and the library waits for it.
add_custom_target(gpuprim_nvrtc_headers DEPENDS ${_out})
add_dependencies(gpuprim gpuprim_nvrtc_headers)
set_source_files_properties(${_out} TARGET_DIRECTORY gpuprim PROPERTIES GENERATED TRUE)
target_sources(gpuprim PRIVATE ${_out})
