#!/bin/sh
# quickstart.sh — the README's first command: installs what is missing (Debian 12, as root),
# builds clstencil into build/ and runs the main job on the default OpenCL device: filtering the
# sample image data/sample.tif into build/edges.tif; installs the Python package with pip into a
# virtual environment, build/python-env (Debian's numpy and dask visible in it), and runs its
# quick-start example there.
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
# The Python package, the library built above inside it, then the README's three-line example.
/usr/bin/python3 -m venv --system-site-packages build/python-env
build/python-env/bin/pip install --quiet ./python
build/python-env/bin/python python/examples/quickstart.py
echo "the Python package is installed in build/python-env (build/python-env/bin/python)"
