#!/bin/sh
# filter_morphology.sh — the morphological compositions, a rectangle's minimum in two passes, a
# footprint from a mask file and convolve's flip through `clstencil filter` on the default OpenCL device, each result checked
# pixel by pixel against the answer awk knows for the image; a bad mask file's message names the
# file and the line.
# Usage: filter_morphology.sh CLSTENCIL
clstencil=$1 case=morphology
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
LC_ALL=C
export LC_ALL

. "$(dirname "$0")/filter_common.sh"

# make_pgm FILE W H EXPR: a binary 8-bit PGM whose sample at (x, y) is the awk expression EXPR.
make_pgm() {
    awk -v w="$2" -v h="$3" "BEGIN {
        printf \"P5\\n%d %d\\n255\\n\", w, h
        for (y = 0; y < h; ++y) for (x = 0; x < w; ++x) printf \"%c\", ($4)
    }" > "$1"
}
# check FILE W EXPR WHAT: every sample of the 8-bit PGM FILE (W wide) is the awk expression EXPR
# of x and y.
check() {
    tail -c +$(($(head -n 3 "$1" | wc -c) + 1)) "$1" | od -An -v -tu1 | tr -s ' ' '\n' | sed '/^$/d' |
        awk -v w="$2" "{ x = (NR - 1) % w; y = int((NR - 1) / w); want = ($3)
                         if (\$1 != want) { printf \"(%d, %d): %d, expected %d\\n\", x, y, \$1, want; bad = 1; exit } }
                       END { exit bad || NR == 0 }" || fail "$4"
}

# White top-hat: single bright pixels on a flat background are all that is left, less the background.
make_pgm "$work/spots.pgm" 21 13 "x % 4 == 1 && y % 4 == 1 ? 200 : 50"
run 0 "$work/spots.pgm" "$work/tophat.pgm" --op tophat:3
check "$work/tophat.pgm" 21 "x % 4 == 1 && y % 4 == 1 ? 150 : 0" "tophat:3 is not the spots less the background"

# Black top-hat over a cross, mirror border: dark pixels, inverted.
make_pgm "$work/pits.pgm" 21 13 "x % 4 == 2 && y % 3 == 1 ? 10 : 100"
run 0 "$work/pits.pgm" "$work/blackhat.pgm" --op blackhat:3,cross --border mirror
check "$work/blackhat.pgm" 21 "x % 4 == 2 && y % 3 == 1 ? 90 : 0" "blackhat:3,cross is not the pits inverted"

# Opening by a horizontal line from a mask file: stripes 2 pixels wide go, 3 wide stay.
printf '# a horizontal line, 3 pixels\n1 1 1\n' > "$work/line.txt"
make_pgm "$work/stripes.pgm" 40 5 "x % 10 == 2 || x % 10 == 3 || x % 10 >= 6 && x % 10 <= 8 ? 200 : 50"
run 0 "$work/stripes.pgm" "$work/opened.pgm" --op "opening:mask:$work/line.txt"
check "$work/opened.pgm" 40 "x % 10 >= 6 && x % 10 <= 8 ? 200 : 50" "opening by a 3-pixel line kept a 2-pixel stripe"
# A 7x5 rectangle's minimum, one van Herk kernel: the spots vanish; a 35x3 one's, a row and a
# column pass: -v says whose time it shows.
run 0 "$work/spots.pgm" "$work/eroded.pgm" --op min:7x5 -v
check "$work/eroded.pgm" 21 "50" "min:7x5 left a spot"
run 0 "$work/spots.pgm" "$work/eroded.pgm" --op min:35x3 -v
check "$work/eroded.pgm" 21 "50" "min:35x3 left a spot"
logged "^stage 1: +min:35x3,rect .* kernel [0-9.]+ ms \\(the last of 2 kernels\\)"
printf '010\n1x1\n010\n' > "$work/bad.txt"
run 1 "$work/stripes.pgm" "$work/bad.pgm" --op "median:mask:$work/bad.txt"
logged "footprint file $work/bad.txt, line 2: 'x' is not a cell \(0 or 1\)"

# convolve: flips the mask, correlate: does not: on a ramp, the neighbour on one side or the other.
make_pgm "$work/ramp.pgm" 25 3 "10 * x"
run 0 "$work/ramp.pgm" "$work/correlated.pgm" --op correlate:3x1,0,0,1
check "$work/correlated.pgm" 25 "10 * (x < 24 ? x + 1 : 24)" "correlate:3x1,0,0,1 is not the right neighbour"
run 0 "$work/ramp.pgm" "$work/convolved.pgm" --op convolve:3x1,0,0,1
check "$work/convolved.pgm" 25 "10 * (x > 0 ? x - 1 : 0)" "convolve:3x1,0,0,1 is not the left neighbour"
exit 0
