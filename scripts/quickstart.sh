#!/bin/sh
# quickstart.sh — the README's first command: installs what is missing (Debian 12, as root),
# builds clstencil into build/ and runs the main job on the default OpenCL device: filtering the
# sample image data/sample.tif into build/edges.tif; makes the Python package importable
# (python/install.sh) and runs its quick-start example.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
mkdir -p build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > build/build.log 2>&1 || { cat build/build.log; exit 1; }
cmake --build build -j "$(nproc)" >> build/build.log 2>&1 || { tail -n 50 build/build.log; exit 1; }
echo "built build/tools/clstencil (log: build/build.log)"
./build/tools/clstencil devices
./build/tools/clstencil filter data/sample.tif build/edges.tif --op gaussian:5,1.2 --op sobel:mag -v
echo "wrote build/edges.tif"
# The Python package: importable by /usr/bin/python3, then the README's three-line example.
./python/install.sh
/usr/bin/python3 python/examples/quickstart.py
