#!/bin/sh
# readme_snippet.sh — the README's C example (the ```c block of "Using the library") compiles
# as written, with warnings as errors, against the repository's header.
# Usage: readme_snippet.sh README INCLUDE_DIR
set -eu
readme=$1 include=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk '/^## Using the library/ {section = 1} section && /^```c$/ {inside = 1; next}
     inside && /^```$/ {exit} inside {print}' "$readme" > "$work/snippet.c"
[ -s "$work/snippet.c" ] || { echo "no C block under '## Using the library' in $readme"; exit 1; }
cc -std=c11 -Wall -Wextra -Werror -Wno-unused-function -I"$include" -c "$work/snippet.c" -o "$work/snippet.o" ||
    { echo "the README's C example does not compile:"; cat "$work/snippet.c"; exit 1; }
echo "the README's C example compiles"
