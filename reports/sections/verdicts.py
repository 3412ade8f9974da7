"""The report's first section, `Verdicts`: the headline findings in plain sentences with their
numbers and intervals, each stated as a finding only when its test is significant, otherwise as
"the data cannot tell". Every interval a verdict prints is the one that matches its test: it
excludes the null value exactly when the verdict is a finding.

- The best strategy at each player count: the strategy with the highest win rate, and its paired
  difference to the runner-up (a tournament: t test over blocks, Holm-corrected over every pair,
  the interval at the level Holm's procedure tested the pair; a simulation: Wilson intervals that
  do not overlap).
- Seat advantage at each player count: each seat's win rate against the fair 1/n, with intervals
  Bonferroni-widened over the n seats, so "some seat differs" holds at 95% for the whole table;
  the finding is the set of seats (and directions) whose interval excludes 1/n.
- Fight or explore (with Leviathan and rollouts): the learnt rule, a finding only when its
  out-of-sample gain in win probability has an interval above 0.
- Card values (restricted play, `reports.restrict`): Holm-corrected over every restriction
  tested, each interval at the level that correction tested it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import pandas as pd

from reports.strengths import family as family_of

CONF = 0.95


class Effect(NamedTuple):
    """One quantity a verdict's finding rests on, as one play strength measured it: its estimate
    and standard error, the deal (block) the unit. The verdict table tests whether strengths
    differ on it (`differences`) and pools it where that means something (`pooled`)."""

    estimate: float
    se: float


@dataclass
class Verdict:
    topic: str
    players: int | None
    finding: bool  # the test is significant: a finding; else the data cannot tell
    sentence: str
    key: str | None = None  # what a finding says (the best strategy's family, the seat...)
    accepts: frozenset = field(default_factory=frozenset)  # findings that agree with it
    short: str = ""  # the finding in a few words, for the verdict table ("cannot tell" if none)
    data: object = None  # what a picture of it draws (the seat verdict: its seat table)
    #: The quantities the finding rests on, comparable across play strengths (label -> Effect):
    #: a label two strengths share is tested for a difference between them. Empty: the
    #: strengths' findings cannot be compared by a test (e.g. skill over different line-ups).
    effects: dict = field(default_factory=dict)
    #: The independent units (deals) behind the estimate: says which strength lacks power.
    deals: int | None = None
    #: A verdict whose effects may be pooled across strengths: the words of a finding below and
    #: above 0 (e.g. ("behind", "ahead") for a seat, ("costs", "pays") for ending the game), and
    #: how many effects its own finding is corrected over (Bonferroni; a seat verdict: n).
    words: tuple[str, str] | None = None
    family: int = 1
    #: What a naming verdict names, found or not, and its runner-up (the best strategy's family
    #: and the next): the verdict table compares them across strengths
    #: (`reports.sections.across_strengths`).
    names: frozenset = field(default_factory=frozenset)
    #: Asked at each player count: one row of the verdict table per count.
    per_count: bool = False

    def __post_init__(self) -> None:
        if self.key is not None and not self.accepts:
            self.accepts = frozenset([self.key])

    @property
    def cell(self) -> str:
        """What the verdict table shows: the short finding, or "cannot tell"."""
        if not self.finding:
            return "cannot tell"
        return self.short or str(self.key)


def pct(x: float) -> str:
    return f"{x:.1%}"


def pts(x: float) -> str:
    return f"{100 * x:+.1f}"


# --- the best strategy ------------------------------------------------------------------------
def level_text(x: float) -> str:
    """A confidence level to two significant digits of what it leaves out: 95%, 98.3%, 99.17%,
    99.911%."""
    import math

    left = 100 * (1 - x)
    digits = max(0, 1 - math.floor(math.log10(left))) if left > 0 else 4
    return f"{100 * x:.{digits}f}".rstrip("0").rstrip(".") + "%"


def the(n: int, noun: str) -> str:
    """`the 6 pairs`, `the one pair`."""
    return f"the one {noun}" if n == 1 else f"the {n} {noun}s"


def _against(by_pair: dict, best: str, other: str) -> dict:
    """`best` minus `other` from `reports.stats.blocks.pairwise` (`by_pair`: its rows by
    `(a, b)`; each unordered pair is one row)."""
    r, sign = by_pair.get((best, other)), 1.0
    if r is None:
        r, sign = by_pair[(other, best)], -1.0
    lo, hi = sorted((sign * r.lo_adj, sign * r.hi_adj))
    return {"other": other, "diff": sign * r.diff, "lo": lo, "hi": hi, "p_adj": r.p_adj,
            "level": r.level, "ahead": bool(r.significant) and sign * r.diff > 0}  # fmt: skip


def pair_conf(config: dict, n_players: int) -> float:
    """The level of a run's best-strategy test at `n_players`: CONF, or, for a tournament played
    in looks on a time budget (`reports.budget.extend`), the level of its last look."""
    looks = (config.get("pair_looks") or {}).get(str(n_players))
    return float(looks["conf"]) if looks else CONF


def best_strategy_blocks(df: pd.DataFrame, n_players: int, conf: float = CONF) -> Verdict:
    """`df`: a tournament's long-form seats (block, table, seat, strategy, win, ip, rank). A
    finding when the strategy with the highest win rate is ahead of every other after Holm's
    correction over all pairs; the sentence gives its difference to the runner-up (or to the
    first it is not told apart from) with the interval at the level Holm's procedure tested that
    pair, which excludes 0 exactly when the pair is significant. `conf` above CONF: a tournament
    played in looks (`pair_conf`), tested at its last look's level."""
    from reports.stats import blocks as stats

    summary = stats.strategy_summary(df, conf=conf)
    best = summary.index[0]
    pairs = stats.pairwise(df, metric="win", conf=conf, correction="holm")
    runner_up = summary.index[1] if len(summary) > 1 else best
    told = dict(effects=_pair_effects(pairs), deals=int(df["block"].nunique()),
                names=frozenset([family_of(best), family_of(runner_up)]),
                per_count=True)  # fmt: skip
    cycle = _cycle_with(df, n_players, best, conf, told)
    if cycle is not None:
        return cycle
    family = int(pairs["p"].notna().sum())
    if family == 0:  # one deal, or none shared: no pair has a spread to test
        b = summary.loc[best]
        return Verdict("best strategy", n_players, False,
                       f"At {n_players} players, the data cannot tell the best strategy: "
                       f"`{best}` wins most ({pct(b['win_rate'])}), but over "
                       f"{the(told['deals'], 'deal')} no pair of strategies can be tested.",
                       **told)  # fmt: skip
    by_pair: dict = {}
    for r in pairs.itertuples(index=False):
        by_pair.setdefault((r.a, r.b), r)
    against = [_against(by_pair, best, other) for other in summary.index[1:]]
    shown = next((x for x in against if not x["ahead"]), against[0])
    b = summary.loc[best]
    gap = (f"{pts(shown['diff'])} points [{pts(shown['lo'])}, {pts(shown['hi'])}] ahead of "
           f"`{shown['other']}`")  # fmt: skip
    holm = (f"Holm's correction over {the(family, 'pair')} (p = {shown['p_adj']:.2g}; the "
            f"interval at the {level_text(shown['level'])} level at which that correction tested "
            "the pair")  # fmt: skip
    if conf > CONF:
        holm += (f"; blocks played in looks on a time budget, the last tested at the "
                 f"{level_text(conf)} level")  # fmt: skip
    if shown["ahead"]:
        return Verdict("best strategy", n_players, True,
                       f"At {n_players} players, `{best}` wins most: {pct(b['win_rate'])} "
                       f"[{pct(b['win_lo'])}, {pct(b['win_hi'])}], {gap}, paired by deal: "
                       f"significant after {holm}).", key=family_of(best),
                       short=f"{family_of(best)} ({pts(shown['diff'])} pts)", **told)  # fmt: skip
    return Verdict("best strategy", n_players, False,
                   f"At {n_players} players, the data cannot tell the best strategy: `{best}` "
                   f"({pct(b['win_rate'])}) is {gap}, paired by deal: not significant after "
                   f"{holm}, so it includes 0).", **told)  # fmt: skip


def _pair_effects(pairs: pd.DataFrame) -> dict[str, Effect]:
    """Every pair's paired difference in win share (`a − b`, by family: what the verdict table
    compares across play strengths); a family twice in one line-up is left out."""
    fam = {s: family_of(s) for s in set(pairs["a"]) | set(pairs["b"])}
    twice = {f for f in fam.values() if list(fam.values()).count(f) > 1}
    return {f"{fam[r.a]} − {fam[r.b]}": Effect(float(r.diff), float(r.se))
            for r in pairs.itertuples() if fam[r.a] not in twice and fam[r.b] not in twice}


def _cycle_with(df: pd.DataFrame, n_players: int, best: str, conf: float,
                told: dict) -> Verdict | None:  # fmt: skip
    """No best strategy when the one with the highest win rate sits on a cycle of who is ahead
    of whom head to head, in the games both play (`reports.metrics.cycles`; Holm over every
    pair)."""
    from reports.metrics import cycles as Y

    if not {"block", "table"} <= set(df.columns):
        return None
    table = Y.head_to_head(df, n_players)
    cycles = Y.find_cycles(table.names, Y.dominance(table, conf))  # (rank_strategies' cycles)
    cycle = next((c for c in cycles if best in {e.winner for e in c}), None)
    if cycle is None:
        return None
    names = " > ".join(f"`{x}`" for x in Y.ring(cycle))
    edges = "; ".join(f"`{e.winner}` ahead of `{e.loser}` by {pts(e.d)} [{pts(e.lo)}, "
                      f"{pts(e.hi)}]" for e in cycle)  # fmt: skip
    return Verdict("best strategy", n_players, True,
                   f"At {n_players} players no strategy is best: the ranking rests on a cycle, "
                   f"{names}, head to head in the games they share ({edges} points of win "
                   "share, paired by deal; Holm's correction over every pair).", key="cycle",
                   short="no best: " + names.replace("`", ""), **told)  # fmt: skip


def best_strategy_rates(rates: pd.DataFrame, n_players: int) -> Verdict:
    """`rates`: a simulation's strategy win rates with intervals (`win rate`, `win lo`, `win hi`;
    `games.abyss.report.balance.strategy_rates`: the game is the unit)."""
    ranked = rates.rename(columns={"win lo": "lo", "win hi": "hi"})
    ranked = ranked.sort_values("win rate", ascending=False)
    if len(ranked) < 2:
        only = ranked.index[0]
        return Verdict("best strategy", n_players, False,
                       f"At {n_players} players only `{only}` played: no comparison.",
                       per_count=True)  # fmt: skip
    best, second = ranked.index[0], ranked.index[1]
    z = 2 * 1.959964  # the Wilson interval's width in standard errors, near enough
    told = dict(effects={family_of(x): Effect(float(r["win rate"]), float(r["hi"] - r["lo"]) / z)
                         for x, r in ranked.iterrows()},
                names=frozenset([family_of(best), family_of(second)]),
                per_count=True)  # fmt: skip
    b, s = ranked.loc[best], ranked.loc[second]
    numbers = (f"`{best}` {pct(b['win rate'])} [{pct(b['lo'])}, {pct(b['hi'])}], `{second}` "
               f"{pct(s['win rate'])} [{pct(s['lo'])}, {pct(s['hi'])}]")  # fmt: skip
    if b["lo"] > s["hi"]:
        return Verdict("best strategy", n_players, True,
                       f"At {n_players} players, `{best}` wins most: {numbers} (the intervals "
                       "do not overlap).", key=family_of(best),
                       short=f"{family_of(best)} ({pct(b['win rate'])})", **told)  # fmt: skip
    return Verdict("best strategy", n_players, False,
                   f"At {n_players} players, the data cannot tell the best strategy: {numbers} "
                   "(the intervals overlap).", **told)  # fmt: skip


# --- seat advantage ----------------------------------------------------------------------------
def seat_verdict(seats: pd.DataFrame, n_players: int) -> Verdict:
    """`seats`: win rate of each seat with intervals already widened for the n seats (`lo`,
    `hi`; index: seat from 1). The finding is the set of seats whose interval excludes the fair
    1/n, each with its direction: two play strengths agree when they find the same set (at 2
    players "seat 1 ahead" and "seat 2 behind" are one finding)."""
    fair = 1 / n_players
    off = seats[(seats["lo"] > fair) | (seats["hi"] < fair)].sort_index()
    told = dict(data=seats, words=("behind", "ahead"), family=n_players, per_count=True,
                effects=({str(s): Effect(float(r["win rate"] - fair), float(r["se"]))
                          for s, r in seats.iterrows()} if "se" in seats else {}),
                deals=int(seats["deals"].max()) if "deals" in seats else None)  # fmt: skip
    if off.empty:
        spread = f"{pct(seats['win rate'].min())} to {pct(seats['win rate'].max())}"
        return Verdict("seat advantage", n_players, False,
                       f"At {n_players} players the data cannot tell a seat advantage: the seats "
                       f"win {spread} against a fair {pct(fair)}, every interval including "
                       "it.", **told)  # fmt: skip
    found, parts = [], []
    for seat, r in off.iterrows():
        word = "an advantage" if r["win rate"] > fair else "a disadvantage"
        found.append((int(seat), word))
        parts.append(f"seat {seat} has {word}: it wins {pct(r['win rate'])} [{pct(r['lo'])}, "
                     f"{pct(r['hi'])}] ({pts(r['win rate'] - fair)} points)")  # fmt: skip
    return Verdict("seat advantage", n_players, True,
                   f"At {n_players} players {'; '.join(parts)}; against a fair {pct(fair)}, "
                   f"intervals simultaneous over the {n_players} seats (Bonferroni).",
                   key=frozenset(found), short=_seats_short(off, fair), **told)  # fmt: skip


def _seats_short(off: pd.DataFrame, fair: float) -> str:
    """`ahead 1,2 · behind 4`: the seats told from fair."""
    ahead = [str(s) for s, r in off.iterrows() if r["win rate"] > fair]
    behind = [str(s) for s, r in off.iterrows() if r["win rate"] < fair]
    parts = [f"ahead {','.join(ahead)}"] if ahead else []
    parts += [f"behind {','.join(behind)}"] if behind else []
    return " · ".join(parts)


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]
