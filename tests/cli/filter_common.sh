# filter_common.sh — what the `clstencil filter` test scripts share, sourced after they set
# clstencil, case and work: fail, run (one filter run and its exit code) and logged.

fail() { echo "FAIL ($case): $*"; exit 1; }

# run CODE ARGS...: runs clstencil filter ARGS, checks the exit code; the output is in $work/log.
run() {
    want=$1
    shift
    "$clstencil" filter "$@" > "$work/log" 2>&1
    got=$?
    [ "$got" -eq "$want" ] || { cat "$work/log"; fail "exit code $got, expected $want: filter $*"; }
}
# logged REGEX: the last run's output matches the extended regular expression.
logged() { grep -Eq -- "$1" "$work/log" || { cat "$work/log"; fail "output does not match /$1/"; }; }
