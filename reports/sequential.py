"""Verdicts on a time budget (issue 30, `--minutes`): deals go where a verdict is still undecided.

Card values (`run`): deals go to the cards still undecided, and a card told apart from worthless
stops getting them. The best strategy (`extend`): a tournament whose best strategy is not told
apart from the others plays more blocks, one that is told stops.

A group-sequential design over restricted play (`reports.restrict`). The looks are fixed in
advance: `first` deals, then twice as many at each look, at most `looks` looks. At each look every
card's value (the unrestricted strategy's win share minus the restricted one's, deal by deal, the
same deals) is tested, and Holm's procedure runs over every card at level alpha / `looks`: a card
it rejects is decided ("worth something" or "better without") and plays no more deals. The
family-wise error over all cards and all looks is then at most alpha (a union bound over the
looks: Bonferroni's alpha spending, the simplest that holds for any number of looks actually
taken, so a budget that runs out early is no harm). Cards left open at the last look are "cannot
tell". The error rates are tested on planted and null cases (tests/core/test_sequential.py).

`play(rows, first, count)` plays the deals first .. first + count - 1 for the given rows (0: the
unrestricted strategy, 1 + i: forbidden card i) and returns their win shares, one row per row
asked, one column per deal: the same deal for every row (common random numbers).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from reports.stats import adjust_pvalues, paired_test

#: looks at most, and the deals of the first look (then doubled at each look)
LOOKS, FIRST = 6, 50


@dataclass
class Sequential:
    """What the design decided: each card's deals played, its p-value at its last look, the look
    at which it was decided (-1: never), and the shares played."""

    shares: np.ndarray  # [1 + cards, deals] (NaN where a card played no more)
    deals: np.ndarray  # per card
    p: np.ndarray  # per card, at its last look
    decided_at: np.ndarray  # per card (-1: open)
    looks: int  # looks taken
    level: float  # each look's level: alpha / LOOKS
    stopped_by: str  # "decided" (every card), "looks" or "budget"
    history: list = field(default_factory=list)  # per look: (deals, open cards, seconds)


def schedule(first: int = FIRST, looks: int = LOOKS) -> list[int]:
    """Deals played by each look (cumulative)."""
    return [first * 2**k for k in range(looks)]


def run(play: Callable, n_cards: int, *, alpha: float = 0.05, first: int = FIRST,
        looks: int = LOOKS, seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic) -> Sequential:  # fmt: skip
    """Play looks until every card is decided, the looks are spent, or `seconds` have passed (a
    look is started only if the last one's time, doubled, fits: deals double at each look)."""
    marks = schedule(first, looks)
    total = marks[-1]
    shares = np.full((1 + n_cards, total), np.nan)
    p = np.ones(n_cards)
    decided_at = np.full(n_cards, -1)
    deals = np.zeros(n_cards, dtype=np.int64)
    level = alpha / looks
    start, played, history, stopped = clock(), 0, [], "looks"
    for k, mark in enumerate(marks):
        open_ = np.flatnonzero(decided_at < 0)
        if len(open_) == 0:
            break  # (every card decided: the result says so)
        if seconds is not None and k > 0 and clock() - start + 2 * history[-1][2] > seconds:
            stopped = "budget"
            break
        t0 = clock()
        rows = [0, *(1 + open_)]
        shares[rows, played:mark] = play(rows, played, mark - played)
        played = mark
        deals[open_] = mark
        p[open_] = _p_values(shares[0, :mark] - shares[1 + open_, :mark])
        rejected = adjust_pvalues(p, "holm") < level
        decided_at[open_[rejected[open_]]] = k
        history.append((mark, len(open_), clock() - t0))
    return Sequential(shares, deals, p, decided_at, len(history), level,
                      "decided" if (decided_at >= 0).all() else stopped, history)  # fmt: skip


def _p_values(d: np.ndarray) -> np.ndarray:
    """Each row's two-sided one-sample t-test p-value (H0: mean 0), as `stats.paired_test`'s,
    for all rows at once; a row without variance: 1 if its mean is 0, else 0."""
    from scipy.stats import t as student

    n = d.shape[1]
    mean, sd = d.mean(axis=1), d.std(axis=1, ddof=1)
    flat = np.ptp(d, axis=1) == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = mean / (sd / np.sqrt(n))
    p = 2 * student.sf(np.abs(stat), n - 1)
    return np.where(flat, np.where(mean == 0, 1.0, 0.0), p)


def findings(result: Sequential) -> list[str]:
    """Each card's finding: "worth something" (its value above 0), "better without" (below), or
    "cannot tell" (never decided)."""
    out = []
    for i in range(len(result.p)):
        if result.decided_at[i] < 0:
            out.append("cannot tell")
            continue
        n = result.deals[i]
        value = np.mean(result.shares[0, :n] - result.shares[1 + i, :n])
        out.append("worth something" if value > 0 else "better without")
    return out


def impact_frame(cards: list[tuple[str, str, str]], result: Sequential,
                 n_players: int) -> pd.DataFrame:  # fmt: skip
    """`reports.restrict.impact_frame`'s table for a sequential run: one row per card, most
    valuable first, each on its own deals; `level` the level at which Holm's procedure (at each
    look's alpha) tested it, so `lo`..`hi` excludes 0 for a decided card; `look` the look that
    decided it (-1: open)."""
    from reports.restrict import NEVER
    from reports.stats import adjusted_levels

    levels = adjusted_levels(result.p, 1 - result.level, "holm")
    found = findings(result)
    rows = []
    for i, (kind, name, _) in enumerate(cards):
        n = int(result.deals[i])
        d = result.shares[0, :n] - result.shares[1 + i, :n]
        value, lo, hi, _ = paired_test(d, levels[i])
        rows.append({"kind": kind, "card": name, "players": n_players, "value": value,
                     "lo": lo, "hi": hi, "level": levels[i], "p": result.p[i],
                     "restricted": float(np.mean(result.shares[1 + i, :n])),
                     "games": n * n_players, "look": int(result.decided_at[i]),
                     "finding": NEVER if not d.any() else found[i]})  # fmt: skip
    df = pd.DataFrame(rows)
    df["p_holm"] = adjust_pvalues(df["p"].to_numpy(), "holm")
    return df.sort_values(["value", "card"], ascending=[False, True]).reset_index(drop=True)


# --- the best strategy: a tournament's blocks in looks -----------------------------------------
def look_conf(k: int, alpha: float = 0.05, looks: int = LOOKS) -> float:
    """The level of look `k` of a tournament in looks: half the error rate at the first look
    (the blocks a report plays anyway, so that its verdicts lose little power there), the other
    half spread evenly over the later looks; the sum over all looks is `alpha` (a union bound,
    whatever look the run stops at)."""
    if looks == 1:
        return 1 - alpha
    return 1 - alpha / 2 if k == 0 else 1 - alpha / (2 * (looks - 1))


@dataclass
class Looks:
    """How a tournament was played in looks: the blocks by each look taken, whether its question
    was decided, why it stopped ("decided", "looks" or "budget"), the level of its last look
    (`look_conf`: the level its verdict is tested at), and the seconds the looks after the
    first took."""

    marks: list[int]
    decided: bool
    stopped_by: str
    conf: float
    seconds: float = 0.0

    def config(self) -> dict:
        """The manifest's record of it (`reports.verdicts.pair_conf` reads `conf` back)."""
        return {"blocks": self.marks[-1], "looks": len(self.marks), "decided": self.decided,
                "stopped_by": self.stopped_by, "conf": self.conf,
                "seconds": round(self.seconds, 1)}  # fmt: skip


def extend(play_to: Callable, decided: Callable, first: int, *, seconds: float,
           alpha: float = 0.05, looks: int = LOOKS,
           clock: Callable[[], float] = time.monotonic):  # fmt: skip
    """A tournament in looks: `play_to(blocks)` plays it to that many blocks (resuming its stored
    chunks) and returns its result; `decided(result, conf)` says whether its question is
    answered at level `conf`. The first look plays `first` blocks; while the question is open,
    blocks double at each look, at most `looks` looks, a look started only if twice the last
    one's time fits in `seconds` (counted from the end of the first look, which a report plays
    anyway), or if an interrupted run already stored part of it. Returns (result, Looks).

    Look k is tested at `look_conf(k)`, so the chance that the run ever calls a question decided
    wrongly is at most alpha (Bonferroni over the looks), wherever it stops."""
    marks, last, start, result, conf = [], 0.0, None, None, 1 - alpha
    for k, mark in enumerate(schedule(first, looks)):
        stored = result is not None and result.n_stored >= mark
        if marks and not stored and clock() - start + 2 * last > seconds:
            return result, Looks(marks, False, "budget", conf, clock() - start)
        t0 = clock()
        result = play_to(mark)
        last = clock() - t0
        start = clock() if start is None else start
        marks.append(mark)
        conf = look_conf(k, alpha, looks)
        if decided(result, conf):
            return result, Looks(marks, True, "decided", conf, clock() - start)
    return result, Looks(marks, False, "looks", conf, clock() - start)


class Pool:
    """A time budget shared by `parts` uses one after the other: each gets what is left divided
    by the parts left, so time one did not need goes to those after it."""

    def __init__(self, seconds: float, parts: int):
        self.seconds, self.parts = seconds, max(parts, 1)

    def left(self) -> float:
        return max(self.seconds, 0.0)

    def share(self) -> float:
        """The next part's seconds."""
        return self.left() / self.parts

    def spend(self, seconds: float) -> None:
        """A part took `seconds`; one part fewer is left."""
        self.seconds -= seconds
        self.parts = max(self.parts - 1, 1)
