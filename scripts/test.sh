#!/bin/sh
# test.sh — the README's second command: installs what is missing (Debian 12, as root), builds
# with warnings as errors and AddressSanitizer/UBSan into build-test/, and runs every test.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLS_WERROR=ON -DCLS_SANITIZE=ON
cmake --build build-test -j "$(nproc)"
# OpenCL runtimes keep allocations for the life of the process: leak checks would only see them.
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
cd build-test
ctest --output-on-failure -j 2 "$@"
