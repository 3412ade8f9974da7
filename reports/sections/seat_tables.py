"""Seat and strategy tables and their charts, for every game's balance report: win rates by
seat (Wilson intervals, or t intervals over a tournament's blocks), strategies' win rates, the
pairwise matrix, points by source, per-card rates, seats by player count.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.render.charts import error_bars, figure, legend_below, legend_of_panels, legend_outside
from reports.stats.intervals import wilson_interval

CONF = 0.95


def seat_rates(games, wins, conf: float = CONF, se: bool = False) -> pd.DataFrame:
    """Win rate of each seat from its games and wins (a shared win counts its share, rounded),
    with Wilson intervals; index: seat from 1. `se`: with the binomial standard error (each game
    an independent deal)."""
    rows = []
    for seat, (n, w) in enumerate(zip(games, wins, strict=True)):
        n, w = int(n), int(round(w))
        lo, hi = wilson_interval(w, n, conf)
        rate = w / n if n else np.nan
        rows.append({"seat": seat + 1, "games": n, "win rate": rate, "lo": lo, "hi": hi,
                     **({"se": float(np.sqrt(rate * (1 - rate) / n)), "deals": n} if se else {})})
    return pd.DataFrame(rows).set_index("seat")


def seat_advantage_blocks(seats: pd.DataFrame, conf: float = CONF,
                          se: bool = False) -> pd.DataFrame:  # fmt: skip
    """Win share of each seat in a tournament, with t intervals over blocks (as
    `reports.stats.blocks.strategy_summary` does for strategies, the seat playing the strategy's
    part);
    `se`: with the standard error over blocks."""
    from reports.stats import blocks as stats

    df = seats[["block", "table", "seat", "win", "score", "rank"]].rename(columns={"score": "ip"})
    df = df.assign(strategy=(df["seat"] + 1).astype(str))
    summary = stats.strategy_summary(df, conf=conf)
    out = pd.DataFrame(
        {
            "games": summary["games"],
            "win rate": summary["win_rate"],
            "lo": summary["win_lo"],
            "hi": summary["win_hi"],
            **({"se": summary["win_se"], "deals": summary["blocks"]} if se else {}),
        }
    )
    out.index = out.index.astype(int)
    out.index.name = "seat"
    return out.sort_index()


def chart_seats(frame: pd.DataFrame, n_players: int):
    fig = figure(figsize=(6, 3.5))
    ax = fig.add_subplot()
    x = frame.index.to_numpy()
    y = frame["win rate"].to_numpy()
    ax.bar(x, y, color="#4C72B0")
    ax.errorbar(
        x, y, yerr=error_bars(y, frame["lo"], frame["hi"]), fmt="none", color="black", capsize=4
    )
    ax.axhline(1 / n_players, color="grey", linestyle="--", label=f"fair share 1/{n_players}")
    ax.set_xlabel("seat (1 = first player)")
    ax.set_ylabel("win rate")
    ax.set_xticks(x)
    legend_outside(ax)
    return fig


def chart_rates(frame: pd.DataFrame, n_players: int):
    fig = figure(figsize=(7, 0.5 + 0.45 * len(frame)))
    ax = fig.add_subplot()
    frame = frame.sort_values("win rate")
    y = np.arange(len(frame))
    v = frame["win rate"].to_numpy()
    ax.barh(y, v, color="#55A868")
    ax.errorbar(
        v,
        y,
        xerr=error_bars(v, frame["win lo"], frame["win hi"]),
        fmt="none",
        color="black",
        capsize=3,
    )
    ax.axvline(1 / n_players, color="grey", linestyle="--")
    ax.set_yticks(y, [str(s) for s in frame.index])
    ax.set_xlabel("win rate (95% interval)")
    return fig


def chart_matrix(matrix: pd.DataFrame, significant: pd.DataFrame | None, title: str):
    """Pairwise differences, rows and columns in the order given (the strongest first)."""
    from reports.render.charts import heatmap

    fig = figure(figsize=(1.5 + 0.8 * len(matrix), 1.2 + 0.7 * len(matrix)))
    ax = fig.add_subplot()
    values = matrix.to_numpy(dtype=float, copy=True)
    np.fill_diagonal(values, np.nan)
    limit = np.nanmax(np.abs(values)) if np.isfinite(values).any() else 1.0
    labels = [str(s) for s in matrix.index]
    star = significant.to_numpy(dtype=bool) if significant is not None else np.zeros_like(values)
    text = [[f"{values[i, j]:+.3f}{'*' if star[i, j] else ''}" for j in range(len(labels))]
            for i in range(len(labels))]  # fmt: skip
    image = heatmap(ax, values, labels, labels, text, cmap="RdBu", vmin=-limit, vmax=limit,
                    fontsize=7)  # fmt: skip
    ax.set_aspect("equal")
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    fig.colorbar(image, ax=ax, shrink=0.8)
    ax.set_title(title, fontsize=9)
    return fig


def chart_sources(frame: pd.DataFrame):
    fig = figure(figsize=(7, 0.8 + 0.45 * len(frame)))
    ax = fig.add_subplot()
    left_pos = np.zeros(len(frame))
    left_neg = np.zeros(len(frame))
    y = np.arange(len(frame))
    for column in frame.columns:
        v = frame[column].to_numpy(dtype=float)
        left = np.where(v >= 0, left_pos, left_neg)
        ax.barh(y, v, left=left, label=column)
        left_pos += np.where(v >= 0, v, 0)
        left_neg += np.where(v < 0, v, 0)
    ax.set_yticks(y, [str(s) for s in frame.index])
    ax.set_xlabel("mean IP per player")
    ax.invert_yaxis()  # the first strategy on top, as in the tables
    legend_below(ax, ncol=len(frame.columns))
    return fig


def chart_cards(frame: pd.DataFrame, overall: float, title: str):
    frame = frame[frame["held"] > 0].sort_values("win rate")
    fig = figure(figsize=(7, 0.6 + 0.22 * len(frame)))
    ax = fig.add_subplot()
    y = np.arange(len(frame))
    v = frame["win rate"].to_numpy()
    ax.errorbar(
        v,
        y,
        xerr=error_bars(v, frame["lo"], frame["hi"]),
        fmt="o",
        color="#C44E52",
        capsize=2,
        markersize=3,
    )
    ax.axvline(overall, color="grey", linestyle="--", label="all players")
    ax.set_yticks(y, [str(s) for s in frame.index], fontsize=6)
    ax.set_xlabel("win rate (95% interval)")
    ax.set_title(title, fontsize=9)
    legend_outside(ax)
    return fig


def chart_seats_by_count(table: pd.DataFrame):
    fig = figure(figsize=(7, 3.6))
    ax = fig.add_subplot()
    counts = sorted({n for n, _ in table.index})
    width = 0.8 / len(counts)
    for i, n in enumerate(counts):
        rows = table.loc[n]
        x = rows.index.to_numpy() + (i - (len(counts) - 1) / 2) * width
        y = rows["win rate"].to_numpy()
        ax.bar(x, y, width=width, label=f"{n} players")
        ax.errorbar(
            x, y, yerr=error_bars(y, rows["lo"], rows["hi"]), fmt="none", color="black", capsize=2
        )
        ax.hlines(
            1 / n,
            x.min() - width / 2,
            x.max() + width / 2,
            colors="grey",
            linestyles="--",
            linewidth=0.8,
        )
    ax.set_xticks(range(1, max(counts) + 1))
    ax.set_xlabel("seat (1 = first player)")
    ax.set_ylabel("win share")
    legend_outside(ax)
    return fig


def chart_seat_verdicts(tables: dict[str, dict[int, pd.DataFrame]]):
    """The first screen's picture: each seat's win share minus the fair 1/n with the seat
    verdict's (simultaneous) interval, one panel per player count, one bar colour per play
    strength. `tables`: strength -> player count -> the seat verdict's table (`win rate`, `lo`,
    `hi`; index: seat from 1)."""
    counts = sorted({n for by_count in tables.values() for n in by_count})
    fig = figure(figsize=(2.2 + 1.9 * len(counts), 2.5))
    axes = fig.subplots(1, len(counts), sharey=True, squeeze=False)[0]
    width = 0.8 / max(1, len(tables))
    for ax, n in zip(axes, counts, strict=True):
        for i, (tier, by_count) in enumerate(tables.items()):
            if n not in by_count:
                continue
            rows = by_count[n]
            x = rows.index.to_numpy() + (i - (len(tables) - 1) / 2) * width
            y = rows["win rate"].to_numpy() - 1 / n
            ax.bar(x, 100 * y, width=width, label=tier, color=f"C{i}")
            ax.errorbar(x, 100 * y, yerr=100 * error_bars(y, rows["lo"] - 1 / n,
                        rows["hi"] - 1 / n), fmt="none", color="black", capsize=2,
                        linewidth=0.8)  # fmt: skip
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xticks(range(1, n + 1))
        ax.set_title(f"{n} players", fontsize=9)
        ax.set_xlabel("seat", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0].set_ylabel("win share − fair (points)", fontsize=8)
    if len(tables) > 1:
        legend_of_panels(axes)
    return fig
