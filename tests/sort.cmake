# Radix sort: one suite, run on the host backend and on the CUDA backend.
gpuprim_add_test(test_sort_host SOURCES test_sort.c LABELS host)
gpuprim_add_test(test_sort_cuda SOURCES test_sort.c LABELS cuda)
target_compile_definitions(test_sort_cuda PRIVATE TU_CUDA=1)
