"""How many restricted games are identical to the unrestricted one (the same deal and seating)?

PYTHONPATH=. python scripts/card_values_identical.py leviathan_hunter 40 (issue 54: 89% were;
`reports.probe` now plays only the others)."""

import sys

import numpy as np

from reports import restrict as R
from reports import tune
from reports.tune import AgainstField, Problem
from sim import games

strategy, n, blocks = sys.argv[1], 4, int(sys.argv[2])
spec = games.get("abyss")
tables = spec.load_cards(None, [], ("leviathan",))
cardlist = spec.report().restrictions(tables)
specs = R.restricted_specs(strategy, cardlist)
got = {}


def part(self, first, k, seatings, seats, cols, aggregates):
    got.setdefault("keys", (list(seats), list(cols)))
    p, q = self.n_players, len(self.specs)
    fp = np.stack([np.asarray(seats[c], dtype=np.float64).reshape(q, k, p, p)
                   for c in seats if c != "strategy"], -1)  # fmt: skip
    got.setdefault("fp", []).append(fp)
    return np.zeros((q, k))


AgainstField.part = part
problem = Problem("abyss", tables, n, strategy, "", {}, {}, [strategy] * (n - 1), 5050,
                  spec.strategies())  # fmt: skip
tune.evaluate(problem, specs, seed=5050, n_blocks=blocks)
print(got["keys"])
fp = np.concatenate(got["fp"], axis=1)  # q, blocks, p(rotations), p(seats), fields
same = np.all(fp == fp[:1], axis=(3, 4))  # q, blocks, rotations: the whole table identical
print("share of restricted tables identical to the unrestricted one:", same[1:].mean().round(3))
per = same[1:].mean(axis=(1, 2))
for i in np.argsort(per):
    print(f"{per[i]:.2f} {cardlist[i][:2]}")
