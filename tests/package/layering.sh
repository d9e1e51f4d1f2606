#!/bin/sh
# layering.sh — the library's modules depend one way only: core <- generator <- device-db <- plan <- host,
# and the command uses the public API only. Compiling already refuses an include the wrong way
# (each module's object library sees only the headers below it); this checks the symbols: every
# symbol a module's objects use and the library defines must come from that module or one below
# it, and every library symbol the command's objects use must be exported (declared in
# clstencil.h), not an internal one that the static library would let through.
# Usage: layering.sh CMAKE_FILES_DIR SHARED_LIBRARY TOOLS_OBJECT_DIR
set -eu
dir=$1 library=$2 tools=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Defined symbols: "symbol module", one module at a time.
for module in core generator device_db plan host; do
    find "$dir/clstencil_$module.dir" -name '*.o' -exec nm --defined-only -g {} + |
        awk -v m=$module 'NF == 3 {print $3, m}'
done | sort > "$work/defined"

status=0
# Used symbols: "symbol module object" (one nm for all of a module's objects: nm's start is most of
# its time), then one awk pass that flags an owner above the user.
for module in core generator device_db plan host; do
    find "$dir/clstencil_$module.dir" -name '*.o' -exec nm -u -A {} + |
        awk -v m=$module '{ n = split($1, path, "/"); sub(/:$/, "", path[n]); print $NF, m, path[n] }'
done | sort -k1,1 | join - "$work/defined" |
    awk 'BEGIN { split("core generator device_db plan host", order); for (i in order) rank[order[i]] = i }
         rank[$4] > rank[$2] { print $2 " uses " $1 " of " $4 " (" $3 "): a dependency the wrong way" }' |
    sort -u > "$work/wrong"
if [ -s "$work/wrong" ]; then
    cat "$work/wrong"
    status=1
fi

nm -D --defined-only "$library" | awk '{print $3}' | sort > "$work/exported"
find "$tools" -name '*.o' -exec nm -u {} + | awk '{print $2}' | sort -u | join - "$work/defined" |
    awk '{print $1}' | join -v 1 - "$work/exported" > "$work/internal"
if [ -s "$work/internal" ]; then
    echo "the command uses internal symbols of the library (use the public API, clstencil.h):"
    sed 's/^/  /' "$work/internal"
    status=1
fi
[ $status -eq 0 ] && echo "modules core <- generator <- device-db <- plan <- host; the command uses $(find "$tools" -name '*.o' -exec nm -u {} + | awk '{print $2}' | sort -u | join - "$work/exported" | wc -l) public symbols only"
exit $status
