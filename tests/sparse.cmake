# The sparse layer's reader and CSR utilities. Each suite runs on the current
# backend: once as a host suite, once as a CUDA suite (TU_CUDA: exits 77,
# skipped, without a GPU). mm_ref.c is the tests' own reference reader.
foreach(suite test_mm_read test_mm_malformed test_mm_fuzz test_csr_util)
  gpuprim_add_test(${suite}_host SOURCES ${suite}.c mm_ref.c LABELS host)
  gpuprim_add_test(${suite}_cuda SOURCES ${suite}.c mm_ref.c LABELS cuda)
  target_compile_definitions(${suite}_cuda PRIVATE TU_CUDA=1)
endforeach()
