"""Verdicts on a time budget (issue 30, `--minutes`): deals go where a verdict is still undecided.

Card values (`run`): deals go to the cards still undecided, and a card told apart from worthless
stops getting them. The best strategy (`extend`): a tournament whose best strategy is not told
apart from the others plays more blocks, one that is told stops.

A group-sequential design over restricted play (`reports.restrict`). The looks are fixed in
advance: `first` deals, then twice as many at each look, at most `looks` looks. At each look every
card's value (the unrestricted strategy's win share minus the restricted one's, deal by deal, the
same deals) is tested, and Holm's procedure runs over every card at level alpha / `looks`: a card
it rejects is decided and plays no more deals. The family-wise error over all cards and all looks
is then at most alpha (a union bound over the looks: Bonferroni's alpha spending, the simplest
that holds for any number of looks actually taken, so a budget that runs out early is no harm).
Cards left open at the last look are "cannot tell".

A card decided early is chosen for a large estimate on few deals: its estimate there is biased
away from 0 (the winner's curse of stopping). So the looks only choose: a card they decide is
played again, in the same look, on as many fresh deals of another stream of the seed (`CONFIRM`),
and its value, interval and finding come from those deals alone: "worth something" (or "better
without") only when a one-sided test in the direction the looks found rejects there, Holm's
correction over every card the looks decided. A card never decided keeps its estimate on all its
deals, and is "cannot tell"; but it too was chosen by its own data: it stayed open because its
estimate never crossed a bound, so its estimate is pulled toward 0. A test at a fixed number of
deals keeps its level when it also requires the card to have stayed open (that event lies inside
the test's), but a card can then be named through either source, its looks' deals or fresh ones:
the tests that read both (a card too weak to matter, `reports.restrict.equivalence`; the most
valuable card, `reports.sections.card_verdicts.best_set`) are Bonferroni-corrected over the two. A
card
at exactly the margin was called too weak to matter in 9.9% of budgeted runs without that
correction, 5.4% with it (tests/core/test_card_verdicts.py). The error rates and the bias of the
looks are tested on planted and null cases (tests/core/test_sequential.py).

`play(rows, first, count)` plays the deals first .. first + count - 1 for the given rows (0: the
unrestricted strategy, 1 + i: forbidden card i) and returns their win shares, one row per row
asked, one column per deal: the same deal for every row (common random numbers).
`confirm(rows, count, look)` does the same on the fresh deals 0 .. count - 1 (`look`: the look
that asks, a key for storing them).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from reports.stats.blocks import adjust_pvalues, adjusted_levels

#: looks at most, and the deals of the first look (then doubled at each look)
LOOKS, FIRST = 6, 50
#: The stream of the card values' seed (`reports.tune.derived_seed(seed, CONFIRM)`) whose deals
#: confirm the decided cards: deals the looks never played.
CONFIRM = 1


@dataclass
class Sequential:
    """What the design decided: each card's deals played in the looks, its p-value at its last
    look, the look at which it was decided (-1: never), the looks' shares and the fresh shares
    that confirm the decided cards."""

    shares: np.ndarray  # [1 + cards, deals] (NaN where a card played no more)
    fresh: np.ndarray  # [1 + cards, deals]: a decided card's confirming deals (NaN elsewhere)
    deals: np.ndarray  # per card, in the looks (a decided card: as many fresh deals)
    p: np.ndarray  # per card, at its last look
    decided_at: np.ndarray  # per card (-1: open)
    looks: int  # looks taken
    level: float  # each look's level: alpha / LOOKS
    stopped_by: str  # "decided" (every card), "looks" or "budget"
    alpha: float = 0.05
    history: list = field(default_factory=list)  # per look: deals, open cards, seconds, pace


def schedule(first: int = FIRST, looks: int = LOOKS) -> list[int]:
    """Deals played by each look (cumulative)."""
    return [first * 2**k for k in range(looks)]


def run(play: Callable, n_cards: int, *, confirm: Callable, alpha: float = 0.05,
        first: int = FIRST, looks: int = LOOKS, seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic) -> Sequential:  # fmt: skip
    """Play looks until every card is decided, the looks are spent, or `seconds` have passed.
    The cards a look decides are confirmed in that look (`confirm`), so its time counts them. A
    look that would not fit what is left of `seconds` (its time foreseen from the last look's,
    per card and deal) is cut to the deals that fit, and is the last (`last_look`): so the
    budget is spent to within about a tenth, not a half as when looks doubled or stopped."""
    marks = schedule(first, looks)
    total = marks[-1]
    shares = np.full((1 + n_cards, total), np.nan)
    fresh = np.full((1 + n_cards, total), np.nan)
    p = np.ones(n_cards)
    decided_at = np.full(n_cards, -1)
    deals = np.zeros(n_cards, dtype=np.int64)
    level = alpha / looks
    start, played, history, stopped = clock(), 0, [], "looks"
    for k, mark in enumerate(marks):
        open_ = np.flatnonzero(decided_at < 0)
        if len(open_) == 0:
            break  # (every card decided: the result says so)
        rows = [0, *(1 + open_)]
        if seconds is not None and k > 0:
            mark = last_look(history, len(rows), played, mark, seconds - (clock() - start))
            if mark <= played:
                stopped = "budget"
                break
        t0, row_deals = clock(), len(rows) * (mark - played)
        shares[rows, played:mark] = play(rows, played, mark - played)
        pace = (clock() - t0) / row_deals  # (seconds per row and deal, before confirming)
        played = mark
        deals[open_] = mark
        p[open_] = _p_values(shares[0, :mark] - shares[1 + open_, :mark])
        rejected = adjust_pvalues(p, "holm") < level
        new = open_[rejected[open_]]
        decided_at[new] = k
        if len(new):  # the same number of deals again, fresh: they, not these, report
            fresh[[0, *(1 + new)], :mark] = confirm([0, *(1 + new)], mark, k)
        history.append((mark, len(open_), clock() - t0, pace))
        if seconds is not None and mark < marks[k]:
            stopped = "budget"  # (a look cut to the budget is the last)
            break
    return Sequential(shares, fresh, deals, p, decided_at, len(history), level,
                      "decided" if (decided_at >= 0).all() else stopped, alpha,
                      history)  # fmt: skip


def last_look(history: list, rows: int, played: int, mark: int, left: float) -> int:
    """Where the next look ends: at `mark` if its deals fit `FILL` of the `left` seconds at the
    last look's pace (`history`'s last entry: seconds per row and deal of its play before it
    confirmed; the slowest look's where the last took almost none, read back from its chunks
    by a resumed run), with room for `CONFIRMS` row of confirmation on all the look's deals (a
    card a look decides is confirmed on two rows, itself and the unrestricted strategy, but most
    looks decide none: with a reserve of two rows the simulated budgets were spent down to 88%,
    with one from 90% to 107%; the rest of `left` is for the machine's noise); else at the
    deals that fit, or at `played` (no look) when fewer than `MIN_LOOK` fit."""
    pace, slowest = history[-1][3], max(entry[3] for entry in history)
    if pace < slowest / 10:  # (read back, not played: the slowest look's pace instead)
        pace = slowest
    if pace <= 0:
        return mark
    if pace * (rows * (mark - played) + CONFIRMS * mark) <= FILL * left:
        return mark
    # rows x fit new row-deals, and CONFIRMS rows confirmed on all played + fit deals
    fit = int((FILL * left / pace - CONFIRMS * played) / (rows + CONFIRMS))
    return played + fit if fit >= MIN_LOOK else played


#: the fewest deals a look cut to the budget plays (fewer: the run stops instead), the share of
#: the seconds left that a look plans to fill, and the rows it plans to confirm
MIN_LOOK, FILL, CONFIRMS = 10, 0.95, 1


def _p_values(d: np.ndarray, sign: np.ndarray | None = None) -> np.ndarray:
    """Each row's one-sample t-test p-value (H0: mean 0), as `stats.paired_test`'s, for all rows
    at once: two-sided, or one-sided in the direction `sign` (+1: H1 mean > 0). A row without
    variance: 1 if its mean is 0 (or on the wrong side), else 0."""
    from scipy.stats import t as student

    n = d.shape[1]
    mean, sd = d.mean(axis=1), d.std(axis=1, ddof=1)
    flat = np.ptp(d, axis=1) == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = mean / (sd / np.sqrt(n))
    if sign is None:
        p = 2 * student.sf(np.abs(stat), n - 1)
        return np.where(flat, np.where(mean == 0, 1.0, 0.0), p)
    p = student.sf(sign * stat, n - 1)
    return np.where(flat, np.where(sign * mean > 0, 0.0, 1.0), p)


def estimates(result: Sequential) -> pd.DataFrame:
    """Each card's value as reported (one row per card, in card order): on its fresh deals for a
    card the looks decided (`fresh`), else on all its deals; its standard error, deals, p-value
    (one-sided in the looks' direction on the fresh deals; two-sided at its last look for an open
    card), `p_holm` (Holm over the decided cards; an open card's: Holm's at its last look, on
    the scale of alpha), the `level` of the interval `lo`..`hi` that matches the test
    (it excludes 0 exactly when the card is a finding), and the finding."""
    from scipy.stats import t as student

    n_cards = len(result.p)
    deals = np.asarray(result.deals)
    fresh = np.asarray(result.decided_at) >= 0
    values, ses = np.zeros(n_cards), np.zeros(n_cards)
    for i in range(n_cards):
        src = result.fresh if fresh[i] else result.shares
        d = src[0, :deals[i]] - src[1 + i, :deals[i]]
        values[i] = d.mean()
        ses[i] = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else np.nan
    open_ = ~fresh
    screen = np.sign(_looks_values(result))
    p = np.where(open_, result.p, np.nan)
    # an open card: Holm's at its last look, each look at alpha / looks: compared with alpha
    p_holm = np.minimum(1.0, adjust_pvalues(result.p, "holm") * result.alpha / result.level)
    levels = adjusted_levels(result.p, 1 - result.level, "holm")  # open: two-sided
    half = np.where(open_, 1 - (1 - levels) / 2, np.nan)
    dec = np.flatnonzero(~open_)
    if len(dec):
        p_dec = np.array([_p_values(_fresh_row(result, i)[None], screen[i:i + 1])[0]
                          for i in dec])  # fmt: skip
        p[dec] = p_dec
        p_holm[dec] = adjust_pvalues(p_dec, "holm")
        one_sided = adjusted_levels(p_dec, 1 - result.alpha, "holm")
        half[dec] = one_sided  # a one-sided test at 1 - a: the two-sided interval at 1 - 2a
        levels = levels.copy()
        levels[dec] = 2 * one_sided - 1
    t = student.ppf(half, np.maximum(deals - 1, 1))
    found = p_holm < result.alpha
    word = np.where(screen > 0, "worth something", "better without")
    # (one frame built at once: the many-seed tests build thousands)
    return pd.DataFrame({"deals": deals, "look": result.decided_at, "fresh": fresh,
                         "value": values, "se": ses, "lo": values - t * ses,
                         "hi": values + t * ses, "level": levels, "p": p, "p_holm": p_holm,
                         "finding": np.where(~open_ & found, word, "cannot tell")})  # fmt: skip


def _looks_values(result: Sequential) -> np.ndarray:
    """Each card's value on its deals of the looks (for a decided card: the biased estimate
    that chose it, kept only for its direction)."""
    return np.array([np.mean(result.shares[0, :n] - result.shares[1 + i, :n])
                     for i, n in enumerate(result.deals)])  # fmt: skip


def _fresh_row(result: Sequential, i: int) -> np.ndarray:
    n = result.deals[i]
    return result.fresh[0, :n] - result.fresh[1 + i, :n]


def findings(result: Sequential) -> list[str]:
    """Each card's finding: "worth something" (its value above 0, confirmed on fresh deals),
    "better without" (below), or "cannot tell"."""
    return estimates(result)["finding"].tolist()


def impact_frame(cards: list[tuple[str, str, str]], result: Sequential,
                 n_players: int) -> pd.DataFrame:  # fmt: skip
    """`reports.restrict.impact_frame`'s table for a sequential run: one row per card, most
    valuable first, each on its own deals (`deals`: fresh ones for a card the looks decided,
    `fresh` True) with its standard error `se`; `lo`..`hi` at the `level` that matches its test
    (`estimates`), so it excludes 0 exactly when the card is a finding; `look` the look that
    decided it (-1: open); `games` the games it played in the looks; `se_top` the standard
    error of the top card's value minus its own (`reports.restrict.se_against_top`)."""
    from reports.restrict import NEVER, se_against_top

    est = estimates(result)
    fresh = est["fresh"].to_numpy()
    diffs, sources, restricted, finding = {}, {}, [], est["finding"].to_numpy(dtype=object)
    for i, (_, name, _) in enumerate(cards):
        n = int(result.deals[i])
        src = result.fresh if fresh[i] else result.shares
        diffs[name], sources[name] = src[0, :n] - src[1 + i, :n], bool(fresh[i])
        restricted.append(float(np.mean(src[1 + i, :n])))
        if not (result.shares[0, :n] - result.shares[1 + i, :n]).any():
            finding[i] = NEVER
    columns = {"kind": [c[0] for c in cards], "card": [c[1] for c in cards],
               "players": n_players, "restricted": restricted,
               "games": est["deals"].to_numpy() * n_players,
               **{c: est[c].to_numpy() for c in ("value", "lo", "hi", "level", "p", "p_holm",
                                                 "se", "deals", "look", "fresh")},
               "finding": finding.astype(str)}  # fmt: skip
    df = pd.DataFrame(columns).astype({"deals": int, "look": int, "fresh": bool})
    df = df.sort_values(["value", "card"], ascending=[False, True]).reset_index(drop=True)
    df["se_top"] = se_against_top(df, diffs, sources)  # (fresh deals and the looks' share none)
    return df


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
        """The manifest's record of it (`reports.sections.verdicts.pair_conf` reads `conf` back)."""
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
        self.seconds, self.parts, self.total = seconds, max(parts, 1), seconds

    def left(self) -> float:
        return max(self.seconds, 0.0)

    def share(self) -> float:
        """The next part's seconds."""
        return self.left() / self.parts

    def spend(self, seconds: float) -> None:
        """A part took `seconds`; one part fewer is left."""
        self.seconds -= seconds
        self.parts = max(self.parts - 1, 1)

    def spent(self) -> float:
        """The seconds the parts took."""
        return self.total - self.seconds
