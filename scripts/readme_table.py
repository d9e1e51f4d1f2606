#!/usr/bin/env python3
"""readme_table.py — the README's comparison table from compare_peers.py's --json output, so that
the two stay equal: prints the table, or with --check README fails when README does not hold it.
Usage: readme_table.py PEERS_JSON [--check README]
"""
import json
import sys


def ratio(peer, ours):
    times = peer / ours
    return f"{times:.0f}x" if times >= 10 else f"{times:.1f}x"


def peer_us(value, ours, decimals):
    text = f"{value:,.0f}" if value >= 1000 or decimals == 0 else f"{value:.{decimals}f}"
    return f"{text} µs ({ratio(value, ours)})"


def milliseconds(value):
    return f"{value:.0f} ms" if value >= 10 else f"{value:.2f} ms"


def table(peers):
    lines = ["| mask | border | clstencil | CuPy | OpenCV, OpenCL | OpenCV, CPU |", "|---|---|---|---|---|---|"]
    for row in peers["rows"]:
        ours = row["clstencil_kernel_us"]
        mask = row["mask"][0].upper() + row["mask"][1:] if row["mask"].startswith("gaussian") else row["mask"]
        lines.append(f"| {mask} | {row['border']} | {ours:.1f} µs | {peer_us(row['cupy_us'], ours, 1)} | "
                     f"{peer_us(row['opencv_ocl_ms'] * 1000, ours, 0)} | {milliseconds(row['opencv_ms'])} |")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--check"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as source:
        text = table(json.load(source))
    if len(sys.argv) == 2:
        sys.stdout.write(text)
        return 0
    with open(sys.argv[3], encoding="utf-8") as readme:
        if text in readme.read():
            return 0
    print(f"{sys.argv[3]} does not hold the table of {sys.argv[1]}; it should read:\n{text}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
