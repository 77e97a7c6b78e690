#!/usr/bin/env bash
# A/B runs of a benchmark program against builds of the library that differ
# (an earlier commit, a kernel variant on a branch), in one run on the GPU
# machine, so that the builds meet the same GPU, clocks and data.
#
#   tools/gpu-ab.sh PROGRAM [ARGS...]
#
# Runs $GPUPRIM_BUILD_DIR/bench/PROGRAM (default build/) with its own
# library (variant "base") and with each .gpu-variants/NAME/ (a copy of
# another build's libgpuprim.so*, as tools/gpu-run.sh's ab stage makes for
# an earlier commit; the programs' RUNPATH yields to LD_LIBRARY_PATH), in
# GPUPRIM_AB_ROUNDS rounds (default 2), the order reversed every other
# round: the first run of a round was 2-4% slower at 2^24-2^30 on the H200
# (bench/NOTES.md), so an A/B in one order only measures the order.
# Each output goes to $OUT/PROGRAM-NAME-rK.txt; the summaries are printed
# one after another, and every summary row and Google Benchmark line of
# every run, tagged "== K NAME", to $OUT/PROGRAM-ab.txt (one file to compare
# medians from; the table at the end reads the Benchmark lines, so it works
# for every bench program: bench_spmv's summary has other columns).
set -uo pipefail
OUT=${OUT:-/tmp/gpuprim-out}
mkdir -p "$OUT"
prog=$1
shift
build=${GPUPRIM_BUILD_DIR:-build}
variants=base
for d in .gpu-variants/*/; do [ -d "$d" ] && variants="$variants $(basename "$d")"; done
reversed=$(echo "$variants" | tr ' ' '\n' | tac | tr '\n' ' ')
rounds=${GPUPRIM_AB_ROUNDS:-2}
: >"$OUT/$prog-ab.txt"
i=0
for r in $(seq 1 "$rounds"); do
  order=$variants
  [ $((r % 2)) -eq 0 ] && order=$reversed
  for v in $order; do
    i=$((i + 1))
    lib=""
    [ "$v" != base ] && lib=$(pwd)/.gpu-variants/$v
    t0=$(date +%s)
    LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout 500 "$build/bench/$prog" "$@" \
      >"$OUT/$prog-$v-r$r.txt" 2>&1
    rc=$?
    echo "== $prog, variant $v, round $r: rc=$rc ($(( $(date +%s) - t0 )) s)"
    sed -n '/^summary/,$p' "$OUT/$prog-$v-r$r.txt"
    {
      echo "== $i $v rc=$rc"
      sed -n '/^summary/,$p' "$OUT/$prog-$v-r$r.txt" | grep -v '^summary\|^cub/gp\|^case'
      grep '/manual_time ' "$OUT/$prog-$v-r$r.txt"
    } >>"$OUT/$prog-ab.txt"
  done
done
# The median gpuprim time of each row for each variant, and its ratio to
# base's (below 1: the variant is faster); then the fastest run of each.
# Why both: on the H200 each bench process runs a scan over offsets at
# 2^26 either fast or slow (162-168 against 172-182 us, for all
# its rows, clocks unchanged; bench/NOTES.md), so a median of few runs may
# compare a fast variant's slow runs with another's fast ones; the fastest
# runs compare fast with fast where each variant had one.
echo "== medians (then the fastest) of $rounds runs a variant: benchmark, then variant=us (variant/base)"
# Rows: Google Benchmark's lines, whose manual time is gpuprim's in every
# bench program (bench_segmented, bench_spmv, ...), in microseconds.
awk '/^== /{v=$3; next}
     $1 ~ /\/manual_time$/ { name = $1; sub(/\/iterations:[0-9]+\/manual_time$/, "", name)
       t = $2; if ($3 == "ns") t /= 1000; else if ($3 == "ms") t *= 1000; else if ($3 == "s") t *= 1e6
       print name, v, t }' "$OUT/$prog-ab.txt" | sort -k1,1V -k2,2 -k3,3g |
awk 'function flush() { if (cnt) { med[key] = (cnt % 2) ? vals[(cnt + 1) / 2] : (vals[cnt / 2] + vals[cnt / 2 + 1]) / 2; low[key] = vals[1]; cnt = 0 } }
       function table(m, label,    r, line, b, v) {
         print label
         for (r = 1; r <= nrows; r++) {
           line = rows[r]; b = m[rows[r] " base"]
           for (v in vars) if ((rows[r] " " v) in m)
             line = line "  " v "=" m[rows[r] " " v] (v != "base" && b > 0 ? sprintf(" (%.3f)", m[rows[r] " " v] / b) : "")
           print line } }
       { k = $1 " " $2; if (k != key) { flush(); key = k; if (!($1 in seen)) { seen[$1] = 1; rows[++nrows] = $1 } vars[$2] = 1 }
         vals[++cnt] = $3 }
       END { flush(); table(med, "medians:"); table(low, "fastest:") }'
