#!/bin/sh
# generated_compiles.sh — compiles the source generated for every border mode, partition, mask
# storage and pixel type, and every kernel variant (local and image input, columns per
# work-item, several masks with an epilogue, separable single-pass, folded taps, the rolled border
# regions of a large baked mask, streaming rows) and docs/api.md's example bodies, with clang's OpenCL front end, warnings as errors: an oracle of
# valid, clean OpenCL C that does not depend on the device's compiler.
# Usage: generated_compiles.sh CLSTENCIL CLANG [SECTIONS], SECTIONS a comma-separated list of modes
# (every border mode, partition, storage and type; user bodies), variants and examples (all three
# when not given).
clstencil=$1 clang=$2 sections=",${3:-modes,variants,examples},"
# section NAME: whether the run takes that section.
section() { case $sections in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/src"
count=0
# keep DESCRIPTION: files the kernel just generated ($work/kernel.cl) under its description, for the
# one compile at the end (clang's start was most of a compile's time: one front end takes them all).
keep() { mv "$work/kernel.cl" "$work/src/$(echo "$*" | tr -s ' ,()' '-').cl"; count=$((count + 1)); }
section modes && for border in undefined clamp mirror mirror101 repeat constant; do
  for partition in naive isp-block isp-warp; do
    for bake in "" --bake; do
      for types in "--type f32" "--type u8" "--in-type u16 --out-type f32"; do
        # shellcheck disable=SC2086
        "$clstencil" gen --mask 5x3 --coefficients 0,1,2,1,0,1,2,-8,2,1,0,1,2,1,0 --border "$border" \
            --partition "$partition" $bake $types --wg 24x4 > "$work/kernel.cl" || exit 1
        keep "mode $border $partition $bake $types"
      done
    done
  done
done
body="$(dirname "$0")/window-maximum.cl"
section modes && for border in undefined clamp constant; do
  for partition in naive isp-warp; do
    for bake in "" --bake; do
      # shellcheck disable=SC2086
      "$clstencil" gen --mask 5x5 --border "$border" --partition "$partition" $bake --body "$body" \
          > "$work/kernel.cl" || exit 1
      keep "body $border $partition $bake"
    done
  done
done
# The kernel variants (local staging, image input, columns, multiple masks, separable, folded taps, streaming), in every border mode they take, baked and not, the partition rotating.
mask="0,1,2,1,0,1,2,-8,2,1,0,1,2,1,0"
big="$(seq -s, 1 81)" # a 9x9 mask: with 8 rows it passes the unroll limit, so border regions loop
section variants && for variant in local local-blocked image image-u8 image-u16 cols4 cols8-rows2 masks2-hypot masks3 single-pass fold \
               rolled-borders stream stream-cols4-u8 stream-rolled; do
  index=0
  for border in undefined clamp mirror mirror101 repeat constant; do
    case $variant in local-blocked|cols*|rolled-borders|stream*) [ "$border" = undefined ] && continue ;; esac
    index=$((index + 1))
    case $((index % 3)) in 0) partition=naive ;; 1) partition=isp-block ;; *) partition=isp-warp ;; esac
    for bake in "" --bake; do
      [ "$variant" = fold ] && [ -z "$bake" ] && continue
      case $variant in
        local) set -- --mask 5x3 --coefficients "$mask" --input local ;;
        local-blocked) set -- --mask 5x3 --coefficients "$mask" --input local --rows 4 --cols 2 ;;
        image) set -- --mask 5x3 --coefficients "$mask" --input image ;;
        image-u8) set -- --mask 5x3 --coefficients "$mask" --input image --type u8 ;;
        image-u16) set -- --mask 5x3 --coefficients "$mask" --input image --in-type u16 --out-type f32 ;;
        cols4) set -- --mask 5x3 --coefficients "$mask" --cols 4 ;;
        cols8-rows2) set -- --mask 5x3 --coefficients "$mask" --cols 8 --rows 2 --type u8 ;;
        masks2-hypot) set -- --mask 3x3 --masks 2 --coefficients -1,0,1,-2,0,2,-1,0,1,-1,-2,-1,0,0,0,1,2,1 \
                             --epilogue "hypot(r0, r1)" ;;
        masks3) set -- --mask 5x3 --masks 3 --coefficients "$mask,$mask,$mask" ;;
        single-pass) set -- --mask 5x3 --row 1,4,6,4,1 --column 1,2,1 --separable single-pass ;;
        fold) set -- --mask 5x3 --coefficients "$mask" --fold ;;
        rolled-borders) set -- --mask 9x9 --coefficients "$big" --rows 8 --cols 2 --masks 1 --type u8 ;;
        stream) set -- --mask 5x3 --coefficients "$mask" --rows 16 ;;
        stream-cols4-u8) set -- --mask 5x3 --coefficients "$mask" --rows 64 --cols 4 --type u8 ;;
        stream-rolled) set -- --mask 9x9 --coefficients "$big,$big" --masks 2 --epilogue "hypot(r0, r1)" \
                              --rows 32 --cols 8 ;;
      esac
      # shellcheck disable=SC2086
      "$clstencil" gen "$@" --border "$border" --partition "$partition" $bake --wg 24x4 > "$work/kernel.cl" || {
        echo "clstencil gen failed: $variant $border $partition $bake"; exit 1; }
      keep "variant $variant $border $partition $bake"
    done
  done
done
# The example bodies of docs/api.md (blocks separated by blank lines), on the global, local and
# image paths: each compiles in the function clstencil gives it.
section examples && awk '/^One example per feature:/ { on = 1; next } on && /^```$/ { if (inside) exit; inside = 1; next }
     inside { if ($0 == "") n++; else print > sprintf("'"$work"'/example%d.cl", n) }' \
    "$(dirname "$0")/../../docs/api.md"
section examples && { [ -f "$work/example5.cl" ] || { echo "docs/api.md: the example bodies were not found"; exit 1; }; }
section examples && for example in "$work"/example*.cl; do
  for path in global local image; do
    for border in clamp constant; do
      "$clstencil" gen --mask 3x3 --border "$border" --input "$path" --body "$example" > "$work/kernel.cl" || {
        echo "clstencil gen refused the example body $(basename "$example"): $path $border"; exit 1; }
      keep "$(basename "$example" .cl) $path $border"
    done
  done
done
# The driver's own front-end command (clang -### -x cl ... -Xclang -finclude-default-header), given
# every file at once; each diagnostic names its file, which names the kernel's options.
resources=$("$clang" -print-resource-dir)
if ! "$clang" -cc1 -triple x86_64-pc-linux-gnu -resource-dir "$resources" -internal-isystem "$resources/include" \
       -fsyntax-only -Wall -Wextra -Werror -cl-std=CL1.2 -finclude-default-header -fdeclare-opencl-builtins \
       -x cl "$work"/src/*.cl; then
    echo "generated sources do not compile cleanly (above: each file is named by its options)"
    exit 1
fi
[ "$(ls "$work/src" | wc -l)" -eq "$count" ] || { echo "two kernels were given one name"; exit 1; }
echo "$count generated kernels compile without warnings"
