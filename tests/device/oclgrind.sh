#!/bin/sh
# oclgrind.sh — runs a test program under oclgrind and fails on any message oclgrind logs
# (invalid memory access, data race, barrier divergence, API error) or on the program failing.
# Usage: oclgrind.sh OCLGRIND PROGRAM [ARGUMENT...]
oclgrind=$1 program=$2
shift 2
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
# oclgrind preloads its runtime, which a sanitized program must tolerate; that runtime (Debian 12's
# oclgrind 21.10) frees an image object through the wrong C++ type in clReleaseMemObject, which
# AddressSanitizer reports as new-delete-type-mismatch inside liboclgrind-rt, not in clstencil
export ASAN_OPTIONS="verify_asan_link_order=0:new_delete_type_mismatch=0:${ASAN_OPTIONS:-}"
"$oclgrind" --check-api --data-races --log "$log" "$program" "$@"
status=$?
if [ -s "$log" ]; then
    echo "oclgrind reported:"
    head -n 40 "$log"
    exit 1
fi
[ "$status" -eq 0 ] || { echo "$program failed under oclgrind (exit $status)"; exit 1; }
echo "oclgrind: no error reported"
