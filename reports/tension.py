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

The *sole leader* of a round is the unique seat with the highest score in that round; a round
with a tie at the top has none. Each metric is computed per game (see its function), then
summarised over games by :func:`tension`: a mean with a Student t interval over games, or a rate
with a Wilson interval. :func:`compare` tells two sets of games apart (Welch tests, Holm's
adjustment over the metrics).

The metrics follow Browne's as Ludii implements them (``Evaluation/src/metrics`` in
github.com/Ludeme/Ludii: ``single/stateEvaluation/LeadChange.java``,
``single/stateEvaluation/decisiveness/DecisivenessMoves.java``, ``multiple/metrics/Drama.java``),
but on scores instead of Ludii's search-based state evaluations and by rounds instead of moves;
each function says where it departs.

pandas and scipy are imported when a table or a test is asked for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from reports.intervals import mean_halfwidth, wilson_interval

#: The score of a seat that had no turn in a round (the game had ended).
NOT_PLAYED = -(1 << 30)
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
    games that ended before round k. Parity is 1 / seats.

    Not a Ludii metric; the counterpart of its Drama (how far behind the eventual winner was),
    seen from the seat that is behind."""
    if k >= scores.shape[1]:  # no game got that far
        return np.full(len(scores), np.nan)
    at_k = filled_scores(scores, missing)[:, k]
    last = at_k == at_k.min(axis=1, keepdims=True)
    share = (last * win).sum(axis=1) / last.sum(axis=1)
    return np.where(rounds_played(scores, missing) > k, share, np.nan)


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


@dataclass
class Tension:
    """The per-game tension metrics of one set of games (NaN where a metric is undefined for a
    game) and their summaries; ``comeback_<k>`` for each k asked."""

    per_game: dict[str, np.ndarray]
    seats: int
    margin_counts: dict[int, int] = field(default_factory=dict)  # games by final margin
    confidence: float = 0.95

    def summary(self, metric: str) -> tuple[float, float, float, int]:
        """Mean, interval and number of games of one metric (Wilson for a rate, t otherwise)."""
        values = self.per_game[metric]
        values = values[~np.isnan(values)]
        n = len(values)
        if n == 0:
            return math.nan, math.nan, math.nan, 0
        mean = float(values.mean())
        if metric == "tied" or metric.startswith("comeback_"):
            lo, hi = wilson_interval(float(values.sum()), n, self.confidence)
        else:
            half = mean_halfwidth(values, self.confidence)
            lo, hi = mean - half, mean + half
        return mean, lo, hi, n

    def frame(self):
        """One row per metric: ``metric, value, lo, hi, n, definition`` (a pandas DataFrame)."""
        import pandas as pd

        rows = []
        for metric in self.per_game:
            if metric.startswith("comeback_"):
                k = metric.removeprefix("comeback_")
                text = f"win share of the seat(s) last after round {k}; parity {1 / self.seats:.3f}"
            else:
                text = DEFINITIONS[metric]
            rows.append((metric, *self.summary(metric), text))
        return pd.DataFrame(rows, columns=["metric", "value", "lo", "hi", "n", "definition"])


def tension(
    scores: np.ndarray,
    win: np.ndarray,
    final: np.ndarray,
    ks=None,
    missing: int = NOT_PLAYED,
    confidence: float = 0.95,
) -> Tension:
    """Every tension metric of a set of games. `ks`: the rounds after which the comeback rate is
    measured (default every round k below the median number of rounds played)."""
    scores, win, final = np.asarray(scores), np.asarray(win, dtype=float), np.asarray(final)
    rounds = rounds_played(scores, missing)
    if ks is None:
        ks = range(int(np.median(rounds)))
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
    return Tension(per_game, scores.shape[2], histogram, confidence)


def _welch(a: np.ndarray, b: np.ndarray, level: float) -> tuple[float, float, float]:
    """Welch interval of mean(b) - mean(a) at `level` and the two-sided p-value of no difference."""
    from scipy.stats import ttest_ind

    diff = float(b.mean() - a.mean())
    if np.ptp(a) == 0 and np.ptp(b) == 0:  # no variance: the t statistic is 0/0 or ±inf
        return diff, diff, 1.0 if diff == 0 else 0.0
    result = ttest_ind(b, a, equal_var=False)
    if math.isnan(level):
        return math.nan, math.nan, float(result.pvalue)
    lo, hi = result.confidence_interval(level)
    return float(lo), float(hi), float(result.pvalue)


def compare(a: Tension, b: Tension, confidence: float = 0.95):
    """Each per-game metric that both sets have (``tied`` excepted: it is the decisive point's
    denominator, not a tension metric), b's mean minus a's: a Welch t test and p-value, Holm's
    adjusted p-value over the metrics compared (so the family-wise error rate is 1 - confidence
    whatever their dependence), and the Welch interval at the level Holm's procedure tested that
    metric (`reports.stats.adjusted_levels`), so that it excludes 0 exactly when the adjusted
    p-value is below 1 - confidence. ``verdict``: "higher" or "lower" (b than a) when it is,
    otherwise "cannot tell". A pandas DataFrame, one row per metric."""
    import pandas as pd

    from reports.stats import adjust_pvalues, adjusted_levels

    metrics = [m for m in a.per_game if m in b.per_game and m != "tied"]
    clean = {m: [s.per_game[m][~np.isnan(s.per_game[m])] for s in (a, b)] for m in metrics}
    usable = {m: min(len(x) for x in clean[m]) >= 2 for m in metrics}  # else outside the family
    pvalues = np.array([_welch(*clean[m], math.nan)[2] if usable[m] else math.nan for m in metrics])
    adjusted = adjust_pvalues(pvalues, "holm")
    levels = adjusted_levels(pvalues, confidence, "holm")
    rows = []
    for m, p, p_adj, level in zip(metrics, pvalues, adjusted, levels, strict=True):
        x, y = clean[m]
        diff = float(y.mean() - x.mean()) if min(len(x), len(y)) else math.nan
        lo, hi = _welch(x, y, level)[:2] if usable[m] else (math.nan, math.nan)
        found = p_adj < 1 - confidence  # False for NaN
        verdict = ("higher" if diff > 0 else "lower") if found else "cannot tell"
        rows.append((m, diff, lo, hi, level, p, p_adj, verdict, len(x), len(y)))
    columns = ["metric", "diff", "lo", "hi", "level", "p", "p_holm", "verdict", "n_a", "n_b"]
    return pd.DataFrame(rows, columns=columns)
