#!/usr/bin/env python3
"""file_circles.py — inside each module, the files depend one way: no circle of more than two
files (file A uses a symbol that file B defines, B one of C's, ..., back to A), read from the
object files' symbols (nm), so that an emitter's helpers or a filter's works never reach back into
the file that calls them. Prints each larger circle with the symbols that tie it.

Usage: file_circles.py CMAKE_FILES_DIR TOOLS_OBJECT_DIR
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

MODULES = ["core", "generator", "device_db", "plan", "host"]
LARGEST = 2


def symbols(objects: list[Path]) -> dict[Path, tuple[set[str], set[str]]]:
    """For each object, the global symbols it defines and the ones it uses (one nm for all)."""
    table = {o: (set(), set()) for o in objects}
    if not objects:
        return table
    out = subprocess.run(["nm", "-A", *map(str, objects)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        name, _, rest = line.partition(".o:")  # nm -A: "FILE.o:ADDRESS TYPE SYMBOL"
        name += ".o"
        parts = rest.split()
        defined, used = table[Path(name)]
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCGSV":
            defined.add(parts[2])
    return table


def circles(objects: list[Path]) -> list[tuple[list[str], list[str]]]:
    """The strongly connected sets of more than LARGEST files, each with its ties."""
    names = {o: o.name.removesuffix(".o") for o in objects}
    table = symbols(objects)
    owner = {s: o for o, (defined, _) in table.items() for s in defined}
    edges = {o: {} for o in objects}
    for o, (_, used) in table.items():
        for s in used:
            if s in owner and owner[s] != o:
                edges[o].setdefault(owner[s], []).append(s)
    # Tarjan's strongly connected components
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(v: Path) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > LARGEST:
                ties = [f"{names[a]} -> {names[b]}: {', '.join(sorted(edges[a][b])[:4])}"
                        for a in component for b in edges[a] if b in component]
                found.append((sorted(names[c] for c in component), ties))

    sys.setrecursionlimit(10000)
    for v in objects:
        if v not in index:
            visit(v)
    return found


def main() -> int:
    cmake_files, tools = Path(sys.argv[1]), Path(sys.argv[2])
    groups = {m: sorted((cmake_files / f"clstencil_{m}.dir").rglob("*.o")) for m in MODULES}
    groups["tools"] = sorted(p for p in tools.glob("*.o"))
    failed = False
    for module, objects in groups.items():
        for files, ties in circles(objects):
            failed = True
            print(f"{module}: a circle of {len(files)} files: {', '.join(files)}")
            for tie in ties:
                print(f"  {tie}")
    if not failed:
        print(f"no circle of more than {LARGEST} files in {', '.join(groups)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
