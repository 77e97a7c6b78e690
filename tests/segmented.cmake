# Segmented scan and reduce: one suite (test_segmented.c with the argument
# tests of test_segmented_args.c), built for the host backend and, with
# TU_CUDA=1, for the CUDA backend (skipped without a GPU), which adds
# test_segmented_cuda.c's cases (n and nseg above 2^32).
set(GP_SEGMENTED_TEST_SOURCES test_segmented.c test_segmented_args.c segmented_reference.c)
gpuprim_add_test(test_segmented_host SOURCES ${GP_SEGMENTED_TEST_SOURCES} LABELS host)
# OpenMP: the determinism test changes the thread count.
target_link_libraries(test_segmented_host PRIVATE gpuprim_scan_reference OpenMP::OpenMP_C)
if(GPUPRIM_CUDA)
  gpuprim_add_test(test_segmented_cuda SOURCES ${GP_SEGMENTED_TEST_SOURCES} test_segmented_cuda.c LABELS cuda)
  target_compile_definitions(test_segmented_cuda PRIVATE TU_CUDA=1)
  target_link_libraries(test_segmented_cuda PRIVATE gpuprim_scan_reference gpuprim_test_cuda_util)
endif()

# The CUDA backend's plans (segmented/segmented_plan.c): plain C, no GPU.
gpuprim_add_test(test_segmented_plan INTERNAL SOURCES test_segmented_plan.c LABELS host)
