#!/bin/sh
# exported_symbols.sh — the shared library exports the public API only: every defined dynamic
# symbol starts with cls_ (the rest is hidden: C_VISIBILITY_PRESET hidden, and clstencil.h's
# visibility push), and the soname is the ABI version docs/abi.md describes.
# Usage: exported_symbols.sh LIBRARY EXPECTED_SONAME
set -eu
library=$1 soname=$2
symbols=$(nm -D --defined-only "$library" | awk '{print $3}')
[ -n "$symbols" ] || { echo "no exported symbols found in $library"; exit 1; }
foreign=$(printf '%s\n' "$symbols" | grep -v '^cls_' || true)
if [ -n "$foreign" ]; then
    echo "$library exports symbols outside the cls_ namespace (make them static or hidden):"
    printf '  %s\n' $foreign
    exit 1
fi
actual=$(objdump -p "$library" | awk '$1 == "SONAME" {print $2}')
if [ "$actual" != "$soname" ]; then
    echo "$library has the soname '$actual', expected '$soname' (see docs/abi.md)"
    exit 1
fi
echo "$(printf '%s\n' "$symbols" | wc -l) symbols, all cls_*; soname $actual"
