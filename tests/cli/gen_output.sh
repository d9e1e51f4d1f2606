#!/bin/sh
# gen_output.sh — `clstencil gen -o FILE` writes through a temporary file renamed into place: FILE
# holds what the standard output gets; a write that fails (the file-size limit, a missing folder)
# is exit 7 and leaves no FILE, no temporary file and an existing FILE untouched; a standard output
# that cannot be written is exit 7 too.
# Usage: gen_output.sh CLSTENCIL
clstencil=$1
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
LC_ALL=C
export LC_ALL

fail() { echo "FAIL: $*"; exit 1; }
# gen_limited CODE FILE: gen of a large source into FILE under ulimit -f 64 (32 KiB in dash's
# 512-byte blocks, 64 KiB in bash's), with exit code CODE; the output is in $work/log.
big="--mask 63x63 --bake --partition isp-block" # a source of about 330 KB
gen_limited() {
    (ulimit -f 64; "$clstencil" gen $big -o "$2") > "$work/log" 2>&1
    got=$?
    [ "$got" -eq "$1" ] || { cat "$work/log"; fail "exit code $got under ulimit -f 64, expected $1"; }
}
logged() { grep -Eq -- "$1" "$work/log" || { cat "$work/log"; fail "output does not match /$1/"; }; }

mkdir "$work/out"
"$clstencil" gen $big > "$work/stdout.cl" || fail "gen to the standard output failed"
"$clstencil" gen $big -o "$work/out/k.cl" || fail "gen -o failed"
cmp -s "$work/stdout.cl" "$work/out/k.cl" || fail "gen -o differs from the standard output"
rm "$work/out/k.cl"

# the file-size limit: 7, no file and no temporary file left
gen_limited 7 "$work/out/k.cl"
logged "k.cl: cannot write: .*the file-size limit, ulimit -f, is [0-9]+ bytes"
[ -z "$(ls -A "$work/out")" ] || fail "left behind: $(ls -A "$work/out")"

# an existing FILE keeps its bytes when the new source cannot be written
printf 'the previous source\n' > "$work/out/k.cl"
gen_limited 7 "$work/out/k.cl"
[ "$(cat "$work/out/k.cl")" = "the previous source" ] || fail "a failed gen -o changed the existing file"
[ "$(ls -A "$work/out")" = "k.cl" ] || fail "left behind: $(ls -A "$work/out")"

# a missing folder: 7, nothing created
"$clstencil" gen -o "$work/missing/k.cl" > "$work/log" 2>&1
got=$?
[ "$got" -eq 7 ] || { cat "$work/log"; fail "exit code $got for a missing folder, expected 7"; }
logged "missing/k.cl: cannot create a file in its folder"
[ ! -e "$work/missing" ] || fail "the missing folder was created"

# a standard output that cannot be written (a full device): 7
if [ -w /dev/full ]; then
    "$clstencil" gen > /dev/full 2> "$work/log"
    got=$?
    [ "$got" -eq 7 ] || { cat "$work/log"; fail "exit code $got writing to /dev/full, expected 7"; }
    logged "cannot write the standard output"
fi
echo "gen -o: the source through a temporary file; failed writes leave nothing and change nothing"
