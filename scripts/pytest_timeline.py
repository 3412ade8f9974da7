"""Where a test run's time goes, worker by worker (docs/benchmarks.md): a pytest plugin that
writes one line per test (its id, start and end, and the CPU seconds of its process and of the
children it reaped) to `$TIMELINE_DIR/timeline_<worker>.jsonl`, and a summary of those files.

    TIMELINE_DIR=/tmp/tl PYTHONPATH=.:scripts python -m pytest -m "not slow" -p pytest_timeline
    python scripts/pytest_timeline.py /tmp/tl [/tmp/tl_other]   # the summary; with a second run,
                                                                # the tests that differ most

A test whose wall time is far above its CPU waited: for a lock (a kernel another process
compiles), a signal, or children not yet reaped (a chart pool's or Dask's CPU is not counted).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

_out = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _out
    if _out is None:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _out = open(Path(os.environ.get("TIMELINE_DIR", ".")) / f"timeline_{worker}.jsonl", "a")
    t0, c0 = time.time(), os.times()
    yield
    c1 = os.times()
    _out.write(json.dumps({
        "id": item.nodeid, "t0": t0, "t1": time.time(),
        "cpu": c1.user + c1.system - c0.user - c0.system,
        "children": c1.children_user + c1.children_system - c0.children_user
        - c0.children_system,
    }) + "\n")  # fmt: skip
    _out.flush()


def load(folder: str) -> list[dict]:
    rows = []
    for path in Path(folder).glob("timeline_*.jsonl"):
        worker = path.stem.removeprefix("timeline_")
        rows += [dict(json.loads(line), worker=worker) for line in path.open()]
    start = min(r["t0"] for r in rows)
    for r in rows:
        r["start"], r["wall"] = r["t0"] - start, r["t1"] - r["t0"]
    return rows


def summary(rows: list[dict]) -> None:
    for worker in sorted({r["worker"] for r in rows}):
        mine = [r for r in rows if r["worker"] == worker]
        end = max(r["start"] + r["wall"] for r in mine)
        print(f"{worker}: {len(mine)} tests, last ends at {end:.0f} s, "
              f"wall {sum(r['wall'] for r in mine):.0f} s, CPU {sum(r['cpu'] for r in mine):.0f} s "
              f"(+ {sum(r['children'] for r in mine):.0f} s reaped children)")  # fmt: skip
    print("slowest:")
    for r in sorted(rows, key=lambda r: -r["wall"])[:15]:
        print(f"  {r['worker']} at {r['start']:4.0f} s: {r['wall']:5.1f} s wall, "
              f"{r['cpu']:5.1f} s CPU  {r['id']}")


def differences(rows: list[dict], other: list[dict]) -> None:
    theirs = {r["id"]: r for r in other}
    diff = sorted(((r["wall"] - theirs[r["id"]]["wall"], r) for r in rows if r["id"] in theirs),
                  key=lambda d: -abs(d[0]))  # fmt: skip
    print(f"wall, first run minus second: {sum(d for d, _ in diff):+.0f} s in all; the most:")
    for d, r in diff[:15]:
        print(f"  {d:+6.1f} s  {r['id']}")


if __name__ == "__main__":
    runs = [load(folder) for folder in sys.argv[1:]]
    summary(runs[0])
    if len(runs) > 1:
        differences(*runs[:2])
