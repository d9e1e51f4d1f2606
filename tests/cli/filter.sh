#!/bin/sh
# filter.sh — tests of `clstencil filter` on the default OpenCL device: results (checked pixel by
# pixel against awk where the answer is known), the file formats, and every error class with
# its exit code. Test images are made here with awk (binary PGM/PPM, a hand-built TIFF).
# Usage: filter.sh CLSTENCIL SOURCE_DIR CASE   (CASE: one of the names in the case list below)
clstencil=$1 source=$2 case=$3
sample=$source/data/sample.tif
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
LC_ALL=C
export LC_ALL

. "$(dirname "$0")/filter_common.sh"

# make_pnm FILE W H MAXVAL EXPR...: a binary PGM (one EXPR) or PPM (three), each EXPR an awk
# expression of x and y; values above 255 are written as 16-bit big-endian samples.
make_pnm() {
    file=$1 w=$2 h=$3 max=$4
    shift 4
    awk -v w="$w" -v h="$h" -v max="$max" -v n=$# -v e1="$1" -v e2="${2:-}" -v e3="${3:-}" '
        function put(v) { if (max > 255) printf "%c%c", int(v / 256), v % 256; else printf "%c", v }
        BEGIN {
            printf "P%d\n%d %d\n%d\n", n == 1 ? 5 : 6, w, h, max
            for (y = 0; y < h; ++y) for (x = 0; x < w; ++x) {
                put(value(e1)); if (n == 3) { put(value(e2)); put(value(e3)) }
            }
        }
        # The forms used below: "K" (a constant), "lin A B C mod M" ((A*x + B*y + C) mod M) and
        # "rand S mod M" (a Park-Miller sequence from seed S, exact in doubles).
        function value(e,   f) {
            split(e, f, " ")
            if (f[1] == "lin") return (x * f[2] + y * f[3] + f[4]) % f[6]
            if (f[1] != "rand") return f[1] + 0
            if (!(e in seed)) seed[e] = f[2]
            seed[e] = seed[e] * 16807 % 2147483647
            return int(seed[e] / 256) % f[4]
        }' > "$file"
}
# samples FILE: the samples of a binary PGM/PPM (8 or 16 bits), one per line, after its
# three-line header (the command writes "P5\nW H\nMAX\n").
samples() {
    max=$(sed -n 3p "$1")
    tail -c +$(($(head -n 3 "$1" | wc -c) + 1)) "$1" | od -An -v -tu1 |
        awk -v wide=$((max > 255)) '{ for (i = 1; i <= NF; ++i) if (!wide) print $i; else if (++k % 2) hi = $i; else print hi * 256 + $i }'
}
# floats FILE: the samples of a PFM (little-endian, as the command writes it), one per line.
floats() { tail -c +$(($(head -n 3 "$1" | wc -c) + 1)) "$1" | od -An -v -tf4 | tr -s ' ' '\n' | sed '/^$/d'; }
# header FILE: its first three lines on one line.
header() { head -n 3 "$1" | tr '\n' ' '; }
# all_equal VALUE: every line of stdin is VALUE, and there is at least one.
all_equal() { awk -v v="$1" '$1 != v { bad = 1 } END { exit bad || NR == 0 }'; }

# make_tiff_int32 FILE: a valid 4x2 TIFF of 32-bit signed integers (a layout clstencil refuses).
make_tiff_int32() {
    awk 'function s(v) { printf "%c%c", v % 256, int(v / 256) }
         function l(v) { s(v % 65536); s(int(v / 65536)) }
         function e(tag, type, count, v) { s(tag); s(type); l(count); if (type == 3) { s(v); s(0) } else l(v) }
         BEGIN {
             printf "II"; s(42); l(8); s(10)
             e(256, 3, 1, 4); e(257, 3, 1, 2); e(258, 3, 1, 32); e(259, 3, 1, 1); e(262, 3, 1, 1)
             e(273, 4, 1, 134); e(277, 3, 1, 1); e(278, 3, 1, 2); e(279, 4, 1, 32); e(339, 3, 1, 2); l(0)
             for (i = 0; i < 8; ++i) l(i * 1000)
         }' > "$1"
}

case $case in
border_axes)   # a mode per axis: a horizontal 3-tap sum of a row 10, 30, 50, 70, 90 (every row alike)
    make_pnm "$work/ramp.pgm" 5 3 255 "lin 20 0 10 mod 256"
    run 0 "$work/ramp.pgm" "$work/c.pgm" --op correlate:3x1,1,1,1 --border constant,mirror
    [ "$(samples "$work/c.pgm" | head -n 5 | tr '\n' ' ')" = "40 90 150 210 160 " ] ||
        fail "constant along x, mirror along y: $(samples "$work/c.pgm" | head -n 5 | tr '\n' ' ')"
    run 0 "$work/ramp.pgm" "$work/m.pgm" --op correlate:3x1@1,0,1,1,1 --border mirror,constant
    # origin 1: out(x) = in(x - 2) + in(x - 1) + in(x)
    [ "$(samples "$work/m.pgm" | head -n 5 | tr '\n' ' ')" = "50 50 90 150 210 " ] ||
        fail "mirror along x, origin 1: $(samples "$work/m.pgm" | head -n 5 | tr '\n' ' ')"
    run 1 "$work/ramp.pgm" "$work/u.pgm" --op box:3 --border undefined,clamp
    logged "the undefined border takes every axis or none"
    [ ! -e "$work/u.pgm" ] || fail "a refused run left $work/u.pgm"
    run 1 "$work/ramp.pgm" "$work/n.pgm" --op night --border mirror,clamp
    logged "night takes one border mode"
    ;;
main)   # the README's main job: Gaussian then Sobel magnitude of the sample image
    run 0 "$sample" "$work/edges.tif" --op gaussian:5,1.2 --op sobel:mag
    [ "$(head -c 4 "$work/edges.tif" | od -An -tx1 | tr -d ' ')" = 49492a00 ] || fail "edges.tif is not a little-endian TIFF"
    run 0 "$work/edges.tif" "$work/edges.pgm" --op convolve:1x1,1
    [ "$(header "$work/edges.pgm")" = "P5 256 256 255 " ] || fail "edges.tif is not 256 x 256 u8: $(header "$work/edges.pgm")"
    edges=$(samples "$work/edges.pgm" | awk '$1 > 64 { ++n } END { print n + 0 }')
    [ "$edges" -gt 1000 ] && [ "$edges" -lt 30000 ] || fail "$edges edge pixels above 64; expected some, not all"
    ;;
constant_pgm)   # a constant image stays constant: box with clamp, box with a constant border of the same value
    make_pnm "$work/c.pgm" 37 23 255 100
    run 0 "$work/c.pgm" "$work/box.pgm" --op box:3
    [ "$(header "$work/box.pgm")" = "P5 37 23 255 " ] || fail "header $(header "$work/box.pgm")"
    samples "$work/box.pgm" | all_equal 100 || fail "box:3 of a constant 100 is not 100 everywhere"
    run 0 "$work/c.pgm" "$work/box5.pgm" --op box:5 --border constant --value 100
    samples "$work/box5.pgm" | all_equal 100 || fail "box:5 with a constant border of 100 changed the image"
    ;;
u16_tiff)   # 16-bit samples survive a TIFF round trip and are filtered as 16-bit values
    make_pnm "$work/a.pgm" 40 30 65535 "lin 1601 977 0 mod 65536"
    run 0 "$work/a.pgm" "$work/a.tif" --op convolve:1x1,1
    run 0 "$work/a.tif" "$work/back.pgm" --op convolve:1x1,1
    cmp -s "$work/a.pgm" "$work/back.pgm" || fail "a u16 PGM -> TIFF -> PGM round trip changed the image"
    run 0 "$work/a.tif" "$work/g.tif" --op gaussian:3
    run 0 "$work/g.tif" "$work/g.pgm" --op convolve:1x1,1
    run 0 "$work/a.pgm" "$work/direct.pgm" --op gaussian:3
    cmp -s "$work/g.pgm" "$work/direct.pgm" || fail "filtering the u16 TIFF differs from filtering the PGM"
    make_pnm "$work/c.pgm" 19 7 65535 50000
    run 0 "$work/c.pgm" "$work/c.tif" --op box:3
    run 0 "$work/c.tif" "$work/c-back.pgm" --op convolve:1x1,1
    samples "$work/c-back.pgm" | all_equal 50000 || fail "box:3 of a constant u16 50000 is not 50000"
    ;;
rgb_tiff)   # every channel of an RGB TIFF is filtered on its own, in its place
    make_pnm "$work/rgb.ppm" 33 17 255 "lin 7 3 0 mod 256" 100 "rand 7 mod 256"
    make_pnm "$work/r.pgm" 33 17 255 "lin 7 3 0 mod 256"
    make_pnm "$work/b.pgm" 33 17 255 "rand 7 mod 256"
    run 0 "$work/rgb.ppm" "$work/rgb.tif" --op convolve:1x1,1
    run 0 "$work/rgb.tif" "$work/out.tif" --op gaussian:5 --border mirror
    run 0 "$work/out.tif" "$work/out.ppm" --op convolve:1x1,1
    [ "$(header "$work/out.ppm")" = "P6 33 17 255 " ] || fail "header $(header "$work/out.ppm")"
    run 0 "$work/r.pgm" "$work/r-out.pgm" --op gaussian:5 --border mirror
    run 0 "$work/b.pgm" "$work/b-out.pgm" --op gaussian:5 --border mirror
    samples "$work/r-out.pgm" > "$work/r.txt"
    samples "$work/b-out.pgm" > "$work/b.txt"
    samples "$work/out.ppm" | awk -v r="$work/r.txt" -v b="$work/b.txt" '
        { c = (NR - 1) % 3; if (c == 0) { getline want < r } else if (c == 1) want = 100; else getline want < b
          if ($1 != want) { printf "sample %d (channel %d): %d, expected %d\n", NR, c, $1, want; bad = 1; exit } }
        END { exit bad || NR != 33 * 17 * 3 }' || fail "the RGB result is not the three channels filtered apart"
    ;;
type_f32)   # --type f32: a float output from an 8-bit input
    make_pnm "$work/c.pgm" 21 9 255 100
    run 0 "$work/c.pgm" "$work/c.pfm" --op box:3 --type f32
    [ "$(header "$work/c.pfm")" = "Pf 21 9 -1.0 " ] || fail "header $(header "$work/c.pfm")"
    [ "$(floats "$work/c.pfm" | wc -l)" -eq 189 ] || fail "not 21 x 9 floats"
    # 1/9 is not exact in binary: the sum of nine 100/9 may be off by an ulp or two.
    floats "$work/c.pfm" | awk '($1 - 100) ^ 2 > 1e-6 { bad = 1 } END { exit bad || NR == 0 }' ||
        fail "box:3 of a constant 100 in f32 is not 100.0"
    run 0 "$work/c.pgm" "$work/c16.pfm" --op convolve:3x3,0.0625,0.125,0.0625,0.125,0.25,0.125,0.0625,0.125,0.0625 --type f32
    floats "$work/c16.pfm" | all_equal 100 || fail "an exact binomial mask of a constant 100 in f32 is not 100.0"
    run 0 "$sample" "$work/s.tif" --op gaussian:3 --type f32
    run 0 "$work/s.tif" "$work/s.pfm" --op convolve:1x1,1
    [ "$(header "$work/s.pfm")" = "Pf 256 256 -1.0 " ] || fail "the f32 TIFF is not 256 x 256 f32"
    ;;
two_ops)   # one run with two --op equals two runs of one --op each, byte for byte
    run 0 "$sample" "$work/g.pfm" --op gaussian:5,1.2 --type f32
    run 0 "$work/g.pfm" "$work/two-runs.pfm" --op sobel:mag
    run 0 "$sample" "$work/one-run.pfm" --op gaussian:5,1.2 --op sobel:mag --type f32
    cmp "$work/two-runs.pfm" "$work/one-run.pfm" || fail "the pipeline differs from two separate runs"
    ;;
strips)   # --max-device-memory below the image's need: horizontal strips, the same bytes as one piece
    make_pnm "$work/s.ppm" 61 47 255 "rand 3 mod 256" "lin 3 5 1 mod 256" "rand 7 mod 256"
    # a CPU device's record runs night's wider a-trous stages as separable pairs, whose temporary
    # images the strips count too
    night_cap=32K
    "$clstencil" devices 2>/dev/null | grep -Eq 'vendor, type +[^,]*, cpu' && night_cap=52K
    index=0
    for border in clamp mirror mirror101 repeat constant; do
        # each pipeline with a cap that gives it 3 to 5 strips of a 47-row plane; by default each
        # mode takes one pipeline, rotating, and constant two, so that each pipeline meets two modes
        pick=0
        for case_ops in "12K --op gaussian:5 --op box:3" "8K --op opening:3,disk" "$night_cap --op night"; do
            pick=$((pick + 1))
            if [ -z "${CLS_TEST_EXHAUSTIVE:-}" ] && [ $((index % 3 + 1)) != $pick ] &&
               { [ $border != constant ] || [ $(((index + 1) % 3 + 1)) != $pick ]; }; then
                continue
            fi
            cap=${case_ops%% *} ops=${case_ops#* }
            # shellcheck disable=SC2086
            run 0 "$work/s.ppm" "$work/whole.ppm" $ops -b $border --value 7
            # shellcheck disable=SC2086
            run 0 "$work/s.ppm" "$work/strips.ppm" $ops -b $border --value 7 --max-device-memory $cap -v
            logged "^strips: +[3-5] per plane"
            cmp "$work/whole.ppm" "$work/strips.ppm" || fail "$border $ops: the strips differ from one piece"
        done
        index=$((index + 1))
    done
    run 0 "$work/s.ppm" "$work/whole.ppm" --op box:5 -b undefined
    run 0 "$work/s.ppm" "$work/strips.ppm" --op box:5 -b undefined --max-device-memory 3K
    cmp "$work/whole.ppm" "$work/strips.ppm" || fail "undefined: the strips differ from one piece"
    # Not even one row with the rows it reaches: 7, and no output.
    run 7 "$work/s.ppm" "$work/none.ppm" --op box:31 --max-device-memory 1K
    logged "even a strip of one row of the image, with the 15 rows above and below it"
    [ ! -e "$work/none.ppm" ] || fail "an output was written"
    run 1 "$work/s.ppm" "$work/none.ppm" --op box:3 --max-device-memory 0
    logged "--max-device-memory wants a size above 0"
    ;;
user)   # a user-written operator (window maximum) against the same dilation in awk
    make_pnm "$work/n.pgm" 20 15 255 "rand 11 mod 256"
    samples "$work/n.pgm" > "$work/n.txt"
    for window in 3x3 5x3; do
        wx=${window%x*} wy=${window#*x}
        op="user:$source/tests/cli/window-maximum.cl"
        [ "$window" = 3x3 ] || op="$op,$window"
        run 0 "$work/n.pgm" "$work/max.pgm" --op "$op"
        samples "$work/max.pgm" | awk -v src="$work/n.txt" -v w=20 -v h=15 -v rx=$((wx / 2)) -v ry=$((wy / 2)) '
            BEGIN { while ((getline v < src) > 0) p[n++] = v }
            { x = (NR - 1) % w; y = int((NR - 1) / w); best = -1
              for (dy = -ry; dy <= ry; ++dy) for (dx = -rx; dx <= rx; ++dx) {
                  xx = x + dx; yy = y + dy
                  xx = xx < 0 ? 0 : xx >= w ? w - 1 : xx; yy = yy < 0 ? 0 : yy >= h ? h - 1 : yy
                  if (p[yy * w + xx] > best) best = p[yy * w + xx] }
              if ($1 != best) { printf "(%d, %d): %d, expected %d\n", x, y, $1, best; bad = 1; exit } }
            END { exit bad || NR != w * h }' || fail "the $window window maximum is wrong"
    done
    ;;
user_error)   # a body that does not compile: exit 3, the build log points at the body's line
    printf 'float best = IN(0, 0);\nOUT = best +* 2;\n' > "$work/broken.cl"
    run 3 "$sample" "$work/out.tif" --op "user:$work/broken.cl"
    logged "operator:2"
    [ ! -e "$work/out.tif" ] || fail "a failed build left an output file"
    ;;
night)   # the Night filter: five stages; tone-mapped values lie in [0, 1)
    run 0 "$sample" "$work/n.pfm" --op night --type f32 -v
    logged "night 5/5"
    floats "$work/n.pfm" | awk '$1 < 0 || $1 >= 1 { bad = 1 } END { exit bad || NR != 65536 }' ||
        fail "Night values outside [0, 1)"
    run 0 "$sample" "$work/scaled.pfm" --op convolve:1x1,0.0039215686 --op night --type f32
    floats "$work/scaled.pfm" | awk '$1 < 0 || $1 > 0.5 { bad = 1 } END { exit bad }' ||
        fail "Night of values in [0, 1] outside [0, 0.5]"
    run 0 "$sample" "$work/n.tif" --op night --border mirror
    # u8 in and out: the tone mapping maps 0..255 to 0..1 and back (white: 255 / 2, not 1)
    make_pnm "$work/white.pgm" 8 8 255 "255"
    for op in night tonemap; do
        run 0 "$work/white.pgm" "$work/white-$op.pgm" --op $op
        samples "$work/white-$op.pgm" | awk '$1 < 127 || $1 > 128 { bad = 1 } END { exit bad || NR != 64 }' ||
            fail "$op of a white u8 image is not 255/2"
    done
    ;;
verbose)   # -v (and --device) names the device, every stage with its build, the transfers and the kernels
    run 0 "$sample" "$work/v.tif" --op box:3 --op laplace:5 -v
    logged "^device: +[^ ].*\\("
    logged "^stage 1: +box:3 +(built from source|loaded from the disk cache) in [0-9.]+ ms, kernel [0-9.]+ ms"
    logged "^stage 2: +laplace:5"
    logged "^transfers: +[0-9.]+ ms"
    logged "^kernels: +[0-9.]+ ms \\(2 stages x 1 channel\\)"
    run 0 "$sample" "$work/d.tif" --op box:3 --device 0:0 -v
    logged "^device: "
    run 0 "$sample" "$work/q.tif" --op box:3
    [ ! -s "$work/log" ] || fail "without -v the command prints: $(cat "$work/log")"
    ;;
build_goals)   # --build: auto takes quick kernels for a small image (in one piece or in bands) and builds the
               # specialized ones in the background, which the second run gets; the same bytes; first-result's quick kernels
    unset CLSTENCIL_BUILD_GOAL # the suite's
    export CLSTENCIL_CACHE_DIR="$work/cache"
    run 0 "$sample" "$work/quick.tif" --op gaussian:5,1.2 --op convolve:3x3,1,-2,1,0,3,0,-1,2,1 -v
    logged "^stage 1: .* built from source in "
    logged "^ +build goal: the quick kernel: expected [0-9]+ ms to build the specialized one and [0-9]+ ms to run it, against [0-9]+ ms for the quick kernel"
    run 0 "$sample" "$work/warm.tif" --op gaussian:5,1.2 --op convolve:3x3,1,-2,1,0,3,0,-1,2,1 -v
    ! grep -q "built from source" "$work/log" || { cat "$work/log"; fail "a warm run built a kernel"; }
    logged "^ +build goal: the specialized kernel, built before"
    ! grep -q "(naive, 1x1" "$work/log" || { cat "$work/log"; fail "the second run did not get the specialized kernels"; }
    cmp -s "$work/quick.tif" "$work/warm.tif" || fail "the warm run's output differs"
    export CLSTENCIL_CACHE_DIR="$work/cache-first"
    run 0 "$sample" "$work/first.tif" --op gaussian:5,1.2 --build first-result -v
    logged "^stage 1: .* built from source in .*\\(naive, 1x1 per work-item\\)"
    export CLSTENCIL_CACHE_DIR="$work/cache"
    run 0 "$sample" "$work/fastest.tif" --op gaussian:5,1.2 --op convolve:3x3,1,-2,1,0,3,0,-1,2,1 --build fastest-kernel
    cmp -s "$work/quick.tif" "$work/fastest.tif" || fail "the quick and the specialized kernels' outputs differ"
    run 0 "$sample" "$work/cached.tif" --op gaussian:5,1.2 --op convolve:3x3,1,-2,1,0,3,0,-1,2,1 -v
    ! grep -q "built from source\\|(naive, 1x1" "$work/log" || { cat "$work/log"; fail "the cached specialized kernels were not used"; }
    cmp -s "$work/quick.tif" "$work/cached.tif" || fail "the cached specialized kernels' output differs"
    # an image in bands (a memory limit) weighs the build for the whole image as one piece does
    export CLSTENCIL_CACHE_DIR="$work/cache-bands"
    run 0 "$sample" "$work/whole.tif" --op gaussian:5,1.2 --build first-result
    CLSTENCIL_MEMORY_MAX=100K run 0 "$sample" "$work/bands.tif" --op gaussian:5,1.2 -v
    logged "^bands: +[0-9]+ per page"
    logged "^ +build goal: the quick kernel: expected [0-9]+ ms to build the specialized one"
    cmp -s "$work/whole.tif" "$work/bands.tif" || fail "the bands' output differs"
    run 1 "$sample" "$work/bad.tif" --op box:3 --build slowest
    logged "--build wants auto, first-result, fastest-kernel or tiered, not 'slowest'"
    CLSTENCIL_BUILD_GOAL=slowest "$clstencil" filter "$sample" "$work/bad.tif" --op box:3 > "$work/log" 2>&1 &&
        fail "CLSTENCIL_BUILD_GOAL=slowest was taken"
    logged "CLSTENCIL_BUILD_GOAL wants auto, first-result, fastest-kernel or tiered, not 'slowest'"
    [ ! -e "$work/bad.tif" ] || fail "a refused run wrote an output"
    ;;
input_folder)   # a folder is not an image: 4
    mkdir "$work/folder.tif"
    run 4 "$work/folder.tif" "$work/out.tif" --op box:3
    logged "folder.tif: is a folder"
    ;;
input_truncated)   # a TIFF cut short and a PGM cut short: 5
    head -c 20000 "$sample" > "$work/cut.tif"
    run 5 "$work/cut.tif" "$work/out.tif" --op box:3
    logged "cut.tif: .*\\(corrupt\\)"
    make_pnm "$work/whole.pgm" 30 30 255 7
    head -c 500 "$work/whole.pgm" > "$work/cut.pgm"
    run 5 "$work/cut.pgm" "$work/out.pgm" --op box:3
    logged "cut.pgm: truncated"
    [ ! -e "$work/out.tif" ] && [ ! -e "$work/out.pgm" ] || fail "a failed run left an output file"
    ;;
input_unsupported)   # valid files in layouts the command does not handle: 6
    make_tiff_int32 "$work/int32.tif"
    run 6 "$work/int32.tif" "$work/out.tif" --op box:3
    logged "int32.tif: 32-bit signed integer samples"
    printf 'P2\n2 2\n255\n1 2\n3 4\n' > "$work/plain.pgm"
    run 6 "$work/plain.pgm" "$work/out.pgm" --op box:3
    logged "plain.pgm: plain \\(ASCII\\) PGM"
    ;;
output_unwritable)   # a missing folder and a folder in the way: 7, and nothing left behind
    run 7 "$sample" "$work/missing/out.tif" --op box:3
    logged "missing/out.tif: cannot be written: its folder does not exist"
    mkdir "$work/out"
    run 0 "$sample" "$work/out/ok.tif" --op box:3
    mkdir "$work/out/busy.tif"
    run 7 "$sample" "$work/out/busy.tif" --op box:3
    logged "busy.tif: cannot replace the file"
    [ "$(ls -A "$work/out")" = "$(printf 'busy.tif\nok.tif')" ] || fail "left behind: $(ls -A "$work/out")"
    [ -z "$(ls -A "$work/out/busy.tif")" ] || fail "wrote into the folder in the way"
    ;;
bad_output_format)   # OUT's format cannot hold the result: 1, before any device work
    run 1 "$sample" "$work/out.png" --op box:3
    logged "out.png: unknown output format"
    run 1 "$sample" "$work/out.pfm" --op box:3
    logged "out.pfm: PFM holds 1 or 3 channels of f32"
    run 1 "$sample" "$work/out.pgm" --op box:3 --type f32
    ;;
*)
    fail "unknown case '$case'"
    ;;
esac
echo "ok: filter $case"
