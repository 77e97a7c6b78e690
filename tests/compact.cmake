# The expression language of gpu_pred_expr (compact/expr.h): host-only.
gpuprim_add_test(test_expr SOURCES test_expr.c test_expr_eval.c LABELS host)
# test_expr_eval.c compiles the formulas as C for reference: integer + - *
# must wrap (-fwrapv) and floats must not be contracted into FMA, as in the
# library.
set_source_files_properties(test_expr_eval.c PROPERTIES COMPILE_OPTIONS "-fwrapv;-ffp-contract=off")
target_link_libraries(test_expr PRIVATE OpenMP::OpenMP_C)

if(GPUPRIM_CUDA)
  # The generated CUDA source of many formulas, compiled by NVRTC (on the CPU:
  # no GPU needed).
  gpuprim_add_test(test_expr_nvrtc SOURCES test_expr_nvrtc.c LABELS host)
  target_link_libraries(test_expr_nvrtc PRIVATE CUDA::nvrtc)
endif()
