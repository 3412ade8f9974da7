"""The exact odds of the fight-or-explore section (`games.abyss.report.fight_report`): one attack
on a Leviathan, and the risk of exploring on past a revealed Monster.

Every chance is enumerated over the dice (`games.abyss.engine.odds`), with no sampling, and shown
as a count of the 36 outcomes of two dice (`in_36ths`).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from reports.render.charts import figure, heatmap

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from games.abyss.engine.cards.loader import CardTables
    from games.abyss.report.rollout import Rollouts
    from reports.render.report import Section

#: The Resistance of the "add Pearls" chart (c).
PEARLS_RESISTANCE = 7
KIND_LABELS = {
    "plain": "plain Ally",
    "add_pearls": "Ally adding Pearls",
    "two_dice": "two-dice Ally",
}
#: The column the rollouts add to the exact risk table: the risk met at their decision points.
SEEN_COLUMN = "seen at the decision points (estimated)"
#: `border_risk`'s column of the recommended rule (the only one that depends on it)
RULE_FIGHTS = "rule fights (dice-filled)"


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
    from games.abyss.engine.odds import race_name

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
    from games.abyss.engine.odds import zone_chances

    p_land = zone_chances(tables)
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

    `explore_risk`'s P(attacked) for every set of k occupied zones, summarised four ways: the
    least likely zones, a uniformly random set (the mean over every set), the sets the dice build
    (`landing_occupancy`) and the most likely zones. Values are exact `Fraction`s. With
    `threshold_36`, also the share of dice-built sets whose risk reaches threshold_36/36.
    """
    from games.abyss.engine.odds import attack_chance

    n_zones = int(tables.n_border_zones)
    rows = []
    for k in range(1, n_zones + 1):
        risk = {
            frozenset(s): attack_chance(tables, s)
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
            row[RULE_FIGHTS] = sum(
                (p for s, p in landed.items() if risk[s] >= Fraction(threshold_36, 36)),
                Fraction(0),
            )
        rows.append(row)
    return pd.DataFrame(rows).set_index("Leviathans")


def border_risk_display(risk: pd.DataFrame) -> pd.DataFrame:
    """`border_risk` for a table: chances as ``n/36 (p%)``, the rule's share as a percentage."""
    out = risk.copy().astype(object)
    for column in out.columns:
        if column == RULE_FIGHTS:
            out[column] = [f"{float(v):.0%}" for v in risk[column]]
        else:
            out[column] = [f"{in_36ths(v)} ({float(v):.1%})" for v in risk[column]]
    return out


# ------------------------------------------------------------------------------ charts
def _chance_heatmap(ax: Axes, grid: pd.DataFrame, title: str, fmt=in_36ths):
    values = grid.to_numpy(dtype=float)
    text = [[fmt(v) if np.isfinite(v) else "" for v in row] for row in values]
    image = heatmap(ax, values, [str(i) for i in grid.index], [str(c) for c in grid.columns], text)
    ax.set_xlabel("Ally value")
    ax.set_ylabel(str(grid.index.name))
    ax.set_title(title, fontsize=9)
    return image


def chart_damage(table: pd.DataFrame) -> Figure:
    """P(damage) by Resistance and Ally value: a plain Ally and a two-dice Ally, side by side."""
    fig = figure(figsize=(9, 3.8))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, kind in zip(axes, ("plain", "two_dice"), strict=True):
        image = _chance_heatmap(ax, damage_by_resistance(table, kind), KIND_LABELS[kind])
    axes[1].set_ylabel("")
    fig.colorbar(image, ax=axes, shrink=0.8, label="P(damage)")
    return fig


def chart_pearls(table: pd.DataFrame, resistance: int = PEARLS_RESISTANCE) -> Figure:
    fig = figure(figsize=(5.2, 3.8))
    ax = fig.add_subplot()
    grid = damage_by_pearls(table, resistance)
    image = _chance_heatmap(ax, grid, f"Ally adding Pearls, Resistance {resistance}")
    fig.colorbar(image, ax=ax, shrink=0.8, label="P(damage)")
    return fig


def chart_full_health(table: pd.DataFrame, tables: CardTables) -> Figure:
    """P(kill) and expected Monster tokens of one plain attack on each card at full health."""
    kill = full_health(table, tables, "p_kill")
    tokens = full_health(table, tables, "expected_tokens")
    fig = figure(figsize=(10, 0.9 + 0.32 * len(kill)))
    axes = fig.subplots(1, 2, sharey=True)
    image = _chance_heatmap(axes[0], kill, "P(kill) in one attack")
    fig.colorbar(image, ax=axes[0], shrink=0.6)
    top = float(np.nanmax(tokens.to_numpy(dtype=float))) or 1.0
    values = tokens.to_numpy(dtype=float)
    text = [[f"{v:.2f}" for v in row] for row in values]
    image = heatmap(
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
    fig = figure(figsize=(6.5, 3.6))
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


# ------------------------------------------------------------------------------ the section
def add_exact_fight(sec: Section, table: pd.DataFrame, tables: CardTables) -> None:
    """The odds of one attack: P(damage) by Resistance, Ally kind and value, then each
    Leviathan card at full health."""
    from games.abyss.engine.odds import SPENDING_RULE, token_ip_mean

    sec.paragraph(
        "The chance that one attack removes at least one Life Point depends only on the "
        "Resistance of the current space, the Ally's value and kind (and, for an Ally adding "
        "Pearls, the Pearls you hold). Lord powers are not counted."
    )
    sec.pure_figure(
        chart_damage,
        table,
        name="fight-damage",
        caption="Exact P(damage) of one attack, in 36ths, by Resistance (rows, the values on the "
        "cards) and Ally value; left a plain Ally (one die), right a two-dice Ally (the higher "
        "die)",
    )
    sec.table(
        damage_table(table),
        caption="Exact P(damage) of one attack, out of the 36 outcomes of two dice, by "
        "Resistance of the current Life space (rows) and Ally kind and value (columns)",
    )
    sec.pure_figure(
        chart_pearls,
        table,
        name="fight-pearls",
        caption=f"Exact P(damage) of an Ally adding Pearls against Resistance {PEARLS_RESISTANCE}, "
        f"by Pearls available (rows) and Ally value; Pearls are spent by the rule: {SPENDING_RULE}",
    )
    ip = token_ip_mean(tables)
    sec.pure_figure(
        chart_full_health,
        table,
        tables,
        name="fight-full-health",
        caption="Each Leviathan card at full health (Life token on its top space; rows: printed "
        "number, race, Resistances of its Life spaces): exact P(kill) in one attack and the "
        "expected Monster tokens it earns, with a plain Ally of value 1-5. Taken from the base "
        f"game's deck (the only one worth IP), a token is worth {float(ip):.3f} IP on average",
    )


def add_exact_explore(
    sec: Section, tables: CardTables, rollouts: Rollouts | None, threshold: int | None
) -> None:
    """The risk of exploring on, by Leviathans on the Border; with the recommended rule's
    `threshold` (w of 'fight iff the risk is at least w/36'), how often the rule fights."""
    from games.abyss.engine.odds import unknown_loss

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
    sec.pure_figure(
        chart_border_risk,
        risk.drop(columns=RULE_FIGHTS, errors="ignore"),  # (the chart is the same for any rule)
        name="explore-risk",
        caption="Exact P(attacked) when exploring on, by Leviathans on the Border: the band spans "
        "the least to the most likely zones",
    )
