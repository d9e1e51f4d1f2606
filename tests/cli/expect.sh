#!/bin/sh
# expect.sh — runs a command and checks its exit code and that its output (stdout and stderr)
# matches an extended regular expression. Usage: expect.sh CODE REGEX COMMAND [ARGS...]
code=$1 pattern=$2
shift 2
output=$("$@" 2>&1)
status=$?
if [ "$status" -ne "$code" ]; then
    printf 'expected exit code %s, got %s from: %s\n%s\n' "$code" "$status" "$*" "$output"
    exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
    printf 'output of "%s" does not match /%s/:\n%s\n' "$*" "$pattern" "$output"
    exit 1
fi
