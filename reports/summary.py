"""The text summary printed at the end of ``abyss-mc simulate`` (and saved as summary.txt).

Intervals are 95%: Wilson score intervals for win rates (`scipy.stats.binomtest`), Student t
intervals for mean scores. Win rates count every seat that shares first place as a winner.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
from rich import box
from rich.console import Console
from rich.table import Table
from scipy import stats

SCORE_SOURCES = {
    "score_lords": "lords",
    "score_locations": "locations",
    "score_allies": "allies",
    "score_monsters": "monsters",
    "score_wounds": "wounds",
    "score_scourge": "scourge",
}
#: Sources that only the Leviathan expansion scores; hidden when always zero.
LEVIATHAN_SOURCES = ("score_wounds", "score_scourge")
#: Per-game Leviathan counters shown as means per game.
LEVIATHAN_COUNTERS = {
    "n_fights": "Monsters fought (per game)",
    "n_continues": "Monsters explored past (per game)",
    "n_leviathan_attacks": "Leviathan attacks suffered (per game)",
    "n_kills": "Leviathans killed (per game)",
}


def summarize(seats_df: pd.DataFrame, games_df: pd.DataFrame, *, width: int = 128) -> str:
    """Render per-strategy, per-seat and per-game summaries of one run as plain text."""
    n_games = len(games_df)
    players = sorted(int(p) for p in pd.unique(games_df["n_players"])) if n_games else []
    out = io.StringIO()
    if len(seats_df):  # long strategy specs widen the page rather than wrap
        width += max(0, max(len(str(s)) for s in pd.unique(seats_df["strategy"])) - 8)
    console = Console(file=out, width=width, color_system=None, force_terminal=False)

    head = f"{n_games} game{'s' if n_games != 1 else ''}"
    if players:
        head += f", {'/'.join(map(str, players))} players"
    if len(players) == 1:
        head += f" (equal-strength win rate {1 / players[0]:.1%})"
    console.print(head, highlight=False)
    if not len(seats_df):
        return _strip(out.getvalue())

    console.print(_strategy_table(seats_df))
    console.print(_seat_table(seats_df))
    console.print(_game_table(games_df))
    return _strip(out.getvalue())


def wilson_interval(wins: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion of `wins` out of `n` (n >= 1)."""
    ci = stats.binomtest(int(wins), int(n)).proportion_ci(
        confidence_level=confidence, method="wilson"
    )
    return float(ci.low), float(ci.high)


def mean_halfwidth(values: pd.Series | np.ndarray, confidence: float = 0.95) -> float:
    """Half-width of the Student t confidence interval of the mean (NaN if fewer than 2 values)."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return math.nan
    return float(stats.t.ppf(0.5 + confidence / 2, len(values) - 1) * stats.sem(values))


def _strip(text: str) -> str:
    return "".join(line.rstrip() + "\n" for line in text.splitlines())


# --- tables ----------------------------------------------------------------------------------


def _rate(wins: int, n: int) -> str:
    low, high = wilson_interval(wins, n)
    return f"{wins / n:6.1%} [{low:.1%}, {high:.1%}]"


def _mean(values: pd.Series) -> str:
    half = mean_halfwidth(values)
    mean = float(np.mean(values))
    return f"{mean:.1f}" if math.isnan(half) else f"{mean:.1f} ± {half:.1f}"


def _sources(seats_df: pd.DataFrame) -> dict[str, str]:
    """Score sources to show: all present columns, dropping Leviathan ones that are always zero."""
    shown = {c: label for c, label in SCORE_SOURCES.items() if c in seats_df.columns}
    for c in LEVIATHAN_SOURCES:
        if c in shown and not seats_df[c].any():
            del shown[c]
    return shown


def _strategy_table(seats_df: pd.DataFrame) -> Table:
    sources = _sources(seats_df)
    table = Table(title="By strategy", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("strategy", no_wrap=True)
    table.add_column("games", justify="right")
    table.add_column("seats", justify="right")
    table.add_column("win rate [95% CI]", justify="right", no_wrap=True)
    table.add_column("score ± 95% CI", justify="right", no_wrap=True)
    for label in sources.values():
        table.add_column(label, justify="right")
    rows = []
    for name, grp in seats_df.groupby("strategy", observed=True, sort=True):
        wins, n = int(grp["winner"].sum()), len(grp)
        rows.append((wins / n, name, grp, wins, n))
    rows.sort(key=lambda r: -r[0])
    for _, name, grp, wins, n in rows:
        table.add_row(
            str(name),
            str(grp["game"].nunique()),
            str(n),
            _rate(wins, n),
            _mean(grp["score"]),
            *(f"{grp[c].mean():.1f}" for c in sources),
        )
    return table


def _seat_table(seats_df: pd.DataFrame) -> Table:
    table = Table(title="By seat (0 = first player)", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("seat", justify="right")
    table.add_column("seats", justify="right")
    table.add_column("win rate [95% CI]", justify="right", no_wrap=True)
    table.add_column("score ± 95% CI", justify="right", no_wrap=True)
    for seat, grp in seats_df.groupby("seat", sort=True):
        wins, n = int(grp["winner"].sum()), len(grp)
        table.add_row(str(seat), str(n), _rate(wins, n), _mean(grp["score"]))
    return table


def _game_table(games_df: pd.DataFrame) -> Table:
    table = Table(title="Games", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("")
    table.add_column("value", justify="right")
    table.add_row("turns (mean ± 95% CI)", _mean(games_df["turns"]))
    table.add_row("turns (min-max)", f"{games_df['turns'].min()}-{games_df['turns'].max()}")
    counts = games_df["end_reason"].value_counts(sort=True)
    for reason, count in counts.items():
        if count:
            table.add_row(f"ended: {reason}", f"{count} ({count / len(games_df):.1%})")
    for column, label in LEVIATHAN_COUNTERS.items():
        if column in games_df.columns and games_df[column].any():
            table.add_row(label, _mean(games_df[column]))
    return table
