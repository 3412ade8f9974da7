"""The report's "Drama and decisiveness" section (`reports.metrics.drama` measures them, from the
rollouts `abyss-mc drama` keeps): a table and a chart per play strength and player count, and
what the figures say."""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.metrics.drama import METRICS, Measured, load, summary


def _cell(s: dict, m: str) -> str:
    return f"{s[m]:.2f} [{s[f'{m}_lo']:.2f}, {s[f'{m}_hi']:.2f}]"


def frame(by_tier: dict[str, dict[int, Measured]]) -> pd.DataFrame:
    """One row per play strength and player count: games, deals, then each metric `mean [lo,
    hi]`, decisiveness's floor and decisiveness minus it."""
    rows = []
    for tier, by_count in by_tier.items():
        for n, measured in sorted(by_count.items()):
            s = summary(measured)
            rows.append({"strength": tier, "players": n, "games": s["games"], "deals": s["deals"],
                         "drama": _cell(s, "drama"), "peak drama": _cell(s, "drama_peak"),
                         "decisiveness": _cell(s, "decisiveness"),
                         "floor": f"{s['decisiveness_floor']:.2f}",
                         "minus floor": _cell(s, "below_floor")})  # fmt: skip
    return pd.DataFrame(rows)


def chart(by_tier: dict[str, dict[int, Measured]]):
    """Drama, peak drama and decisiveness (mean and 95% interval over deals) by player count,
    one line per play strength; the floor each reads at equal chances dashed (0 for drama)."""
    from reports.render.charts import error_bars, figure, legend_of_panels

    fig = figure(figsize=(8.0, 2.6))
    axes = fig.subplots(1, len(METRICS), squeeze=False)[0]
    titles = {"drama": "drama (at least)", "drama_peak": "peak drama (at least)",
              "decisiveness": "decisiveness"}  # fmt: skip
    for i, (tier, by_count) in enumerate(by_tier.items()):
        counts = sorted(by_count)
        stats = [summary(by_count[n]) for n in counts]
        x = np.array(counts) + 0.08 * (i - 1)
        for ax, m in zip(axes, METRICS, strict=True):
            y = np.array([[s[m], s[f"{m}_lo"], s[f"{m}_hi"]] for s in stats])
            ax.errorbar(x, y[:, 0], yerr=error_bars(*y.T), marker="o", markersize=3, capsize=2,
                        linewidth=1, color=f"C{i}", label=tier)  # fmt: skip
        axes[-1].plot(x, [s["decisiveness_floor"] for s in stats], linestyle="--",
                      linewidth=1, color=f"C{i}")  # fmt: skip
    for ax, m in zip(axes, METRICS, strict=True):
        ax.set_title(titles[m], fontsize=9)
        ax.set_xlabel("players", fontsize=8)
        ax.tick_params(labelsize=7)
        if m != "decisiveness":
            ax.axhline(0, color="grey", linewidth=0.8, linestyle="--")
    axes[-1].set_ylim(0, 1.0)
    axes[-1].plot([], [], linestyle="--", color="grey", linewidth=1, label="equal chances")
    axes[0].set_ylabel("per game", fontsize=8)
    legend_of_panels(axes)
    return fig


SECTION_TEXT = (
    "Each seat's chance to win was estimated before every round by rollouts from the position "
    "(what no player can see redealt; the seats' own strategies to the end), the rollouts kept in"
    " {folds} folds. **Drama**: the favourite's chance minus the eventual winner's, averaged over"
    " the rounds (0: the winner was always the favourite); its **peak**: the largest. The "
    "favourite (and the peak round) is picked on the other folds and both chances read on the "
    "fold left out, so a game in which every seat's chance is equal all game reads 0: its floor "
    "is 0, and an interval above 0 is drama beyond the rollouts' noise; otherwise both read at "
    "most the true value (at least this much drama). **Decisiveness**: the share of the game "
    "played before the winner's chance first exceeds the best any loser ever had (low: decided "
    "early), on all the rollouts. Noise alone makes it read below 1 (its true value when every "
    "chance is equal): the **floor** column is what a game of the same rounds, players and "
    "winners reads then at the same rollouts; decisiveness minus its floor below 0 is a game "
    "decided before its end by more than the noise. Intervals: t at 95% over deals (the tables of"
    " one deal averaged first). docs/metrics.md defines them after Ludii's.")


def readings(by_tier: dict[str, dict[int, Measured]]) -> str:
    """What the table shows against the floors, row by row (a strength at a player count)."""
    from reports.sections.verdicts import the

    rows = [summary(m) for by_count in by_tier.values() for m in by_count.values()]
    above = sum(s["drama_lo"] > 0 for s in rows)
    peak = sum(s["drama_peak_lo"] > 0 for s in rows)
    below = sum(s["below_floor_hi"] < 0 for s in rows)
    return (f"Of {the(len(rows), 'row')} (a play strength at a player count), drama's interval is "
            f"above its floor of 0 in {above}, peak drama's in {peak}: there the eventual winner "
            "was not always the favourite, by more than the rollouts' noise, and the true values "
            "are at least the readings. Decisiveness is below its floor (minus floor's interval "
            f"under 0) in {below}: decided before the end by more than the noise. The rows are "
            "not compared with one another: no difference between them is tested, and two lower "
            "bounds say nothing of the true drama's order.")


def add_section(report, dirs: dict) -> None:
    """`Drama and decisiveness with an oracle`, when `abyss-mc drama` measured them in the run
    directories `dirs` ({strength: directory})."""
    found, stale = load(dirs)
    if not found and not stale:
        return
    sec = report.section("Drama and decisiveness with an oracle")
    if found:
        sec.figure(chart(found), "drama", "Drama and peak drama (cross-fitted: 0 at equal "
                   "chances) and decisiveness with its floor at equal chances (dashed), per "
                   "game (95% t intervals over deals), by player count and play strength")
        sec.table(frame(found).set_index(["strength", "players"]),
                  caption="Per game, mean [95% t interval over deals] over the sampled games")
        folds = next(iter(next(iter(found.values())).values())).values.shape[2]
        sec.paragraph(readings(found))
        sec.paragraph(SECTION_TEXT.format(folds=folds))
    if stale:
        sec.paragraph("Measured before the oracle kept its rollouts in folds, so not shown (its "
                      "drama would be a maximum over noise): " + ", ".join(
                          f"{p.parent.name}/{p.name}" for p in stale)
                      + "; measure again with `abyss-mc drama`.")  # fmt: skip
