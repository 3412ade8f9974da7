"""How games end, for any game whose per-game tables say why (`end_reason`) and whose turn
triggered it (`trigger_seat`, -1 for none): how often each end trigger ends the game, which seat
and which strategy trigger it, and the trigger's raw win share (descriptive); and whether ending
the game pays beyond being ahead (the verdict, docs/metrics.md).

The player who ends the game is usually ahead, so its raw win share says nothing about ending:
the verdict compares it with seats in the same position that did not end the game. The
position is each seat's standing just before the ending turn, read off the running scores of
the sampled games (`reports.tension_report.Sample`); the trigger of a sampled game is found in
the games table by its deal (the game index) and its seats' final scores and win shares
(`sampled_triggers`). Intervals: a tournament's unit is the block (one deal) in the table, the
deal in the verdict; a simulation's the game.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from reports.intervals import mean_halfwidth
from reports.tension import NOT_PLAYED, rounds_played

#: the verdict's question (its row in the verdict table, per player count)
TOPIC = "ending the game, beyond being ahead"
#: the quantity the verdict rests on (`reports.verdicts.Effect`, a share of the win)
EFFECT = "trigger's win share minus same-position seats'"


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
    """Per player count and end reason: the share of games it ends, the trigger's raw win share
    with its interval (descriptive: the trigger is usually ahead; `ending_verdict` tests
    ending)."""
    count = _count(games)
    rows = []
    for (n, reason), part in games.groupby([count, "end_reason"], observed=True):
        total = int((games[count] == n).sum())
        t = trig[(trig["players"] == n) & (trig["end_reason"] == reason)]
        win, lo, hi = _mean(t["win"], t["unit"]) if len(t) else (float("nan"),) * 3
        rows.append({"players": int(n), "end": str(reason), "share of games": len(part) / total,
                     "trigger's win share": win, "lo": lo, "hi": hi})
    return pd.DataFrame(rows).set_index(["players", "end"])


# --- the verdict: ending against seats in the same position ------------------------------------
def sampled_triggers(sample, seats: pd.DataFrame, games: pd.DataFrame, n_players: int):
    """The trigger seat of each sampled game [g] (-1: stopped by the turn limit, or not found).

    A sampled game is known by its deal (`sample.deal`, the game index every table of the deal
    shares) and its seating, which the games table does not hold: the tables of a deal differ
    in who sits where, so their final scores and win shares differ too. The join is on the
    deal and every seat's final score and win share; a sampled game whose key several tables
    share with different triggers (never seen; the same seating plays the same game) is left
    out (-1)."""
    seats = _with_count(seats, games)
    keys, count = _keys(seats), _count(seats)
    if "win" not in seats:
        first = (seats["rank"] == 1).astype(float)
        seats = seats.assign(win=first / first.groupby([seats[k] for k in keys]).transform("sum"))
    mine = seats[seats[count] == n_players]
    wide = mine.pivot_table(index=keys, columns="seat", values=["score", "win"], aggfunc="first")
    wide.columns = [f"{what}{seat}" for what, seat in wide.columns]
    g = games[games[_count(games)] == n_players]
    tables = wide.reset_index().merge(g[list(dict.fromkeys([*keys, "game", "trigger_seat"]))],
                                      on=keys)  # fmt: skip
    n = sample.final.shape[1]
    deal = np.arange(len(sample.final)) if sample.deal is None else np.asarray(sample.deal)
    kept = pd.DataFrame({"game": deal, "row": np.arange(len(deal))})
    for seat in range(n):
        kept[f"score{seat}"] = sample.final[:, seat]
        kept[f"win{seat}"] = sample.win[:, seat]
    on = ["game", *(f"{w}{s}" for s in range(n) for w in ("score", "win"))]
    for seat in range(n):  # win shares as the same floats on both sides
        for side in (kept, tables):
            side[f"win{seat}"] = side[f"win{seat}"].astype(float).round(9)
    found = kept.merge(tables[[*on, "trigger_seat"]], on=on)
    one = found.groupby("row")["trigger_seat"].agg(["min", "max"])
    one = one[one["min"] == one["max"]]["min"]
    out = np.full(len(deal), -1)
    out[one.index.to_numpy()] = one.to_numpy()
    return out


def standings(sample, trigger: np.ndarray) -> pd.DataFrame:
    """One row per seat of each sampled game ended by a player's turn: its deal, whether it
    ended the game, its win share, who it is (`player`: its strategy and seat) and its standing
    just before the ending turn: `lead`, its score minus the best other seat's, and `behind_k`,
    its score minus the k-th best other seat's.

    A round is one turn of each seat from seat 0; after the trigger's turn every other seat
    takes one last turn. So the trigger's turn is in the last round played when it is seat 0,
    else in the one before; just before it, the seats before it have had their turn of that
    round and the others not, and from there every seat has one turn left. (A game scored after
    each round, as Conspiracy's samples, reads a seat's score after its turn as its score after
    the round.)"""
    from reports.tension import filled_scores

    ended = trigger >= 0
    scores = filled_scores(sample.scores, NOT_PLAYED)[ended]
    t = trigger[ended]
    rounds = rounds_played(sample.scores, NOT_PLAYED)[ended]
    ending_round = np.where(t == 0, rounds - 1, rounds - 2)
    n = scores.shape[2]
    seat = np.arange(n)[None, :]
    at = np.where(seat < t[:, None], ending_round[:, None], ending_round[:, None] - 1)
    before = scores[np.arange(len(t))[:, None], np.maximum(at, 0), seat]
    before = np.where(at >= 0, before, 0).astype(float)
    # [game, seat, k]: the seat's score minus its k-th best other seat's
    gaps = np.stack([np.sort(before[:, [s]] - np.delete(before, s, axis=1), axis=1)
                     for s in range(n)], axis=1)  # fmt: skip
    deal = np.arange(len(trigger)) if sample.deal is None else np.asarray(sample.deal)
    seating = np.zeros((len(t), n), int) if sample.seating is None else sample.seating[ended]
    rows = {"deal": np.repeat(deal[ended], n), "ended": (seat == t[:, None]).ravel(),
            "win": sample.win[ended].ravel().astype(float),
            "player": (np.asarray(seating) * n + seat).ravel(), "lead": gaps[:, :, 0].ravel()}
    rows |= {f"behind_{k + 1}": gaps[:, :, k].ravel() for k in range(1, n - 1)}
    return pd.DataFrame(rows)


class Ending(NamedTuple):
    """The trigger's win share minus that of seats in the same position that did not end the
    game (`ending_effect`), its interval and standard error over deals, the deals in the model,
    the sampled games ended by a player and those whose lead some other seat also had."""

    estimate: float
    lo: float
    hi: float
    se: float
    deals: int
    games: int
    matched: int


def ending_effect(rows: pd.DataFrame, confidence: float = 0.95) -> Ending:
    """The win share of the seats that ended the game minus that of seats in the same position
    that did not: a linear model of the win share on ending, one constant per lead (a seat that
    ended the game is compared with seats that did not at the same lead over the best other
    seat; a lead no such seat had is left out), the gaps to the other seats and one constant per
    strategy and seat; standard errors clustered by deal (statsmodels), t on deals - 1 degrees
    of freedom. Leads are exact (scores are whole points), so that no class of leads holds the
    enders at its top and the others at its bottom."""
    import statsmodels.api as sm

    games = int(rows["ended"].sum())
    cell = pd.factorize(rows["lead"])[0]
    kinds = pd.Series(rows["ended"].to_numpy()).groupby(cell).agg(["min", "max"])
    rows = rows[np.isin(cell, kinds.index[kinds["min"] != kinds["max"]])]
    deals, matched = int(rows["deal"].nunique()), int(rows["ended"].sum())
    if deals < 2 or not matched:
        return Ending(math.nan, math.nan, math.nan, math.nan, deals, games, matched)
    behind = rows[[c for c in rows if c.startswith("behind_")]].to_numpy(float)
    x = np.column_stack([rows["ended"].to_numpy(float),
                         pd.get_dummies(rows["lead"]).to_numpy(float), behind,
                         pd.get_dummies(rows["player"], drop_first=True).to_numpy(float)])
    if len(x) <= x.shape[1]:  # no more seats than the model's terms: no standard error
        return Ending(math.nan, math.nan, math.nan, math.nan, deals, games, matched)
    fit = sm.OLS(rows["win"].to_numpy(), x).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(rows["deal"])[0]}, use_t=True)
    lo, hi = fit.conf_int(1 - confidence)[0]
    return Ending(float(fit.params[0]), float(lo), float(hi), float(fit.bse[0]), deals, games,
                  matched)  # fmt: skip


def ending_verdict(sample, trigger: np.ndarray, n_players: int):
    """Does ending the game pay beyond being ahead? `ending_effect` on the sampled games: a
    finding when its 95% interval over deals excludes 0 ("pays" above, "costs" below); None
    without two sampled games ended by a player."""
    from reports.verdicts import Effect, Verdict
    from reports.verdicts import pct as _pct
    from reports.verdicts import pts as _pts

    if (trigger >= 0).sum() < 2:
        return None
    rows = standings(sample, trigger)
    e = ending_effect(rows)
    raw = float(rows.loc[rows["ended"], "win"].mean())
    figures = (f"the player whose turn ends it wins {_pct(raw)} of {e.games:,} sampled games on "
               f"{e.deals:,} deals, {_pts(e.estimate)} points [{_pts(e.lo)}, {_pts(e.hi)}] "
               "against seats in the same position that did not end the game (just before the "
               "ending turn: the same lead over the best other seat, the gaps to the others, "
               f"the same strategy and seat; {e.matched:,} games with such seats; a linear "
               "model, t interval over deals)")  # fmt: skip
    told = dict(effects={EFFECT: Effect(e.estimate, e.se)}, deals=e.deals,
                words=("costs", "pays"), per_count=True)  # fmt: skip
    if e.lo > 0 or e.hi < 0:
        word = "pays" if e.lo > 0 else "costs"
        return Verdict(TOPIC, n_players, True,
                       f"At {n_players} players ending the game {word} beyond being ahead: "
                       f"{figures}.", key=word, short=f"{word} ({_pts(e.estimate)} pts)",
                       **told)  # fmt: skip
    return Verdict(TOPIC, n_players, False,
                   f"At {n_players} players the data cannot tell whether ending the game pays "
                   f"beyond being ahead: {figures}.", **told)  # fmt: skip


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


def end_verdicts(seats: pd.DataFrame | None, games: pd.DataFrame | None, samples=None) -> list:
    """Whether ending the game pays beyond being ahead, one verdict per player count with
    sampled games (`samples`: count -> `reports.tension_report.Sample`; none without the
    tables, the samples, or a run made before the trigger was recorded)."""
    if not _known(seats, games) or not samples:
        return []
    found = (ending_verdict(s, sampled_triggers(s, seats, games, n), n)
             for n, s in sorted(samples.items()) if len(s.scores))  # fmt: skip
    return [v for v in found if v is not None]


def add_end_section(report, seats: pd.DataFrame | None, games: pd.DataFrame | None) -> None:
    """The section `How games end` of one run (the report's own play strength)."""
    if not _known(seats, games):
        return
    seats = _with_count(seats, games)
    trig = triggers(seats, games)
    sec = report.section("How games end")
    sec.paragraph(
        "How often each end trigger ends the game, and the win share of the player whose turn "
        "triggered it (every other player then takes one last turn), 95% intervals over blocks "
        "(a tournament) or games. That share is no test of ending: the player who ends the game "
        "is usually ahead; the verdict (ending the game, beyond being ahead) compares it with "
        "seats in the same position that did not end the game. By strategy: the share of its "
        "games each strategy ends, and its win share when it does."
    )
    sec.table(end_table(games, trig), float_format="{:.3f}")
    if len(trig):
        sec.table(by_strategy(trig, seats), float_format="{:.3f}")
