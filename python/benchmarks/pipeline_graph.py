#!/usr/bin/env python3
"""pipeline_graph.py — an unsharp mask, input + AMOUNT * (input - gaussian(input)), as one pipeline
graph (a blur stage and an element-wise stage, the blur kept on the device) against three
separate runs that each go from the host to the device and back (the blur, the difference, the
weighted sum), and against the blur run once with the arithmetic in numpy; beside the bare
transfer of the same bytes to the device and back. Medians of wall times after warm-up, all
from and to numpy arrays in pinned memory (clstencil.pinned_empty), the same results checked.

    /usr/bin/python3 python/benchmarks/pipeline_graph.py --size 4096 --runs 20
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import clstencil  # noqa: E402
from overhead import bare_transfer, median_seconds  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=4096, help="image side in pixels (default 4096)")
    parser.add_argument("--blur", default="gaussian:5", help="the blur (default gaussian:5)")
    parser.add_argument("--amount", type=float, default=1.5)
    parser.add_argument("--border", default="mirror")
    parser.add_argument("--device", default=None, help="selector; default CLSTENCIL_DEVICE or the default device")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--json", help="also write the numbers to this file")
    args = parser.parse_args()

    shape = (args.size, args.size)
    pinned = lambda: clstencil.pinned_empty(shape, np.float32, args.device)
    image, blurred, difference, sharp, reference = (pinned() for _ in range(5))
    image[...] = np.random.default_rng(0).random(shape, dtype=np.float32)
    options = dict(border=args.border, device=args.device, build="fastest-kernel")
    graph = clstencil.Pipeline(**options)
    graph.add(args.blur, name="blur", source="input")
    graph.add_elementwise("sharp", f"input + {args.amount!r}f * (input - blur)")
    subtract = clstencil.Pipeline(inputs=("a", "b"), **options).add_elementwise("d", "a - b")
    weigh = clstencil.Pipeline(inputs=("a", "d"), **options).add_elementwise("s", f"a + {args.amount!r}f * d")

    def one_graph() -> None:
        graph.run(image, out=sharp)

    def three_runs() -> None:
        clstencil.filter(image, args.blur, args.border, device=args.device, out=blurred, build="fastest-kernel")
        subtract.run(image, blurred, out=difference)
        weigh.run(image, difference, out=reference)

    def blur_and_numpy() -> None:
        clstencil.filter(image, args.blur, args.border, device=args.device, out=blurred, build="fastest-kernel")
        np.add(image, args.amount * (image - blurred), out=reference)

    one_graph()
    three_runs()
    np.testing.assert_allclose(sharp, reference, atol=1e-5)
    transfer = bare_transfer(args.device, image, sharp)
    results = {"size": args.size, "blur": args.blur, "amount": args.amount, "border": args.border,
               "runs": args.runs, "device": args.device or "default",
               "bare_transfer_ms": 1e3 * median_seconds(transfer, args.runs, args.warmup),
               "graph_ms": 1e3 * median_seconds(one_graph, args.runs, args.warmup),
               "three_runs_ms": 1e3 * median_seconds(three_runs, args.runs, args.warmup),
               "blur_and_numpy_ms": 1e3 * median_seconds(blur_and_numpy, args.runs, args.warmup)}
    results["three_runs_over_graph"] = results["three_runs_ms"] / results["graph_ms"]
    results["graph_over_transfer"] = results["graph_ms"] / results["bare_transfer_ms"]
    for key, value in results.items():
        print(f"{key:24} {value:.3f}" if isinstance(value, float) else f"{key:24} {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
