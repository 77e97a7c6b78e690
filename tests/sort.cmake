# Radix sort: one suite, run on the host backend and on the CUDA backend.
# The CUDA suite adds test_sort_cuda.c's checks where the CUDA backend is built.
gpuprim_add_test(test_sort_host INTERNAL SOURCES test_sort.c LABELS host)
if(GPUPRIM_CUDA)
  gpuprim_add_test(test_sort_cuda INTERNAL SOURCES test_sort.c test_sort_cuda.c LABELS cuda)
  target_compile_definitions(test_sort_cuda PRIVATE TU_CUDA=1 TU_SORT_CUDA_ONLY=1)
  target_link_libraries(test_sort_cuda PRIVATE gpuprim_test_cuda_util)
else()
  gpuprim_add_test(test_sort_cuda INTERNAL SOURCES test_sort.c LABELS cuda)
  target_compile_definitions(test_sort_cuda PRIVATE TU_CUDA=1)
endif()
