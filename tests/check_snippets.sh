#!/usr/bin/env bash
# Compiles every C code block of a Markdown file as printed (C99, warnings as
# errors), and links and runs each block that has a main(), on the host
# backend: the README's examples must work as a user copies them.
#
#   tests/check_snippets.sh FILE.md CC INCLUDE_DIR LIBRARY_FILE
set -euo pipefail
md=$1 cc=$2 include=$3 lib=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk -v dir="$work" '/^```c$/ { n++; f = sprintf("%s/snippet%02d.c", dir, n); inside = 1; next }
  /^```/ { inside = 0; next }
  inside { print > f }' "$md"
count=0
for f in "$work"/snippet*.c; do
  [ -e "$f" ] || { echo "no C blocks in $md"; exit 1; }
  count=$((count + 1))
  "$cc" -std=c99 -Wall -Wextra -pedantic -Werror -I"$include" -c "$f" -o "${f%.c}.o" ||
    { echo "$(basename "$f") of $md does not compile:"; cat -n "$f"; exit 1; }
  if grep -q '^int main' "$f"; then
    "$cc" "${f%.c}.o" "$lib" -Wl,-rpath,"$(dirname "$lib")" -o "${f%.c}" -lm
    GPUPRIM_BACKEND=host "${f%.c}" || { echo "$(basename "$f") of $md exits with $?"; exit 1; }
  fi
done
echo "$count C blocks of $(basename "$md") compile as printed"
