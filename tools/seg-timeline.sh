#!/bin/sh
# Sums up tools/seg_timeline.c's output (stdin): for the last call of each
# case, over seg_runs' blocks, min / mean / max microseconds of the ticket,
# the table's search and build (own-table runs), the prologue, a tile (from
# the second on), and when each block's loop and run end (from the first
# block's start); then the kernel's end had the loop's tiles been shared
# out by speed (each block's tiles a microsecond as measured, all ending
# together, after the mean prologue and 3 us of look-back).
awk '
function stat(name, k,    i, lo, hi, sum, v) {
  lo = 1e30; hi = -1e30; sum = 0
  for (i = 1; i <= nb; i++) { v = val[k, i]; sum += v; if (v < lo) lo = v; if (v > hi) hi = v }
  printf "  %-10s %8.1f %8.1f %8.1f\n", name, lo, sum / nb, hi
}
/^TL / {
  nb++
  for (f = 1; f <= NF; f++) {
    if ($f ~ /^tiles=/) { split($f, kv, "="); tiles[nb] = kv[2] }
    if ($f ~ /^t=/) { sub(/^t=/, "", $f); tf = f }
    if ($f ~ /^p=/) { sub(/^p=/, "", $f); pf = f }
  }
  for (j = 0; j < 7; j++) t[nb, j] = $(tf + j)
  for (j = 0; j < 3; j++) p[nb, j] = $(pf + j)
  next
}
/^CALL / {
  if (nb > 0 && $4 == "r=5") { # the last of the six calls a case
    t0 = t[1, 0]
    for (i = 1; i <= nb; i++) if (t[i, 0] < t0) t0 = t[i, 0]
    rate = 0; alltiles = 0; pro = 0
    for (i = 1; i <= nb; i++) {
      val[1, i] = (t[i, 1] - t[i, 0]) / 1e3
      val[2, i] = p[i, 0] ? (p[i, 0] - t[i, 1]) / 1e3 : 0
      val[3, i] = p[i, 1] ? (p[i, 1] - p[i, 0]) / 1e3 : 0
      val[4, i] = (t[i, 2] - t[i, 1]) / 1e3
      val[5, i] = tiles[i] > 1 ? (t[i, 4] - t[i, 3]) / (tiles[i] - 1) / 1e3 : 0
      val[6, i] = (t[i, 4] - t0) / 1e3
      val[7, i] = (t[i, 6] - t0) / 1e3
      alltiles += tiles[i]; pro += (t[i, 2] - t0) / 1e3
      if (val[5, i] > 0) rate += 1 / val[5, i]
    }
    printf "%s %s (%d blocks)      min     mean      max\n", $2, $3, nb
    stat("ticket", 1); stat("search", 2); stat("build", 3); stat("prologue", 4)
    stat("a tile", 5); stat("loop end", 6); stat("run end", 7)
    if (rate > 0) printf "  shared by speed: the kernel would end near %.1f\n", pro / nb + alltiles / rate + 3
  }
  nb = 0
  next
}
' "$@"
