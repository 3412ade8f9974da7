"""The fight rule the rollouts recommend (`recommended_rule`), and the part of the
fight-or-explore section (`games.abyss.report.fight_report`) that shows how it was chosen: the
rules that change one decision, then the rule rollouts that play a rule to the end of the game.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from reports.render.charts import error_bars, figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from games.abyss.report.rollout import Rollouts
    from reports.render.report import Section


# ------------------------------------------------------------------------------ the rule
def recommended_rule(rollouts: Rollouts) -> dict:
    """The rule the rollouts recommend, with its held-out gain over the strategies' own rules.

    From the rule rollouts (`games.abyss.report.rollout.learn_rule`: each candidate rule played
    from the game's first decision point to its end) when the run has them; else from the
    one-decision forks (`one_step_rule`: fight iff the risk of continuing is at least w/36).
    Either way the rule is the one chosen on the even-numbered games, whose gain is measured on
    the odd ones. Keys: source
    ("rule rollouts" or "one decision"), rule (a candidate name, e.g. ``fight_risk=6/36``),
    sentence, spec, fitted_on_half, held_out_points, gain_win and gain_ip ((mean, lo, hi) or
    None), and the underlying `learnt` or `one_step` dict.
    """
    import games.abyss.report.rollout as ro

    rules = getattr(rollouts, "rules", None)
    if rules is not None and len(rules):
        learnt = ro.learn_rule(rules)
        return {
            "source": "rule rollouts",
            "rule": learnt["rule"],
            "sentence": learnt["sentence"],
            "spec": learnt["spec"],
            "fitted_on_half": learnt["fitted_on_half"],
            "held_out_points": learnt["held_out_points"],
            "gain_win": learnt["held_out_gain_win"],
            "gain_ip": learnt["held_out_gain_ip"],
            "learnt": learnt,
        }
    step = ro.one_step_rule(rollouts.points)
    # the rule the held-out gain measures: the even-numbered games' choice
    rule = f"fight_risk={step['fitted_on_half']}/36"
    measured = step["held_out_points"] >= 2  # (an interval needs two points)
    return {
        "source": "one decision",
        "rule": rule,
        "sentence": ro.rule_sentence(rule),
        "spec": ro.rule_spec(rule),
        "fitted_on_half": rule,
        "held_out_points": step["held_out_points"] if measured else 0,
        "gain_win": step["gain_vs_own"] if measured else (math.nan,) * 3,
        "gain_ip": None,
        "one_step": step,
    }


def risk_threshold_36(rule: str) -> int | None:
    """w of a ``fight_risk=w/36`` rule name; None for any other rule."""
    name, _, value = rule.partition("=")
    if name != "fight_risk":
        return None
    return int(value.split("/")[0])


# ------------------------------------------------------------------------------ one decision
def add_one_step(sec: Section, step: dict) -> None:
    """The rules that change only the decision at the point
    (`games.abyss.report.rollout.one_step_rule`):
    the held-out gain of the best risk gate over simpler rules, and the grid of every rule."""
    sec.paragraph(
        f"**One decision changed.** Which points should fight? Over the rules 'fight iff the "
        f"best chance of damage is at least c/36 and the risk of an attack when continuing at "
        f"least w/36', applied to the forks above (only the decision at the point changes), the "
        f"best gate on the risk is w = {step['fitted_on_half']}/36 on the even-numbered games, "
        f"which choose ({step['risk_36']}/36 on all points, in-sample: the grid's star)."
    )
    rows = {
        "the strategies' own choices": step["gain_vs_own"],
        "always fight (when an Ally can damage)": step["gain_vs_always_fight"],
        "never fight": step["gain_vs_never_fight"],
        f"best rule on the chance alone (>= {step['chance_only_36']}/36)": step[
            "gain_vs_chance_only"
        ],
    }
    frame = pd.DataFrame(
        [[m * 100, lo * 100, hi * 100] for m, lo, hi in rows.values()],
        index=pd.Index(list(rows), name="compared with"),
        columns=["gain (pp)", "lo", "hi"],
    )
    sec.table(
        frame,
        caption=f"One decision changed: held-out gain in win probability of 'fight iff an Ally "
        f"can damage and the risk is at least {step['fitted_on_half']}/36' (percentage points, "
        f"95% intervals over the {step['held_out_points']:,} decision points of odd-numbered "
        f"games; threshold fitted on the even-numbered games)",
        float_format="{:+.2f}",
    )
    sec.figure(
        chart_rule_grid(step),
        "fight-rule-grid",
        "One decision changed, every rule 'fight iff the best chance of damage >= c/36 and the "
        "risk of an attack when continuing >= w/36': mean win minus never fighting, in "
        "percentage points, on all points (in-sample, so the best cell is optimistic; the "
        "held-out gains are the honest figures). Star: the best risk gate; circle: the best "
        "rule on the chance alone",
    )


def chart_rule_grid(step: dict) -> Figure:
    """`one_step_rule`'s grid: every rule 'fight iff chance >= c/36 and risk >= w/36', its mean
    win minus never fighting's (all points); the best risk gate starred, the best chance-only
    rule circled."""
    grid = np.asarray(step["grid"], dtype=float)
    gain = (grid - grid[0, -1]) * 100  # column 37: never fight (the same in every row)
    limit = float(np.nanmax(np.abs(gain))) or 1.0
    fig = figure(figsize=(8, 5.5))
    ax = fig.add_subplot()
    image = ax.imshow(gain, origin="lower", cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
    _mark(ax, 1, step["risk_36"], "*", "gold", 16, "best risk gate (chance >= 1/36)")
    _mark(ax, step["chance_only_36"], 0, "o", "none", 10, "best rule on the chance alone")
    ax.set_xlabel("fight only if the best chance of damage >= c/36  (37: never fight)")
    ax.set_ylabel("and the risk of an attack when continuing >= w/36", fontsize=8)
    ax.set_xticks(range(0, grid.shape[1], 4))
    ax.set_yticks(range(0, grid.shape[0], 4))
    ax.legend(fontsize=7, loc="upper right")
    fig.colorbar(image, ax=ax, shrink=0.8, label="win vs never fighting (pp)")
    return fig


def _mark(ax, x, y, marker: str, colour: str, size: float, label: str) -> None:
    """One cell of the grid marked, black-edged, for the legend."""
    ax.plot(
        [x],
        [y],
        marker=marker,
        color=colour,
        markersize=size,
        markeredgecolor="black",
        linestyle="none",
        label=label,
    )


# ------------------------------------------------------------------------------ rule rollouts
def rule_rollout_table(learnt: dict) -> pd.DataFrame:
    """`learn_rule`'s table of candidate rules: mean win and IP, and the gain over the
    strategies' own rules (win in percentage points) with 95% intervals."""
    table = learnt["table"].set_index("rule")
    out = pd.DataFrame(index=table.index)
    out["points"] = table["points"].astype(int)
    out["mean win"] = table["win"]
    for column, label in (
        ("gain_win", "win pp"),
        ("gain_win_lo", "win lo"),
        ("gain_win_hi", "win hi"),
    ):
        out[label] = table[column] * 100
    out["mean IP"] = table["ip"]
    for column, label in (("gain_ip", "IP"), ("gain_ip_lo", "IP lo"), ("gain_ip_hi", "IP hi")):
        out[label] = table[column]
    return out


def chart_rule_rollouts(learnt: dict) -> Figure:
    """Gain of each candidate rule over the strategies' own (win pp, IP), 95% intervals; the
    chosen rule in orange."""
    table = rule_rollout_table(learnt).drop(index="own", errors="ignore")
    fig = figure(figsize=(9, 0.9 + 0.3 * len(table)))
    axes = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(table))
    colours = ["#DD8452" if r == learnt["rule"] else "#4C72B0" for r in table.index]
    for ax, metric, unit in ((axes[0], "win", "win (pp)"), (axes[1], "IP", "IP")):
        column = "win pp" if metric == "win" else "IP"
        v = table[column].to_numpy(dtype=float)
        err = error_bars(v, table[f"{metric} lo"], table[f"{metric} hi"])
        ax.barh(y, v, color=colours)
        ax.errorbar(v, y, xerr=err, fmt="none", color="black", capsize=3)
        ax.axvline(0, color="grey", linewidth=0.8)
        ax.set_xlabel(f"gain over the own rules, {unit}")
    axes[0].set_yticks(y, list(table.index), fontsize=8)
    axes[0].invert_yaxis()
    return fig


def add_rule_rollouts(sec: Section, learnt: dict, meta: dict) -> None:
    """The candidate rules played from a game's first decision point to its end
    (`games.abyss.report.rollout.learn_rule`)."""
    sec.paragraph(
        f"**Rule rollouts.** A rule is more than one decision: it also decides later fights. "
        f"In the even-numbered of the first {meta.get('rule_points', '?')} games, from the "
        f"game's first decision point to its end, the deciding player switched to each "
        f"candidate rule ({meta.get('rule_replicates', '?')} replicates; every rule gets the "
        f"same random numbers); the best of them, `{learnt['rule']}`, is the recommended rule"
        + (", and the odd-numbered games played only it and the strategies' own rules, to "
           "measure it." if learnt["held_out_points"] else
           ", measured on no odd-numbered game (the own rules chosen, or none played).")
    )  # fmt: skip
    sec.table(
        rule_rollout_table(learnt),
        caption="Rule rollouts (estimated, on the even-numbered games, which chose the rule): "
        "mean win share and IP of the deciding player under each candidate rule, and the gain "
        "over the strategies' own rules (win in percentage points) with 95% intervals over "
        "decision points; in-sample, so the best is optimistic"
        + (" (the held-out gain is in the first paragraph)" if learnt["held_out_points"] else
           ""),
        float_format="{:.2f}",
    )
    sec.figure(
        chart_rule_rollouts(learnt),
        "fight-rule-rollouts",
        "Rule rollouts: gain of each candidate rule over the strategies' own rules, with 95% "
        "intervals over decision points (estimated, in-sample: the even-numbered games, which "
        "chose the rule); orange: the recommended rule",
    )
