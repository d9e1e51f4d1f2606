#!/bin/bash
# completion_values.sh — the bash completion offers each option's values as the command in hand
# takes them: filter's --input is NAME=FILE (no words; the FILE after '=' completes as a file),
# gen's and bench's --input a list of input paths (tune's without auto, which it fills in);
# --format every written format; --method its three values; tune's options include the region
# flags its --help lists; --op every operator the parsers know.
# Usage: completion_values.sh COMPLETION_SCRIPT CLI
set -u
script=$1 cli=$2
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
# shellcheck source=/dev/null
source "$script" || { echo "sourcing $script failed"; exit 1; }
failures=0
# expect "WORD WORD ..." "EXPECTED REPLY": completes the last word as bash would (a trailing space:
# an empty word; '=' given as a word of its own, as bash splits it).
expect()
{
    read -r -a COMP_WORDS <<< "$1"
    [[ $1 == *" " ]] && COMP_WORDS+=("")
    COMP_WORDS[0]=$cli
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _clstencil
    local reply="${COMPREPLY[*]}"
    if [[ $reply != "$2" ]]; then
        echo "completing '$1': expected '$2', got '$reply'"
        failures=$((failures + 1))
    fi
}
cd "$work" || exit 1
touch flat.tif
expect "clstencil filter in.tif out.tif --input " ""
expect "clstencil filter in.tif out.tif --input flat = fl" "flat.tif"
expect "clstencil gen --input " "auto global local image"
expect "clstencil bench --op box:3 --input l" "local"
expect "clstencil tune --op box:3 --input " "global local image"
expect "clstencil tune --op box:3 --partition " "naive isp-block isp-warp"
expect "clstencil bench --op box:3 --partition a" "auto"
expect "clstencil filter a.tif b.tif -o out --format " "tif tiff pgm ppm pnm pfm mha nrrd"
expect "clstencil filter a.tif b.tif -o out --format n" "nrrd"
expect "clstencil filter in.tif out.tif --method " "auto direct fft"
expect "clstencil bench --op box:3 --method f" "fft"
expect "clstencil filter in.tif out.tif --combine " ""
expect "clstencil tune --body-apart" "--body-apart-regions"
expect "clstencil tune --sep" "--separable --separate-regions"
# operator names from every parser: the rank and morphology operators' and the volumes' too
expect "clstencil filter in.tif out.tif --op me" "median3d: median:"
expect "clstencil filter in.tif out.tif --op op" "opening:"
[[ $failures -eq 0 ]] || exit 1
echo "the completion offers each command's own values"
