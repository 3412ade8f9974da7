"""The report's tension section and verdicts, for any game whose runs keep per-round scores of a
sample of games (`reports.metrics.tension` computes the metrics; docs/metrics.md defines them).

A game hands over, per play strength and player count, a `Sample`: the running scores
[game, round, seat], each seat's share of the win, the final scores, each game's deal (a
tournament plays every deal at several tables: the deal is the unit of every interval) and
each seat's strategy, and says what its running score is (a proxy where some points are
hidden).
"""

from __future__ import annotations

import math

import numpy as np

from reports.metrics.tension import (
    NOT_PLAYED,
    Sample,
    comeback_round,
    growth,
    measured,
    rounds_played,
)

#: the verdict's question (its row in the verdict table, per player count)
TOPIC = "snowball or catch-up"
#: the quantity the verdict rests on (`reports.sections.verdicts.Effect`): points of later gain per
#: point of lead, comparable across play strengths; where the deals' constants could not be
#: absorbed (one table per deal) another quantity, so the two are never pooled or compared
EFFECT = "later gain per point of early lead"
EFFECT_UNABSORBED = "later gain per point of early lead, the deals' constants not absorbed"
#: what the lead's growth is measured against, in the verdicts' and the section's words: the
#: same deal at its other tables, and, where every deal was played at one table, seats of the
#: same strategy in the same seat only (`reports.metrics.tension.lead_growth`)
NULL = (
    "the same deal's other tables (a constant per deal and seat, per deal and strategy, "
    "and per strategy and seat), as in a game whose gains do not depend on the standing"
)
NULL_UNABSORBED = (
    "seats of the same strategy in the same seat, as in a game whose gains do not depend on "
    "the standing; each deal was played at one table, so its constants could not be "
    "absorbed, and a deal that favours one seat all game also reads as a snowball"
)


def _no_test(g, k: int) -> str:
    """Why a lead growth could not be tested (its estimate NaN)."""
    if g.one_deal:
        return (f"all the lead left after round {k + 1} is in one deal (the deal jackknife "
                "needs it in two) to test")  # fmt: skip
    return f"no lead after round {k + 1} was left to test"


def comeback_verdict(sample: Sample, n_players: int):
    """Does the leader snowball, or the last seat catch up? The later gain per point of lead
    after the first third of the game (`reports.metrics.tension.lead_growth`), 95% t interval over
    deals: a finding when it excludes 0 ("snowballs" above, "catches up" below)."""
    from reports.sections.verdicts import Effect, Verdict
    from reports.sections.verdicts import pct as _pct

    k = comeback_round(sample)
    g = growth(sample, k)
    last = measured(sample, ks=[k]).clustered(f"comeback_{k}").mean
    behind = (f"The seat last after round {k + 1} wins {_pct(last)}; it is behind, so 1/n is "
              "no null for it")  # fmt: skip
    if math.isnan(g.estimate):
        return Verdict(TOPIC, n_players, False,
                       f"At {n_players} players the data cannot tell whether early leads grow "
                       f"or shrink: {_no_test(g, k)} against "
                       f"{NULL if g.absorbed else NULL_UNABSORBED} ({g.deals:,} deals, "
                       f"{g.games:,} sampled games). {behind}.", deals=g.deals,
                       per_count=True)  # fmt: skip
    figures = (f"each point of lead over the seats' mean after round {k + 1} (a third of the "
               f"median game) is followed by {g.estimate:+.2f} points [{g.lo:+.2f}, "
               f"{g.hi:+.2f}] in the rest of the game, final scoring included, against "
               f"{NULL if g.absorbed else NULL_UNABSORBED} (a linear model; t interval over "
               f"{g.deals:,} deals, cluster jackknife, {g.games:,} sampled games). "
               f"{behind}")  # fmt: skip
    label = EFFECT if g.absorbed else EFFECT_UNABSORBED
    told = dict(effects={label: Effect(g.estimate, g.se)}, deals=g.deals,
                words=("catches up", "snowballs"), per_count=True)  # fmt: skip
    if g.hi < 0 or g.lo > 0:
        word = "snowballs" if g.lo > 0 else "catches up"
        who = ("early leads grow (the leader snowballs)" if g.lo > 0 else
               "early leads shrink (the others catch up)")  # fmt: skip
        return Verdict(TOPIC, n_players, True, f"At {n_players} players {who}: {figures}.",
                       key=word, short=f"{word} ({g.estimate:+.2f} per point)",
                       **told)  # fmt: skip
    return Verdict(TOPIC, n_players, False,
                   f"At {n_players} players the data cannot tell whether early leads grow or "
                   f"shrink: {figures}.", **told)  # fmt: skip


def tension_verdicts(samples: dict[int, Sample]) -> list:
    """One play strength's tension verdicts, per player count (counts with sampled games)."""
    return [comeback_verdict(s, n) for n, s in sorted(samples.items()) if len(s.scores)]


#: the table's metrics: per-game metric (a format with the comeback round k) -> column
COLUMNS = {"lead_changes": "lead changes", "decisive_point": "decisive point",
           "comeback_{k}": "comeback", "margin": "margin"}  # fmt: skip


def tension_frame(samples: dict[str, dict[int, Sample]]):
    """One row per play strength and player count: each metric's mean and 95% interval over
    deals, and the lead's growth after the comeback round (`growth`)."""
    import pandas as pd

    rows = []
    for tier, by_count in samples.items():
        for n, sample in sorted(by_count.items()):
            if not len(sample.scores):
                continue
            k = comeback_round(sample)
            t = measured(sample, ks=[k])
            row = {"strength": tier, "players": n, "games": len(sample.scores),
                   "deals": t.clustered("margin").deals}  # fmt: skip
            for metric, label in COLUMNS.items():
                c = t.clustered(metric.format(k=k))
                row[label], row[f"{label} lo"], row[f"{label} hi"] = c.mean, c.lo, c.hi
            g = growth(sample, k)
            row["lead growth"], row["lead growth lo"], row["lead growth hi"] = g[:3]
            row["absorbed"] = g.absorbed
            row["comeback round"] = k + 1
            rows.append(row)
    return pd.DataFrame(rows)


def add_tension(report, samples: dict[str, dict[int, Sample]], proxy: str) -> None:
    """The `Tension` section: the table of every metric by strength and player count, and how
    a lead grows after each round. `proxy`: what the running score is."""
    from reports.render.report import compute_soon

    # the chart's fits (one per round and count) on the chart pool while the table is made
    curves = {(tier, n): compute_soon(growth_curve, sample) for tier, by_count in samples.items()
              for n, sample in by_count.items() if len(sample.scores)}  # fmt: skip
    frame = tension_frame(samples)
    if frame.empty:
        return
    sec = report.section("Tension: lead changes, the decisive point, comebacks")
    sec.paragraph(
        "From the per-round scores of a sample of games (docs/metrics.md defines each metric): "
        "**lead changes** per game (rounds whose sole leader differs from the last one; ties "
        "skipped), the **decisive point** (the share of the game after which the eventual "
        "winner leads for good: low means decided early), the **comeback** (the win share of "
        "the seat last after the first third of the game; it is behind, so it wins less than "
        "1/n in any race: descriptive), the **lead growth** (the points a seat gains in the "
        "rest of the game per point of lead after that round, against the same deal's other "
        "tables: a constant per deal and seat, per deal and strategy, and per strategy and "
        "seat; above 0 the leader snowballs, below 0 the others catch up; the test of the "
        "verdict) and the final winning **margin**. Intervals are 95% over deals: a "
        "tournament plays each deal at every table of the design, so the tables of one deal "
        f"are one draw. The running score is {proxy}." + _unabsorbed(frame)
    )
    shown = frame.set_index(["strength", "players"])
    for label in (*COLUMNS.values(), "lead growth"):
        shown[label] = [_cell(v, lo, hi) for v, lo, hi in
                        zip(shown[label], shown[f"{label} lo"], shown[f"{label} hi"],
                            strict=True)]  # fmt: skip
    columns = ["games", "deals", "lead changes", "decisive point", "comeback round", "comeback",
               "lead growth", "margin"]  # fmt: skip
    sec.table(shown[columns])
    sec.figure(chart_growth(samples, curves), "tension_comebacks",
               "The points a seat gains in the rest of the game per point of lead after each "
               "round, against the same deal's other tables (95% intervals over deals), by "
               "play strength: above 0 the leader snowballs, below 0 the others catch "
               "up")  # fmt: skip


def _cell(v: float, lo: float, hi: float) -> str:
    """An estimate and its interval; in words where a run too small has none (NaN)."""
    if not np.isfinite(v):
        return "too few deals"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{v:.2f} (too few deals for an interval)"
    return f"{v:.2f} [{lo:.2f}, {hi:.2f}]"


def _unabsorbed(frame) -> str:
    """What the section says of rows whose deals were each played at one table."""
    rows = frame[~frame["absorbed"]]
    if rows.empty:
        return ""
    which = ", ".join(f"{s} at {n} players" for s, n in zip(rows["strength"], rows["players"],
                                                              strict=True))  # fmt: skip
    return (
        f" Each deal was played at one table in {which}: there the lead growth is against "
        "seats of the same strategy in the same seat only, and a deal that favours one "
        "seat all game also reads as a snowball."
    )


def growth_curve(sample: Sample) -> np.ndarray:
    """The lead's growth after each round below the median game: [round, (estimate, lo, hi)]."""
    ks = range(int(np.median(rounds_played(sample.scores, NOT_PLAYED))))
    return np.array([growth(sample, k)[:3] for k in ks]).reshape(-1, 3)


def chart_growth(samples: dict[str, dict[int, Sample]], curves: dict | None = None):
    """The lead's growth after each round below the median game, one panel per count
    (`curves`: (strength, count) -> a function giving its `growth_curve`, computed here
    without)."""
    from reports.render.charts import error_bars, figure, legend_of_panels

    counts = sorted({n for by_count in samples.values() for n in by_count})
    fig = figure(figsize=(2.2 + 2.0 * len(counts), 2.6))
    axes = fig.subplots(1, len(counts), sharey=True, squeeze=False)[0]
    for ax, n in zip(axes, counts, strict=True):
        for i, (tier, by_count) in enumerate(samples.items()):
            sample = by_count.get(n)
            if sample is None or not len(sample.scores):
                continue
            curve = (curves or {}).get((tier, n))
            stats = curve() if curve is not None else growth_curve(sample)
            ks = np.arange(len(stats))
            ax.errorbar(ks + 1, stats[:, 0], yerr=error_bars(*stats.T), marker="o",
                        markersize=3, capsize=2, linewidth=1, color=f"C{i}",
                        label=tier)  # fmt: skip
        ax.axhline(0, color="grey", linestyle="--", linewidth=0.8)
        ax.set_title(f"{n} players", fontsize=9)
        ax.set_xlabel("after round", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel("later gain per point of lead", fontsize=8)
    legend_of_panels(axes)
    return fig
