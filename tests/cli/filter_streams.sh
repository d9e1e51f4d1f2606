#!/bin/sh
# filter_streams.sh — `clstencil filter` with IN or OUT "-": standard input (format from its first
# bytes) and standard output (--format, else the input's) give the same bytes as files do, for a
# PGM, a TIFF and an NRRD; an empty, truncated or unknown stream, --format without OUT -, - in a
# batch, an OUT - without a format and a detached header's format (.mhd) are refused with their
# exit codes; no temporary file is left behind.
# Usage: filter_streams.sh CLSTENCIL SOURCE_DIR
clstencil=$1 source=$2 case=streams
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
TMPDIR=$work/tmp
export TMPDIR
mkdir "$TMPDIR"

. "$(dirname "$0")/filter_common.sh"

no_leftovers() { [ -z "$(ls -A "$TMPDIR")" ] || fail "temporary files left: $(ls "$TMPDIR")"; }
# stream CODE STDIN STDOUT ARGS...: one run with redirected standard input and output.
stream() {
    want=$1 in=$2 out=$3
    shift 3
    "$clstencil" filter "$@" < "$in" > "$out" 2> "$work/log"
    got=$?
    [ "$got" -eq "$want" ] || { cat "$work/log"; fail "exit code $got, expected $want: filter $*"; }
    no_leftovers
}

run 0 "$source/data/sample.tif" "$work/a.pgm" --op box:3 -t u8
run 0 "$work/a.pgm" "$work/ref.pgm" --op gaussian:3
stream 0 "$work/a.pgm" /dev/null - "$work/b.pgm" --op gaussian:3
cmp -s "$work/b.pgm" "$work/ref.pgm" || fail "IN - differs from the file's result"
stream 0 "$work/a.pgm" "$work/c.pgm" - - --op gaussian:3
cmp -s "$work/c.pgm" "$work/ref.pgm" || fail "IN - OUT - differs from the file's result"
run 0 "$work/a.pgm" "$work/ref.pfm" --op gaussian:3 -t f32
stream 0 /dev/null "$work/d.pfm" "$work/a.pgm" - --format pfm -t f32 --op gaussian:3
cmp -s "$work/d.pfm" "$work/ref.pfm" || fail "OUT - --format pfm differs from the file's result"
run 0 "$source/data/sample.tif" "$work/ref.tif" --op gaussian:3
stream 0 "$source/data/sample.tif" "$work/e.tif" - - --op gaussian:3
cmp -s "$work/e.tif" "$work/ref.tif" || fail "a TIFF through standard input and output differs from the file's result"
run 0 "$work/a.pgm" "$work/ref.nrrd" --op gaussian:3
stream 0 /dev/null "$work/f.nrrd" "$work/a.pgm" - --format nrrd --op gaussian:3
cmp -s "$work/f.nrrd" "$work/ref.nrrd" || fail "OUT - --format nrrd differs from the file's result"

echo garbage > "$work/garbage"
stream 6 "$work/garbage" /dev/null - "$work/x.pgm" --op box:3
logged "standard input is not a PGM, PPM, PFM or TIFF image"
stream 5 /dev/null /dev/null - "$work/x.pgm" --op box:3
logged "standard input is empty"
head -c 100 "$work/a.pgm" > "$work/truncated"
stream 5 "$work/truncated" /dev/null - "$work/x.pgm" --op box:3
logged "standard input: truncated"
[ ! -e "$work/x.pgm" ] || fail "a failed run wrote OUT"
run 1 "$work/a.pgm" "$work/x.pgm" --format pgm --op box:3
logged "--format names .* OUT - \\(standard output\\)"
run 1 - "$work/a.pgm" -o "$work/" --op box:3
logged "standard input \\(-\\) holds one image: not part of a batch"
run 1 "$work/in.raw" - --op box:3
logged "extension names no image format: give --format"
# a detached header (.mhd, .nhdr) is read, not written: neither OUT -'s default nor a --format
run 1 "$work/volume.mhd" - --op box:3
logged "volume.mhd's format, a header whose voxels lie in another file, is read, not written: give --format"
run 1 "$work/a.pgm" - --format mhd --op box:3
logged "--format mhd: a header whose voxels lie in another file is read, not written: give mha or nrrd"
echo "standard input and output: same bytes as files (PGM, PFM, TIFF, NRRD); bad streams refused"
