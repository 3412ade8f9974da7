"""The text summary printed at the end of ``abyss-mc simulate`` (and saved as summary.txt).

Intervals are 95%: Wilson score intervals for win rates, Student t intervals for mean scores. Win
rates count every seat that shares first place as a winner. A strategy's intervals take the game as
the unit: its seats in one game share the winner and the game's length, so they are not independent
draws (`clustered_rate`, `clustered_mean`); with one seat per game they are the plain intervals.
The quantiles come from `scipy.special` (`ndtri`, `stdtrit`): importing `scipy.stats` alone would
double the start-up time of `abyss-mc simulate`; the tests check the results against
`scipy.stats`.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
from rich import box
from rich.console import Console
from rich.table import Table

from reports.stats.intervals import (
    clustered_mean,
    clustered_rate,
    mean_from_sums,
    wilson_interval,
)

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
    """The summary of per-game tables (`seats.parquet`, `games.parquet`)."""
    from games.abyss.engine.aggregate import Aggregates

    if not len(games_df):
        return "0 games\n"
    return summarize_aggregates(Aggregates.from_frames(seats_df, games_df), width=width)


def summarize_aggregates(agg, *, width: int = 128) -> str:
    """Render per-strategy, per-seat and per-game summaries of one run's aggregates as text."""
    out = io.StringIO()
    # long strategy specs widen the page rather than wrap
    width += max(0, max((len(name) for name in agg.strategies), default=0) - 8)
    console = Console(file=out, width=width, color_system=None, force_terminal=False)
    n = agg.n_players
    head = f"{agg.n_games} game{'s' if agg.n_games != 1 else ''}, {n} players"
    head += f" (equal-strength win rate {1 / n:.1%})"
    console.print(head, highlight=False)
    if not agg.n_games:
        return _strip(out.getvalue())
    console.print(_strategy_table(agg))
    console.print(_seat_table(agg))
    console.print(_game_table(agg))
    return _strip(out.getvalue())


def _strip(text: str) -> str:
    return "".join(line.rstrip() + "\n" for line in text.splitlines())


# --- tables ----------------------------------------------------------------------------------


def _rate(wins: int, n: int, interval: tuple[float, float] | None = None) -> str:
    low, high = interval or wilson_interval(wins, n)
    return f"{wins / n:6.1%} [{low:.1%}, {high:.1%}]"


def strategy_score(agg, k: int, confidence: float = 0.95) -> tuple[float, float]:
    """Mean IP of strategy k and its half-width, the game as the unit (the seat-games as
    independent for aggregates without `clusters`, from older versions)."""
    seats, total = int(agg.seats[k].sum()), int(agg.sums[k, :, 0].sum())
    games, seats2, _, _, seats_total, total2 = (int(x) for x in agg.clusters[k])
    if not games:
        return mean_from_sums(seats, total, float(agg.squares[k, :, 0].sum()), confidence)
    return clustered_mean(games, seats, total, seats2, seats_total, total2, confidence)


def strategy_rate(agg, k: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson interval of strategy k's win rate, the game as the unit (as `strategy_score`)."""
    seats, wins = int(agg.seats[k].sum()), int(agg.wins[k].sum())
    games, seats2, seats_wins, wins2, _, _ = (int(x) for x in agg.clusters[k])
    if not games:
        return wilson_interval(wins, seats, confidence)
    return clustered_rate(seats, wins, seats2, seats_wins, wins2, confidence)


def _mean_from_sums(n: int, total: float, squares: float, confidence: float = 0.95) -> str:
    """Mean ± Student t half-width, as text."""
    return _plus_minus(n, *mean_from_sums(n, total, squares, confidence))


def _plus_minus(n: int, mean: float, half: float) -> str:
    """Mean ± half-width of n values, as text."""
    if n == 0:
        return "-"
    if n < 2 or math.isnan(half):
        return f"{mean:.1f}"
    return f"{mean:.1f} ± {half:.1f}"


def _sources(agg) -> dict[int, str]:
    """Score sources to show (index into the aggregates' values), dropping Leviathan ones that
    are always zero."""
    from games.abyss.engine.aggregate import VALUES

    shown = {}
    for i, (column, _) in enumerate(VALUES):
        if column in SCORE_SOURCES:
            if column in LEVIATHAN_SOURCES and not agg.squares[:, :, i].any():
                continue
            shown[i] = SCORE_SOURCES[column]
    return shown


def _strategy_table(agg) -> Table:
    sources = _sources(agg)
    title = "By strategy"
    if agg.clusters[:, 0].any():  # aggregates of older versions have no per-game sums
        title += " (intervals by game: a strategy's seats in one game are not independent)"
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("strategy", no_wrap=True)
    table.add_column("games", justify="right")
    table.add_column("seats", justify="right")
    table.add_column("win rate [95% CI]", justify="right", no_wrap=True)
    table.add_column("score ± 95% CI", justify="right", no_wrap=True)
    for label in sources.values():
        table.add_column(label, justify="right")
    rows = []
    for k, name in enumerate(agg.strategies):
        n = int(agg.seats[k].sum())
        if n:
            rows.append((int(agg.wins[k].sum()) / n, k, name, n))
    rows.sort(key=lambda r: -r[0])
    for _, k, name, n in rows:
        sums = agg.sums[k].sum(axis=0)
        table.add_row(
            str(name),
            str(agg.n_games),
            str(n),
            _rate(int(agg.wins[k].sum()), n, strategy_rate(agg, k)),
            _plus_minus(n, *strategy_score(agg, k)),
            *(f"{sums[i] / n:.1f}" for i in sources),
        )
    return table


def _seat_table(agg) -> Table:
    table = Table(title="By seat (1 = first player)", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("seat", justify="right")
    table.add_column("seats", justify="right")
    table.add_column("win rate [95% CI]", justify="right")
    table.add_column("score ± 95% CI", justify="right")
    for seat in range(agg.n_players):
        n = int(agg.seats[:, seat].sum())
        wins = int(agg.wins[:, seat].sum())
        total, squares = agg.sums[:, seat, 0].sum(), agg.squares[:, seat, 0].sum()
        table.add_row(
            str(seat + 1), str(n), _rate(wins, n), _mean_from_sums(n, float(total), float(squares))
        )
    return table


def _game_table(agg) -> Table:
    from games.abyss.engine.aggregate import END_REASONS, GAME_VALUES

    table = Table(title="Games", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("")
    table.add_column("value", justify="right")
    n = agg.n_games
    table.add_row(
        "turns (mean ± 95% CI)",
        _mean_from_sums(n, float(agg.game_sums[0]), float(agg.game_squares[0])),
    )
    played = np.nonzero(agg.turns_histogram)[0]
    table.add_row("turns (min-max)", f"{played.min()}-{played.max()}")
    for i in np.argsort(-agg.end_reasons, kind="stable"):
        count = int(agg.end_reasons[i])
        if count:
            table.add_row(f"ended: {END_REASONS[i]}", f"{count} ({count / n:.1%})")
    for i, (column, _) in enumerate(GAME_VALUES):
        if column in LEVIATHAN_COUNTERS and agg.game_sums[i]:
            table.add_row(
                LEVIATHAN_COUNTERS[column],
                _mean_from_sums(n, float(agg.game_sums[i]), float(agg.game_squares[i])),
            )
    return table
