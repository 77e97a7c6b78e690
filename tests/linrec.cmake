# Linear recurrences: one suite (test_linrec.c with the argument and backward
# tests of test_linrec_args.c), built for the host backend and, with
# TU_CUDA=1, for the CUDA backend (skipped without a GPU), which adds
# test_linrec_cuda.c's cases (n above 2^32, the CUDA results against the
# host backend's).
set(GP_LINREC_TEST_SOURCES test_linrec.c test_linrec_args.c linrec_reference.c)
gpuprim_add_test(test_linrec_host SOURCES ${GP_LINREC_TEST_SOURCES} LABELS host)
# OpenMP: the determinism test changes the thread count.
target_link_libraries(test_linrec_host PRIVATE OpenMP::OpenMP_C)
if(GPUPRIM_CUDA)
  gpuprim_add_test(test_linrec_cuda SOURCES ${GP_LINREC_TEST_SOURCES} test_linrec_cuda.c LABELS cuda)
  target_compile_definitions(test_linrec_cuda PRIVATE TU_CUDA=1)
  target_link_libraries(test_linrec_cuda PRIVATE gpuprim_test_cuda_util Threads::Threads)
endif()
