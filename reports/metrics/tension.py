"""Designer "tension" metrics of a game, from the per-round score trajectories of many games: how
often the lead changes, how early the game is decided, how often the last seat comes back, and how
close the finish is. Generic: no game is imported; any game that records running scores fits.

Input, numpy arrays over G games, R rounds and S seats:

* ``scores`` int [G, R, S]: each seat's running score after its turn in round r (round index 0 is
  the first round). A seat that had no turn in a round because the game had ended holds the
  sentinel ``missing`` (default :data:`NOT_PLAYED`); rounds after a game's end hold it for every
  seat, so games may have different lengths. A game's *rounds played* are the rounds in which at
  least one seat has a score; within them a missing score is the seat's latest score (it had no
  turn, so its score did not change), or 0 before its first turn.
* ``win`` float [G, S]: each seat's share of the win (1 for the sole winner, 1/k among k tied
  winners, 0 for losers). A game has a *sole winner* when one seat's share is 1.
* ``final`` int [G, S]: final scores (after any end-of-game scoring), used for the margin.
* ``deal`` int [G] (optional): the deal each game was played on. A tournament plays every deal
  at several tables (rotations, line-ups), so its games are not independent draws: the deal is
  the unit of every interval. Without it each game is its own deal.

The *sole leader* of a round is the unique seat with the highest score in that round; a round
with a tie at the top has none. Each metric is computed per game (see its function), then
summarised by :func:`tension`: the mean over games with a Student t interval whose standard
error is clustered by deal (:func:`clustered_mean`). :func:`compare` tells two sets of games
apart (Welch tests on those standard errors, Holm's adjustment over the metrics).

Whether the leader snowballs or the last seat catches up is tested by :func:`lead_growth`: does
a seat's lead after round k change what it gains in the rest of the game, beyond what its
strategy and seat, and the deal for that seat and that strategy, give? The running score must
be the score as it would stand if the game ended then: points held back until the end and left
out of it read as catching up. The comeback rate itself is descriptive: the seat last after
round k is behind, so it wins less than 1/n in any race.

The metrics follow Browne's as Ludii implements them (``Evaluation/src/metrics`` in
github.com/Ludeme/Ludii: ``single/stateEvaluation/LeadChange.java``,
``single/stateEvaluation/decisiveness/DecisivenessMoves.java``, ``multiple/metrics/Drama.java``),
but on scores instead of Ludii's search-based state evaluations and by rounds instead of moves;
each function says where it departs.

pandas, scipy and statsmodels are imported when a table or a test is asked for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from reports.stats.intervals import t_quantile
from sim.core.samples import NOT_PLAYED

#: One-line definitions, for :meth:`Tension.frame` (``comeback_<k>`` is added per k).
DEFINITIONS = {
    "lead_changes": "rounds whose sole leader differs from the latest earlier one (ties skipped)",
    "lead_changes_per_round": "lead changes / (rounds played - 1)",
    "decisive_point": "share of rounds before the sole winner leads for good (1: never); ties out",
    "margin": "winner's final score minus the best loser's (0 if tied)",
    "relative_margin": "margin / winner's final score (games where it is > 0)",
    "tied": "share of games without a sole winner",
}


def rounds_played(scores: np.ndarray, missing: int = NOT_PLAYED) -> np.ndarray:
    """Rounds played by each game [G]: one more than the last round in which any seat scored."""
    any_turn = (scores != missing).any(axis=2)
    last = np.where(any_turn, np.arange(scores.shape[1]), -1).max(axis=1)
    return last + 1


def _forward_fill(values: np.ndarray, valid: np.ndarray, empty) -> np.ndarray:
    """Invalid entries replaced by the latest valid one before them on axis 1 (else `empty`)."""
    shape = [1] * values.ndim
    shape[1] = values.shape[1]
    index = np.where(valid, np.arange(values.shape[1]).reshape(shape), -1)
    index = np.maximum.accumulate(index, axis=1)
    filled = np.take_along_axis(values, np.maximum(index, 0), axis=1)
    return np.where(index >= 0, filled, empty)


def filled_scores(scores: np.ndarray, missing: int = NOT_PLAYED) -> np.ndarray:
    """Running scores [G, R, S] with a missing score replaced by the seat's latest (0 before its
    first turn); rounds after a game's end repeat the last scores."""
    return _forward_fill(scores, scores != missing, 0)


def sole_leaders(scores: np.ndarray, missing: int = NOT_PLAYED) -> np.ndarray:
    """The sole leader of each round [G, R]: a seat, or -1 for a tie at the top or a round after
    the game's end."""
    filled = filled_scores(scores, missing)
    top = filled.max(axis=2, keepdims=True)
    sole = (filled == top).sum(axis=2) == 1
    inside = np.arange(scores.shape[1]) < rounds_played(scores, missing)[:, None]
    return np.where(sole & inside, filled.argmax(axis=2), -1)


def lead_changes(scores: np.ndarray, missing: int = NOT_PLAYED) -> np.ndarray:
    """Lead changes per game [G]: the rounds r >= 1 whose sole leader differs from the sole leader
    of the most recent round before r that had one (rounds without a sole leader are skipped).

    Ludii's Lead Change counts every move whose *set* of top-evaluated players differs from the
    previous move's, ties included (and the first move always, as it starts from an empty set);
    here a tie at the top neither starts nor ends a lead, and round 0 sets the first leader."""
    leader = sole_leaders(scores, missing)
    previous = _forward_fill(leader, leader >= 0, -1)[:, :-1]  # latest sole leader before round r
    now = leader[:, 1:]
    return ((now >= 0) & (previous >= 0) & (now != previous)).sum(axis=1)


def sole_winners(win: np.ndarray) -> np.ndarray:
    """The sole winner of each game [G], or -1 where the win is shared (or nobody won)."""
    return np.where(win.max(axis=1) > 1 - 1e-9, win.argmax(axis=1), -1)


def decisive_point(scores: np.ndarray, win: np.ndarray, missing: int = NOT_PLAYED) -> np.ndarray:
    """Share of the game before the sole winner leads for good [G]: the smallest r such that the
    winner is the sole leader in every round from r to the game's last round, divided by the
    rounds played; 1.0 if it is not the sole leader of the last round (e.g. it passes the others
    only at the final scoring). NaN for games without a sole winner. Low = decided early.

    Ludii's Decisiveness Moves is the first move at which a winner's evaluation exceeds the best
    evaluation any non-winner ever reached; scores have no such common scale across games, so
    here a game is decided once its winner's lead is never lost again."""
    rounds = rounds_played(scores, missing)
    winner = sole_winners(win)
    leader = sole_leaders(scores, missing)
    after_end = np.arange(scores.shape[1]) >= rounds[:, None]
    leads = (leader == winner[:, None]) | after_end  # rounds after the end never break the run
    run = np.cumprod(leads[:, ::-1], axis=1).sum(axis=1) - (scores.shape[1] - rounds)
    point = (rounds - run) / np.maximum(rounds, 1)
    return np.where(winner >= 0, point, np.nan)


def comeback(scores: np.ndarray, win: np.ndarray, k: int, missing: int = NOT_PLAYED) -> np.ndarray:
    """Win share of the last seat after round k, per game [G]: the seats with the lowest score
    after round k, each weighted 1 / (seats tied for last), summed over their win shares. NaN for
    games that ended before round k.

    Not a Ludii metric; the counterpart of its Drama (how far behind the eventual winner was),
    seen from the seat that is behind. Descriptive: the seat last after round k is chosen for
    being behind, so it wins less than 1/n in any race; :func:`lead_growth` tests snowball and
    catch-up."""
    if k >= scores.shape[1]:  # no game got that far
        return np.full(len(scores), np.nan)
    at_k = filled_scores(scores[:, : k + 1], missing)[:, k]  # (the rounds up to k suffice)
    return np.where(rounds_played(scores, missing) > k, _last_share(at_k, win), np.nan)


def _last_share(at_k: np.ndarray, win: np.ndarray) -> np.ndarray:
    """The win share of the seat(s) with the lowest score in `at_k` [..., S] (ties weighted)."""
    last = at_k == at_k.min(axis=-1, keepdims=True)
    return (last * win).sum(axis=-1) / last.sum(axis=-1)


class Growth(NamedTuple):
    """How an early lead grows (`lead_growth`): the later gain per point of lead, its interval
    and standard error over deals, the games and deals behind it, and whether the deals' own
    effects were absorbed (False: every deal was played at one table, so they could not be)."""

    estimate: float
    lo: float
    hi: float
    se: float
    deals: int
    games: int
    absorbed: bool = False
    one_deal: bool = False  # NaN because every lead left was in one deal: no deal jackknife


def lead_growth(scores: np.ndarray, final: np.ndarray, k: int, seating=None, deal=None,
                missing: int = NOT_PLAYED, confidence: float = 0.95) -> Growth:  # fmt: skip
    """Does an early lead grow or shrink? Per seat of each game that went on after round k: its
    lead after round k and what it gained in the rest of the game, final scoring included. The
    estimate is the slope of the later gain on the lead in a linear model with a constant per
    game, per strategy and seat (`seating` [G, S]: each seat's strategy; None: one strategy)
    and, where a deal was played at several tables (`deal` [G]: a tournament's rotations), per
    deal and seat and per deal and strategy. The constants are absorbed by alternating
    demeaning (`within`), the slope fitted on what is left; its standard error is the cluster
    jackknife's by deal (CRV3, `crv3_slope`; MacKinnon, Nielsen & Webb 2023), t on deals - 1
    degrees of freedom. Fixed effects nested in the deals need no further degrees-of-freedom
    correction (Cameron & Miller 2015).

    In a game whose gains do not depend on the standing (no snowball, no catch-up), a seat's
    later gains are what its strategy and seat, and the deal for that seat and that strategy,
    give, whatever its lead: the slope is 0 however strong the strategies, however the rounds
    grow and however a deal favours a seat all game long. Above 0 the leader pulls away
    (snowball), below 0 the others close in (catch-up). Where every deal was played at one table
    (a simulation) the deal's constants cannot be absorbed (`Growth.absorbed` False): a deal
    that favours one seat all game then reads as a snowball. Points a seat holds back until the
    end and its running score leaves out read as catching up, whatever the constants: the
    running score must be the score as it would stand if the game ended then. Not tested
    against 1/n: the seat last after round k wins less than 1/n in any race, since it is
    behind."""
    scores, final = np.asarray(scores), np.asarray(final, dtype=float)
    g, _, n = scores.shape
    on = rounds_played(scores, missing) > k + 1 if k < scores.shape[1] else np.zeros(g, bool)
    deals = np.arange(g) if deal is None else np.asarray(deal)
    codes = _codes(deals[on])
    tables = np.bincount(codes)[codes]  # the tables of each game's deal
    absorbed = bool((tables > 1).any())  # some deal was played at several tables
    if absorbed:  # a deal at one table has nothing left once its constants are absorbed
        on[on] = tables > 1
    deals = deals[on]
    games, n_deals = int(on.sum()), len(np.unique(deals))
    nothing = Growth(math.nan, math.nan, math.nan, math.nan, n_deals, games, absorbed)
    if games < 2 or n_deals < 2:
        return nothing
    at_k = filled_scores(scores[on, : k + 1], missing)[:, k].astype(float)  # (rounds to k)
    strategy = np.zeros((games, n), int) if seating is None else np.asarray(seating)[on]
    seat = np.broadcast_to(np.arange(n), (games, n))
    unit = np.broadcast_to(deals[:, None], (games, n))
    factors = [np.repeat(np.arange(games), n), _codes((strategy, seat))]
    if absorbed:
        factors += [_codes((unit, seat)), _codes((unit, strategy))]
    x, y = within(np.column_stack([at_k.ravel(), (final[on] - at_k).ravel()]), factors).T
    if np.abs(x).max() <= 1e-9 * max(1.0, np.abs(at_k).max()):  # no lead left to test
        return nothing
    slope, se = crv3_slope(x, y, _codes(unit))
    if not math.isfinite(se):  # one deal holds all the lead left: no jackknife without it
        return nothing._replace(one_deal=True)
    half = t_quantile(confidence, n_deals - 1) * se
    return Growth(slope, slope - half, slope + half, se, n_deals, games, absorbed)


def crv3_slope(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> tuple[float, float]:
    """The least-squares slope of y on x (no constant) and its CRV3 standard error: the cluster
    jackknife centred on the estimate, times (G - 1) / G (MacKinnon, Nielsen & Webb 2023;
    statsmodels' `cov_type="cluster-crv3"`, to rounding, tests/core/test_tension.py). With one
    regressor each leave-one-cluster-out slope is a ratio of sums, so the G refits statsmodels
    solves one by one (90 s of a default report) are two `bincount`s. NaN when leaving out a
    cluster leaves no x to fit on."""
    sxx, sxy = float(x @ x), float(x @ y)
    slope = sxy / sxx
    g = int(groups.max()) + 1
    left_xx = sxx - np.bincount(groups, weights=x * x, minlength=g)
    left_xy = sxy - np.bincount(groups, weights=x * y, minlength=g)
    if (left_xx <= 1e-12 * sxx).any():
        return slope, math.nan
    jack = left_xy / left_xx - slope
    return slope, math.sqrt(float(jack @ jack) * (g - 1) / g)


def within(values: np.ndarray, factors: list, tol: float = 1e-10,
           rounds: int = 10_000) -> np.ndarray:  # fmt: skip
    """`values` [N, m] less their least-squares fit on a constant per level of every factor
    (codes [N] each): the method of alternating projections (Gaure 2013, R's lfe), demeaning
    within each factor in turn until a sweep changes nothing beyond `tol` of the values' scale.
    Dense dummies would not fit: a report's deals x tables x seats are tens of thousands of
    rows and its deals' constants thousands of columns."""
    out = np.array(values, dtype=float)
    sizes = [np.bincount(f) for f in factors]
    scale = tol * max(1.0, float(np.abs(out).max()))
    for _ in range(rounds):
        change = 0.0
        for f, size in zip(factors, sizes, strict=True):
            means = np.stack([np.bincount(f, weights=v) for v in out.T], axis=1) / size[:, None]
            out -= means[f]
            change = max(change, float(np.abs(means).max()))
        if change <= scale:
            break
    return out


def _codes(values) -> np.ndarray:
    """0-based codes of the distinct values (flattened), or of the distinct tuples of a tuple
    of equally shaped arrays: group numbers for the model."""
    if isinstance(values, tuple):  # mixed radix over each part's codes
        combined = 0
        for part in map(_codes, values):
            combined = combined * (int(part.max()) + 1) + part
        return _codes(combined)
    return np.unique(np.asarray(values).ravel(), return_inverse=True)[1].ravel()


def margin(final: np.ndarray, win: np.ndarray) -> np.ndarray:
    """Final winning margin [G]: the sole winner's final score minus the best final score of a
    seat with no share of the win; 0 where the win is shared. (Ludii's Score Difference is the
    largest gap between any two seats; the margin looks at the top two only.)"""
    winner = sole_winners(win)
    best_loser = np.where(win > 0, -np.inf, final).max(axis=1)
    top = final[np.arange(len(final)), np.maximum(winner, 0)]
    return np.where(winner >= 0, top - best_loser, 0.0)


def relative_margin(final: np.ndarray, win: np.ndarray) -> np.ndarray:
    """:func:`margin` divided by the winner's (the top) final score [G]; NaN where that is <= 0."""
    top = final.max(axis=1).astype(float)
    return np.where(top > 0, margin(final, win) / np.where(top > 0, top, 1), np.nan)


class Clustered(NamedTuple):
    """A mean over games whose standard error is clustered by deal (`clustered_mean`)."""

    mean: float
    lo: float
    hi: float
    se: float
    deals: int
    games: int


def clustered_mean(values, deal=None, confidence: float = 0.95) -> Clustered:
    """The mean of `values` over games (NaN left out) with a Student t interval on deals - 1
    degrees of freedom, its standard error clustered by `deal` (the ratio estimator's: each
    deal's summed deviations from the mean; with one game per deal, the usual s / sqrt(n)).
    `deal` None: every game its own deal."""
    values = np.asarray(values, dtype=float)
    deal = np.arange(len(values)) if deal is None else np.asarray(deal)
    ok = ~np.isnan(values)
    values, deal = values[ok], deal[ok]
    n = len(values)
    if n == 0:
        return Clustered(math.nan, math.nan, math.nan, math.nan, 0, 0)
    mean = float(values.mean())
    _, unit = np.unique(deal, return_inverse=True)
    deviation = np.bincount(unit, weights=values - mean)  # per deal
    g = len(deviation)
    if g < 2:
        return Clustered(mean, math.nan, math.nan, math.nan, g, n)
    se = math.sqrt(g / (g - 1) * float((deviation**2).sum())) / n
    half = t_quantile(confidence, g - 1) * se
    return Clustered(mean, mean - half, mean + half, se, g, n)


@dataclass
class Tension:
    """The per-game tension metrics of one set of games (NaN where a metric is undefined for a
    game), the deal of each game, and their summaries; ``comeback_<k>`` for each k."""

    per_game: dict[str, np.ndarray]
    seats: int
    margin_counts: dict[int, int] = field(default_factory=dict)  # games by final margin
    confidence: float = 0.95
    deal: np.ndarray | None = None  # [G]; None: every game its own deal

    def clustered(self, metric: str) -> Clustered:
        """One metric's mean over games with its interval over deals (`clustered_mean`)."""
        return clustered_mean(self.per_game[metric], self.deal, self.confidence)

    def summary(self, metric: str) -> tuple[float, float, float, int]:
        """Mean, interval (t, clustered by deal) and number of deals of one metric."""
        c = self.clustered(metric)
        return c.mean, c.lo, c.hi, c.deals

    def frame(self):
        """One row per metric: ``metric, value, lo, hi, deals, games, definition`` (pandas)."""
        import pandas as pd

        rows = []
        for metric in self.per_game:
            if metric.startswith("comeback_"):
                k = metric.removeprefix("comeback_")
                text = (f"win share of the seat(s) last after round {k} (1/n = "
                        f"{1 / self.seats:.3f} is no null: the last seat is behind)")  # fmt: skip
            else:
                text = DEFINITIONS[metric]
            c = self.clustered(metric)
            rows.append((metric, c.mean, c.lo, c.hi, c.deals, c.games, text))
        columns = ["metric", "value", "lo", "hi", "deals", "games", "definition"]
        return pd.DataFrame(rows, columns=columns)


def tension(
    scores: np.ndarray,
    win: np.ndarray,
    final: np.ndarray,
    ks=None,
    missing: int = NOT_PLAYED,
    confidence: float = 0.95,
    deal=None,
) -> Tension:
    """Every tension metric of a set of games. `ks`: the rounds after which the comeback rate is
    measured (default every round k below the median number of rounds played); `deal`: each
    game's deal, the unit of the intervals (None: every game its own)."""
    scores, win, final = np.asarray(scores), np.asarray(win, dtype=float), np.asarray(final)
    rounds = rounds_played(scores, missing)
    if ks is None:
        ks = range(int(np.median(rounds)))
    ks = list(ks)
    changes = lead_changes(scores, missing).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_round = np.where(rounds > 1, changes / (rounds - 1), np.nan)
    margins = margin(final, win)
    per_game = {
        "lead_changes": changes,
        "lead_changes_per_round": per_round,
        "decisive_point": decisive_point(scores, win, missing),
        **{f"comeback_{k}": comeback(scores, win, k, missing) for k in ks},
        "margin": margins,
        "relative_margin": relative_margin(final, win),
        "tied": (sole_winners(win) < 0).astype(float),
    }
    values, counts = np.unique(margins, return_counts=True)
    histogram = {int(v): int(c) for v, c in zip(values, counts, strict=True)}
    deal = None if deal is None else np.asarray(deal)
    return Tension(per_game, scores.shape[2], histogram, confidence, deal)


def welch(a: Clustered, b: Clustered, level: float = math.nan) -> tuple[float, float, float]:
    """b.mean - a.mean: its interval at `level` (NaN when `level` is) and the two-sided p-value
    of no difference, Welch's t on the two clustered standard errors (Satterthwaite's degrees
    of freedom, deals - 1 each; with one game per deal, Welch's t test)."""
    from scipy.stats import t as student

    diff = b.mean - a.mean
    var = a.se**2 + b.se**2
    if var == 0:  # no variance: the t statistic is 0/0 or ±inf
        return diff, diff, 1.0 if diff == 0 else 0.0
    dof = var**2 / (a.se**4 / (a.deals - 1) + b.se**4 / (b.deals - 1))
    p = float(2 * student.sf(abs(diff) / math.sqrt(var), dof))
    if math.isnan(level):
        return math.nan, math.nan, p
    half = float(student.ppf(0.5 + level / 2, dof)) * math.sqrt(var)
    return diff - half, diff + half, p


def compare(a: Tension, b: Tension, confidence: float = 0.95):
    """Each per-game metric that both sets have (``tied`` excepted: it is the decisive point's
    denominator, not a tension metric), b's mean minus a's: a Welch t test on the standard
    errors clustered by deal (`welch`) and its p-value, Holm's adjusted p-value over the metrics
    compared (so the family-wise error rate is 1 - confidence whatever their dependence), and the
    interval at the level Holm's procedure tested that metric
    (`reports.stats.blocks.adjusted_levels`),
    so that it excludes 0 exactly when the adjusted p-value is below 1 - confidence.
    ``verdict``: "higher" or "lower" (b than a) when it is, otherwise "cannot tell". A pandas
    DataFrame, one row per metric; ``n_a``, ``n_b``: the deals."""
    import pandas as pd

    from reports.stats.blocks import adjust_pvalues, adjusted_levels

    metrics = [m for m in a.per_game if m in b.per_game and m != "tied"]
    both = {m: (a.clustered(m), b.clustered(m)) for m in metrics}
    usable = {m: min(x.deals for x in both[m]) >= 2 for m in metrics}  # else outside the family
    pvalues = np.array([welch(*both[m])[2] if usable[m] else math.nan for m in metrics])
    adjusted = adjust_pvalues(pvalues, "holm")
    levels = adjusted_levels(pvalues, confidence, "holm")
    rows = []
    for m, p, p_adj, level in zip(metrics, pvalues, adjusted, levels, strict=True):
        x, y = both[m]
        diff = y.mean - x.mean if min(x.games, y.games) else math.nan
        lo, hi = welch(x, y, level)[:2] if usable[m] else (math.nan, math.nan)
        found = p_adj < 1 - confidence  # False for NaN
        verdict = ("higher" if diff > 0 else "lower") if found else "cannot tell"
        rows.append((m, diff, lo, hi, level, p, p_adj, verdict, x.deals, y.deals))
    columns = ["metric", "diff", "lo", "hi", "level", "p", "p_holm", "verdict", "n_a", "n_b"]
    return pd.DataFrame(rows, columns=columns)


# --- a sample of a run's games, as the report's sections and `design` read it ------------------

#: the comeback verdict looks at the last seat after this share of the game's median rounds
COMEBACK_AT = 1 / 3


class Sample(NamedTuple):
    """Sampled games of one player count: scores [game, round, seat] (`NOT_PLAYED` after a game's
    end), win [game, seat] (shares), final [game, seat] (final scores), deal [game] (the game
    index the deal is drawn from; None: every game its own deal), seating [game, seat] (each
    seat's strategy, as an index into the run's line-up; None: unknown)."""

    scores: np.ndarray
    win: np.ndarray
    final: np.ndarray
    deal: np.ndarray | None = None
    seating: np.ndarray | None = None


def comeback_round(sample: Sample) -> int:
    """The round (0-based) after which the comeback verdict looks: a third of the median game."""
    median = float(np.median(rounds_played(sample.scores, NOT_PLAYED)))
    return max(0, math.ceil(COMEBACK_AT * median) - 1)


def measured(sample: Sample, ks=None) -> Tension:
    """The tension metrics of a sample, its deals the unit (`reports.metrics.tension.tension`)."""
    return tension(sample.scores, sample.win, sample.final, ks=ks, deal=sample.deal)


def growth(sample: Sample, k: int) -> Growth:
    """How a lead after round k grows (`reports.metrics.tension.lead_growth`), its deals the
    unit."""
    return lead_growth(sample.scores, sample.final, k, sample.seating, sample.deal)
