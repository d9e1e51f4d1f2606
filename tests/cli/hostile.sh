#!/bin/sh
# hostile.sh — `clstencil filter` on hostile input: every refusal with its exit code, a message
# naming the input and the rule, and no output file (nor a temporary one) left behind. Test
# files are made here with awk and printf.
# Usage: hostile.sh CLSTENCIL SOURCE_DIR CASE   (CASE: one of the names in the case list below)
clstencil=$1 source=$2 case=$3
sample=$source/data/sample.tif
work=$(mktemp -d) || exit 1
trap 'chmod -R u+rwx "$work"; rm -rf "$work"' EXIT
LC_ALL=C
export LC_ALL

. "$(dirname "$0")/filter_common.sh"
# nothing_written: no output and no temporary file in $work/out.
nothing_written() { [ -z "$(ls -A "$work/out")" ] || fail "left behind: $(ls -A "$work/out")"; }
mkdir "$work/out"

# make_tiff FILE PAGES STRIPS: an 8x8 8-bit gray TIFF of PAGES pages, 2 rows a strip (4 strips),
# whose StripOffsets and StripByteCounts list STRIPS entries (fewer than 4: damaged).
make_tiff() {
    awk -v pages="$2" -v n="$3" '
        function s(v) { printf "%c%c", v % 256, int(v / 256) }
        function l(v) { s(v % 65536); s(int(v / 65536)) }
        function e(tag, type, count, v) { s(tag); s(type); l(count); if (type == 3) { s(v); s(0) } else l(v) }
        BEGIN {
            size = 64 + 8 * n + 114
            printf "II"; s(42); l(8 + 64 + 8 * n)
            for (p = 0; p < pages; ++p) {
                base = 8 + p * size
                for (i = 0; i < 64; ++i) printf "%c", (i * 7 + p) % 256
                for (i = 0; i < n; ++i) l(base + 16 * i)
                for (i = 0; i < n; ++i) l(16)
                s(9)
                e(256, 3, 1, 8); e(257, 3, 1, 8); e(258, 3, 1, 8); e(259, 3, 1, 1); e(262, 3, 1, 1)
                e(273, 4, n, base + 64); e(277, 3, 1, 1); e(278, 3, 1, 2); e(279, 4, n, base + 64 + 4 * n)
                l(p + 1 < pages ? base + size + 64 + 8 * n : 0)
            }
        }' > "$1"
}

case $case in
same_file)   # OUT is IN (another spelling, a hard link): 1, the input untouched; OUT's mode and links kept
    cp "$sample" "$work/in.tif"
    ln "$work/in.tif" "$work/link.tif"
    run 1 "$work/in.tif" "$work/./in.tif" --op box:3
    logged "in.tif and .*in.tif are the same file"
    run 1 "$work/in.tif" "$work/link.tif" --op box:3
    cmp -s "$sample" "$work/in.tif" || fail "the input changed"
    # an existing OUT is replaced whole with its permissions kept; a link's target is replaced
    cp "$sample" "$work/private.tif"
    chmod 600 "$work/private.tif"
    run 0 "$work/in.tif" "$work/private.tif" --op box:3
    [ "$(stat -c %a "$work/private.tif")" = 600 ] || fail "OUT's permissions changed"
    ln -s private.tif "$work/alias.tif"
    run 0 "$work/in.tif" "$work/alias.tif" --op box:3
    [ -L "$work/alias.tif" ] || fail "the link OUT was replaced by a file"
    ;;
not_a_file)   # a FIFO with no writer, in a format read in bands (TIFF, PGM) or whole (PFM): 4 at once, not a wait
    for name in fifo.tif fifo.pgm fifo.pfm; do
        mkfifo "$work/$name"
        run 4 "$work/$name" "$work/out/o.tif" --op box:3
        logged "$name: not a regular file"
    done
    nothing_written
    ;;
tiff_structure)   # several pages: a stack of as many pages; too few strip offsets: 5
    make_tiff "$work/one.tif" 1 4
    run 0 "$work/one.tif" "$work/out/one.tif" --op box:3
    rm "$work/out/one.tif"
    make_tiff "$work/pages.tif" 3 4
    run 0 "$work/pages.tif" "$work/out/pages.tif" --op box:3 -v
    logged "8 x 8, 1 channel, u8 -> u8, 3 pages"
    rm "$work/out/pages.tif"
    make_tiff "$work/few.tif" 1 2
    run 5 "$work/few.tif" "$work/out/few.tif" --op box:3
    logged "few.tif: damaged TIFF structure: .*StripOffsets"
    nothing_written
    ;;
pgm_maxval)   # a sample above the header's maximum value, binary junk in the header: 5, quoted printably
    printf 'P5\n2 2\n100\n\001\002\003\377' > "$work/max.pgm"
    run 5 "$work/max.pgm" "$work/out/max.pgm" --op box:3
    logged "max.pgm: sample 255 at x 1, y 1 is above the header's maximum value 100"
    printf 'P5\n\033[31mred 2\n255\nab' > "$work/junk.pgm" # a terminal escape in the header
    run 5 "$work/junk.pgm" "$work/out/junk.pgm" --op box:3
    logged "junk.pgm: bad header: the width '\\?\\[31mred' is not a positive integer"
    nothing_written
    ;;
memory_limit)   # an image beyond the memory budget: in bands (intermediates: strips), and 7 before anything is allocated where bands cannot serve (a batch); a bad budget: 1
    CLSTENCIL_MEMORY_MAX=100K run 7 "$sample" -o "$work/out" --op box:3
    logged "sample.tif: a 256 x 256 image of 1 channel needs 128.0 KiB of memory .* only 100.0 KiB is available"
    run 0 "$sample" "$work/one.tif" --op box:3
    CLSTENCIL_MEMORY_MAX=100K run 0 "$sample" "$work/bands.tif" --op box:3 -v
    logged "^bands: +[0-9]+ per page"
    cmp "$work/one.tif" "$work/bands.tif" || fail "the bands differ from one piece"
    run 0 "$sample" "$work/one.pgm" --op box:3
    CLSTENCIL_MEMORY_MAX=100K run 0 "$sample" "$work/bands.pgm" --op box:3 -v
    logged "^bands: +[0-9]+ per page"
    cmp "$work/one.pgm" "$work/bands.pgm" || fail "the bands into a PGM differ from one piece"
    # host images fit: a CPU device (sharing host memory) runs on them in place, with nothing to
    # copy, in one piece; a pipeline's f32 intermediate (256 KiB) does not fit: strips, the same
    # bytes; and with room for less than a row and the rows it reaches: 7
    if CLSTENCIL_DEVICE=cpu "$clstencil" devices > /dev/null 2>&1; then
        CLSTENCIL_DEVICE=cpu run 0 "$sample" "$work/whole.tif" --op box:3
        CLSTENCIL_DEVICE=cpu CLSTENCIL_MEMORY_MAX=129K run 0 "$sample" "$work/in-place.tif" --op box:3 -v
        ! grep -q "^strips:" "$work/log" || fail "a CPU device running in place took strips"
        cmp "$work/whole.tif" "$work/in-place.tif" || fail "in place differs"
        CLSTENCIL_DEVICE=cpu run 0 "$sample" "$work/whole2.tif" --op box:3 --op gaussian:3
        CLSTENCIL_DEVICE=cpu CLSTENCIL_MEMORY_MAX=300K run 0 "$sample" "$work/strips.tif" --op box:3 --op gaussian:3 -v
        logged "^strips: +[0-9]+ per plane"
        cmp "$work/whole2.tif" "$work/strips.tif" || fail "the strips differ from one piece"
        CLSTENCIL_DEVICE=cpu CLSTENCIL_MEMORY_MAX=129K run 7 "$sample" "$work/out/m.tif" --op box:3 --op gaussian:3
        logged "even a strip of one row of the image.*shares the host's memory"
    fi
    CLSTENCIL_MEMORY_MAX=lots run 1 "$sample" "$work/out/m.tif" --op box:3
    logged "CLSTENCIL_MEMORY_MAX='lots' is not a size"
    nothing_written
    ;;
file_size_limit)   # ulimit -f: 7 with a message, not SIGXFSZ; no temporary file left
    # A 16 MiB output under a limit of 8192 blocks (4 MiB in dash's 512-byte blocks, 8 MiB in
    # bash's 1024): either leaves room for the OpenCL compiler's own files
    { printf 'P5\n2048 2048\n255\n'; head -c 4194304 /dev/zero; } > "$work/zero.pgm"
    ( ulimit -f 8192; run 7 "$work/zero.pgm" "$work/out/big.pfm" --op box:3 --type f32 ) || exit 1
    logged "big.pfm: cannot write: .*the file-size limit, ulimit -f, is [0-9]+ bytes"
    nothing_written
    ;;
killed)   # SIGKILL leaves no OUT; a later run removes the temporary file of a process that is gone
    # killed while it reads standard input (a pipe that never ends): no OUT
    mkfifo "$work/never"
    "$clstencil" filter - "$work/out/k.pgm" --op box:3 < "$work/never" > "$work/log" 2>&1 &
    pid=$!
    exec 3> "$work/never" # the writer end, held open and never written
    sleep 0.5
    kill -9 "$pid"
    wait "$pid" 2> /dev/null || true
    exec 3>&-
    nothing_written
    # a temporary file of a process that is gone and one of a live process (this shell)
    sh -c 'exit 0' &
    gone=$!
    wait "$gone"
    : > "$work/out/.k.tif.clstencil-$gone.a1b2c3"
    : > "$work/out/.k.tif.clstencil-$$.d4e5f6"
    : > "$work/out/.k.tif.other-$gone.a1b2c3"
    run 0 "$sample" "$work/out/k.tif" --op box:3
    [ ! -e "$work/out/.k.tif.clstencil-$gone.a1b2c3" ] || fail "the dead process's temporary file is still there"
    [ -e "$work/out/.k.tif.clstencil-$$.d4e5f6" ] || fail "a live process's temporary file was removed"
    [ -e "$work/out/.k.tif.other-$gone.a1b2c3" ] || fail "a file not named by clstencil was removed"
    ;;
undefined_pipeline)   # --border undefined before another stage: 1
    run 1 "$sample" "$work/out/u.tif" --op box:3 --op box:3 --border undefined
    logged "--border undefined leaves each stage's border pixels unwritten"
    run 1 "$sample" "$work/out/u.tif" --op night --border undefined
    nothing_written
    ;;
body_rules)   # bodies that would compile yet give wrong pixels, and a huge one: 1 before any build
    printf 'OUT = IN(0, 100);\n' > "$work/far.cl"
    run 1 "$sample" "$work/out/b.tif" --op user:"$work/far.cl"
    logged "line 1: IN\\(0, 100\\) reads outside the 3x3 window"
    printf 'OUT = cls_input[0];\n' > "$work/reserved.cl"
    run 1 "$sample" "$work/out/b.tif" --op user:"$work/reserved.cl"
    logged "'cls_input': names starting with cls_ are reserved"
    printf 'float v = IN(0, 0);\nOUT = output[0] + v;\n' > "$work/kernel.cl"
    run 3 "$sample" "$work/out/b.tif" --op user:"$work/kernel.cl"
    logged "operator.?:2:.*undeclared identifier .?output"
    printf 'float a[100000];\nfor (int i = 0; i < 100000; ++i) a[i] = IN(0, 0);\nOUT = a[7];\n' > "$work/stack.cl"
    run 1 "$sample" "$work/out/b.tif" --op user:"$work/stack.cl"
    logged "line 1: its arrays take 400000 bytes of private memory per pixel"
    printf '#define OUT best\nfloat best = IN(0, 0);\nOUT = best;\n' > "$work/define.cl"
    run 1 "$sample" "$work/out/b.tif" --op user:"$work/define.cl"
    logged "#define or #undef of 'OUT'"
    printf '/* OUT = IN(0, 0); */\nfloat v = IN(0, 0);\n' > "$work/comment.cl"
    run 1 "$sample" "$work/out/b.tif" --op user:"$work/comment.cl"
    logged "never assigns OUT"
    awk 'BEGIN { printf "OUT = IN(0, 0)"; for (i = 0; i < 20000; ++i) printf " + IN(0, 0)"; print ";" }' > "$work/long.cl"
    run 1 "$sample" "$work/out/b.tif" --op user:"$work/long.cl"
    logged "operator body is [0-9]+ bytes: at most 65536 are accepted"
    run 1 "$sample" "$work/out/b.tif" --op user:/dev/zero
    logged "cannot read the operator body /dev/zero: not a regular file"
    run 1 "$sample" "$work/out/b.tif" --op user:"$work/far.cl,4x"
    logged "'4x' is not a window WxH"
    nothing_written
    ;;
parameters)   # parameters whose weights would not be finite: 1, naming the parameter
    run 1 "$sample" "$work/out/p.tif" --op bilateral:3,1e-20
    logged "SIGMA_R '1e-20' is too small"
    run 1 "$sample" "$work/out/p.tif" --op gaussian:5,1e-200
    logged "SIGMA '1e-200' is out of range"
    nothing_written
    ;;
cache_trust)   # a cache folder others may write to is bypassed with a warning; a bogus switch warned about
    mkdir "$work/shared"
    chmod 777 "$work/shared"
    CLSTENCIL_CACHE_DIR=$work/shared run 0 "$sample" "$work/out/c.tif" --op box:3
    logged "warning: the binary cache .*shared is not used: others may write to it"
    [ -z "$(ls -A "$work/shared")" ] || fail "wrote into the untrusted cache: $(ls -A "$work/shared")"
    CLSTENCIL_CACHE=bogus run 0 "$sample" "$work/out/c.tif" --op box:3
    logged "CLSTENCIL_CACHE='bogus' is not on, off"
    ;;
overlay)   # device-db overlays: duplicates, negative and zero sizes, binary junk: 3 with file:line
    printf '[x]\nsimd_width = 32\nsimd_width = 64\n' > "$work/dup.ini"
    printf '[nvidia-sm90]\ndefault_wg = -32x2\n' > "$work/negative.ini"
    printf '; zero\n[nvidia-sm90]\nsimd_width = 0\n' > "$work/zero.ini"
    printf '[nvidia-sm90]\narch = \001\002junk\n' > "$work/junk.ini"
    # a malformed line, then a refused one: the first is reported, with its own line
    printf '[nvidia-sm90]\ngarbage\nwarp = 1\n' > "$work/malformed.ini"
    for file in malformed:2:"not a \\[section\\], a NAME = VALUE line or a comment: 'garbage'" \
                dup:3:"'simd_width' appears twice in record \\[x\\]" \
                negative:2:"'default_wg' must be WxH with positive sides, e.g. 32x4, not '-32x2'" \
                zero:3:"'simd_width' must be a decimal integer from 1 to 2\\^30, not '0'" \
                junk:2:"'arch' must be a short architecture key, not '\\\\x01\\\\x02junk'"; do
        name=${file%%:*} rest=${file#*:}
        CLSTENCIL_DEVICE_DB=$work/$name.ini "$clstencil" devices > "$work/log" 2>&1
        got=$?
        [ "$got" -eq 3 ] || { cat "$work/log"; fail "$name.ini: exit code $got, expected 3"; }
        logged "$name.ini:${rest%%:*}: ${rest#*:}"
    done
    ;;
*)
    fail "unknown case '$case'"
    ;;
esac
echo "ok: hostile $case"
