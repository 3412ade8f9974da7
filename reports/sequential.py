"""Card values on a time budget (issue 30, `--minutes`): deals go to the cards still undecided, and
a card told apart from worthless stops getting them.

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
