"""The report's section "Who beats whom, head to head" (`reports.metrics.cycles`): for each play
strength
and player count of a tournament, the head-to-head advantage of every strategy over every other
in the games both play, the significant edges, the cycles among them and the alpha-rank order.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.metrics import cycles as Y


def rankings(seats: pd.DataFrame) -> dict[int, tuple[Y.PayoffTable, Y.Ranking]]:
    """Per player count of a tournament's long-form seats, its head-to-head table and ranking
    (counts with fewer than three strategies left out: no cycle is possible)."""
    out = {}
    for n, part in seats.groupby("n_players", sort=True):
        if part["strategy"].nunique() >= 3:
            table = Y.head_to_head(part, int(n))
            out[int(n)] = (table, Y.rank_strategies(table))
    return out


def chart(table: Y.PayoffTable, ranking: Y.Ranking, title: str):
    """The head-to-head advantage d[i, j] (rows ahead of columns, in points), in alpha-rank order,
    significant cells marked."""
    from reports.render.charts import figure, heatmap

    order = [table.names.index(x) for x in ranking.order]
    d = 100 * (table.share - table.share.T)[np.ix_(order, order)]
    np.fill_diagonal(d, np.nan)
    edges = {(e.winner, e.loser) for e in ranking.beats}
    names = ranking.order
    text = [[("" if i == j else f"{d[i, j]:+.0f}" + ("*" if (names[i], names[j]) in edges
             else "")) for j in range(len(names))] for i in range(len(names))]  # fmt: skip
    k = len(names)
    fig = figure(figsize=(1.6 + 0.55 * k, 0.9 + 0.4 * k))
    ax = fig.add_subplot()
    span = max(1.0, float(np.nanmax(np.abs(d))) if k > 1 else 1.0)
    heatmap(ax, d, names, names, text, cmap="RdBu", vmin=-span, vmax=span, fontsize=7)
    ax.set_title(title, fontsize=9)
    return fig


def add_section(report, tiers: dict[str, pd.DataFrame]) -> None:
    """`tiers`: play strength -> its tournament's seats (block, table, n_players, strategy,
    win)."""
    found = {t: rankings(s) for t, s in tiers.items() if {"block", "table"} <= set(s.columns)}
    found = {t: r for t, r in found.items() if r}
    if not found:
        return
    sec = report.section("Who beats whom, head to head")
    sec.paragraph(
        "Each strategy's win share minus another's in the games both played (the block, one "
        "deal, is the unit; docs/metrics.md). Overall win rates cannot be cyclic; head to head "
        "they can: A ahead of B, B of C, C of A. A cell marked * is significant after Holm's "
        "correction over every pair; the order is alpha-rank's (Omidshafiei et al. 2019), "
        "whose mass is shared among the members of a cycle."
    )
    rows = []
    for tier, by_count in found.items():
        for n, (_, ranking) in by_count.items():
            cycles = "; ".join(" > ".join(Y.ring(c)) for c in ranking.cycles) or "none"
            rows.append({"strength": tier, "players": n, "verdict": ranking.verdict(),
                         "cycles": cycles, "alpha-rank order": ", ".join(ranking.order[:5])})
    sec.table(pd.DataFrame(rows).set_index(["strength", "players"]))
    tier, by_count = next(iter(found.items()))  # the charts of the report's own strength
    for n, (table, ranking) in by_count.items():
        sec.figure(chart(table, ranking, f"{tier}, {n} players"), f"head_to_head_{n}p",
                   f"{tier.capitalize()} at {n} players: row minus column, points of win share "
                   "(* significant)")  # fmt: skip

