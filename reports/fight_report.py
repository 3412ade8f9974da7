"""Fight or explore? The report section on the Leviathan decision, and a standalone page.

`add_fight_section` appends one section to a `reports.render.Report`: the exact odds of one
attack (`sim.abyss.odds.fight_table`), the exact risk of exploring on, and, given forked rollouts
(`reports.rollout`), what fighting instead of exploring is worth and the rule learnt from it
(`recommended_rule`: the rule rollouts' choice when the run has them, else the one-decision
forks'). `fight_page` wraps the section in a report of its own; `write_fight_page` writes it.

Two kinds of numbers, kept apart in every caption: the odds are **exact** (enumerated dice, each
chance a count of the 36 outcomes of two dice); the rollout differences are **estimated**, with
95% Student t intervals over decision points (the unit: points come from different games and
are independent; the replicates of a point are averaged first).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from reports.render import Report, Section
    from reports.rollout import Rollouts
    from sim.abyss.cards_tables import CardTables

PAGE_TITLE = "Fight or explore? Leviathans in Abyss"
#: The Resistance of the "add Pearls" chart (c).
PEARLS_RESISTANCE = 7
KIND_LABELS = {
    "plain": "plain Ally",
    "add_pearls": "Ally adding Pearls",
    "two_dice": "two-dice Ally",
}
ROLLOUT_COMMAND = "abyss-mc ev rollout"


# ------------------------------------------------------------------------------ exact tables
def in_36ths(p: float | Fraction) -> str:
    """A probability as a count of the 36 outcomes of two dice: ``18/36`` (``7.43/36`` when it
    is not a whole count)."""
    n = float(p) * 36
    return f"{round(n)}/36" if abs(n - round(n)) < 1e-9 else f"{n:.2f}/36"


def _grid(rows: pd.DataFrame, index: str, metric: str) -> pd.DataFrame:
    """`metric` by (index, ally_value); every row of a cell must agree (the chance must be a
    function of the cell, else the heatmap would hide a difference)."""
    grouped = rows.groupby([index, "ally_value"])[metric]
    spread = (grouped.max() - grouped.min()).max() if len(rows) else 0.0
    if spread > 1e-12:
        raise ValueError(f"{metric} is not a function of ({index}, ally_value)")
    grid = grouped.first().unstack("ally_value")
    grid.columns.name = "Ally value"
    return grid


def damage_by_resistance(table: pd.DataFrame, kind: str = "plain") -> pd.DataFrame:
    """P(damage) of one attack with an Ally of `kind` (no Pearls): rows = the Resistance of the
    target's current Life space (those present on the cards), columns = Ally value."""
    rows = table[(table["ally_kind"] == kind) & (table["pearls_available"] == 0)]
    grid = _grid(rows, "resistance", "p_damage")
    grid.index.name = "Resistance"
    return grid


def damage_by_pearls(table: pd.DataFrame, resistance: int = PEARLS_RESISTANCE) -> pd.DataFrame:
    """P(damage) with an "add Pearls" Ally against `resistance`: rows = Pearls available,
    columns = Ally value."""
    rows = table[(table["ally_kind"] == "add_pearls") & (table["resistance"] == resistance)]
    grid = _grid(rows, "pearls_available", "p_damage")
    grid.index.name = "Pearls available"
    return grid


def full_health(table: pd.DataFrame, tables: CardTables, metric: str = "p_kill") -> pd.DataFrame:
    """`metric` of one plain attack on each Leviathan card at full health (Life token on the top
    space): rows = the card (number, race, Resistances), columns = Ally value."""
    rows = table[(table["ally_kind"] == "plain") & (table["life_index"] == 0)]
    grid = _grid(rows, "leviathan", metric)
    grid.index = [leviathan_label(tables, int(n)) for n in grid.index]
    grid.index.name = "Leviathan"
    return grid


def leviathan_label(tables: CardTables, number: int) -> str:
    """``"13 seahorse (3-7-5)"``: printed number, race, Resistance of each Life space."""
    from sim.abyss.odds import race_name

    i = [int(n) for n in tables.leviathan_number].index(number)
    spaces = "-".join(
        str(int(tables.leviathan_resistance[i, s]))
        for s in range(int(tables.leviathan_n_spaces[i]))
    )
    return f"{number} {race_name(tables, i)} ({spaces})"


def damage_table(table: pd.DataFrame) -> pd.DataFrame:
    """P(damage) of a plain and of a two-dice Ally in 36ths, one row per Resistance."""
    parts = []
    for kind in ("plain", "two_dice"):
        grid = damage_by_resistance(table, kind).map(in_36ths)
        grid.columns = [f"{KIND_LABELS[kind]} {v}" for v in grid.columns]
        parts.append(grid)
    return pd.concat(parts, axis=1)


# ------------------------------------------------------------------------------ exploring
def landing_occupancy(tables: CardTables, k: int) -> dict[frozenset, Fraction]:
    """Exact distribution of the occupied zones after `k` Leviathans landed by 2d6 on distinct
    zones: a landing on an occupied zone replaces its resident and leaves the set unchanged, so
    without fights the occupied zones are the first `k` distinct zones the dice picked."""
    from sim.abyss.odds import sum_weights, zone_sums

    weights = sum_weights()
    p_land = {
        z: Fraction(sum(weights[s] for s in sums), 36) for z, sums in zone_sums(tables).items()
    }
    states: dict[frozenset, Fraction] = {frozenset(): Fraction(1)}
    for _ in range(k):
        after: dict[frozenset, Fraction] = {}
        for zones, p in states.items():
            free = 1 - sum((p_land[z] for z in zones), Fraction(0))
            for z in p_land:
                if z not in zones:
                    key = zones | {z}
                    after[key] = after.get(key, Fraction(0)) + p * p_land[z] / free
        states = after
    return states


def border_risk(tables: CardTables, threshold_36: int | None = None) -> pd.DataFrame:
    """Exact P(attacked) when exploring on, by the number k of Leviathans on the Border.

    `explore_risk` for every set of k occupied zones, summarised four ways: the least likely
    zones, a uniformly random set (the mean over every set), the sets the dice build
    (`landing_occupancy`) and the most likely zones. Values are exact `Fraction`s. With
    `threshold_36`, also the share of dice-built sets whose risk reaches threshold_36/36.
    """
    from sim.abyss.odds import explore_risk

    n_zones = int(tables.n_border_zones)
    rows = []
    for k in range(1, n_zones + 1):
        risk = {
            frozenset(s): explore_risk(tables, dict.fromkeys(s)).p_attacked
            for s in itertools.combinations(range(n_zones), k)
        }
        landed = landing_occupancy(tables, k)
        row: dict[str, Any] = {
            "Leviathans": k,
            "least likely zones": min(risk.values()),
            "uniformly random zones": sum(risk.values(), Fraction(0)) / len(risk),
            "zones the dice fill": sum((p * risk[s] for s, p in landed.items()), Fraction(0)),
            "most likely zones": max(risk.values()),
        }
        if threshold_36 is not None:
            row["rule fights (dice-filled)"] = sum(
                (p for s, p in landed.items() if risk[s] >= Fraction(threshold_36, 36)),
                Fraction(0),
            )
        rows.append(row)
    return pd.DataFrame(rows).set_index("Leviathans")


def border_risk_display(risk: pd.DataFrame) -> pd.DataFrame:
    """`border_risk` for a table: chances as ``n/36 (p%)``, the rule's share as a percentage."""
    out = risk.copy().astype(object)
    for column in out.columns:
        if column.startswith("rule fights"):
            out[column] = [f"{float(v):.0%}" for v in risk[column]]
        else:
            out[column] = [f"{in_36ths(v)} ({float(v):.1%})" for v in risk[column]]
    return out


# ------------------------------------------------------------------------------ charts
def _figure(**kw: Any) -> Figure:
    from reports.render import new_figure

    return new_figure(**kw)


def _err(value, lo, hi) -> np.ndarray:
    """Error-bar lengths below and above `value` (never negative, NaN as 0)."""
    value = np.asarray(value, dtype=float)
    below = np.nan_to_num(value - np.asarray(lo, dtype=float)).clip(0)
    above = np.nan_to_num(np.asarray(hi, dtype=float) - value).clip(0)
    return np.vstack([below, above])


def _heatmap(
    ax: Axes,
    values: np.ndarray,
    rows: list[str],
    columns: list[str],
    text: list[list[str]],
    *,
    cmap: str = "viridis",
    vmin: float = 0.0,
    vmax: float = 1.0,
    fontsize: float = 8,
):
    """An annotated heatmap (row 0 at the top); NaN cells are left blank."""
    import matplotlib as mpl

    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    norm, colours = mpl.colors.Normalize(vmin, vmax), mpl.colormaps[cmap]
    for i, j in itertools.product(range(values.shape[0]), range(values.shape[1])):
        if np.isfinite(values[i, j]) and text[i][j]:
            r, g, b, _ = colours(norm(values[i, j]))
            ink = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
            ax.text(j, i, text[i][j], ha="center", va="center", color=ink, fontsize=fontsize)
    ax.set_xticks(range(len(columns)), columns)
    ax.set_yticks(range(len(rows)), rows)
    return image


def _chance_heatmap(ax: Axes, grid: pd.DataFrame, title: str, fmt=in_36ths):
    values = grid.to_numpy(dtype=float)
    text = [[fmt(v) if np.isfinite(v) else "" for v in row] for row in values]
    image = _heatmap(ax, values, [str(i) for i in grid.index], [str(c) for c in grid.columns], text)
    ax.set_xlabel("Ally value")
    ax.set_ylabel(str(grid.index.name))
    ax.set_title(title, fontsize=9)
    return image


def chart_damage(table: pd.DataFrame) -> Figure:
    """P(damage) by Resistance and Ally value: a plain Ally and a two-dice Ally, side by side."""
    fig = _figure(figsize=(9, 3.8))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, kind in zip(axes, ("plain", "two_dice"), strict=True):
        image = _chance_heatmap(ax, damage_by_resistance(table, kind), KIND_LABELS[kind])
    axes[1].set_ylabel("")
    fig.colorbar(image, ax=axes, shrink=0.8, label="P(damage)")
    return fig


def chart_pearls(table: pd.DataFrame, resistance: int = PEARLS_RESISTANCE) -> Figure:
    fig = _figure(figsize=(5.2, 3.8))
    ax = fig.add_subplot()
    grid = damage_by_pearls(table, resistance)
    image = _chance_heatmap(ax, grid, f"Ally adding Pearls, Resistance {resistance}")
    fig.colorbar(image, ax=ax, shrink=0.8, label="P(damage)")
    return fig


def chart_full_health(table: pd.DataFrame, tables: CardTables) -> Figure:
    """P(kill) and expected Monster tokens of one plain attack on each card at full health."""
    kill = full_health(table, tables, "p_kill")
    tokens = full_health(table, tables, "expected_tokens")
    fig = _figure(figsize=(10, 0.9 + 0.32 * len(kill)))
    axes = fig.subplots(1, 2, sharey=True)
    image = _chance_heatmap(axes[0], kill, "P(kill) in one attack")
    fig.colorbar(image, ax=axes[0], shrink=0.6)
    top = float(np.nanmax(tokens.to_numpy(dtype=float))) or 1.0
    values = tokens.to_numpy(dtype=float)
    text = [[f"{v:.2f}" for v in row] for row in values]
    image = _heatmap(
        axes[1],
        values,
        list(kill.index),
        [str(c) for c in tokens.columns],
        text,
        cmap="magma",
        vmax=top,
    )
    axes[1].set_xlabel("Ally value")
    axes[1].set_title("expected Monster tokens", fontsize=9)
    fig.colorbar(image, ax=axes[1], shrink=0.6)
    for ax in axes:
        ax.tick_params(axis="y", labelsize=7)
    return fig


def chart_border_risk(risk: pd.DataFrame) -> Figure:
    fig = _figure(figsize=(6.5, 3.6))
    ax = fig.add_subplot()
    k = risk.index.to_numpy()
    low = risk["least likely zones"].astype(float).to_numpy()
    high = risk["most likely zones"].astype(float).to_numpy()
    ax.fill_between(k, low, high, color="#c6dbef", label="least to most likely zones")
    ax.plot(k, risk["uniformly random zones"].astype(float), "o--", label="uniformly random zones")
    ax.plot(k, risk["zones the dice fill"].astype(float), "s-", label="zones the dice fill")
    ax.set_xticks(k)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("Leviathans on the Border")
    ax.set_ylabel("P(attacked) when exploring on")
    ax.legend(fontsize=7, loc="upper left")
    return fig


def chart_situation(frame: pd.DataFrame, name: str) -> Figure:
    """Fight minus continue per bin of one situation: win probability and IP, 95% intervals."""
    fig = _figure(figsize=(9, 3.2))
    axes = fig.subplots(1, 2)
    x = np.arange(len(frame))
    labels = [f"{b}\nn={n}" for b, n in zip(frame["bin"], frame["points"], strict=True)]
    for ax, metric, scale, unit, colour in (
        (axes[0], "d_win", 100.0, "win probability (percentage points)", "#4C72B0"),
        (axes[1], "d_ip", 1.0, "IP", "#55A868"),
    ):
        y = frame[metric].to_numpy(dtype=float) * scale
        err = _err(y, frame[f"{metric}_lo"] * scale, frame[f"{metric}_hi"] * scale)
        ax.bar(x, y, color=colour)
        ax.errorbar(x, y, yerr=err, fmt="none", color="black", capsize=3)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xticks(x, labels, fontsize=7)
        ax.set_xlabel(name)
        ax.set_ylabel(f"fight - continue, {unit}", fontsize=8)
    return fig


def chart_two_way(means: pd.DataFrame, counts: pd.DataFrame) -> Figure:
    """Mean fight-minus-continue win difference (percentage points) per cell, with counts."""
    values = means.to_numpy(dtype=float) * 100
    finite = values[np.isfinite(values)]
    limit = float(np.abs(finite).max()) if finite.size else 1.0
    text = [
        [f"{v:+.1f}\nn={int(n)}" if np.isfinite(v) else "" for v, n in zip(vr, nr, strict=True)]
        for vr, nr in zip(values, counts.to_numpy(), strict=True)
    ]
    fig = _figure(figsize=(7.5, 3.6))
    ax = fig.add_subplot()
    image = _heatmap(
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


def chart_rule_grid(step: dict) -> Figure:
    """`one_step_rule`'s grid: every rule 'fight iff chance >= c/36 and risk >= w/36', its mean
    win minus never fighting's (all points); the best risk gate starred, the best chance-only
    rule circled."""
    grid = np.asarray(step["grid"], dtype=float)
    gain = (grid - grid[0, -1]) * 100  # column 37: never fight (the same in every row)
    limit = float(np.nanmax(np.abs(gain))) or 1.0
    fig = _figure(figsize=(8, 5.5))
    ax = fig.add_subplot()
    image = ax.imshow(gain, origin="lower", cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
    ax.plot(
        [1],
        [step["risk_36"]],
        marker="*",
        color="gold",
        markersize=16,
        markeredgecolor="black",
        linestyle="none",
        label="best risk gate (chance >= 1/36)",
    )
    ax.plot(
        [step["chance_only_36"]],
        [0],
        marker="o",
        color="none",
        markersize=10,
        markeredgecolor="black",
        linestyle="none",
        label="best rule on the chance alone",
    )
    ax.set_xlabel("fight only if the best chance of damage >= c/36  (37: never fight)")
    ax.set_ylabel("and the risk of an attack when continuing >= w/36", fontsize=8)
    ax.set_xticks(range(0, grid.shape[1], 4))
    ax.set_yticks(range(0, grid.shape[0], 4))
    ax.legend(fontsize=7, loc="upper right")
    fig.colorbar(image, ax=ax, shrink=0.8, label="win vs never fighting (pp)")
    return fig


# ------------------------------------------------------------------------------ the rule
def recommended_rule(rollouts: Rollouts) -> dict:
    """The rule the rollouts recommend, with its held-out gain over the strategies' own rules.

    From the rule rollouts (`reports.rollout.learn_rule`: each candidate rule played from the
    game's first decision point to its end) when the run has them; else from the one-decision
    forks (`one_step_rule`: fight iff the risk of continuing is at least w/36). Keys: source
    ("rule rollouts" or "one decision"), rule (a candidate name, e.g. ``fight_risk=6/36``),
    sentence, spec, fitted_on_half, held_out_points, gain_win and gain_ip ((mean, lo, hi) or
    None), and the underlying `learnt` or `one_step` dict.
    """
    from reports import rollout as ro

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
    rule = f"fight_risk={step['risk_36']}/36"
    return {
        "source": "one decision",
        "rule": rule,
        "sentence": ro.rule_sentence(rule),
        "spec": ro.rule_spec(rule),
        "fitted_on_half": f"fight_risk={step['fitted_on_half']}/36",
        "held_out_points": step["held_out_points"],
        "gain_win": step["gain_vs_own"],
        "gain_ip": None,
        "one_step": step,
    }


def risk_threshold_36(rule: str) -> int | None:
    """w of a ``fight_risk=w/36`` rule name; None for any other rule."""
    name, _, value = rule.partition("=")
    if name != "fight_risk":
        return None
    return int(value.split("/")[0])


# ------------------------------------------------------------------------------ the section
def add_fight_section(
    report: Report,
    tables: CardTables,
    rollouts: Rollouts | None = None,
    *,
    title: str = "Fight or explore?",
) -> Section:
    """Append the fight-or-explore section to `report` (exact odds; with `rollouts`, the
    estimated value of fighting and the learnt rule) and return it."""
    from sim.abyss.odds import fight_table

    sec = report.section(title)
    rule = None
    if rollouts is not None and rollouts.n_points:
        rule = recommended_rule(rollouts)
        _rule_headline(sec, rule, rollouts.meta)
    else:
        rollouts = None
        sec.note(
            f"No rollouts given: the section shows the exact odds only. The recommended rule "
            f"comes from forked rollouts (`{ROLLOUT_COMMAND}`)."
        )
    _intro(sec)
    table = fight_table(tables)
    _exact_fight(sec, table, tables)
    _exact_explore(sec, tables, rollouts, None if rule is None else rule["rule"])
    if rollouts is not None:
        _rollout_results(sec, rollouts, rule)
    return sec


def _pp(value: float) -> str:
    return f"{value * 100:+.1f}"


def _ci_text(gain: tuple[float, float, float], scale: float, unit: str) -> str:
    mean, lo, hi = (v * scale for v in gain)
    return f"{mean:+.1f} {unit} (95% interval {lo:+.1f} to {hi:+.1f})"


def _rule_headline(sec: Section, rule: dict, meta: dict) -> None:
    sec.paragraph(f"**{rule['sentence']}**")
    gains = _ci_text(rule["gain_win"], 100, "percentage points in win probability")
    if rule["gain_ip"] is not None:
        gains += " and " + _ci_text(rule["gain_ip"], 1, "IP")
    if rule["source"] == "rule rollouts":
        how = (
            f"The best of {len(rule['learnt']['table'])} candidate rules (the strategies' own "
            f"included), each played by the deciding player from its game's first decision "
            f"point to the end of the game ({meta.get('rule_points', '?')} games x "
            f"{meta.get('rule_replicates', '?')} replicates)."
        )
    else:
        how = (
            "Suggested by the one-decision forks alone (this run has no rule rollouts): only "
            "the decision at the point changes, the rest of the game follows the strategy's own "
            "rule."
        )
    text = (
        f"{how} The choice was checked out of sample: made on the even-numbered games, it "
        f"picked `{rule['fitted_on_half']}`, which changed the deciding player's result on the "
        f"{rule['held_out_points']:,} decision points of the odd-numbered games by {gains} "
        f"compared with the strategies' own rules (intervals over decision points). The rule "
        f"above is the choice made again on all points"
        + (
            "."
            if rule["fitted_on_half"] == rule["rule"]
            else "; the two choices differ, a sign that the best candidates are close."
        )
    )
    if rule["spec"]:
        text += (
            f" As a strategy parameter (greedy and heuristic strategies): `{rule['spec']}`, "
            f"e.g. `--strategies greedy:{rule['spec']}`."
        )
    sec.paragraph(text)


def _intro(sec: Section) -> None:
    sec.paragraph(
        "With the Leviathan expansion, a Monster revealed while exploring the Depths offers a "
        "choice. **Continue** the Exploration: a new Leviathan joins the Border in the zone "
        "two dice pick; if a Leviathan already sits there it attacks you first (Wound tokens, "
        "3 Pearls, 3 Allies or a free Lord, as printed on its card). Or **fight**: discard one "
        "Ally of the Leviathan's race and roll one die; Attack Power = die + Ally value (an "
        "Ally adding Pearls: +1 per Pearl spent after the roll; a two-dice Ally: the higher of "
        "two dice). Reaching the Resistance of the Life space the token is on removes a Life "
        "Point and earns the Monster tokens printed next to it (several spaces when the power "
        "covers their sum); a miss still earns 1 Pearl."
    )
    sec.paragraph(
        "The odds below are **exact**: every chance is enumerated over the dice, a count of "
        "the 36 outcomes of two dice. What a fight is worth over a whole game is "
        "**estimated** from forked rollouts: the same game played on both ways from the same "
        "decision point."
    )


def _exact_fight(sec: Section, table: pd.DataFrame, tables: CardTables) -> None:
    from sim.abyss.odds import SPENDING_RULE, token_ip_mean

    sec.paragraph(
        "The chance that one attack removes at least one Life Point depends only on the "
        "Resistance of the current space, the Ally's value and kind (and, for an Ally adding "
        "Pearls, the Pearls you hold). Lord powers are not counted."
    )
    sec.figure(
        chart_damage(table),
        "fight-damage",
        "Exact P(damage) of one attack, in 36ths, by Resistance (rows, the values on the cards) "
        "and Ally value; left a plain Ally (one die), right a two-dice Ally (the higher die)",
    )
    sec.table(
        damage_table(table),
        caption="Exact P(damage) of one attack, out of the 36 outcomes of two dice, by "
        "Resistance of the current Life space (rows) and Ally kind and value (columns)",
    )
    sec.figure(
        chart_pearls(table),
        "fight-pearls",
        f"Exact P(damage) of an Ally adding Pearls against Resistance {PEARLS_RESISTANCE}, by "
        f"Pearls available (rows) and Ally value; Pearls are spent by the rule: {SPENDING_RULE}",
    )
    ip = token_ip_mean(tables)
    sec.figure(
        chart_full_health(table, tables),
        "fight-full-health",
        "Each Leviathan card at full health (Life token on its top space; rows: printed number, "
        "race, Resistances of its Life spaces): exact P(kill) in one attack and the expected "
        "Monster tokens it earns, with a plain Ally of value 1-5. Taken from the base game's "
        f"deck (the only one worth IP), a token is worth {float(ip):.3f} IP on average",
    )


SEEN_COLUMN = "seen at the decision points (estimated)"


def _exact_explore(
    sec: Section, tables: CardTables, rollouts: Rollouts | None, rule: str | None
) -> None:
    from sim.abyss.odds import unknown_loss

    threshold = None if rule is None else risk_threshold_36(rule)
    risk = border_risk(tables, threshold)
    shown = border_risk_display(risk)
    if rollouts is not None:
        seen = rollouts.points.groupby("n_border")["arrival_risk"].agg(["mean", "size"])
        shown[SEEN_COLUMN] = [
            f"{seen.at[k, 'mean'] / 1000:.1%} (n={seen.at[k, 'size']})" if k in seen.index else ""
            for k in shown.index
        ]
    loss = unknown_loss(tables)
    sec.paragraph(
        "Exploring on is attacked when the new Leviathan lands on an occupied zone. The zones "
        "are not equally likely (a sum of 7 is 6 outcomes in 36, a sum of 2 one), so the risk "
        "depends on which zones are occupied, not only how many. An attack by a Leviathan "
        "drawn at random from the deck costs on average "
        + ", ".join(f"{float(v):.2f} {k.replace('_', ' ')}" for k, v in loss.items())
        + " (Wounds: 1 IP each; Pearls, Allies and Lords are capped by what you hold)."
    )
    caption = (
        "Exact P(attacked) when exploring on, by the number of Leviathans on the Border: for the "
        "least likely occupied zones, the mean over every set of zones (uniform), the sets "
        "built by the dice (each Leviathan lands by 2d6, exact when none was killed, since a "
        "landing on an occupied zone keeps the set), and the most likely zones"
    )
    if threshold is not None:
        caption += (
            f"; 'rule fights': the share of dice-built sets whose risk reaches {threshold}/36 "
            "(the recommended rule's threshold)"
        )
    if SEEN_COLUMN in shown:
        caption += "; last column: the mean risk met at the sampled decision points (estimated)"
    sec.table(shown, caption=caption)
    sec.figure(
        chart_border_risk(risk),
        "explore-risk",
        "Exact P(attacked) when exploring on, by Leviathans on the Border: the band spans the "
        "least to the most likely zones",
    )


# ------------------------------------------------------------------------------ rollouts
def _rollout_results(sec: Section, rollouts: Rollouts, rule: dict) -> None:
    from reports.rollout import one_step_rule

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
    _one_step(sec, step)
    if rule["source"] == "rule rollouts":
        _rule_rollouts(sec, rule["learnt"], rollouts.meta)
    if rollouts.verify is not None:
        _verification(sec, rollouts.verify)
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


def _verification(sec: Section, verify: dict) -> None:
    sec.paragraph(
        f"**Tournament check.** Each strategy played with its own fight rule and with the "
        f"learnt one (`{verify['spec']}`), in every combination of {verify['players']} of them, "
        f"every cyclic order and seat, {verify['blocks']:,} blocks ({verify['games']:,} games, "
        f"common random numbers). A positive difference means the learnt rule won more."
    )
    sec.table(
        verification_table(verify),
        caption="With the learnt rule minus without (estimated): win rate in percentage points "
        "and mean IP, 95% paired t intervals over blocks; significant: Holm-corrected over "
        "every pair of the tournament, 5%",
        float_format="{:.2f}",
    )


def _overall_table(sec: Section, points: pd.DataFrame) -> None:
    from reports.rollout import overall

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


def _one_step(sec: Section, step: dict) -> None:
    w = step["risk_36"]
    sec.paragraph(
        f"**One decision changed.** Which points should fight? Over the rules 'fight iff the "
        f"best chance of damage is at least c/36 and the risk of an attack when continuing at "
        f"least w/36', applied to the forks above (only the decision at the point changes), the "
        f"best gate on the risk is w = {w}/36 (fitted on even-numbered games: "
        f"{step['fitted_on_half']}/36)."
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
    fig = _figure(figsize=(9, 0.9 + 0.3 * len(table)))
    axes = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(table))
    colours = ["#DD8452" if r == learnt["rule"] else "#4C72B0" for r in table.index]
    for ax, metric, unit in ((axes[0], "win", "win (pp)"), (axes[1], "IP", "IP")):
        column = "win pp" if metric == "win" else "IP"
        v = table[column].to_numpy(dtype=float)
        err = _err(v, table[f"{metric} lo"], table[f"{metric} hi"])
        ax.barh(y, v, color=colours)
        ax.errorbar(v, y, xerr=err, fmt="none", color="black", capsize=3)
        ax.axvline(0, color="grey", linewidth=0.8)
        ax.set_xlabel(f"gain over the own rules, {unit}")
    axes[0].set_yticks(y, list(table.index), fontsize=8)
    axes[0].invert_yaxis()
    return fig


def _rule_rollouts(sec: Section, learnt: dict, meta: dict) -> None:
    sec.paragraph(
        f"**Rule rollouts.** A rule is more than one decision: it also decides later fights. "
        f"In the first {meta.get('rule_points', '?')} games, from the game's first decision "
        f"point to its end, the deciding player switched to each candidate rule "
        f"({meta.get('rule_replicates', '?')} replicates; every rule gets the same random "
        f"numbers). The recommended rule is `{learnt['rule']}`."
    )
    sec.table(
        rule_rollout_table(learnt),
        caption="Rule rollouts (estimated, all points): mean win share and IP of the deciding "
        "player under each candidate rule, and the gain over the strategies' own rules (win "
        "in percentage points) with 95% intervals over decision points; in-sample, so the best "
        "is optimistic (the held-out gain is in the first paragraph)",
        float_format="{:.2f}",
    )
    sec.figure(
        chart_rule_rollouts(learnt),
        "fight-rule-rollouts",
        "Rule rollouts: gain of each candidate rule over the strategies' own rules, with 95% "
        "intervals over decision points (estimated, in-sample); orange: the recommended rule",
    )


def _situations(sec: Section, points: pd.DataFrame) -> None:
    from reports.rollout import SITUATION_NAMES, SITUATIONS, all_situations, by_situation

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


def _two_way(sec: Section, points: pd.DataFrame) -> None:
    from reports.rollout import heatmap_table

    means, counts = heatmap_table(points, "n_border", "chance", "d_win")
    sec.figure(
        chart_two_way(means, counts),
        "fight-border-by-chance",
        "Fight minus continue in win probability (percentage points, estimated) by Leviathans "
        "on the Border and the best chance of damage; n: decision points in the cell (small "
        "cells are noisy; blank: none)",
    )


def pairing_table(gain: dict) -> pd.DataFrame:
    """`reports.rollout.pairing_gain` as a table: paired, unpaired and their ratio."""
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
    from reports.rollout import pairing_gain

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


# ------------------------------------------------------------------------------ the page
def fight_page(tables: CardTables, rollouts: Rollouts | None = None) -> Report:
    """A standalone report: the fight-or-explore section and how it was made."""
    from reports.render import Report

    subtitle = "exact odds"
    if rollouts is not None:
        subtitle += f" and {rollouts.n_points:,} forked decision points"
    report = Report(PAGE_TITLE, subtitle)
    add_fight_section(report, tables, rollouts)
    how = report.section("How this was made")
    how.paragraph(how_made(rollouts))
    return report


def how_made(rollouts: Rollouts | None) -> str:
    """The "How this was made" text, from `rollouts.meta`."""
    exact = "The odds are enumerated from the card data (`sim.abyss.odds`), with no sampling."
    if rollouts is None:
        return exact + f" No rollouts were given (`{ROLLOUT_COMMAND}` makes them)."
    meta = rollouts.meta
    strategies = ", ".join(f"`{s}`" for s in meta.get("strategies", [])) or "?"
    text = (
        f"{exact} Rollouts: seed {meta.get('seed', '?')}, {meta.get('players', '?')} players, "
        f"strategies {strategies}; {meta.get('points', rollouts.n_points):,} decision points x "
        f"{meta.get('replicates', '?')} replicates each way"
        f"{'' if meta.get('paired', True) else ' (unpaired)'}, "
        f"{_count(meta.get('games_played'))} games played in {_seconds(meta.get('seconds'))}"
    )
    if meta.get("rule_points"):
        n_rules = len(meta.get("rule_candidates") or []) or "?"
        text += (
            f", rule rollouts included ({meta['rule_points']:,} games x "
            f"{meta.get('rule_replicates', '?')} replicates x {n_rules} candidate rules)"
        )
    text += "."
    command = meta.get("command")
    if command:
        shown = " ".join(command) if isinstance(command, list | tuple) else str(command)
        text += f" Command: `{shown}`"
    return text


def _count(value: Any) -> str:
    return f"{int(value):,}" if isinstance(value, int | float) else "?"


def _seconds(value: Any) -> str:
    return f"{float(value):,.1f} s" if isinstance(value, int | float) else "? s"


def write_fight_page(
    run_dir: Path | str | None,
    out_dir: Path | str | None,
    tables: CardTables,
    rollouts: Rollouts | None = None,
) -> dict:
    """Write the standalone page (report.html, report.md, figures/*.png; atomically, by
    `Report.write`). `rollouts` default: read from the rollout run `run_dir` when given;
    `out_dir` default: ``run_dir/report``. Returns `Report.write`'s paths."""
    if rollouts is None and run_dir is not None:
        from reports.rollout import load_rollouts

        rollouts = load_rollouts(run_dir)
    if out_dir is None:
        if run_dir is None:
            raise ValueError("give out_dir, or run_dir to write into run_dir/report")
        out_dir = Path(run_dir) / "report"
    return fight_page(tables, rollouts).write(out_dir)
