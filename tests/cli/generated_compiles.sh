#!/bin/sh
# generated_compiles.sh — compiles the source generated for every border mode, partition, mask
# storage and pixel type with clang's OpenCL front end, warnings as errors: an oracle of valid,
# clean OpenCL C that does not depend on the device's compiler. Usage: generated_compiles.sh CLSTENCIL CLANG
clstencil=$1 clang=$2
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
count=0
for border in undefined clamp mirror mirror101 repeat constant; do
  for partition in naive isp-block isp-warp; do
    for bake in "" --bake; do
      for types in "--type f32" "--type u8" "--in-type u16 --out-type f32"; do
        # shellcheck disable=SC2086
        "$clstencil" gen --mask 5x3 --coefficients 0,1,2,1,0,1,2,-8,2,1,0,1,2,1,0 --border "$border" \
            --partition "$partition" $bake $types --wg 24x4 > "$work/kernel.cl" || exit 1
        if ! "$clang" -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only \
               -Wall -Wextra -Werror "$work/kernel.cl"; then
            echo "generated source does not compile cleanly: $border $partition $bake $types"
            exit 1
        fi
        count=$((count + 1))
      done
    done
  done
done
body="$(dirname "$0")/window-maximum.cl"
for border in undefined clamp constant; do
  for partition in naive isp-warp; do
    for bake in "" --bake; do
      # shellcheck disable=SC2086
      "$clstencil" gen --mask 5x5 --border "$border" --partition "$partition" $bake --body "$body" \
          > "$work/kernel.cl" || exit 1
      if ! "$clang" -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -fsyntax-only \
             -Wall -Wextra -Werror "$work/kernel.cl"; then
          echo "generated source with a user body does not compile cleanly: $border $partition $bake"
          exit 1
      fi
      count=$((count + 1))
    done
  done
done
echo "$count generated kernels compile without warnings"
