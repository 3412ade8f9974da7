"""The bias of the ending verdict's model on planted games where ending adds nothing (issue 49;
docs/metrics.md "How games end"): the evidence for its margin
(`reports.sections.end_conditions.MARGIN`)
and for its cells and gap classes.

The games are tests/core/test_end_conditions.py's (`ending_games`): the leader likelier to end
the game, chosen on the standing before the ending round or in turn just before its turn, at
each player count, the leader's pull `choose` 1 or 3, strategies 0 or 1 point a turn apart.
Per game: the model's mean estimate over the seeds with its standard error, the estimates'
standard deviation against the model's standard errors (root mean square), and how many seeds
find something against 0 and against the margin. `--variant` measures a model the report does
not use: `lead-and-player` (one constant per lead and one per player, not per cell of both),
`linear-gaps` (the gaps to the other seats linear, not in deciles).

    PYTHONPATH=. python scripts/trials/ending_null_bias.py [DEALS] [SEEDS] [--counts 2,3,4]
        [--variant lead-and-player|linear-gaps]
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "core"))
from test_end_conditions import ending_games  # noqa: E402

from reports import end_conditions as end  # noqa: E402


def _lead_cells(rows: pd.DataFrame):
    """`end.comparable` with cells of lead alone (the variant `lead-and-player`)."""
    cell = pd.factorize(rows["lead"])[0]
    kinds = pd.Series(rows["ended"].to_numpy()).groupby(cell).agg(["min", "max"])
    keep = np.isin(cell, kinds.index[kinds["min"] != kinds["max"]])
    return rows[keep], pd.factorize(cell[keep])[0]


def use_variant(variant: str | None) -> None:
    """Swap the model's cells or gaps for a variant's (this process only)."""
    gaps = end.gap_classes
    if variant == "lead-and-player":
        end.comparable = _lead_cells
        end.gap_classes = lambda rows: np.column_stack(
            [gaps(rows), pd.get_dummies(rows["player"], drop_first=True).to_numpy(float)])
    elif variant == "linear-gaps":
        end.gap_classes = lambda rows: rows[[c for c in rows if c.startswith("behind_")]].to_numpy(
            float)  # fmt: skip


def measure(deals: int, seeds: int, **game) -> np.ndarray:
    """[seed, (estimate, lo, hi, se)] of the model on one planted game."""
    out = []
    for seed in range(seeds):
        n = game["n"]
        sample, _, _, truth = ending_games(np.random.default_rng(seed), deals=deals, tables=n,
                                           **game)  # fmt: skip
        e = end.ending_effect(end.standings(sample, truth))
        out.append((e.estimate, e.lo, e.hi, e.se))
    return np.array(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("deals", type=int, nargs="?", default=3000)
    parser.add_argument("seeds", type=int, nargs="?", default=40)
    parser.add_argument("--counts", default="2,3,4")
    parser.add_argument("--variant", choices=["lead-and-player", "linear-gaps"], default=None)
    args = parser.parse_args()
    use_variant(args.variant)
    margin = 100 * end.MARGIN
    print(f"{args.deals:,} deals, {args.seeds} seeds a game; points of win share; margin "
          f"{margin:.1f}; model: {args.variant or 'the report'}")  # fmt: skip
    worst = -np.inf
    counts = [int(n) for n in args.counts.split(",")]
    for before_turn, n, choose, step in itertools.product((False, True), counts, (1.0, 3.0),
                                                          (0.0, 1.0)):  # fmt: skip
        a = measure(args.deals, args.seeds, n=n, choose=choose, step=step,
                    before_turn=before_turn) * 100  # fmt: skip
        bias, se = a[:, 0].mean(), a[:, 0].std(ddof=1) / np.sqrt(len(a))
        worst = max(worst, abs(bias) + 2 * se)
        at_0 = int((a[:, 1] > 0).sum() + (a[:, 2] < 0).sum())
        at_margin = int((a[:, 1] > margin).sum() + (a[:, 2] < -margin).sum())
        on = "just before its turn" if before_turn else "before the round"
        sd, model_se = a[:, 0].std(ddof=1), np.sqrt((a[:, 3] ** 2).mean())
        print(f"{on:>20}, {n} players, choose {choose:g}, step {step:g}: bias {bias:+.2f} ± "
              f"{se:.2f}; sd {sd:.2f}, model's se {model_se:.2f}; findings against 0 {at_0}, "
              f"against the margin {at_margin} of {args.seeds}", flush=True)  # fmt: skip
    print(f"largest |bias| + 2 standard errors: {worst:.2f} points")


if __name__ == "__main__":
    main()
