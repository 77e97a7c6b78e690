gpuprim_add_test(test_core INTERNAL SOURCES test_core.c LABELS host)
# The same suite with an unknown GPUPRIM_BACKEND: its bad_backend_variable case checks the refusal.
add_test(NAME test_core_bad_backend_variable COMMAND test_core)
set_tests_properties(test_core_bad_backend_variable PROPERTIES LABELS host ENVIRONMENT "GPUPRIM_BACKEND=bogus")
# Every entry point from 8 threads at once, host backend (tools/sanitize runs it under TSan).
gpuprim_add_test(test_threads SOURCES test_threads.c mm_ref.c LABELS host)
