"""The report's first section, `Verdicts`: the headline findings in plain sentences with their
numbers and intervals, each stated as a finding only when its test is significant, otherwise as
"the data cannot tell".

- The best strategy at each player count: the strategy with the highest win rate, and its paired
  difference to the runner-up (a tournament: t interval over blocks, Holm-corrected over every
  pair; a simulation: Wilson intervals that do not overlap).
- Seat advantage at each player count: each seat's win rate against the fair 1/n, with intervals
  Bonferroni-widened over the n seats, so "some seat differs" holds at 95% for the whole table.
- Fight or explore (with Leviathan and rollouts): the learnt rule, a finding only when its
  out-of-sample gain in win probability has an interval above 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

CONF = 0.95


@dataclass
class Verdict:
    topic: str
    players: int | None
    finding: bool  # the test is significant: a finding; else the data cannot tell
    sentence: str


def _pct(x: float) -> str:
    return f"{x:.1%}"


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


# --- the best strategy ------------------------------------------------------------------------
def best_strategy_blocks(df: pd.DataFrame, n_players: int, conf: float = CONF) -> Verdict:
    """`df`: a tournament's long-form seats (block, table, seat, strategy, win, ip, rank)."""
    from reports import stats

    summary = stats.strategy_summary(df, conf=conf)
    best, second = summary.index[0], summary.index[1]
    pairs = stats.pairwise(df, metric="win", conf=conf, correction="holm")
    row = pairs[(pairs["a"] == best) & (pairs["b"] == second)]
    sign = 1.0
    if row.empty:
        row, sign = pairs[(pairs["a"] == second) & (pairs["b"] == best)], -1.0
    row = row.iloc[0]
    diff, lo, hi = sign * row["diff"], *sorted((sign * row["lo"], sign * row["hi"]))
    b = summary.loc[best]
    gap = f"{_pts(diff)} points [{_pts(lo)}, {_pts(hi)}] ahead of `{second}`"
    if bool(row["significant"]) and diff > 0:
        return Verdict("best strategy", n_players, True,
                       f"At {n_players} players, `{best}` wins most: {_pct(b['win_rate'])} "
                       f"[{_pct(b['win_lo'])}, {_pct(b['win_hi'])}], {gap} (paired by deal, "
                       "Holm-corrected).")  # fmt: skip
    return Verdict("best strategy", n_players, False,
                   f"At {n_players} players, the data cannot tell the best strategy: `{best}` "
                   f"({_pct(b['win_rate'])}) is {gap}, an interval that includes 0 after Holm's "
                   "correction.")  # fmt: skip


def best_strategy_rates(rates: pd.DataFrame, n_players: int) -> Verdict:
    """`rates`: a simulation's strategy win rates with intervals (`win rate`, `win lo`, `win hi`;
    `reports.balance.strategy_rates`: the game is the unit)."""
    ranked = rates.rename(columns={"win lo": "lo", "win hi": "hi"})
    ranked = ranked.sort_values("win rate", ascending=False)
    if len(ranked) < 2:
        only = ranked.index[0]
        return Verdict("best strategy", n_players, False,
                       f"At {n_players} players only `{only}` played: no comparison.")  # fmt: skip
    best, second = ranked.index[0], ranked.index[1]
    b, s = ranked.loc[best], ranked.loc[second]
    numbers = (f"`{best}` {_pct(b['win rate'])} [{_pct(b['lo'])}, {_pct(b['hi'])}], `{second}` "
               f"{_pct(s['win rate'])} [{_pct(s['lo'])}, {_pct(s['hi'])}]")  # fmt: skip
    if b["lo"] > s["hi"]:
        return Verdict("best strategy", n_players, True,
                       f"At {n_players} players, `{best}` wins most: {numbers} (the intervals "
                       "do not overlap).")  # fmt: skip
    return Verdict("best strategy", n_players, False,
                   f"At {n_players} players, the data cannot tell the best strategy: {numbers} "
                   "(the intervals overlap).")  # fmt: skip


# --- seat advantage ----------------------------------------------------------------------------
def seat_verdict(seats: pd.DataFrame, n_players: int) -> Verdict:
    """`seats`: win rate of each seat with intervals already widened for the n seats (`lo`,
    `hi`; index: seat from 1)."""
    fair = 1 / n_players
    off = seats[(seats["lo"] > fair) | (seats["hi"] < fair)]
    if off.empty:
        spread = f"{_pct(seats['win rate'].min())} to {_pct(seats['win rate'].max())}"
        return Verdict("seat advantage", n_players, False,
                       f"At {n_players} players the data cannot tell a seat advantage: the seats "
                       f"win {spread} against a fair {_pct(fair)}, every interval including "
                       "it.")  # fmt: skip
    seat = (off["win rate"] - fair).abs().idxmax()
    r = off.loc[seat]
    word = "an advantage" if r["win rate"] > fair else "a disadvantage"
    return Verdict("seat advantage", n_players, True,
                   f"At {n_players} players seat {seat} has {word}: it wins "
                   f"{_pct(r['win rate'])} [{_pct(r['lo'])}, {_pct(r['hi'])}] against a fair "
                   f"{_pct(fair)} ({_pts(r['win rate'] - fair)} points; intervals corrected for "
                   f"the {n_players} seats).")  # fmt: skip


def seat_tables(part) -> pd.DataFrame:
    """Seat win rates of one player count of a run (`reports.balance.RunData`), with intervals
    at 1 - 0.05/n: over blocks for a tournament, Wilson over games for a simulation."""
    from reports.balance import seat_advantage, seat_advantage_blocks

    n = part.agg.n_players
    level = 1 - (1 - CONF) / n
    if part.seats is not None and "block" in part.seats.columns:
        return seat_advantage_blocks(part.seats, level)
    return seat_advantage(part.agg, level)


# --- fight or explore ----------------------------------------------------------------------
def fight_verdict(rule: dict) -> Verdict:
    """The learnt rule of `reports.fight_rule.recommended_rule`: a finding only when its
    out-of-sample gain in win probability has an interval above 0."""
    mean, lo, hi = rule["gain_win"]
    gain = f"{_pts(mean)} points of win probability [{_pts(lo)}, {_pts(hi)}] out of sample"
    if lo > 0:
        return Verdict("fight or explore", None, True, f"{rule['sentence']} ({gain}).")
    return Verdict("fight or explore", None, False,
                   f"The data cannot tell a better fight-or-explore rule than the strategies' "
                   f"own: the best candidate changed the result by {gain}.")  # fmt: skip


def add_verdicts(report, verdicts: list[Verdict], notes: list[str]) -> None:
    """The `Verdicts` section, first in the report (before the contents)."""
    sec = report.section("Verdicts", lead=True)
    for v in verdicts:
        sec.paragraph(("" if v.finding else "**Cannot tell.** ") + v.sentence)
    for note in notes:
        sec.note(note)


CARD_NOTE = (
    "What a card is worth is not measured in this report: its card sections show how often "
    "winners recruited each Lord or took each Location, a correlation (strong players recruit "
    "more), not a value."
)


def run_verdicts(run) -> list[Verdict]:
    """The verdicts of a run (`reports.balance.RunData`): per player count the best strategy
    and the seat advantage; with Leviathan rollouts, the fight-or-explore rule."""
    from reports.balance import strategy_rates

    out = []
    for part in run.parts:
        n = part.agg.n_players
        blocked = part.seats is not None and "block" in part.seats.columns
        if blocked and len(part.agg.strategies) > 1:
            df = part.seats.rename(columns={"score": "ip"})
            df["strategy"] = df["strategy"].astype(str)
            out.append(best_strategy_blocks(df, n))
        elif len(part.agg.strategies) > 1:
            out.append(best_strategy_rates(strategy_rates(part.agg), n))
        out.append(seat_verdict(seat_tables(part), n))
    return out
