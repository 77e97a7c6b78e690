#!/usr/bin/env bash
# A/B runs of benchmark programs against builds of the library that differ
# (a kernel variant, a tile shape), in one call on the GPU machine, so that
# the variants meet the same GPU, clocks and data.
#
#   tools/gpu-ab.sh PROGRAM [ARGS...]
#
# Runs build/bench/PROGRAM once for the carried build (variant "base") and
# once for each .gpu-variants/NAME/ (a copy of libgpuprim.so* built with the
# variant; the programs' RUNPATH yields to LD_LIBRARY_PATH). Each output goes
# to $OUT/PROGRAM-NAME.txt; the summaries are printed one after another.
# Run after tools/gpu-run.sh in the same call (it unpacks the build and
# installs .gpu-deps); .gpu-slim.tgz, where carried, holds .gpu-variants.
set -uo pipefail
OUT=${OUT:-/tmp/gpuprim-out}
mkdir -p "$OUT"
prog=$1
shift
[ -f .gpu-slim.tgz ] && [ ! -d .gpu-variants ] && tar -xzf .gpu-slim.tgz
[ -f .gpu-slim.txz ] && [ ! -d .gpu-variants ] && tar -xJf .gpu-slim.txz
variants=base
for d in .gpu-variants/*/; do [ -d "$d" ] && variants="$variants $(basename "$d")"; done
for v in $variants; do
  lib=""
  [ "$v" != base ] && lib=$(pwd)/.gpu-variants/$v
  t0=$(date +%s)
  LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout 500 "build/bench/$prog" "$@" \
    >"$OUT/$prog-$v.txt" 2>&1
  echo "== $prog, variant $v: rc=$? ($(( $(date +%s) - t0 )) s)"
  sed -n '/^summary/,$p' "$OUT/$prog-$v.txt"
done
