#!/bin/bash
# completion.sh — the bash completion loads in a plain bash (no bash-completion package) and
# completes commands, options (from the command's --help), operator names from every parser,
# border modes in both --name value and --name=value forms, filter's files, and each option's values
# as the command in hand takes them (filter's --input is NAME=FILE; tune's lists have no auto).
# Usage: completion.sh COMPLETION_SCRIPT CLI
set -u
script=$1 cli=$2
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
# shellcheck source=/dev/null
source "$script" || { echo "sourcing $script failed"; exit 1; }
complete -p clstencil > /dev/null || { echo "$script registers no completion for clstencil"; exit 1; }
failures=0
# expect "WORD WORD ..." "EXPECTED REPLY": completes the last word as bash would.
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
expect "clstencil fil" "filter"
expect "clstencil -" "-h --help -V --version"
expect "clstencil help b" "bench"
expect "clstencil cache c" "clear"
expect "clstencil gen --ma" "--mask --masks"
expect "clstencil gen --shared" "--shared-regions"
expect "clstencil bench --cold" "--cold"
expect "clstencil filter in.tif out.tif --op gaus" "gaussian3d: gaussian: gaussian_d:"
expect "clstencil filter in.tif out.tif --op sob" "sobel:"
expect "clstencil gen --border mi" "mirror mirror101"
expect "clstencil gen --border = rep" "repeat"
expect "clstencil gen -b cl" "clamp"
expect "clstencil filter x --build f" "first-result fastest-kernel"
expect "clstencil bench --suite h" "hipacc"
expect "clstencil tune -q" "-q"
expect "clstencil filter in.tif out.tif --op me" "median3d: median:"
expect "clstencil filter in.tif out.tif --op op" "opening:"
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
[[ $failures -eq 0 ]] || exit 1
echo "the completion loads and completes commands, options, operators, border modes and each command's values"
