gpuprim_add_test(test_core INTERNAL SOURCES test_core.c LABELS host)
# The same suite with an unknown GPUPRIM_BACKEND: its bad_backend_variable case checks the refusal.
add_test(NAME test_core_bad_backend_variable COMMAND test_core)
set_tests_properties(test_core_bad_backend_variable PROPERTIES LABELS host ENVIRONMENT "GPUPRIM_BACKEND=bogus")
