// The end of every benchmark program's main: Google Benchmark runs the
// registered cases, then the program prints its summary. The exit status is
// 1 when an argument is unknown or the summary counts a failed check (a
// result that differs from the reference), so that a script running the
// benchmarks sees a wrong result, not only a table.
#ifndef GP_BENCH_MAIN_H
#define GP_BENCH_MAIN_H

#include <benchmark/benchmark.h>

/* summary prints the program's table and returns how many checks failed. */
inline int bench_run_registered(int argc, char **argv, int (*summary)()) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return summary() ? 1 : 0;
}

#endif
