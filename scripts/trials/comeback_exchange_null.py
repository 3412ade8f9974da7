"""Issue 49 suggested testing comebacks against "the same game with each seat's per-round gains
exchanged across rounds". Measured here on the planted games of tests/core/test_tension_report.py
(`race`): that null reads a catch-up game as "snowballs" and snowball games as "catches up", so
the report tests the lead's growth instead (`reports.metrics.tension.lead_growth`;
docs/decisions.md,
"Comebacks: the lead's growth, not exchanged rounds").

Why: a seat's gains are exchanged with its total kept, so a seat whose exchanged early rounds are
low has high rounds left: the null itself comes back, more than a game without a mechanism.

    PYTHONPATH=. python scripts/trials/comeback_exchange_null.py [SEEDS]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "core"))
from test_tension_report import race  # noqa: E402

from reports.metrics.tension import comeback, lead_growth  # noqa: E402

K, PERMUTATIONS = 3, 20  # the seat last after round 4 of 12 (a third of the game)


def exchanged(sample, rng) -> np.ndarray:
    """Per game: the last seat's observed win share minus its mean over the exchanges."""
    gains = np.diff(sample.scores, axis=1, prepend=0)
    observed = comeback(sample.scores, sample.win, K)
    null = np.zeros(len(gains))
    for _ in range(PERMUTATIONS):
        order = np.argsort(rng.random(gains.shape), axis=1)  # each (game, seat) on its own
        null += comeback(np.cumsum(np.take_along_axis(gains, order, axis=1), axis=1),
                         sample.win, K) / PERMUTATIONS
    return observed - null


def verdict(d: np.ndarray, deal: np.ndarray) -> str:
    from scipy import stats

    per_deal = np.bincount(deal, d) / np.bincount(deal)
    lo, hi = stats.t.interval(0.95, len(per_deal) - 1, per_deal.mean(), stats.sem(per_deal))
    return "snowballs" if hi < 0 else "catches up" if lo > 0 else "cannot tell"


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    print(f"{'planted game':<44} {'exchanged rounds':<36} lead growth")
    for mechanism, push, name in ((None, 0, "no mechanism"),
                                  ("catch-up", 2.0, "catch-up (the last seat +2 a round)"),
                                  ("leader", 1.0, "snowball (the sole leader +1 a round)"),
                                  ("compound", 0.1, "snowball (gains grow with the lead)")):
        exch, growth = Counter(), Counter()
        for s in range(seeds):
            rng = np.random.default_rng(s)
            x = race(rng, mechanism, push)
            exch[verdict(exchanged(x, rng), x.deal)] += 1
            g = lead_growth(x.scores, x.final, K, x.seating, x.deal)
            growth["snowballs" if g.lo > 0 else "catches up" if g.hi < 0 else "cannot tell"] += 1
        print(f"{name:<44} {str(dict(exch)):<36} {dict(growth)}")


if __name__ == "__main__":
    main()
