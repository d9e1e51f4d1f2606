#!/bin/sh
# filter_batch.sh — tests of `clstencil filter IN... -o DIR` on the default OpenCL device: the
# outputs equal single runs byte for byte, one pipeline build for images of one type, a failed
# image in the middle, a memory budget that lets one image be written while the next waits, a
# missing output folder, outputs that would collide or replace inputs, and a device list (a lane a
# device, bands spread over them).
# Usage: filter_batch.sh CLSTENCIL SOURCE_DIR CASE   (CASE: one of the names in the case list below)
clstencil=$1 case=$3
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
LC_ALL=C
export LC_ALL

. "$(dirname "$0")/filter_common.sh"
# count REGEX: how many lines of the last run's output match.
count() { grep -Ec -- "$1" "$work/log"; }

# make_pgm FILE W H MAXVAL SEED: a binary PGM of pseudo-random samples (16-bit when MAXVAL > 255).
make_pgm() {
    awk -v w="$2" -v h="$3" -v max="$4" -v s="$5" 'BEGIN {
        printf "P5\n%d %d\n%d\n", w, h, max
        for (i = 0; i < w * h; ++i) {
            s = s * 16807 % 2147483647; v = int(s / 256) % (max + 1)
            if (max > 255) printf "%c%c", int(v / 256), v % 256; else printf "%c", v
        }
    }' > "$1"
}

mkdir "$work/in" "$work/out" "$work/single"
make_pgm "$work/in/a.pgm" 24 16 255 7
make_pgm "$work/in/b.pgm" 17 9 255 11
make_pgm "$work/in/c.pgm" 32 20 255 13
ops="--op gaussian:3 --op box:3"

case $case in
results)   # 3 images: each output equals filter on it alone; one context, one pipeline build
    run 0 "$work/in/a.pgm" "$work/in/b.pgm" "$work/in/c.pgm" -o "$work/out" $ops -v
    [ "$(count '^device: ')" -eq 1 ] || { cat "$work/log"; fail "not one context"; }
    [ "$(count '^pipeline: ')" -eq 1 ] || { cat "$work/log"; fail "not one pipeline build"; }
    [ "$(count '^stage 1: ')" -eq 1 ] || { cat "$work/log"; fail "a later image built or loaded a stage"; }
    logged "^\\[3/3\\] .*c.pgm -> .*out/c.pgm: read"
    logged "^clstencil filter: 3 of 3 images written, 0 failed .*1 pipeline build\\)"
    for name in a b c; do
        run 0 "$work/in/$name.pgm" "$work/single/$name.pgm" $ops
        cmp "$work/out/$name.pgm" "$work/single/$name.pgm" || fail "$name.pgm differs from a single run"
    done
    # without -v and with stderr not a terminal: silent
    run 0 "$work/in/a.pgm" "$work/in/b.pgm" -o "$work/out/" $ops
    [ ! -s "$work/log" ] || fail "a quiet batch printed: $(cat "$work/log")"
    # --format, and a u16 image between u8 ones: one more build, for its types
    make_pgm "$work/in/d.pgm" 12 12 4000 17
    run 0 "$work/in/a.pgm" "$work/in/d.pgm" "$work/in/b.pgm" -o "$work/out" --format pfm -t f32 $ops -v
    [ -s "$work/out/a.pfm" ] && [ -s "$work/out/d.pfm" ] && [ -s "$work/out/b.pfm" ] || fail "--format pfm: $(ls "$work/out")"
    logged "^pipeline: +another build: this image is u16 -> f32, the first of these types"
    logged "3 of 3 images written, 0 failed .*2 pipeline builds"
    run 0 "$work/in/d.pgm" "$work/single/d.pfm" -t f32 $ops
    cmp "$work/out/d.pfm" "$work/single/d.pfm" || fail "d.pfm differs from a single run"
    # one input and -o naming a folder: a batch of one
    rm "$work/out/a.pgm"
    run 0 "$work/in/a.pgm" -o "$work/out" $ops
    cmp "$work/out/a.pgm" "$work/single/a.pgm" || fail "a batch of one differs"
    ;;
failure)   # a corrupt input in the middle, a missing one, a folder: the others written, the first failure's code
    head -c 100 "$work/in/b.pgm" > "$work/in/cut.pgm"
    run 5 "$work/in/a.pgm" "$work/in/cut.pgm" "$work/in/missing.pgm" "$work/in/c.pgm" -o "$work/out" $ops
    logged "cut.pgm: truncated"
    logged "missing.pgm: does not exist"
    logged "^clstencil filter: 2 of 4 images written, 2 failed"
    [ "$(ls "$work/out")" = "$(printf 'a.pgm\nc.pgm')" ] || fail "outputs: $(ls "$work/out")"
    run 0 "$work/in/c.pgm" "$work/single/c.pgm" $ops
    cmp "$work/out/c.pgm" "$work/single/c.pgm" || fail "the image after the failure differs"
    # a folder among the inputs is a failed image (4), not a refused batch
    mkdir "$work/in/folder" "$work/out2"
    run 4 "$work/in/folder" "$work/in/a.pgm" -o "$work/out2" $ops
    logged "^clstencil filter: 1 of 2 images written, 1 failed"
    [ "$(ls "$work/out2")" = "a.pgm" ] || fail "outputs: $(ls "$work/out2")"
    ;;
memory_turns)   # a budget that holds one image at a time: the next image waits for the one being written
    for name in a b; do run 0 "$work/in/$name.pgm" "$work/single/$name.pgm" $ops; done
    # the least budget (in steps of 50 bytes) with which a.pgm alone is filtered; b.pgm's output
    # (153 bytes) held by the writer then leaves too little for a.pgm until it is written
    least=700
    until CLSTENCIL_MEMORY_MAX=$least "$clstencil" filter "$work/in/a.pgm" "$work/single/a2.pgm" $ops > /dev/null 2>&1; do
        least=$((least + 50))
        [ "$least" -lt 100000 ] || fail "a.pgm is filtered with no budget up to 100000 bytes"
    done
    CLSTENCIL_MEMORY_MAX=$least run 0 "$work/in/b.pgm" "$work/in/a.pgm" -o "$work/out" $ops -v
    logged "^clstencil filter: 2 of 2 images written, 0 failed"
    for name in a b; do cmp "$work/out/$name.pgm" "$work/single/$name.pgm" || fail "$name.pgm differs"; done
    [ "$(grep '^\[[0-9]/2\] ' "$work/log" | awk '{ n = split($2, p, "/"); printf "%s %s;", $1, p[n] }')" = "[1/2] b.pgm;[2/2] a.pgm;" ] ||
        { cat "$work/log"; fail "reports out of order"; }
    ;;
no_folder)   # -o names no folder: 7 before any work (two inputs: IN OUT -o OUT2, two outputs: 1)
    run 7 "$work/in/a.pgm" "$work/in/b.pgm" "$work/in/c.pgm" -o "$work/nowhere" $ops
    logged "nowhere: cannot be written: no such folder"
    run 7 "$work/in/a.pgm" "$work/in/b.pgm" "$work/in/c.pgm" -o "$work/in/a.pgm" $ops
    logged "a.pgm: cannot be written: not a folder"
    run 7 "$work/in/a.pgm" "$work/in/b.pgm" -o "$work/nowhere/" $ops
    logged "nowhere/: cannot be written: no such folder"
    run 1 "$work/in/a.pgm" "$work/in/b.pgm" -o "$work/nowhere" $ops
    logged "two outputs: .* \\(a batch's -o names an existing folder or ends in /\\)"
    [ -z "$(ls "$work/out")" ] && [ ! -e "$work/nowhere" ] || fail "a refused batch wrote something"
    ;;
collision)   # two outputs on one path, or an output on an input: refused (1), nothing written
    mkdir "$work/in2"
    cp "$work/in/a.pgm" "$work/in2/a.pgm"
    run 1 "$work/in/a.pgm" "$work/in/b.pgm" "$work/in2/a.pgm" -o "$work/out" $ops
    logged "two inputs would both be written to .*out/a.pgm"
    run 1 "$work/in/a.pgm" "$work/in/b.pgm" -o "$work/in" $ops
    logged "in/a.pgm is the input .*a.pgm: writing the result would replace it"
    ln -s "$work/in" "$work/link"
    run 1 "$work/link/b.pgm" -o "$work/in" $ops
    logged "is the input .*link/b.pgm"
    run 1 "$work/in/a.pgm" "$work/in/b.pgm" -o "$work/out" --format png $ops
    logged "--format wants tif, tiff, pgm, ppm, pnm, pfm, mha or nrrd, not 'png'"
    [ -z "$(ls "$work/out")" ] || fail "a refused batch wrote: $(ls "$work/out")"
    cmp "$work/in/a.pgm" "$work/in2/a.pgm" || fail "an input changed"
    ;;
formats)   # --format mha and nrrd are written; mhd and nhdr (read, not written) refused before any work
    run 0 "$work/in/a.pgm" "$work/in/b.pgm" -o "$work/out" --format mha $ops
    run 0 "$work/in/a.pgm" "$work/in/b.pgm" -o "$work/out" --format nrrd $ops
    [ "$(ls "$work/out" | tr '\n' ' ')" = "a.mha a.nrrd b.mha b.nrrd " ] || fail "--format mha, nrrd: $(ls "$work/out")"
    rm "$work/out"/*
    # a device that matches nothing: refusing the option comes before any device work (else 2)
    for format in mhd nhdr NHDR; do
        CLSTENCIL_DEVICE=no-such-device run 1 "$work/in/a.pgm" "$work/in/b.pgm" -o "$work/out" --format $format $ops
        logged "--format $format: a header whose voxels lie in another file is read, not written: give mha or nrrd"
    done
    [ -z "$(ls -A "$work/out")" ] || fail "a refused --format wrote: $(ls -A "$work/out")"
    ;;
forms)   # the single-image forms as before; --format belongs to a batch
    run 0 "$work/in/a.pgm" "$work/single/x.pgm" $ops
    run 0 "$work/in/a.pgm" -o "$work/single/y.pgm" $ops
    cmp "$work/single/x.pgm" "$work/single/y.pgm" || fail "IN OUT and IN -o OUT differ"
    run 1 "$work/in/a.pgm" "$work/single/z.pgm" --format pfm $ops
    logged "--format names a batch's output format"
    run 1 "$work/in/a.pgm" "$work/in/b.pgm" "$work/single/z.pgm" $ops
    logged "unexpected argument .*several inputs take -o DIR"
    run 0 "$work/in/a.pgm" "$work/single/t.pgm" $ops --build tiered
    cmp "$work/single/x.pgm" "$work/single/t.pgm" || fail "--build tiered differs"
    ;;
devices)   # --device naming the default device three times: a lane each, the same bytes as one device
    dev=$("$clstencil" devices | sed -n 's/^device \([0-9]*:[0-9]*\) (default).*/\1/p')
    [ -n "$dev" ] || fail "no default device in 'clstencil devices'"
    run 0 "$work/in/a.pgm" "$work/in/b.pgm" "$work/in/c.pgm" -o "$work/out" $ops --device "$dev,$dev,$dev" -v
    [ "$(count '^device: ')" -eq 3 ] || { cat "$work/log"; fail "not a context a lane"; }
    logged "^clstencil filter: 3 of 3 images written, 0 failed .*over several devices\)"
    for name in a b c; do
        run 0 "$work/in/$name.pgm" "$work/single/$name.pgm" $ops
        cmp "$work/out/$name.pgm" "$work/single/$name.pgm" || fail "$name.pgm differs from a single run"
    done
    # one image larger than the budget: bands spread over the lanes, in every border mode's kind
    make_pgm "$work/in/w.pgm" 300 400 255 19
    for border in clamp repeat mirror101; do
        run 0 "$work/in/w.pgm" "$work/single/w.pgm" $ops -b "$border"
        CLSTENCIL_MEMORY_MAX=100000 run 0 "$work/in/w.pgm" "$work/out/w.pgm" $ops -b "$border" --device "$dev,$dev,$dev" -v
        logged "^bands: .* every 3rd on this device"
        cmp "$work/out/w.pgm" "$work/single/w.pgm" || fail "bands over three lanes differ ($border)"
    done
    # a list with an empty item, or an item that matches nothing: refused, nothing written
    rm -f "$work/out/"*
    run 1 "$work/in/a.pgm" "$work/in/b.pgm" -o "$work/out" $ops --device "$dev,,$dev"
    logged "device list '$dev,,$dev': an empty selector"
    run 2 "$work/in/w.pgm" "$work/out/w.pgm" $ops --device "$dev,no-such-device"
    logged "no OpenCL device matches --device 'no-such-device'"
    [ -z "$(ls "$work/out")" ] || fail "a refused device list wrote: $(ls "$work/out")"
    ;;
*)
    fail "unknown case '$case'"
    ;;
esac
echo "ok: filter batch $case"
