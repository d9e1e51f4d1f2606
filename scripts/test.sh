#!/bin/sh
# test.sh — the README's second command: installs what is missing (Debian 12, as root), builds
# with warnings as errors and AddressSanitizer/UBSan into build-test/ and runs the default suite,
# then builds the tests with threads (shared context, tiered builds, spread runs) with ThreadSanitizer into
# build-tsan/ and runs them, then builds the libFuzzer harnesses with clang into build-fuzz/ and
# runs each for a few seconds (CTest label `fuzz`). Prints the wall time and the ten slowest tests,
# and fails when a test took more than 40% of its timeout (scripts/test_time_guard.py).
#   --exhaustive   run only the exhaustive matrices (CTest label `exhaustive`, about 50 minutes on 2 cores),
#                  then a million executions of each fuzz harness
#   other arguments go to ctest (e.g. -R test_matrix, -L unit)
set -eu
cd "$(dirname "$0")/.."
start=$(date +%s)
phases="" # "name seconds, ..." of the phases, printed at the end
phase_start=$start
# phase NAME: ends the phase that began at $phase_start.
phase() { now=$(date +%s); phases="$phases${phases:+, }$1 $((now - phase_start)) s"; phase_start=$now; }
labels="-LE exhaustive"
if [ "${1:-}" = "--exhaustive" ]; then
    labels="-L exhaustive"
    shift
fi
./scripts/install-deps.sh
jobs=$(nproc)
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLS_WERROR=ON -DCLS_SANITIZE=address
cmake --build build-test -j "$jobs"
phase "install and build"
# AddressSanitizer's options for the tests: tests/CMakeLists.txt (the fuzz harnesses keep its defaults,
# leak checks included).
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
log=build-test/ctest-output.txt
# shellcheck disable=SC2086
{ code=0; (cd build-test && ctest --output-on-failure -j "$jobs" $labels "$@") || code=$?; echo "$code" > "$log.status"; } 2>&1 |
    tee "$log"
status=$(cat "$log.status")
phase ctest
echo "the ten slowest tests:"
grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$log" | sed -E 's/.* Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 s  \1/' |
    sort -rn | head -n 10 | sed 's/^/  /'
[ "$status" -eq 0 ] || exit "$status"
# Each test within 40% of its timeout (20% reported): a machine twice as slow still passes.
python3 scripts/test_time_guard.py build-test "$log" || exit 1

if [ "$labels" = "-LE exhaustive" ]; then
    cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLS_WERROR=ON -DCLS_SANITIZE=thread > /dev/null
    cmake --build build-tsan -j "$jobs" --target test_threads test_first_result test_spread > /dev/null
    export TSAN_OPTIONS="halt_on_error=1:${TSAN_OPTIONS:-}"
    CLSTENCIL_CACHE_DIR="$PWD/build-tsan/binary-cache" ./build-tsan/tests/test_threads
    # its own cache; the tiered build's thread (the other cases build and compare, with no thread)
    CLS_TEST_ONLY=tiered_swaps_in_the_specialized_kernel ./build-tsan/tests/test_first_result > /dev/null
    CLSTENCIL_CACHE_DIR="$PWD/build-tsan/binary-cache" ./build-tsan/tests/test_spread > /dev/null
    echo "ThreadSanitizer: 8 threads sharing one context, a tiered build's thread, an image spread over 3 contexts: no race reported"
    phase ThreadSanitizer
fi
# The fuzz harnesses: the library again with clang and libFuzzer's coverage (docs/reliability.md).
if command -v clang > /dev/null 2>&1; then
    CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLS_SANITIZE=address -DCLS_FUZZ=ON \
        -DCLS_BUILD_TESTS=OFF > /dev/null
    cmake --build build-fuzz -j "$jobs" --target fuzzers > /dev/null
    # shellcheck disable=SC2086
    (cd build-fuzz && ctest --output-on-failure -j "$jobs" $labels -L fuzz)
    phase fuzz
else
    echo "clang not found: the fuzz harnesses are not run (apt-get install clang)"
fi
echo "test.sh: $(($(date +%s) - start)) s wall ($phases)"
