#!/usr/bin/env bash
# Every CUDA suite (build/tests/test_*_cuda) under compute-sanitizer memcheck
# (with leak check), racecheck and synccheck at quick sizes
# (GPUPRIM_TEST_QUICK=1), then the counts: one line per suite and tool, and
# the totals. Runs tools/gpu-run.sh's sanitize stage (its quick smoke pass of
# every suite first, and its build or carried tree); the same variables
# choose suites and tools (GPUPRIM_SANITIZE_REGEX, GPUPRIM_SANITIZE_TOOLS,
# GPUPRIM_SANITIZE_CASES, GPUPRIM_SANITIZE_JOBS, GPUPRIM_SANITIZE_SHARDS,
# GPUPRIM_SANITIZE_SHARD_LIST, GPUPRIM_SANITIZE_DEADLINE).
# Logs in $OUT (default /tmp/gpuprim-out).
#
#   tools/gpu-sanitize.sh        exit 0 when every run is clean
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-/tmp/gpuprim-out}
tools/gpu-run.sh sanitize
summary=$OUT/summary.txt
echo
echo "suite / tool: exit status, reported errors or hazards"
runs=0 unclean=0 reported=0 skipped=0
while IFS= read -r line; do
  if [[ $line == *"not run (deadline)"* ]]; then
    skipped=$((skipped + 1))
    echo "  ${line#compute-sanitizer }"
    continue
  fi
  rc=$(sed -n 's/.*: rc=\([0-9]*\) .*/\1/p' <<<"$line")
  count=$(sed -n 's/.*SUMMARY: \([0-9]*\) .*/\1/p' <<<"$line")
  runs=$((runs + 1))
  reported=$((reported + ${count:-0}))
  [ "${rc:-1}" = 0 ] && [ "${count:-0}" = 0 ] || unclean=$((unclean + 1))
  echo "  ${line#compute-sanitizer }"
done < <(grep '^compute-sanitizer ' "$summary")
echo "compute-sanitizer: $runs runs, $unclean not clean, $reported errors or hazards reported, $skipped not run (deadline)"
[ "$runs" -gt 0 ] && [ "$unclean" -eq 0 ] && [ "$skipped" -eq 0 ]
