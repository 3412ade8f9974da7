"""How much compiled code a numba cache holds, and how much of it is a function compiled again for
another signature (docs/benchmarks.md, 2026-12-07 (17:45)): each function's overloads from its
`.nbi` index, each overload's size from its `.nbc` file.

    python scripts/compiled_signatures.py CACHE_DIR [N]   # N: the functions to list (default 10)

CACHE_DIR: a run's compile cache, e.g. `<XDG_CACHE_HOME>/abyss-mc/numba`.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path


def overloads(root: Path):
    """(function index, [(signature, bytes)]) for every cached function under `root`."""
    for index in sorted(root.rglob("*.nbi")):
        with index.open("rb") as f:
            pickle.load(f)  # numba's version stamp
            _, entries = pickle.loads(f.read())
        sizes = [(str(key[0]), (index.parent / name).stat().st_size)
                 for key, name in entries.items() if (index.parent / name).exists()]  # fmt: skip
        yield index, sizes


def main(root: str, n: int = 10) -> None:
    total = beyond = 0
    again = []
    for index, sizes in overloads(Path(root)):
        total += sum(b for _, b in sizes)
        if len(sizes) > 1:
            extra = sum(b for _, b in sizes) - max(b for _, b in sizes)
            beyond += extra
            again.append((extra, index.name, [s for s, _ in sizes]))
    print(f"{total / 1e6:.1f} MB compiled; beyond each function's first signature "
          f"{beyond / 1e6:.1f} MB, {len(again)} functions")  # fmt: skip
    for extra, name, signatures in sorted(again, reverse=True)[:n]:
        print(f"{extra:>9,} {name}")
        for signature in signatures:
            print(f"            {signature[:200]}")


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:3]))
