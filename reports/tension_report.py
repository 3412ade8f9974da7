"""The report's tension section and verdicts, for any game whose runs keep per-round scores of a
sample of games (`reports.tension` computes the metrics; docs/metrics.md defines them).

A game hands over, per play strength and player count, a `Sample`: the running scores
[game, round, seat], each seat's share of the win and the final scores, and says what its running
score is (a proxy where some points are hidden).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from reports.tension import NOT_PLAYED, Tension, rounds_played, tension

#: the comeback verdict looks at the last seat after this share of the game's median rounds
COMEBACK_AT = 1 / 3


class Sample(NamedTuple):
    """Sampled games of one player count: scores [game, round, seat] (`NOT_PLAYED` after a game's
    end), win [game, seat] (shares), final [game, seat] (final scores)."""

    scores: np.ndarray
    win: np.ndarray
    final: np.ndarray


def comeback_round(sample: Sample) -> int:
    """The round (0-based) after which the comeback verdict looks: a third of the median game."""
    median = float(np.median(rounds_played(sample.scores, NOT_PLAYED)))
    return max(0, math.ceil(COMEBACK_AT * median) - 1)


def measured(sample: Sample) -> Tension:
    return tension(sample.scores, sample.win, sample.final)


def comeback_verdict(sample: Sample, n_players: int):
    """Does the leader run away? The win share of the seat last after the first third of the
    game against the fair 1/n (Wilson interval at 95%): a finding when the interval excludes it."""
    from reports.verdicts import Verdict
    from reports.verdicts import pct as _pct

    k = comeback_round(sample)
    t = tension(sample.scores, sample.win, sample.final, ks=[k])
    rate, lo, hi, n = t.summary(f"comeback_{k}")
    fair = 1 / n_players
    figures = (f"the seat last after round {k + 1} (a third of the median game) wins "
               f"{_pct(rate)} [{_pct(lo)}, {_pct(hi)}] of {n:,} sampled games, against a fair "
               f"{_pct(fair)}")  # fmt: skip
    if hi < fair or lo > fair:
        word = "less" if hi < fair else "more"
        return Verdict("comebacks", n_players, True,
                       f"At {n_players} players the last seat comes back {word} often than "
                       f"fair: {figures}.", key=word,
                       short=f"last after round {k + 1}: {_pct(rate)}")  # fmt: skip
    return Verdict("comebacks", n_players, False,
                   f"At {n_players} players the data cannot tell whether the last seat comes "
                   f"back less often than fair: {figures}.")  # fmt: skip


def tension_verdicts(samples: dict[int, Sample]) -> list:
    """One play strength's tension verdicts, per player count (counts with sampled games)."""
    return [comeback_verdict(s, n) for n, s in sorted(samples.items()) if len(s.scores)]


def tension_frame(samples: dict[str, dict[int, Sample]]):
    """One row per play strength and player count: each metric's mean and 95% interval."""
    import pandas as pd

    rows = []
    for tier, by_count in samples.items():
        for n, sample in sorted(by_count.items()):
            if not len(sample.scores):
                continue
            k = comeback_round(sample)
            t = tension(sample.scores, sample.win, sample.final, ks=[k])
            row = {"strength": tier, "players": n, "games": len(sample.scores)}
            for metric, label in (("lead_changes", "lead changes"),
                                  ("decisive_point", "decisive point"),
                                  (f"comeback_{k}", "comeback"), ("margin", "margin")):  # fmt: skip
                mean, lo, hi, _ = t.summary(metric)
                row[label] = mean
                row[f"{label} lo"], row[f"{label} hi"] = lo, hi
            row["comeback round"] = k + 1
            rows.append(row)
    return pd.DataFrame(rows)


def add_tension(report, samples: dict[str, dict[int, Sample]], proxy: str) -> None:
    """The `Tension` section: the table of every metric by strength and player count, and the
    comeback rate round by round. `proxy`: what the running score is."""
    frame = tension_frame(samples)
    if frame.empty:
        return
    sec = report.section("Tension: lead changes, the decisive point, comebacks")
    sec.paragraph(
        "From the per-round scores of a sample of games (docs/metrics.md defines each metric): "
        "**lead changes** per game (rounds whose sole leader differs from the last one; ties "
        "skipped), the **decisive point** (the share of the game after which the eventual "
        "winner leads for good: low means decided early), the **comeback** rate (the win share "
        "of the seat last after the first third of the game; fair is 1/n) and the final "
        f"winning **margin**. Intervals are 95% over games. The running score is {proxy}."
    )
    shown = frame.set_index(["strength", "players"])
    for label in ("lead changes", "decisive point", "comeback", "margin"):
        shown[label] = [f"{v:.2f} [{lo:.2f}, {hi:.2f}]" for v, lo, hi in
                        zip(shown[label], shown[f"{label} lo"], shown[f"{label} hi"],
                            strict=True)]  # fmt: skip
    columns = ["games", "lead changes", "decisive point", "comeback round", "comeback", "margin"]
    sec.table(shown[columns])
    sec.figure(chart_comebacks(samples), "tension_comebacks",
               "The win share of the seat last after each round (95% Wilson intervals), by play "
               "strength; the dashed line is the fair share")  # fmt: skip


def chart_comebacks(samples: dict[str, dict[int, Sample]]):
    """The last seat's win share after each round, one panel per player count."""
    from reports.charts import error_bars, figure, legend_of_panels

    counts = sorted({n for by_count in samples.values() for n in by_count})
    fig = figure(figsize=(2.2 + 2.0 * len(counts), 2.6))
    axes = fig.subplots(1, len(counts), sharey=True, squeeze=False)[0]
    for ax, n in zip(axes, counts, strict=True):
        for i, (tier, by_count) in enumerate(samples.items()):
            sample = by_count.get(n)
            if sample is None or not len(sample.scores):
                continue
            t = measured(sample)
            ks = sorted(int(m.removeprefix("comeback_")) for m in t.per_game
                        if m.startswith("comeback_"))  # fmt: skip
            stats = np.array([t.summary(f"comeback_{k}")[:3] for k in ks])
            x = np.array(ks) + 1
            ax.errorbar(x, stats[:, 0], yerr=error_bars(*stats.T), marker="o", markersize=3,
                        capsize=2, linewidth=1, color=f"C{i}", label=tier)  # fmt: skip
        ax.axhline(1 / n, color="grey", linestyle="--", linewidth=0.8)
        ax.set_title(f"{n} players", fontsize=9)
        ax.set_xlabel("after round", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel("last seat's win share", fontsize=8)
    legend_of_panels(axes)
    return fig
