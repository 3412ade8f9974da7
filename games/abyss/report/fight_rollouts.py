"""What fighting instead of exploring on is worth, from forked rollouts: the estimated part of
the fight-or-explore section (`games.abyss.report.fight_report`).

Differences are fight minus continue for the deciding player, with 95% Student t intervals over
decision points (`games.abyss.report.rollout`); the rule learnt from them is
`games.abyss.report.fight_rule`'s.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from games.abyss.report.fight_rule import add_one_step, add_rule_rollouts
from reports.render.charts import error_bars, figure, heatmap

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from games.abyss.report.rollout import Rollouts
    from reports.render.report import Section


def add_rollout_results(sec: Section, rollouts: Rollouts, rule: dict) -> None:
    """Fight minus continue overall, by situation and by Border and chance; then how the
    `rule` was learnt (`games.abyss.report.fight_rule`), the tournament check and what pairing
    bought."""
    from games.abyss.report.rollout import one_step_rule

    points = rollouts.points
    sec.paragraph(
        f"**Rollouts.** {len(points):,} decision points (a Monster revealed with a fightable "
        f"Leviathan on the Border), at most one per game, each played on to the end both ways "
        f"{rollouts.meta.get('replicates', '?')} times with the same strategies. Differences "
        "are fight minus continue, for the deciding player: final IP, and win (a shared first "
        "place counts as a share). Intervals are 95% Student t intervals over decision points."
    )
    _overall_table(sec, points)
    _situations(sec, points)
    _two_way(sec, points)
    step = rule.get("one_step") or one_step_rule(points)
    add_one_step(sec, step)
    if rule["source"] == "rule rollouts":
        add_rule_rollouts(sec, rule["learnt"], rollouts.meta)
    if rollouts.verify is not None:
        _verification(sec, rollouts.verify, rule.get("spec"))
    _pairing(sec, points)


def verification_table(verify: dict) -> pd.DataFrame:
    """The tournament check as a table: per strategy, with the rule minus without, in win rate
    (percentage points) and IP, with intervals and Holm-corrected significance."""
    rows = {}
    for d in verify["differences"]:
        row = rows.setdefault(d["strategy"], {"strategy": d["strategy"]})
        scale = 100.0 if d["metric"] == "win" else 1.0
        name = "win pp" if d["metric"] == "win" else "IP"
        row[name] = d["diff"] * scale
        row[f"{name} lo"] = d["lo"] * scale
        row[f"{name} hi"] = d["hi"] * scale
        row[f"{name} significant"] = "yes" if d["significant"] else "no"
    return pd.DataFrame(list(rows.values()))


def _verification(sec: Section, verify: dict, named: str | None = None) -> None:
    other = (f" (not the rule named above: this run chose `{verify['spec']}` on all points, "
             f"before the rule named became the even-numbered games' choice)"
             if named is not None and named != verify["spec"] else "")  # fmt: skip
    sec.paragraph(
        f"**Tournament check.** Each strategy played with its own fight rule and with the "
        f"learnt one (`{verify['spec']}`{other}), in every combination of {verify['players']} "
        f"of them, every cyclic order and seat, {verify['blocks']:,} blocks "
        f"({verify['games']:,} games, common random numbers). A positive difference means the "
        f"learnt rule won more."
    )
    sec.table(
        verification_table(verify),
        caption="With the learnt rule minus without (estimated): win rate in percentage points "
        "and mean IP, 95% paired t intervals over blocks; significant: Holm-corrected over "
        "every pair of the tournament, 5%",
        float_format="{:.2f}",
    )


def _overall_table(sec: Section, points: pd.DataFrame) -> None:
    from games.abyss.report.rollout import overall

    frame = overall(points).set_index("group")
    frame.index.name = "deciding strategy"
    sec.table(
        _difference_columns(frame),
        caption="Fight minus continue (estimated, 95% intervals over decision points): win in "
        "percentage points and final IP; 'own rule fights': the share of points where the "
        "strategy itself chose to fight",
        float_format="{:.2f}",
    )


def _difference_columns(frame: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame(index=frame.index)
    out["points"] = frame["points"].astype(int)
    out["own rule fights"] = frame["strategies_fight"]
    for column, label in (("d_win", "win pp"), ("d_win_lo", "win lo"), ("d_win_hi", "win hi")):
        out[label] = frame[column] * 100
    for column, label in (("d_ip", "IP"), ("d_ip_lo", "IP lo"), ("d_ip_hi", "IP hi")):
        out[label] = frame[column]
    return out


def _situations(sec: Section, points: pd.DataFrame) -> None:
    from games.abyss.report.rollout import SITUATION_NAMES, SITUATIONS, all_situations, by_situation

    for column in SITUATIONS:
        frame = by_situation(points, column)
        if frame.empty:
            continue
        name = SITUATION_NAMES[column]
        sec.figure(
            chart_situation(frame, name),
            f"fight-by-{column}",
            f"Fight minus continue by {name} (estimated; bars: mean over the decision points of "
            f"the bin, n below each; error bars: 95% intervals over decision points)",
        )
    table = all_situations(points)
    table["situation"] = table["situation"].map(SITUATION_NAMES)
    sec.table(
        _difference_columns(table.set_index(["situation", "bin"])),
        caption="Fight minus continue by situation (estimated, 95% intervals over decision "
        "points): win in percentage points and final IP",
        float_format="{:.2f}",
    )


def chart_situation(frame: pd.DataFrame, name: str) -> Figure:
    """Fight minus continue per bin of one situation: win probability and IP, 95% intervals."""
    fig = figure(figsize=(9, 3.2))
    axes = fig.subplots(1, 2)
    x = np.arange(len(frame))
    labels = [f"{b}\nn={n}" for b, n in zip(frame["bin"], frame["points"], strict=True)]
    for ax, metric, scale, unit, colour in (
        (axes[0], "d_win", 100.0, "win probability\n(percentage points)", "#4C72B0"),
        (axes[1], "d_ip", 1.0, "IP", "#55A868"),
    ):
        y = frame[metric].to_numpy(dtype=float) * scale
        err = error_bars(y, frame[f"{metric}_lo"] * scale, frame[f"{metric}_hi"] * scale)
        ax.bar(x, y, color=colour)
        ax.errorbar(x, y, yerr=err, fmt="none", color="black", capsize=3)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xticks(x, labels, fontsize=7)
        ax.set_xlabel(name)
        ax.set_ylabel(f"fight - continue, {unit}", fontsize=8)
    return fig


def _two_way(sec: Section, points: pd.DataFrame) -> None:
    from games.abyss.report.rollout import heatmap_table

    means, counts = heatmap_table(points, "n_border", "chance", "d_win")
    sec.figure(
        chart_two_way(means, counts),
        "fight-border-by-chance",
        "Fight minus continue in win probability (percentage points, estimated) by Leviathans "
        "on the Border and the best chance of damage; n: decision points in the cell (small "
        "cells are noisy; blank: none)",
    )


def chart_two_way(means: pd.DataFrame, counts: pd.DataFrame) -> Figure:
    """Mean fight-minus-continue win difference (percentage points) per cell, with counts."""
    values = means.to_numpy(dtype=float) * 100
    finite = values[np.isfinite(values)]
    limit = float(np.abs(finite).max()) if finite.size else 1.0
    text = [
        [f"{v:+.1f}\nn={int(n)}" if np.isfinite(v) else "" for v, n in zip(vr, nr, strict=True)]
        for vr, nr in zip(values, counts.to_numpy(), strict=True)
    ]
    fig = figure(figsize=(7.5, 3.6))
    ax = fig.add_subplot()
    image = heatmap(
        ax,
        values,
        [str(i) for i in means.index],
        [str(c) for c in means.columns],
        text,
        cmap="RdBu",
        vmin=-limit or -1.0,
        vmax=limit or 1.0,
        fontsize=7,
    )
    ax.set_xlabel("best chance of damage")
    ax.set_ylabel("Leviathans on the Border")
    fig.colorbar(image, ax=ax, shrink=0.8, label="fight - continue, win (pp)")
    return fig


def pairing_table(gain: dict) -> pd.DataFrame:
    """`games.abyss.report.rollout.pairing_gain` as a table: paired, unpaired and their ratio."""
    rows = {
        "95% half-width of the mean IP difference": (
            gain["halfwidth_paired"],
            gain["halfwidth_unpaired"],
        ),
        "variance of one replicate's IP difference": (
            gain["replicate_var_paired"],
            gain["replicate_var_unpaired"],
        ),
    }
    return pd.DataFrame(
        [[p, u, p / u if u else math.nan] for p, u in rows.values()],
        index=pd.Index(list(rows), name="quantity"),
        columns=["paired (common random numbers)", "unpaired", "paired / unpaired"],
    )


def _ratio_text(ratio: float) -> str:
    if not math.isfinite(ratio) or ratio <= 0:
        return ""
    text = f"Pairing multiplies the variance of one replicate's difference by {ratio:.2f}"
    if ratio < 1:
        return (
            f"{text}: unpaired, about {1 / ratio:.1f} times as many replicates would give a "
            "point the same precision."
        )
    return f"{text}: here it did not help (with few replicates the estimate is noisy)."


def _pairing(sec: Section, points: pd.DataFrame) -> None:
    from games.abyss.report.rollout import pairing_gain

    gain = pairing_gain(points)
    if gain is None:
        return
    ratio = gain["variance_ratio"]
    sec.paragraph(
        "**Common random numbers.** Both branches of a replicate get the same random keys: the "
        "same reshuffled hidden decks and the same dice wherever the games agree, so their "
        "difference reflects the decision rather than the luck of the draw. To check what this "
        "buys, the continue branch was also played on keys of its own (unpaired). "
        + _ratio_text(ratio)
        + " The half-widths also contain the spread between decision points, which pairing "
        "cannot remove."
    )
    sec.table(
        pairing_table(gain),
        caption=f"Paired against unpaired rollouts on the same {gain['points']:,} decision "
        "points (IP difference, fight minus continue)",
        float_format="{:.3f}",
    )
