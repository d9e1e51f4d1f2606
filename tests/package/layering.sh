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

rank() { case $1 in core) echo 0 ;; generator) echo 1 ;; device_db) echo 2 ;; plan) echo 3 ;; host) echo 4 ;; esac; }
status=0
for module in core generator device_db plan host; do
    level=$(rank $module)
    find "$dir/clstencil_$module.dir" -name '*.o' | sort | while read -r object; do
        nm -u "$object" | awk '{print $2}' | sort -u | join - "$work/defined" |
            while read -r symbol owner; do
                if [ "$(rank "$owner")" -gt "$level" ]; then
                    echo "$module uses $symbol of $owner ($(basename "$object")): a dependency the wrong way"
                fi
            done
    done
done > "$work/wrong"
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
