#!/bin/sh
# install-deps.sh — installs, on Debian 12 as root, what building and testing clstencil needs;
# does nothing when everything is already there.
set -eu
packages="cmake gcc make pkg-config ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
          libinih-dev libjson-c-dev libxxhash-dev libvkfft-dev libcmocka-dev libtiff-dev oclgrind clang clang-19 libclc-19
          python3-numpy python3-venv python3-dask python3-distributed python3-pyopencl
          python3-scipy python3-pytest man-db groff-base binutils"
missing=""
for package in $packages; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
if [ -n "$missing" ]; then
    echo "installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing
fi
