"""How games end, for any game whose per-game tables say why (`end_reason`) and whose turn
triggered it (`trigger_seat`, -1 for none): how often each end trigger ends the game, which seat
and which strategy trigger it, and the trigger's raw win share (descriptive); and whether ending
the game pays beyond the standing measured just before the ending turn (the verdict,
docs/metrics.md).

The player who ends the game is usually ahead, so its raw win share says nothing about ending:
the verdict compares it with seats of the same strategy and seat at the same standing that did
not end the game. The standing is read just before the ending turn off the running scores of
the sampled games (`reports.metrics.tension.Sample`); the trigger of a sampled game is found in
the games table by its deal (the game index) and its seats' final scores and win shares
(`sampled_triggers`). A finding needs the interval beyond a margin (`MARGIN`) that covers the
model's bias on planted games where ending adds nothing; what the model cannot see (a player's
hidden cards) is not covered: the claim is beyond the standing, not beyond all the player knew.
Intervals: a tournament's unit is the block (one deal) in the table, the deal in the verdict; a
simulation's the game.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from reports.metrics.tension import NOT_PLAYED, rounds_played
from reports.stats.intervals import mean_halfwidth

#: the verdict's question (its row in the verdict table, per player count)
TOPIC = "ending the game, beyond being ahead"
#: the quantity the verdict rests on (`reports.sections.verdicts.Effect`, a share of the win)
EFFECT = "trigger's win share minus same-position seats'"
#: the verdict's margin (a share of the win): "pays" only when the interval lies above it,
#: "costs" below minus it; it covers the bias the model showed on planted games where ending
#: adds nothing (docs/metrics.md "How games end", with the command that measured it)
MARGIN = 0.02
#: fewer deals than this: no clustered standard error (too few clusters for it, Cameron &
#: Miller 2015, "A practitioner's guide to cluster-robust inference", section VI)
MIN_DEALS = 30
#: each gap to another seat enters the model as this many classes of equal size (deciles)
GAP_CLASSES = 10
#: the verdict's words: its question, what a finding is beyond, and the seats it is compared with
QUESTION = "pays beyond the standing measured just before the ending turn"
BEYOND = "beyond the standing measured just before the ending turn"
COUNTERPART = ("a seat of the same strategy and seat number at the same lead over the best "
               "other seat, just before the ending turn, that did not end its game")  # fmt: skip
MARGIN_WHY = ("it covers the largest bias the model showed on planted games where ending adds "
              "nothing")  # fmt: skip


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


def _played_first(scores: np.ndarray, t: np.ndarray):
    """The slot (round) of each game's ending turn [g] and the seats that played in it before
    the trigger [g, seat], from games ended by a player's turn (their running scores
    [g, round, seat], `NOT_PLAYED` where a seat had no turn; the trigger [g]).

    After the trigger's turn every other seat takes one last turn, clockwise. Abyss records a
    seat's score in the slot of its turn's number (n turns a slot, so an extra turn, the
    Invoker's, moves the later turns by one): the seats that play in the slot after the
    trigger's are the ones that played before it in its own, and when a game's last slot holds
    every seat the trigger opened it. A game scored after each round (Conspiracy: the final
    row holds every seat) has rounds of one turn per seat from seat 0: the trigger's is the last
    round when it is seat 0, else the one before, seats 0 .. t - 1 played first."""
    rounds = rounds_played(scores, NOT_PLAYED)
    last = scores[np.arange(len(t)), rounds - 1] != NOT_PLAYED
    full = last.all(axis=1)
    if not full.all():  # a slot of the turns' numbers: some game's last slot is partial
        return np.where(full, rounds - 1, rounds - 2), last & ~full[:, None]
    seat = np.arange(scores.shape[2])[None, :]
    return np.where(t == 0, rounds - 1, rounds - 2), seat < t[:, None]


def standings(sample, trigger: np.ndarray) -> pd.DataFrame:
    """One row per seat of each sampled game ended by a player's turn: the game (its row in
    the sample) and deal, whether it ended the game, its win share, who it is (`player`: its
    strategy and seat) and its standing just before the ending turn: `lead`, its score minus
    the best other seat's, and `behind_k`, its score minus the k-th best other seat's.

    Just before the ending turn, the seats that played before the trigger in its slot are read
    there, the others in the slot before (`_played_first`); from there every seat has one turn
    left. (A game scored after each round, as Conspiracy's samples, reads a seat's score after
    its turn as its score after the round.)"""
    from reports.metrics.tension import filled_scores

    ended = trigger >= 0
    t = trigger[ended]
    ending_slot, first = _played_first(sample.scores[ended], t)
    scores = filled_scores(sample.scores, NOT_PLAYED)[ended]
    n = scores.shape[2]
    seat = np.arange(n)[None, :]
    at = np.where(first, ending_slot[:, None], ending_slot[:, None] - 1)
    before = scores[np.arange(len(t))[:, None], np.maximum(at, 0), seat]
    before = np.where(at >= 0, before, 0).astype(float)
    # [game, seat, k]: the seat's score minus its k-th best other seat's
    gaps = np.stack([np.sort(before[:, [s]] - np.delete(before, s, axis=1), axis=1)
                     for s in range(n)], axis=1)  # fmt: skip
    deal = np.arange(len(trigger)) if sample.deal is None else np.asarray(sample.deal)
    seating = np.zeros((len(t), n), int) if sample.seating is None else sample.seating[ended]
    rows = {"game": np.repeat(np.flatnonzero(ended), n), "deal": np.repeat(deal[ended], n),
            "ended": (seat == t[:, None]).ravel(), "win": sample.win[ended].ravel().astype(float),
            "player": (np.asarray(seating) * n + seat).ravel(), "lead": gaps[:, :, 0].ravel()}
    rows |= {f"behind_{k + 1}": gaps[:, :, k].ravel() for k in range(1, n - 1)}
    return pd.DataFrame(rows)


class Ending(NamedTuple):
    """The trigger's win share minus that of seats at the same standing that did not end the
    game (`ending_effect`), its interval and standard error over deals (NaN: too few deals),
    and what entered the model: its deals, its sampled games, those of them whose trigger is
    in it (`enders`, who win a share `wins` of them), of `ended` sampled games ended by a
    player's turn, and the model's parameters (its cells included)."""

    estimate: float
    lo: float
    hi: float
    se: float
    wins: float
    deals: int
    games: int
    enders: int
    ended: int
    parameters: int

    @property
    def measured(self) -> bool:
        return math.isfinite(self.se)


def comparable(rows: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """The rows (`standings`) of the cells of lead and player that hold a seat that ended the
    game and one that did not, and their cells (0, 1, ...)."""
    cell = pd.factorize(pd.MultiIndex.from_frame(rows[["lead", "player"]]))[0]
    kinds = pd.Series(rows["ended"].to_numpy()).groupby(cell).agg(["min", "max"])
    keep = np.isin(cell, kinds.index[kinds["min"] != kinds["max"]])
    return rows[keep], pd.factorize(cell[keep])[0]


def gap_classes(rows: pd.DataFrame) -> np.ndarray:
    """Indicators of each gap to the k-th best other seat (`behind_k`) in `GAP_CLASSES` classes
    of equal size, the first left out: a step function, as the win share is far from linear in
    a gap (steep within one turn's reach, flat beyond; linear gaps read +1.0 points on a planted
    5-player game where ending adds nothing, the classes +0.2)."""
    cols = [pd.get_dummies(pd.qcut(rows[c], GAP_CLASSES, labels=False, duplicates="drop"),
                           drop_first=True).to_numpy(float)
            for c in rows if c.startswith("behind_")]  # fmt: skip
    return np.column_stack(cols) if cols else np.empty((len(rows), 0))


def ending_effect(rows: pd.DataFrame, confidence: float = 0.95) -> Ending:
    """The win share of the seats that ended the game minus that of seats at the same standing
    that did not: a linear model of the win share on ending, one constant per cell of lead (over
    the best other seat) and player (strategy and seat), and one per class of each gap to the
    other seats (`gap_classes`). A seat that ended the game is compared with seats of the same
    strategy and seat that did not, at the same lead: a cell without both is left out. Leads
    are exact (scores are whole points), so that no class of leads holds the enders at its top
    and the others at its bottom; and per player, as a stronger player's lead is worth more
    (one constant per lead and one per player read +2.3 points on a planted game where ending
    adds nothing, docs/metrics.md). The cells are absorbed (the model fitted within them,
    Frisch-Waugh-Lovell); standard errors clustered by deal (CR1, as statsmodels', in closed
    form: `reports.stats.ols`; its count of parameters made to include the cells), t on
    deals - 1 degrees of freedom.

    Measured only with a full-rank model, more seats than parameters and at least `MIN_DEALS`
    deals: else the estimate is NaN (on a few deals the clustered standard error can be about
    0: the model fits every deal's seats exactly). More parameters than deals are allowed: the
    cells are absorbed and counted, and on planted games with more parameters than deals the
    standard error matches the estimates' spread (docs/metrics.md)."""
    from scipy import stats

    from reports.stats.ols import cluster_ols, full_rank

    ended = int(rows["ended"].sum())
    rows, cell = comparable(rows)
    x = np.column_stack([rows["ended"].to_numpy(float), gap_classes(rows)])
    x = x - pd.DataFrame(x).groupby(cell).transform("mean").to_numpy()
    y = rows["win"].to_numpy(float)
    y = y - pd.Series(y).groupby(cell).transform("mean").to_numpy()
    counts = dict(wins=float(rows.loc[rows["ended"], "win"].mean()) if len(rows) else math.nan,
                  deals=int(rows["deal"].nunique()), games=int(rows["game"].nunique()),
                  enders=int(rows["ended"].sum()), ended=ended,
                  parameters=int(cell.max(initial=-1) + 1 + x.shape[1]))  # fmt: skip
    nan = (math.nan,) * 4
    if counts["deals"] < MIN_DEALS or len(y) <= counts["parameters"] or not full_rank(x):
        return Ending(*nan, **counts)
    params, cov = cluster_ols(y, x, pd.factorize(rows["deal"])[0])
    # CR1 scales by (N - 1) / (N - K): K the parameters, the absorbed cells among them
    se = math.sqrt(cov[0, 0] * (len(y) - x.shape[1]) / (len(y) - counts["parameters"]))
    half = float(stats.t.ppf(0.5 + confidence / 2, counts["deals"] - 1)) * se
    est = float(params[0])
    return Ending(est, est - half, est + half, se, **counts)


def ending_verdict(sample, trigger: np.ndarray, n_players: int):
    """Does ending the game pay beyond the standing just before the ending turn?
    `ending_effect` on the sampled games: a finding when its 95% interval over deals lies
    beyond the margin (`MARGIN`: "pays" above it, "costs" below minus it); "cannot tell (too
    few deals)" when the model cannot be measured; None without two sampled games ended by a
    player."""
    from reports.sections.verdicts import Effect, Verdict, pts

    if (trigger >= 0).sum() < 2:
        return None
    e = ending_effect(standings(sample, trigger))
    # not pooled across strengths (no `words`): a pooled test would be against 0, not the margin
    told = dict(effects={EFFECT: Effect(e.estimate, e.se)}, deals=e.deals, per_count=True)
    at = f"At {n_players} players"
    if not e.measured:
        return Verdict(TOPIC, n_players, False,
                       f"{at} the data cannot tell whether ending the game {QUESTION} (too few "
                       f"deals): {_too_few(e)}.", **told)  # fmt: skip
    figures = _figures(e)
    if e.lo > MARGIN or e.hi < -MARGIN:
        word = "pays" if e.lo > MARGIN else "costs"
        side = f"above {pts(MARGIN)}" if e.lo > MARGIN else f"below {pts(-MARGIN)}"
        return Verdict(TOPIC, n_players, True,
                       f"{at} ending the game {word} {BEYOND}: {figures}; the interval lies "
                       f"{side} points, the margin ({MARGIN_WHY}).", key=word,
                       short=f"{word} ({pts(e.estimate)} pts)", **told)  # fmt: skip
    return Verdict(TOPIC, n_players, False,
                   f"{at} the data cannot tell whether ending the game {QUESTION}: {figures}; "
                   f"a finding needs the interval beyond ±{100 * MARGIN:.1f} points, the "
                   f"margin ({MARGIN_WHY}).", **told)  # fmt: skip


def _figures(e: Ending) -> str:
    """What a measured verdict's sentence states: the games and deals that entered the model."""
    from reports.sections.verdicts import pct, pts

    return (f"in the {e.enders:,} sampled games whose player that ended it has a counterpart "
            f"({COUNTERPART}), that player wins {pct(e.wins)}, {pts(e.estimate)} points "
            f"[{pts(e.lo)}, {pts(e.hi)}] more than its counterparts (a linear model, one "
            "constant per lead and player and one per decile of each gap to the other seats; "
            "95% t interval, the deal the unit: the model holds the seats of "
            f"{e.games:,} sampled games on {e.deals:,} deals); {e.ended - e.enders:,} of the "
            f"{e.ended:,} sampled games ended by a player's turn have no counterpart and are "
            "left out")  # fmt: skip


def _too_few(e: Ending) -> str:
    return (f"{e.enders:,} of the {e.ended:,} sampled games ended by a player's turn have a "
            f"counterpart ({COUNTERPART}); the model would hold the seats of {e.games:,} sampled "
            f"games on {e.deals:,} deals for {e.parameters:,} parameters, and a clustered "
            f"standard error needs at least {MIN_DEALS} deals, more seats than parameters and a "
            "full-rank model")  # fmt: skip


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
    """Whether ending the game pays beyond the standing just before the ending turn, one
    verdict per player count with sampled games (`samples`: count ->
    `reports.metrics.tension.Sample`; none without the tables, the samples, or a run made before
    the trigger was recorded)."""
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
        "seats at the same standing just before the ending turn that did not end the game. By "
        "strategy: the share of its games each strategy ends, and its win share when it does."
    )
    sec.table(end_table(games, trig), float_format="{:.3f}")
    if len(trig):
        sec.table(by_strategy(trig, seats), float_format="{:.3f}")
