#!/bin/sh
# install_consumer.sh — installs the build into a temporary prefix, then builds and runs a
# consumer project against it with find_package (shared and static) and with pkg-config, both
# with a host that sets CL_TARGET_OPENCL_VERSION=300 itself and -Werror (clstencil.h must not
# redefine it). Checks that the pkg-config file points at that prefix without being told (it is
# relocatable) and that the manual page and the bash completion are installed.
# Usage: install_consumer.sh BUILD_DIR SOURCE_DIR [EXTRA_FLAGS]  (the sanitizer flags of a
# sanitized build, which its static library needs at link time)
set -eu
build=$1 source=$2 flags=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
host_flags="-DCL_TARGET_OPENCL_VERSION=300 -Wall -Wextra -Werror"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source/examples/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_C_FLAGS="$flags $host_flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" > "$work/configure.log"
cmake --build "$work/consumer" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
export LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
"$work/consumer/consumer_shared"
"$work/consumer/consumer_static"

pc_dir=$(dirname "$(find "$work/prefix" -name clstencil.pc)")
export PKG_CONFIG_PATH="$pc_dir"
prefix=$(cd "$(pkg-config --variable=prefix clstencil)" && pwd -P)
if [ "$prefix" != "$(cd "$work/prefix" && pwd -P)" ]; then
    echo "clstencil.pc's prefix is '$(pkg-config --variable=prefix clstencil)', not the install prefix $work/prefix"
    exit 1
fi
# shellcheck disable=SC2086
cc $flags $host_flags -o "$work/pc_consumer" "$source/examples/consumer/main.c" \
    $(pkg-config --cflags --libs --static clstencil)
"$work/pc_consumer"
# shellcheck disable=SC2086
cc $flags $host_flags -o "$work/pc_consumer_shared" "$source/examples/consumer/main.c" \
    $(pkg-config --cflags --libs clstencil)
"$work/pc_consumer_shared"

for file in share/man/man1/clstencil.1 share/bash-completion/completions/clstencil bin/clstencil; do
    [ -f "$work/prefix/$file" ] || { echo "$file is not installed"; exit 1; }
done
echo "find_package (shared, static) and pkg-config consumers work with CL_TARGET_OPENCL_VERSION=300 -Werror"
