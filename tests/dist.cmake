# The calls across ranks (gpuprim_dist): one suite, run under mpiexec with 1-4
# ranks on the host backend (label host) and, built with TU_CUDA=1, on the
# CUDA backend with 2 ranks sharing the GPU (label cuda, skipped without one).
# OpenMPI as root in a container without network: --allow-run-as-root,
# --oversubscribe, shared memory between ranks only.
if(NOT TARGET gpuprim_dist)
  message(STATUS "tests: gpuprim_dist is not built (no MPI): test_dist skipped")
  return()
endif()

function(gpuprim_add_dist_test name ranks label)
  add_test(NAME ${name} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks}
    --allow-run-as-root --oversubscribe ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${ARGN}>
    ${MPIEXEC_POSTFLAGS})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS "${label}" TIMEOUT 900
    PROCESSORS ${ranks}
    ENVIRONMENT "OMPI_MCA_btl=self,vader;OMPI_MCA_btl_vader_single_copy_mechanism=none;OMPI_MCA_rmaps_base_oversubscribe=1;OMP_NUM_THREADS=1")
endfunction()

foreach(variant host cuda)
  add_executable(test_dist_${variant} test_dist.c)
  target_link_libraries(test_dist_${variant} PRIVATE gpuprim_test_util gpuprim_dist)
  target_include_directories(test_dist_${variant} PRIVATE ${PROJECT_SOURCE_DIR})
endforeach()
target_compile_definitions(test_dist_cuda PRIVATE TU_CUDA=1)

# ctest names without the test_ prefix: tools/dev runs every host test_*
# binary under valgrind by itself, and these need mpiexec.
foreach(ranks 1 2 3 4)
  gpuprim_add_dist_test(dist_host_np${ranks} ${ranks} host test_dist_host)
endforeach()
gpuprim_add_dist_test(dist_cuda_np2 2 cuda test_dist_cuda)
