# The sparse layer's reader and CSR utilities. Each suite runs on the current
# backend: once as a host suite, once as a CUDA suite (TU_CUDA: exits 77,
# skipped, without a GPU). mm_ref.c is the tests' own reference reader;
# spmv_ref.c, their random matrices (test_csr_util).
foreach(suite test_mm_read test_mm_malformed test_mm_fuzz test_csr_util)
  gpuprim_add_test(${suite}_host SOURCES ${suite}.c mm_ref.c spmv_ref.c LABELS host)
  gpuprim_add_test(${suite}_cuda SOURCES ${suite}.c mm_ref.c spmv_ref.c LABELS cuda)
  target_compile_definitions(${suite}_cuda PRIVATE TU_CUDA=1)
endforeach()

# gpu_spmv and its plans: products (test_spmv.c), bad arguments and malformed
# matrices (test_spmv_args.c), on the host backend and on the CUDA backend;
# the CUDA suite adds test_spmv_cuda.c's checks where the CUDA backend is built.
set(GP_SPMV_TEST_SOURCES test_spmv.c test_spmv_args.c spmv_ref.c mm_ref.c)
gpuprim_add_test(test_spmv_host INTERNAL SOURCES ${GP_SPMV_TEST_SOURCES} LABELS host)
target_link_libraries(test_spmv_host PRIVATE OpenMP::OpenMP_C) # thread counts
if(GPUPRIM_CUDA)
  gpuprim_add_test(test_spmv_cuda INTERNAL SOURCES ${GP_SPMV_TEST_SOURCES} test_spmv_cuda.c LABELS cuda)
  target_compile_definitions(test_spmv_cuda PRIVATE TU_CUDA=1 TU_SPMV_CUDA_ONLY=1)
else()
  gpuprim_add_test(test_spmv_cuda INTERNAL SOURCES ${GP_SPMV_TEST_SOURCES} LABELS cuda)
  target_compile_definitions(test_spmv_cuda PRIVATE TU_CUDA=1)
endif()
