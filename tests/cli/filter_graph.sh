#!/bin/sh
# filter_graph.sh — named steps through `clstencil filter` on the default OpenCL device: an unsharp
# mask from a blur and an element-wise step, two derivative branches of the input joined and a
# second input image (--input), each checked pixel by pixel against awk's answer for the image
# (borders included); the refusals (an image nobody reads, an unknown name, a --combine without
# NAME=, a named night, a second input that is missing or of another size) write nothing.
# Usage: filter_graph.sh CLSTENCIL
clstencil=$1 case=graph
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
LC_ALL=C
export LC_ALL

. "$(dirname "$0")/filter_common.sh"

W=11 H=7
# The 8-bit PGM whose sample at (x, y) is (x * 37 + y * 11) % 97 + 60.
awk -v w=$W -v h=$H 'BEGIN { printf "P5\n%d %d\n255\n", w, h
    for (y = 0; y < h; ++y) for (x = 0; x < w; ++x) printf "%c", (x * 37 + y * 11) % 97 + 60 }' > "$work/in.pgm"

# check FILE WHAT EXPR: every sample of the 8-bit PGM FILE is the awk expression EXPR, which may
# use p(x, y): the input sample at (x, y) with clamped (c) or mirrored (m) indices.
check() {
    tail -c +$(($(head -n 3 "$1" | wc -c) + 1)) "$1" | od -An -v -tu1 | tr -s ' ' '\n' | sed '/^$/d' |
        awk -v w=$W -v h=$H "
            function clampi(i, n) { return i < 0 ? 0 : i >= n ? n - 1 : i }
            function mirror(i, n) { return i < 0 ? -i - 1 : i >= n ? 2 * n - 1 - i : i }
            function c(x, y) { x = clampi(x, w); y = clampi(y, h); return (x * 37 + y * 11) % 97 + 60 }
            function m(x, y) { x = mirror(x, w); y = mirror(y, h); return (x * 37 + y * 11) % 97 + 60 }
            function sat(v) { v = int(v + (v < 0 ? -0.5 : 0.5)); return v < 0 ? 0 : v > 255 ? 255 : v }
            { x = (NR - 1) % w; y = int((NR - 1) / w); want = ($3)
              if (\$1 != want) { printf \"(%d, %d): %d, expected %d\\n\", x, y, \$1, want; bad = 1; exit } }
            END { exit bad || NR != w * h }" || fail "$2"
}

# Unsharp masking: input + 2 (input - box), rounded and saturated to u8.
box='(c(x-1,y-1) + c(x,y-1) + c(x+1,y-1) + c(x-1,y) + c(x,y) + c(x+1,y) + c(x-1,y+1) + c(x,y+1) + c(x+1,y+1)) / 9'
run 0 "$work/in.pgm" "$work/sharp.pgm" --op blur=box:3@input --combine 'sharp=input + 2 * (input - blur)' -v
logged "stage 2: +sharp=input \+ 2 \* \(input - blur\) element-wise"
check "$work/sharp.pgm" "the unsharp mask" "sat(c(x,y) + 2 * (c(x,y) - $box))"

# Two branches of the input joined: |d/dx| + |d/dy| with the mirror border.
run 0 "$work/in.pgm" "$work/gradient.pgm" --border mirror --op dx=correlate:3x1,-1,0,1@input \
    --op dy=correlate:1x3,-1,0,1@input --combine 'g=fabs(dx) + fabs(dy)'
check "$work/gradient.pgm" "the gradient of two branches" \
    "sat((m(x+1,y) > m(x-1,y) ? m(x+1,y) - m(x-1,y) : m(x-1,y) - m(x+1,y)) + (m(x,y+1) > m(x,y-1) ? m(x,y+1) - m(x,y-1) : m(x,y-1) - m(x,y+1)))"

# Unnamed steps are stage1, stage2, ...: a chain's names.
run 0 "$work/in.pgm" "$work/chain.pgm" --op box:3 --combine 'd=input - stage1 + 100'
check "$work/chain.pgm" "input - stage1 + 100" "sat(c(x,y) - $box + 100)"

# A second input image (--input): the brighter of IN and a shifted copy; a missing one is exit 4,
# one of another size 6, and neither goes with a batch.
awk -v w=$W -v h=$H 'BEGIN { printf "P5\n%d %d\n255\n", w, h
    for (y = 0; y < h; ++y) for (x = 0; x < w; ++x) printf "%c", ((x + 3) * 37 + y * 11) % 97 + 60 }' > "$work/other.pgm"
run 4 "$work/in.pgm" "$work/no.pgm" --input "other=$work/missing.pgm" --combine 'm=max(input, other)'
logged "--input other: .*missing.pgm"
run 0 "$work/in.pgm" "$work/brightest.pgm" --input "other=$work/other.pgm" --combine 'm=max(input, other)'
other='((x + 3) * 37 + y * 11) % 97 + 60'
check "$work/brightest.pgm" "max(input, other)" "c(x,y) > $other ? c(x,y) : $other"
awk 'BEGIN { printf "P5\n3 3\n255\n"; for (i = 0; i < 9; ++i) printf "%c", 7 }' > "$work/small.pgm"
run 6 "$work/in.pgm" "$work/no.pgm" --input "other=$work/small.pgm" --combine 'm=max(input, other)'
logged "--input other: .*small.pgm is 3x3.*the inputs of one run share IN's 11x7"
run 1 "$work/in.pgm" "$work/no.pgm" --input "$work/other.pgm" --combine 'm=max(input, other)'
logged "--input wants NAME=FILE"
# The first step without @FROM reads IN, not the --input image.
run 0 "$work/in.pgm" "$work/first.pgm" --input "other=$work/other.pgm" --op box:3 --combine 'm=max(stage1, other)'
check "$work/first.pgm" "max(box of IN, other)" "($box) > $other ? sat($box) : $other"
# An --input that is OUT is refused before any work, OUT unchanged.
cp "$work/other.pgm" "$work/kept.pgm"
run 1 "$work/in.pgm" "$work/kept.pgm" --input "other=$work/kept.pgm" --combine 'm=max(input, other)'
logged "kept.pgm and .*kept.pgm are the same file"
cmp -s "$work/other.pgm" "$work/kept.pgm" || fail "the --input that is OUT was changed"
mkdir "$work/batch"
run 1 "$work/in.pgm" "$work/other.pgm" -o "$work/batch" --input "other=$work/other.pgm" --combine 'm=max(input, other)'
logged "--input goes with one image IN, not with a batch"

# Refusals: exit 1, nothing written.
run 1 "$work/in.pgm" "$work/no.pgm" --op a=box:3 --op b=box:5@input
logged "stage 'a' is read by no later stage and is not the last one"
run 1 "$work/in.pgm" "$work/no.pgm" --op a=box:3 --combine 'b=a - nothing'
logged "reads 'nothing', which is no image of the pipeline before it"
run 1 "$work/in.pgm" "$work/no.pgm" --op a=box:3 --combine 'a - input'
logged "give NAME=EXPRESSION"
run 1 "$work/in.pgm" "$work/no.pgm" --op n=night
logged "night takes no NAME= or @FROM"
run 1 "$work/in.pgm" "$work/no.pgm" --op cls_a=box:3
logged "names starting with cls_ are reserved"
run 1 "$work/in.pgm" "$work/no.pgm" --op a=box:3@later --op later=box:3@input
logged "stage 'a' reads 'later', which is no image of the pipeline before it"
[ ! -e "$work/no.pgm" ] || fail "a refused run wrote its output"
