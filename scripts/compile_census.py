"""What a run compiles, and whether two processes compiled the same function (docs/benchmarks.md):
the summary of a `COMPILE_CENSUS` file written by `scripts/census_site/sitecustomize.py`.

    COMPILE_CENSUS=/tmp/compiles.tsv XDG_CACHE_HOME=$(mktemp -d) \
        PYTHONPATH=scripts/census_site:.:scripts python -m pytest -m "not slow" -n 2
    python scripts/compile_census.py /tmp/compiles.tsv
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict


def main(path: str) -> None:
    rows = [line.rstrip("\n").split("\t") for line in open(path)]
    rows = [r for r in rows if len(r) == 6]
    top = [r for r in rows if r[1] == "0"]  # (a nested compile's time is in its parent's)
    print(f"{len(rows)} compiles in {len({r[0] for r in rows})} processes; the outermost "
          f"{len(top)}: {sum(float(r[2]) for r in top):.1f} s CPU, "
          f"{sum(float(r[3]) for r in top):.1f} s wall")
    again = _compiled_again(rows)
    print(f"compiled again by another process: {sum(again.values()):.1f} s CPU (at any depth; "
          "a repeat inside a repeat counted once)")
    for name, cpu in again.most_common(5):
        print(f"  {cpu:6.1f} s  {name}")
    per = defaultdict(float)
    for r in top:
        per[r[0]] += float(r[2])
    print("by process (s CPU):", ", ".join(f"{v:.1f}" for v in sorted(per.values())[::-1]))
    print("the largest outermost compiles (s CPU, with the largest compile nested in each):")
    nested: dict[int, list] = defaultdict(list)
    for child, parent in _parents(rows).items():
        nested[parent].append(rows[child])
    for i, r in sorted(((i, r) for i, r in enumerate(rows) if r[1] == "0"),
                       key=lambda ir: -float(ir[1][2]))[:15]:  # fmt: skip
        inner = max(nested.get(i, []), key=lambda x: float(x[2]), default=None)
        what = f"  <- {inner[4].rsplit('.', 1)[-1]} {inner[2]}" if inner else ""
        print(f"  {float(r[2]):6.1f}  {r[4]}{what}")


def _compiled_again(rows: list[list[str]]) -> Counter:
    """The CPU of compiles of a function (and argument types) that another process had compiled
    first, by function; a repeat nested in a repeat is in its parent's time, so not counted."""
    first: dict[tuple[str, str], str] = {}
    repeat = [first.setdefault((r[4], r[5]), r[0]) != r[0] for r in rows]
    parent = _parents(rows)
    again = Counter()
    for i, r in enumerate(rows):
        j, inside = parent.get(i), False
        while j is not None and not inside:
            inside, j = repeat[j], parent.get(j)
        if repeat[i] and not inside:
            again[r[4]] += float(r[2])
    return again


def _parents(rows: list[list[str]]) -> dict[int, int]:
    """The row of the compile that started each nested one, by row: a compile ends (and is
    written) before the one that started it, so its parent is the next row of its process one
    level out."""
    parent: dict[int, int] = {}
    waiting: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        stack = waiting[r[0]]
        while stack and int(rows[stack[-1]][1]) > int(r[1]):
            parent[stack.pop()] = i
        stack.append(i)
    return parent


if __name__ == "__main__":
    main(sys.argv[1])
