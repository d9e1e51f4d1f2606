#!/bin/sh
# install_consumer.sh — installs the build into a temporary prefix, then builds and runs a
# consumer project against it with find_package (shared and static) and with pkg-config.
# Usage: install_consumer.sh BUILD_DIR SOURCE_DIR [EXTRA_FLAGS]  (the sanitizer flags of a
# sanitized build, which its static library needs at link time)
set -eu
build=$1 source=$2 flags=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source/examples/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" > "$work/configure.log"
cmake --build "$work/consumer" > "$work/build.log"
export LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
"$work/consumer/consumer_shared"
"$work/consumer/consumer_static"
pc_dir=$(dirname "$(find "$work/prefix" -name clstencil.pc)")
# shellcheck disable=SC2086
PKG_CONFIG_PATH="$pc_dir" cc $flags -o "$work/pc_consumer" "$source/examples/consumer/main.c" \
    $(PKG_CONFIG_PATH="$pc_dir" pkg-config --define-variable=prefix="$work/prefix" --cflags --libs --static clstencil)
"$work/pc_consumer"
echo "find_package (shared, static) and pkg-config consumers work"
