#!/bin/sh
# test.sh — the README's second command: installs what is missing (Debian 12, as root), builds
# with warnings as errors and AddressSanitizer/UBSan into build-test/ and runs every test, then
# builds the threads test with ThreadSanitizer into build-tsan/ and runs it.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc)
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLS_WERROR=ON -DCLS_SANITIZE=address
cmake --build build-test -j "$jobs"
# OpenCL runtimes keep allocations for the life of the process: leak checks would only see them.
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
(cd build-test && ctest --output-on-failure -j "$jobs" "$@")

cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLS_WERROR=ON -DCLS_SANITIZE=thread > /dev/null
cmake --build build-tsan -j "$jobs" --target test_threads > /dev/null
CLSTENCIL_CACHE_DIR="$PWD/build-tsan/binary-cache" TSAN_OPTIONS="halt_on_error=1:${TSAN_OPTIONS:-}" \
    ./build-tsan/tests/test_threads
echo "ThreadSanitizer: 8 threads sharing one context, no race reported"
