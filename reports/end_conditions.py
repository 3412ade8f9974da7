"""How games end, for any game whose per-game tables say why (`end_reason`) and whose turn
triggered it (`trigger_seat`, -1 for none): how often each end trigger ends the game, which seat
and which strategy trigger it, and whether the player who ends the game wins (docs/metrics.md).

A game is identified by its player count and `block, table` in a tournament, `game` otherwise;
a tournament's unit for intervals is the block (one deal), a simulation's the game.
"""

from __future__ import annotations

import pandas as pd

from reports.intervals import mean_halfwidth


def _keys(seats: pd.DataFrame) -> list[str]:
    return ["block", "table"] if {"block", "table"} <= set(seats.columns) else ["game"]


def _count(df: pd.DataFrame) -> str:
    return "n_players" if "n_players" in df.columns else "players"


def triggers(seats: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """One row per game that a player's turn ended: its player count, end reason, the trigger's
    seat and strategy and its share of the win (`win`, or 1/k of the winners by `rank`), and
    the unit of its interval (`unit`: the block or the game)."""
    keys, count = _keys(seats), _count(games)
    if _count(seats) in seats.columns:  # a tournament's tables are numbered per player count
        keys = [*keys, _count(seats)]
        games = games.rename(columns={count: _count(seats)})
        count = _count(seats)
    if "win" not in seats:
        first = (seats["rank"] == 1).astype(float)
        seats = seats.assign(win=first / first.groupby([seats[k] for k in keys]).transform("sum"))
    g = games[games["trigger_seat"] >= 0][list(dict.fromkeys([*keys, count, "end_reason",
                                                              "trigger_seat"]))]  # fmt: skip
    s = seats[[*keys, "seat", "strategy", "win"]]
    out = g.merge(s, left_on=[*keys, "trigger_seat"], right_on=[*keys, "seat"])
    unit = out["block"] if "block" in out else out["game"]
    return pd.DataFrame({"players": out[count].astype(int), "end_reason": out["end_reason"],
                         "seat": out["seat"].astype(int) + 1, "strategy": out["strategy"],
                         "win": out["win"].astype(float), "unit": unit})  # fmt: skip


def _mean(values: pd.Series, units: pd.Series, confidence: float = 0.95):
    """Mean with a t interval whose unit is `units` (per-unit means)."""
    per_unit = values.groupby(units.to_numpy()).mean().to_numpy()
    mean = float(values.mean())
    half = mean_halfwidth(per_unit, confidence) if len(per_unit) > 1 else float("nan")
    return mean, mean - half, mean + half


def end_table(games: pd.DataFrame, trig: pd.DataFrame) -> pd.DataFrame:
    """Per player count and end reason: the share of games it ends, the trigger's win share with
    its interval, against the fair 1/n."""
    count = _count(games)
    rows = []
    for (n, reason), part in games.groupby([count, "end_reason"], observed=True):
        total = int((games[count] == n).sum())
        t = trig[(trig["players"] == n) & (trig["end_reason"] == reason)]
        win, lo, hi = _mean(t["win"], t["unit"]) if len(t) else (float("nan"),) * 3
        rows.append({"players": int(n), "end": str(reason), "share of games": len(part) / total,
                     "trigger's win share": win, "lo": lo, "hi": hi, "fair": 1 / int(n)})
    return pd.DataFrame(rows).set_index(["players", "end"])


def trigger_verdict(trig: pd.DataFrame, n_players: int):
    """Does ending the game pay? The win share of the player whose turn triggered the end,
    against the fair 1/n (t interval over blocks or games): a finding when it excludes it."""
    from reports.verdicts import Verdict
    from reports.verdicts import pct as _pct

    t = trig[trig["players"] == n_players]
    if len(t) < 2:
        return None
    win, lo, hi = _mean(t["win"], t["unit"])
    fair = 1 / n_players
    figures = (f"the player whose turn triggers the end wins {_pct(win)} [{_pct(lo)}, "
               f"{_pct(hi)}] of {len(t):,} games, against a fair {_pct(fair)}")  # fmt: skip
    if lo > fair or hi < fair:
        word = "pays" if lo > fair else "costs"
        return Verdict("ending the game", n_players, True,
                       f"At {n_players} players ending the game {word}: {figures}.", key=word,
                       short=f"{word} (wins {_pct(win)})")  # fmt: skip
    return Verdict("ending the game", n_players, False,
                   f"At {n_players} players the data cannot tell whether ending the game pays: "
                   f"{figures}.")  # fmt: skip


def by_strategy(trig: pd.DataFrame, seats: pd.DataFrame) -> pd.DataFrame:
    """Per player count and strategy: the share of its games it ends, and its win share then."""
    count = _count(seats)
    played = seats.groupby([count, "strategy"], observed=True).size()
    rows = []
    for (n, strategy), part in trig.groupby(["players", "strategy"], observed=True):
        rows.append({"players": int(n), "strategy": str(strategy),
                     "ends its games": len(part) / played.loc[(n, strategy)],
                     "win share when it ends": float(part["win"].mean())})  # fmt: skip
    return pd.DataFrame(rows).set_index(["players", "strategy"])


def _known(seats, games) -> bool:
    return seats is not None and games is not None and "trigger_seat" in games


def _with_count(seats: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """The seats with their game's player count (a simulation's seats do not carry it)."""
    if _count(seats) in seats.columns:
        return seats
    keys = _keys(seats)
    counts = games[[*keys, _count(games)]].drop_duplicates(keys)
    return seats.merge(counts, on=keys, how="left")


def end_verdicts(seats: pd.DataFrame | None, games: pd.DataFrame | None) -> list:
    """Whether ending the game pays, one verdict per player count (none without the tables or
    a run made before the trigger was recorded)."""
    if not _known(seats, games):
        return []
    seats = _with_count(seats, games)
    trig = triggers(seats, games)
    counts = sorted(int(n) for n in games[_count(games)].unique())
    return [v for n in counts if (v := trigger_verdict(trig, n)) is not None]


def add_end_section(report, seats: pd.DataFrame | None, games: pd.DataFrame | None) -> None:
    """The section `How games end` of one run (the report's own play strength)."""
    if not _known(seats, games):
        return
    seats = _with_count(seats, games)
    trig = triggers(seats, games)
    sec = report.section("How games end")
    sec.paragraph(
        "How often each end trigger ends the game, and whether the player whose turn triggered "
        "it (every other player then takes one last turn) wins more than the fair 1/n; "
        "intervals are 95% over blocks (a tournament) or games. By strategy: the share of its "
        "games each strategy ends, and its win share when it does."
    )
    sec.table(end_table(games, trig), float_format="{:.3f}")
    if len(trig):
        sec.table(by_strategy(trig, seats), float_format="{:.3f}")
