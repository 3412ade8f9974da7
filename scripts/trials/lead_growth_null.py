"""How often the snowball-or-catch-up verdict finds something where the planted games of
tests/core/test_tension_report.py (`race`) have no mechanism, and how often it finds the
mechanisms (issue 49's audit of `reports.metrics.tension.lead_growth`; docs/metrics.md, "Lead
growth").
Each case prints the verdicts' counts over its seeds (seed s for s in range(SEEDS)): without a
mechanism a 5% test should find something in about 5% of them.

    PYTHONPATH=. python scripts/trials/lead_growth_null.py [SEEDS] [CASE ...]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "core"))
from test_tension_report import race  # noqa: E402

from reports.sections.tension import comeback_verdict  # noqa: E402

#: name -> the planted game (`race`'s arguments); 3 players, 3 tables a deal unless said
CASES = {
    "no mechanism, 150 deals": {},
    "no mechanism, 40 deals": {"deals": 40},
    "no mechanism, 20 deals": {"deals": 20},
    "no mechanism, 20 deals of 6 tables": {"deals": 20, "tables": 6},
    "a deal's steady seat advantage (sd 0.5 a round)": {"advantage": 0.5},
    "points held back, left out of the running score": {"hidden": 0.6},
    "points held back, counted in the running score": {"hidden": 0.6, "counted": True},
    "no mechanism, 450 deals of one table": {"deals": 450, "tables": 1},
    "a deal's seat advantage, 450 deals of one table": {
        "deals": 450,
        "tables": 1,
        "advantage": 0.5,
    },
    "catch-up (the last seat +2 a round)": {"mechanism": "catch-up", "push": 2.0},
    "snowball (the sole leader +1 a round)": {"mechanism": "leader", "push": 1.0},
    "snowball (gains grow with the lead)": {"mechanism": "compound", "push": 0.1},
}


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    names = sys.argv[2:] or list(CASES)
    for name in names:
        found = Counter(v.key if v.finding else "cannot tell" for v in
                        (comeback_verdict(race(np.random.default_rng(s), **CASES[name]), 3)
                         for s in range(seeds)))  # fmt: skip
        print(f"{name:<52} {dict(found)}", flush=True)


if __name__ == "__main__":
    main()
