"""Issue 49's audit: the most valuable card is told apart from each other card by the standard
error of their difference. Two cards' values are measured on the same deals, so that error is
the two standard errors in quadrature only when the values are uncorrelated deal by deal, and
conservative only when they are positively correlated. Measured here on real restricted play
(Abyss with Leviathan, 4 players): the correlation of every pair of cards' values per deal
(unrestricted minus restricted win share), and, for the top card, the standard error of its
difference from each other card paired by deal against the two in quadrature. Why the impact
frame stores `se_top` (`reports.restrict.se_against_top`; docs/restricted-play.md).

    PYTHONPATH=. python scripts/trials/card_value_correlation.py [STRATEGY] [DEALS] [SEED]
"""

from __future__ import annotations

import sys

import numpy as np


def main(strategy: str = "leviathan_hunter", deals: int = 300, seed: int = 1) -> None:
    from cli.commands.common import field_setup
    from reports import restrict as R
    from reports.tune import Problem

    o = {"game": "abyss", "expansions": None, "players": 4, "seed": seed}
    spec, registry, _, tables = field_setup(o, None, [], None)
    cards = spec.report().restrictions(tables)
    problem = Problem(spec.name, tables, 4, strategy, "", {}, {}, [strategy] * 3, seed, registry)
    shares = R.play_restricted(problem, cards, blocks=deals, seed=seed)
    d = shares[0] - shares[1:]
    taken = [i for i, c in enumerate(cards) if c[0] != "rule" and d[i].any()]
    r = np.corrcoef(d[taken])[np.triu_indices(len(taken), 1)]
    print(f"{strategy}, {len(taken)} cards taken, {deals} deals, seed {seed}: correlation of two "
          f"cards' values per deal: median {np.median(r):+.3f}, 5% to 95% "
          f"{np.quantile(r, 0.05):+.3f} to {np.quantile(r, 0.95):+.3f}, lowest {r.min():+.3f}; "
          f"{np.mean(r < 0):.0%} of pairs negative")  # fmt: skip
    top = [c[1] for c in cards].index(R.impact_frame(cards, shares, 4).query(
        "kind != 'rule' and finding != @R.NEVER")["card"].iloc[0])  # fmt: skip
    ratio = np.array([(d[top] - d[j]).std(ddof=1) / np.hypot(d[top].std(ddof=1),
                                                           d[j].std(ddof=1))
                      for j in taken if j != top])  # fmt: skip
    print(f"top card {cards[top][1]}: its difference's standard error paired by deal over the "
          f"two in quadrature, {len(ratio)} other cards: median {np.median(ratio):.3f}, "
          f"{ratio.min():.3f} to {ratio.max():.3f}")  # fmt: skip


if __name__ == "__main__":
    args = sys.argv[1:]
    main(*(args[:1]), *(int(x) for x in args[1:3]))
