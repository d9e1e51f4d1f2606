#!/bin/sh
# filter_method.sh — `clstencil filter --method` on the default OpenCL device: a 21x21 box by FFT
# equals awk's mean of the clamped (and mirrored) window within one unit of the 8-bit output,
# borders included, in one tile and in VkFFT's overlap-save tiles (CLSTENCIL_FFT_MAX_TILE; a GPU
# record's one kernel on chip takes no tile side); -v says fft;
# an unknown method and fft for an operator that is no weighted sum are refused (exit 1) and
# write nothing; a device memory limit too small for the FFT's tiles is exit 7, naming them.
# Usage: filter_method.sh CLSTENCIL
clstencil=$1 case=method
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
LC_ALL=C
export LC_ALL

. "$(dirname "$0")/filter_common.sh"

W=37 H=26
# The 8-bit PGM whose sample at (x, y) is (x * 37 + y * 11) % 97 + 60.
awk -v w=$W -v h=$H 'BEGIN { printf "P5\n%d %d\n255\n", w, h
    for (y = 0; y < h; ++y) for (x = 0; x < w; ++x) printf "%c", (x * 37 + y * 11) % 97 + 60 }' > "$work/in.pgm"

# check FILE BORDER WHAT: every sample of FILE is within one of the rounded mean of the 21x21
# window of the input around it, its indices clamped (clamp) or mirrored (mirror).
check() {
    tail -c +$(($(head -n 3 "$1" | wc -c) + 1)) "$1" | od -An -v -tu1 | tr -s ' ' '\n' | sed '/^$/d' |
        awk -v w=$W -v h=$H -v border="$2" "
            function fold(i, n) { if (border == \"clamp\") return i < 0 ? 0 : i >= n ? n - 1 : i
                                  while (i < 0 || i >= n) i = i < 0 ? -i - 1 : 2 * n - 1 - i; return i }
            { x = (NR - 1) % w; y = int((NR - 1) / w); sum = 0
              for (j = -10; j <= 10; ++j) for (i = -10; i <= 10; ++i) {
                  u = fold(x + i, w); v = fold(y + j, h); sum += (u * 37 + v * 11) % 97 + 60 }
              want = int(sum / 441 + 0.5); d = \$1 - want
              if (d > 1 || d < -1) { printf \"(%d, %d): %d, expected %d\\n\", x, y, \$1, want; bad = 1; exit } }
            END { exit bad || NR != w * h }" || fail "$3"
}

run 0 "$work/in.pgm" "$work/one.pgm" --op box:21 --method fft -v
logged "stage 1: +box:21 .*\(fft\)"
check "$work/one.pgm" clamp "box:21 by FFT, one tile"
CLSTENCIL_FFT_TILES=vkfft CLSTENCIL_FFT_MAX_TILE=64 run 0 "$work/in.pgm" "$work/tiles.pgm" --op box:21 --method fft --border mirror
check "$work/tiles.pgm" mirror "box:21 by FFT, overlap-save tiles of 64"
run 0 "$work/in.pgm" "$work/direct.pgm" --op box:21 --method direct -v
logged "stage 1: +box:21 .*per work-item"
check "$work/direct.pgm" clamp "box:21 direct"

run 1 "$work/in.pgm" "$work/no.pgm" --op box:21 --method fourier
logged "method"
run 1 "$work/in.pgm" "$work/no.pgm" --op median:3 --method fft
logged "--method fft: median:3x3,rect is not a weighted sum"
CLSTENCIL_FFT_TILES=vkfft CLSTENCIL_FFT_MAX_TILE=3 run 1 "$work/in.pgm" "$work/no.pgm" --op box:21 --method fft
logged "CLSTENCIL_FFT_MAX_TILE"
# the device memory the run may use counts the FFT's tiles (VkFFT's, also where a record sends
# masks this small to the one kernel on chip): 32 KiB holds the direct sum's image, not the FFT's
# two 64x48 tiles and spectra (49.5 KiB)
run 0 "$work/in.pgm" "$work/small.pgm" --op box:21 --method direct --max-device-memory 32K
check "$work/small.pgm" clamp "box:21 direct within 32 KiB"
CLSTENCIL_FFT_TILES=vkfft run 7 "$work/in.pgm" "$work/no.pgm" --op box:21 --method fft --max-device-memory 32K
logged "the operators' own buffers for such a strip take 49.5 KiB"
[ ! -e "$work/no.pgm" ] || fail "a refused run wrote its output"
echo "ok ($case)"
