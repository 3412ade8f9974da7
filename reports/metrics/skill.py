"""Skill against luck: a ladder of players of increasing strength played against each other, and
how many *skill steps* separate its bottom from its top (docs/metrics.md).

A skill step is the gap at which the stronger player wins 75% of its games against the weaker
one, head to head (the "skill differentials" of the chess and backgammon literature: counted
from a beginner to the world's best, Go has about 40, chess 14, poker 10, backgammon 8,
blackjack 2, roulette 0). Between two rungs, the stronger's win share p in the games both play
gives logit(p) / ln 3 steps (ln 3 is the logit of 75%); the ladder's span is the sum over its
adjacent rungs, the chain of the literature's definition. A game of pure chance has no steps:
every rung wins its fair share. With more than two players, p is the stronger's share of the
two players' wins in the games both play (the head-to-head of `reports.metrics.cycles`), so the same
scale holds for every player count.

The ladder's bottom is the random policy and its top the strongest player we have, so the span
is a lower bound on the game's depth (better players would add steps). A rung that wins every
deal against the one below it (a sweep) has no upper end: its step, and the span, are one-sided
("at least"), never an interval whose top is set by the number of games.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from reports.metrics import cycles as Y

#: the logit of a 75% win: one skill step
STEP = math.log(3.0)
CONF = 0.95


def _steps(p: float) -> float:
    """Skill steps of a win share: +-inf at a share of 1 or 0 (a bound that no deal can move)."""
    if p >= 1.0 or p <= 0.0:
        return math.inf if p >= 1.0 else -math.inf
    return math.log(p / (1 - p)) / STEP


class Span(NamedTuple):
    """A ladder's skill steps and their interval. One-sided when a rung sweeps the one below it:
    then `steps` is not known (NaN) and `hi` is inf ("at least `lo`"); `lo` is -inf where a rung
    is swept by the one below it ("at most `hi`")."""

    steps: float
    lo: float
    hi: float

    @property
    def bounded(self) -> bool:
        return math.isfinite(self.lo) and math.isfinite(self.hi)


@dataclass
class Ladder:
    rungs: list[str]
    matrix: pd.DataFrame  # head to head: row's share of the two players' wins against column
    steps: pd.DataFrame  # per adjacent pair: share, interval, steps and their interval, games
    span: Span  # the ladder's skill steps and their interval (one-sided at a sweep)
    n_players: int
    conf: float = CONF

    def verdict(self) -> str:
        steps, lo, hi = self.span
        ends = f"from `{self.rungs[0]}` to `{self.rungs[-1]}`"
        if self.span.bounded:
            if lo > 0:
                return f"{steps:.1f} skill steps [{lo:.1f}, {hi:.1f}] {ends}"
            return f"cannot tell any skill: {steps:.1f} steps [{lo:.1f}, {hi:.1f}]"
        sweep = self.steps[self.steps["sweep"].astype(bool)].iloc[0]
        a, b = sweep["weaker"], sweep["stronger"]
        a, b = (a, b) if sweep["stronger's share"] >= 0.5 else (b, a)
        why = (f"a one-sided {self.conf:.0%} bound: `{b}` wins all or nearly all of its deals "
               f"against `{a}`, so that step has no far end; its bound is Clopper-Pearson over "
               "its deals")  # fmt: skip
        if math.isfinite(lo):
            if lo > 0:
                return f"at least {lo:.1f} skill steps {ends} ({why})"
            return f"cannot tell any skill: at least {lo:.1f} steps ({why})"
        if math.isfinite(hi):
            return f"cannot tell any skill: at most {hi:.1f} steps ({why})"
        return "cannot tell any skill: rungs sweep both ways, so the span has no bound"


def ladder(seats: pd.DataFrame, rungs: list[str], n_players: int, conf: float = CONF) -> Ladder:
    """The ladder of `rungs` (weakest first) from a tournament's long-form seats (`block`,
    `table`, `strategy`, `win`) in which every pair of rungs shares games."""
    table = Y.head_to_head(seats[seats["strategy"].isin(rungs)], n_players)
    index = [table.names.index(r) for r in rungs]
    d = table.share - table.share.T  # i's win share minus j's in their shared games
    se_d = np.hypot(table.se, table.se.T)
    # the stronger's share of the two players' wins: (1 + d / (w_i + w_j)) / 2 at 2 players;
    # with more players, the pair's shares are normalised to the two of them
    pairs = _pairs(seats, rungs)
    rows = []
    for a, b in zip(rungs, rungs[1:], strict=False):
        i, j = table.names.index(b), table.names.index(a)
        w, deals = pairs[(a, b)]
        rows.append(step_row(a, b, 0.5 + d[i, j] / (2 * w), se_d[i, j] / (2 * w),
                             int(table.n[i, j]), deals, conf))  # fmt: skip
    share = pd.DataFrame(table.share, index=table.names, columns=table.names)
    matrix = (0.5 + (share - share.T) / 2).iloc[index, index]
    steps = pd.DataFrame(rows)
    return Ladder(list(rungs), matrix, steps, span_of(steps, conf), n_players, conf)


def step_row(weaker: str, stronger: str, share: float, se: float, games: int, blocks: int,
             conf: float = CONF) -> dict:  # fmt: skip
    """One step of a ladder: the stronger's head-to-head share, its standard error (the deal the
    unit), and the step and its interval, each end of the share's normal interval carried through
    the logit (monotone; the delta method blows up at the edge: 5.2 steps [-2.9, 13.2] for greedy
    over random at 4 players). A sweep (the normal interval within half a deal, 1/(2(m+1)), of
    0 or 1: the share's interval is then set by the number of deals, not by the data) has no far
    end: its steps are "at least" the Clopper-Pearson bound over its deals, and not estimated."""
    from scipy.special import ndtri

    z = float(ndtri(0.5 + conf / 2))
    lo, hi = share - z * se, share + z * se
    edge = 0.5 / (blocks + 1)
    sweep = bool(hi >= 1 - edge or lo <= edge)
    if sweep:
        bound = sweep_bound(share, blocks, (1 - conf) / 2)
        lo, hi = (bound, 1.0) if share >= 0.5 else (0.0, bound)
        steps = math.nan
        s_lo, s_hi = (_steps(bound), math.inf) if share >= 0.5 else (-math.inf, _steps(bound))
    else:
        steps, s_lo, s_hi = (_steps(x) for x in (share, lo, hi))
    return {"weaker": weaker, "stronger": stronger, "stronger's share": share, "lo": lo,
            "hi": hi, "steps": steps, "steps lo": s_lo, "steps hi": s_hi, "se": se,
            "games": games, "blocks": blocks, "sweep": sweep}  # fmt: skip


def sweep_bound(share: float, blocks: int, error: float) -> float:
    """The one-sided Clopper-Pearson bound (missed with probability `error`) on a (near-)sweep's
    share, the deals as the trials: a share p of the games is about p * m of m deals. For a
    sweep it is exact whatever the games of one deal share: a deal is won whole with probability
    at most the mean share, so m of m with at most share^m; counting the games instead would
    assume a deal's seatings independent."""
    from scipy.stats import beta

    won = min(max(share, 0.0), 1.0) * blocks
    if share >= 0.5:  # the normal interval fails at the edge: [0.949, 1.051] for 360 of 360
        return float(beta.ppf(error, won, blocks - won + 1))
    return float(beta.ppf(1 - error, won + 1, blocks - won))


def span_of(steps: pd.DataFrame, conf: float = CONF) -> Span:
    """The ladder's span, the sum of its steps. Without a sweep, a two-sided interval: each step's
    distance to its interval's ends added in quadrature on each side. With sweeps one way, a
    one-sided bound: the sweeps' Clopper-Pearson bounds plus the other steps' one-sided bound,
    the error split evenly over these parts (Bonferroni; one sweep among other steps: the lower
    ends the step table shows)."""
    sweep = steps["sweep"].astype(bool).to_numpy()
    share = steps["stronger's share"].to_numpy(float)
    s = steps["steps"].to_numpy(float)
    if not sweep.any():
        below = math.sqrt(float(((s - steps["steps lo"].to_numpy(float)) ** 2).sum()))
        above = math.sqrt(float(((steps["steps hi"].to_numpy(float) - s) ** 2).sum()))
        return Span(float(s.sum()), float(s.sum()) - below, float(s.sum()) + above)
    up = share[sweep] >= 0.5
    if up.any() and not up.all():
        return Span(math.nan, -math.inf, math.inf)
    sign = 1.0 if up.all() else -1.0
    error = (1 - conf) / (int(sweep.sum()) + int((~sweep).any()))
    blocks = steps["blocks"].to_numpy(int)
    bound = sum(_steps(sweep_bound(p, m, error)) for p, m in zip(share[sweep], blocks[sweep],
                                                                 strict=True))  # fmt: skip
    if (~sweep).any():
        from scipy.special import ndtri

        rest, edge = share[~sweep], 0.5 / (blocks[~sweep] + 1)
        end = np.clip(rest - sign * float(ndtri(1 - error)) * steps["se"].to_numpy(float)[~sweep],
                      edge, 1 - edge)  # fmt: skip
        far = np.log(end / (1 - end)) / STEP
        bound += float(s[~sweep].sum()) - sign * math.sqrt(float(((s[~sweep] - far) ** 2).sum()))
    return Span(math.nan, bound, math.inf) if sign > 0 else Span(math.nan, -math.inf, bound)


def span_difference(a: Span, b: Span, conf: float = CONF) -> Span | None:
    """`a` minus `b` for two ladders measured on their own deals (two games, two player counts),
    the distances to the spans' 95% ends added in quadrature as within a span, rescaled to
    `conf` (e.g. Bonferroni over several comparisons). None unless both spans are bounded: a
    sweep leaves a span's upper end unknown, so no difference can be told."""
    from scipy.special import ndtri

    if not (a.bounded and b.bounded):
        return None
    d, k = a.steps - b.steps, float(ndtri(0.5 + conf / 2) / ndtri(0.5 + CONF / 2))
    return Span(d, d - k * math.hypot(a.steps - a.lo, b.hi - b.steps),
                d + k * math.hypot(a.hi - a.steps, b.steps - b.lo))  # fmt: skip


def _pairs(seats: pd.DataFrame, rungs: list[str]) -> dict:
    """For each adjacent pair, the mean of the two players' summed win shares in the games both
    play (1 at two players; less with more seats, where a third player may win), and the number
    of deals (blocks) in which both play."""
    wide = Y.wins_by_game(seats)
    out = {}
    for a, b in zip(rungs, rungs[1:], strict=False):
        both = wide[[a, b]].dropna()
        total = float((both[a] + both[b]).mean()) if len(both) else math.nan
        deals = both.index.get_level_values("block").nunique()
        out[(a, b)] = (total if total > 0 else 1.0, int(deals))
    return out


def saved(steps: pd.DataFrame, n_players: int, blocks: int | None = None,
          conf: float = CONF) -> Ladder | None:  # fmt: skip
    """A ladder from the steps table `abyss-mc skill` saved (skill-<N>p.csv). A table saved
    before a sweep's bound counted deals has no `blocks`: given the tournament's `blocks` (every
    pair meets in every block of `tournament --design all`), its rows are made again from their
    shares and intervals; without them, None."""
    if "blocks" not in steps:
        if blocks is None:
            return None
        from scipy.special import ndtri

        z = float(ndtri(0.5 + conf / 2))
        steps = pd.DataFrame([step_row(r["weaker"], r["stronger"], r["stronger's share"],
                                       (r["hi"] - r["lo"]) / (2 * z), int(r["games"]), blocks,
                                       conf) for _, r in steps.iterrows()])  # fmt: skip
    rungs = [*steps["weaker"][:1], *steps["stronger"]]
    return Ladder(rungs, pd.DataFrame(), steps, span_of(steps, conf), n_players, conf)
