gpuprim_add_test(test_core SOURCES test_core.c LABELS host)
gpuprim_add_test(test_pending SOURCES test_pending.c LABELS host)
