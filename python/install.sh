#!/bin/sh
# install.sh — makes the Python package of this checkout importable by Debian's interpreter
# (/usr/bin/python3, whose python3-numpy and -dask packages it uses): writes clstencil.pth,
# naming this python/ folder, into that interpreter's site-packages. The package then loads the
# library from the checkout's build/ (or CLSTENCIL_LIBRARY). --remove removes the file.
set -eu
python=${CLS_PYTHON:-/usr/bin/python3}
package_root=$(cd "$(dirname "$0")" && pwd)
site=$("$python" -c 'import site; print(site.getsitepackages()[0])')
if [ "${1:-}" = "--remove" ]; then
    rm -f "$site/clstencil.pth"
    echo "removed $site/clstencil.pth"
    exit 0
fi
mkdir -p "$site"
echo "$package_root" > "$site/clstencil.pth"
"$python" -c 'import clstencil' || { echo "install.sh: $python cannot import clstencil" >&2; exit 1; }
echo "$python imports clstencil from $package_root ($site/clstencil.pth)"
