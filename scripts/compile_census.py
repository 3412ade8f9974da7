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
    first: dict[tuple[str, str], str] = {}
    again = Counter()
    for r in rows:
        key = (r[4], r[5])
        first.setdefault(key, r[0])
        if first[key] != r[0] and r[1] == "0":
            again[r[4]] += float(r[2])
    print(f"compiled again by another process (outermost): {sum(again.values()):.1f} s CPU")
    for name, cpu in again.most_common(5):
        print(f"  {cpu:6.1f} s  {name}")
    per = defaultdict(float)
    for r in top:
        per[r[0]] += float(r[2])
    print("by process (s CPU):", ", ".join(f"{v:.1f}" for v in sorted(per.values())[::-1]))
    print("the largest outermost compiles (s CPU, with the largest compile nested in each):")
    nested: dict[int, list] = {}
    by_pid = defaultdict(list)
    for i, r in enumerate(rows):
        by_pid[r[0]].append((i, r))
    for rs in by_pid.values():
        pending: list = []
        for i, r in rs:
            if r[1] == "0":
                nested[i] = pending
                pending = []
            elif r[1] == "1":
                pending.append(r)
    for i, r in sorted(((i, r) for i, r in enumerate(rows) if r[1] == "0"),
                       key=lambda ir: -float(ir[1][2]))[:15]:  # fmt: skip
        inner = max(nested.get(i, []), key=lambda x: float(x[2]), default=None)
        what = f"  <- {inner[4].rsplit('.', 1)[-1]} {inner[2]}" if inner else ""
        print(f"  {float(r[2]):6.1f}  {r[4]}{what}")


if __name__ == "__main__":
    main(sys.argv[1])
