# The expression language of gpu_pred_expr (compact/expr.h): host-side suites.
gpuprim_add_test(test_expr INTERNAL SOURCES test_expr.c test_expr_eval.c test_expr_inputs.c LABELS host)
# test_expr_eval.c compiles the formulas as C for reference: integer + - *
# must wrap (-fwrapv) and floats must not be contracted into FMA, as in the
# library.
set_source_files_properties(test_expr_eval.c PROPERTIES COMPILE_OPTIONS "-fwrapv;-ffp-contract=off")
target_link_libraries(test_expr PRIVATE OpenMP::OpenMP_C)

# The CUDA text of every test formula, compiled as C at build time with the
# intrinsics given their IEEE meaning, run against the host evaluator.
add_executable(test_expr_emu_gen test_expr_emu_gen.c)
target_link_libraries(test_expr_emu_gen PRIVATE gpuprim_internal)
target_include_directories(test_expr_emu_gen PRIVATE ${PROJECT_SOURCE_DIR})
set(GP_EXPR_EMULATED ${CMAKE_CURRENT_BINARY_DIR}/expr_emulated.c)
add_custom_command(OUTPUT ${GP_EXPR_EMULATED}
  COMMAND test_expr_emu_gen ${GP_EXPR_EMULATED}
  DEPENDS test_expr_emu_gen
  COMMENT "Generating the CUDA text of the expression tests" VERBATIM)
gpuprim_add_test(test_expr_emulated INTERNAL SOURCES test_expr_emulated.c test_expr_inputs.c ${GP_EXPR_EMULATED}
  LABELS host)
set_source_files_properties(${GP_EXPR_EMULATED} PROPERTIES COMPILE_OPTIONS "-ffp-contract=off")

if(GPUPRIM_CUDA)
  # The generated CUDA source of many formulas, compiled by NVRTC (on the CPU:
  # no GPU needed).
  gpuprim_add_test(test_expr_nvrtc INTERNAL SOURCES test_expr_nvrtc.c LABELS host)
  target_link_libraries(test_expr_nvrtc PRIVATE CUDA::nvrtc)
endif()

# gpu_compact and gpu_partition with every predicate, on the host backend and
# (built again with TU_CUDA=1) on the CUDA backend. The reference formulas are
# compiled as C: integer arithmetic wraps and floats are never contracted into
# FMA, as in the library.
gpuprim_add_test(test_compact_host INTERNAL SOURCES test_compact.c LABELS host)
set_source_files_properties(test_compact.c PROPERTIES COMPILE_OPTIONS "-fwrapv;-ffp-contract=off")
target_link_libraries(test_compact_host PRIVATE OpenMP::OpenMP_C)
if(GPUPRIM_CUDA)
  gpuprim_add_test(test_compact_cuda INTERNAL SOURCES test_compact.c test_compact_cuda.c LABELS cuda)
  target_compile_definitions(test_compact_cuda PRIVATE TU_CUDA=1)
  target_link_libraries(test_compact_cuda PRIVATE OpenMP::OpenMP_C gpuprim_test_cuda_util)
endif()

if(GPUPRIM_CUDA)
  # The compaction kernel with a formula in it, compiled by NVRTC from the
  # headers embedded in the library (no GPU needed).
  gpuprim_add_test(test_compact_nvrtc INTERNAL SOURCES test_compact_nvrtc.c LABELS host)
endif()
