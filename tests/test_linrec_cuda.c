/* CUDA-only linear recurrence checks (none yet). */
#include "test_linrec.h"

void linrec_add_cuda_cases(Suite *s) { (void)s; }
