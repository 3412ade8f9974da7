"""Which charts a test run draws, and how often the same PNG again (docs/benchmarks.md): a pytest
plugin that wraps `reports.render.report.render_png` (also in the chart pool's forked workers)
and writes one line per chart drawn (its title or axis labels, the PNG's digest, the CPU seconds
of its drawing) to `$CHART_CENSUS`, and a summary of that file.

    CHART_CENSUS=/tmp/charts.jsonl PYTHONPATH=.:scripts python -m pytest -p chart_census FILES
    python scripts/chart_census.py /tmp/charts.jsonl       # the summary
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections import defaultdict


def pytest_configure(config) -> None:
    from reports.render import report

    drawn = report.render_png

    def census(fig):
        axes = "|".join(a.get_title() or a.get_ylabel() for a in fig.axes)
        label = (fig._suptitle.get_text() if fig._suptitle else "") or axes
        t0 = time.process_time()
        png = drawn(fig)
        with open(os.environ["CHART_CENSUS"], "a") as out:
            out.write(json.dumps({"label": label[:70], "cpu": time.process_time() - t0,
                                  "png": hashlib.sha256(png).hexdigest()[:16]}) + "\n")
        return png

    report.render_png = census


def main(path: str) -> None:
    rows = [json.loads(line) for line in open(path)]
    seen: set[str] = set()
    again = 0.0
    by_label: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        again += r["cpu"] if r["png"] in seen else 0.0
        seen.add(r["png"])
        by_label[r["label"]].append(r)
    print(f"{len(rows)} charts drawn, {sum(r['cpu'] for r in rows):.1f} s CPU; {len(seen)} "
          f"different PNGs; {again:.1f} s CPU drew a PNG drawn before")
    for label, rs in sorted(by_label.items(), key=lambda kv: -sum(r["cpu"] for r in kv[1]))[:15]:
        print(f"  {sum(r['cpu'] for r in rs):5.1f} s  {len(rs):3d} drawn  "
              f"{len({r['png'] for r in rs}):3d} different  {label!r}")


if __name__ == "__main__":
    main(sys.argv[1])
