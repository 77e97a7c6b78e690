#!/usr/bin/env bash
# One call on the GPU machine: build (unless a build tree built elsewhere is
# carried and runs here), every test suite including the CUDA ones,
# compute-sanitizer on quick sizes, the tuning sweep and the benchmarks; a
# short table last. Logs and JSON go to $OUT.
#
#   tools/gpu-run.sh [test] [sanitize] [tune] [profile] [sorttune] [sortprofile] [bench] [demo]
#                                 (default: test sanitize tune bench demo)
#
# sorttune: bench/sort_tune (radix sort variants and launch breakdown, about a
# minute); sortprofile: ncu on one library sort and one CUB sort (2^26 u32).
#
# A build tree made here is carried as .gpu-build.tgz (tools/gpu-pack: no
# object files, gzip, to stay under the carry limit) or, in part and with
# variant libraries, as .gpu-slim.txz (tools/gpu-pack --slim), and becomes
# build/ there.
#
# Needs the Debian packages of Check and Google Benchmark carried along in
# .gpu-deps/ where the machine has no package registry (docs/development.md).
set -uo pipefail
OUT=${OUT:-/tmp/gpuprim-out}
mkdir -p "$OUT"
stages=${*:-test sanitize tune bench demo}
only=${GPUPRIM_TESTS_REGEX:-.}   # which suites (a regex on their names)
root=$(pwd)
if [ -f .gpu-build.tgz ]; then rm -rf .gpu-build && tar -xzf .gpu-build.tgz; fi
# tools/gpu-pack --slim: part of the tree, and the variants for tools/gpu-ab.sh.
if [ -f .gpu-slim.txz ] && [ ! -d .gpu-build ]; then xz -dc .gpu-slim.txz | tar -xf -; fi
if [ -d .gpu-build ]; then rm -rf build && mv .gpu-build build; fi
summary=$OUT/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

if ls .gpu-deps/*.deb >/dev/null 2>&1; then
  for f in .gpu-deps/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee "$OUT/gpu.txt"

# A build tree carried from /work/main (paths inside it are absolute): make
# that path lead here, and use it if its programs start on this machine.
build=""
if [ -e build/libgpuprim.so ] && [ "$root" != /work/main ] && [ ! -e /work/main ]; then
  mkdir -p /work && ln -s "$root" /work/main
fi
if [ -e /work/main/build/libgpuprim.so ] && /work/main/build/tests/test_core >/dev/null 2>&1; then
  build=/work/main/build
  note "build: carried tree (built off this machine)"
else
  build=/tmp/gpuprim-build
  t0=$(date +%s)
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1 &&
    cmake --build "$build" -j16 >>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
  note "build: here, $(( $(date +%s) - t0 )) s"
fi

# GPUPRIM_LIB_VARIANT=NAME: every program below runs against .gpu-variants/NAME
# (tools/gpu-variant: the library built with an A/B switch on) instead of
# the build's library, so that a variant's suites run before it is adopted.
if [ -n "${GPUPRIM_LIB_VARIANT:-}" ]; then
  [ -e "$root/.gpu-variants/$GPUPRIM_LIB_VARIANT/libgpuprim.so" ] || { echo "no variant $GPUPRIM_LIB_VARIANT"; exit 1; }
  export LD_LIBRARY_PATH=$root/.gpu-variants/$GPUPRIM_LIB_VARIANT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  note "library: variant $GPUPRIM_LIB_VARIANT ($(cat "$root/.gpu-variants/$GPUPRIM_LIB_VARIANT/DEFINES" 2>/dev/null))"
fi

# A quick pass of every CUDA suite first: a hang or crash stops the call
# here, in a minute, instead of at the long timeouts below.
cuda_suites=$(ls "$build"/tests/test_*_cuda | grep -E "$only")
for t in $cuda_suites; do
  GPUPRIM_TEST_QUICK=1 timeout 240 "$t" >"$OUT/smoke-$(basename "$t").log" 2>&1
  rc=$?
  note "smoke $(basename "$t"): rc=$rc"
  if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then tail -30 "$OUT/smoke-$(basename "$t").log"; exit 1; fi
done

if [[ " $stages " == *" test "* ]]; then
  t0=$(date +%s)
  (cd "$build" && timeout 420 ctest --output-on-failure -j4 --timeout 400 -R "$only") >"$OUT/test.log" 2>&1
  rc=$?
  grep -E "tests passed|Test +#|Skipped|Failed|\*\*\*" "$OUT/test.log" | tail -25
  note "tests: rc=$rc, $(grep -E 'tests passed' "$OUT/test.log"), $(( $(date +%s) - t0 )) s"
fi

if [[ " $stages " == *" sanitize "* ]]; then
  # GPUPRIM_SANITIZE_TOOLS: which tools (racecheck of one suite can take a call of its own).
  for tool in ${GPUPRIM_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    extra=""
    [ $tool = memcheck ] && extra="--leak-check full"
    for t in $(echo "$cuda_suites" | grep -E "${GPUPRIM_SANITIZE_REGEX:-.}"); do
      # GPUPRIM_SANITIZE_CASES="a b": each of the suite's Check cases in a
      # process of its own (CK_RUN_CASE), with its own timeout and log:
      # racecheck of test_segmented_cuda's quick suite took 266 s on an
      # H200 in session 18 and did not finish in 380 s in session 29.
      for case in ${GPUPRIM_SANITIZE_CASES:-all}; do
        log=$OUT/sanitize-$tool-$(basename "$t")${GPUPRIM_SANITIZE_CASES:+-$case}.log
        ck=""
        [ "$case" != all ] && ck=CK_RUN_CASE=$case
        t1=$(date +%s)
        env $ck GPUPRIM_TEST_QUICK=1 timeout 480 compute-sanitizer --tool $tool $extra --error-exitcode 99 "$t" \
          >"$log" 2>&1
        rc=$?
        note "compute-sanitizer $tool $(basename "$t")${GPUPRIM_SANITIZE_CASES:+ case $case}: rc=$rc ($(grep -m1 -E 'ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY' "$log"))  $(( $(date +%s) - t1 )) s"
      done
    done
  done
fi

if [[ " $stages " == *" tune "* ]] && [ -x "$build/bench/scan_tune" ]; then
  timeout 200 "$build/bench/scan_tune" | tee "$OUT/tune.txt"
fi

if [[ " $stages " == *" profile "* ]] && [ -x "$build/bench/scan_tune" ]; then
  for k in scan_pipelined; do
    timeout 120 ncu --clock-control none --kernel-name regex:$k --launch-skip 4 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
      --section LaunchStats "$build/bench/scan_tune" profile >"$OUT/ncu-$k.txt" 2>&1
    note "ncu $k: rc=$?"
    grep -E "Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Stall|Warp Cycles Per Issued|Block Limit" "$OUT/ncu-$k.txt" | head -30
  done
fi

if [[ " $stages " == *" sorttune "* ]] && [ -x "$build/bench/sort_tune" ]; then
  timeout 400 "$build/bench/sort_tune" | tee "$OUT/sort_tune.txt"
  note "sort_tune: rc=${PIPESTATUS[0]}"
  grep -E "^best" "$OUT/sort_tune.txt" >>"$summary"
fi

if [[ " $stages " == *" sortprofile "* ]] && [ -x "$build/bench/sort_tune" ]; then
  # Every kernel of the library's sort and of CUB's (histogram, CUB's scan,
  # the onesweep passes); the stall reasons in a second run, apart, so that
  # a metric name this ncu lacks costs only that part.
  kernels='regex:onesweep_pass|histogram_all_digits|DeviceRadixSort'
  timeout 300 ncu --clock-control none --kernel-name "$kernels" \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    "$build/bench/sort_tune" profile >"$OUT/ncu-sort.txt" 2>&1
  note "ncu sort: rc=$?"
  stalls=""
  for r in barrier long_scoreboard short_scoreboard mio_throttle lg_throttle wait math_pipe_throttle \
           not_selected selected membar branch_resolving no_instruction dispatch_stall; do
    stalls="$stalls${stalls:+,}smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
  done
  timeout 300 ncu --clock-control none --kernel-name "$kernels" --metrics "$stalls" \
    "$build/bench/sort_tune" profile >"$OUT/ncu-sort-stalls.txt" 2>&1
  note "ncu sort stalls: rc=$?"
  grep -E "onesweep_pass|histogram_all_digits|DeviceRadixSort|Duration|Registers Per|Achieved Occupancy|Compute \(SM\) Throughput|DRAM Throughput" \
    "$OUT/ncu-sort.txt" | head -80
fi

if [[ " $stages " == *" bench "* ]]; then
  # GPUPRIM_BENCH_REGEX picks programs; GPUPRIM_ARGS_<program> adds arguments.
  for b in "$build"/bench/bench_*; do
    name=$(basename "$b")
    echo "$name" | grep -qE "${GPUPRIM_BENCH_REGEX:-.}" || continue
    args_var=GPUPRIM_ARGS_$name
    # shellcheck disable=SC2086
    timeout 400 "$b" ${!args_var:-} --benchmark_out="$OUT/$name.json" --benchmark_out_format=json >"$OUT/$name.txt" 2>&1
    note "$name: rc=$?"
    sed -n '/^summary/,$p' "$OUT/$name.txt" | tee -a "$summary"
  done
fi

if [[ " $stages " == *" demo "* ]]; then
  timeout 300 "$build/examples/gpuprim" demo >"$OUT/demo.txt" 2>"$OUT/demo.err"
  note "gpuprim demo: rc=$?"
  tee -a "$summary" < "$OUT/demo.txt"
fi

echo
echo "=================== summary ==================="
cat "$summary"
