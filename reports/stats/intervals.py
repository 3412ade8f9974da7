"""Intervals for rates and means, used by every game's reports: Wilson intervals of a rate,
Student t intervals of a mean, and both with the game as the unit when a strategy holds several
seats of one game (from per-game sums: a ratio estimator's variance, Kish's design effect).

scipy is imported when an interval is asked for.
"""

from __future__ import annotations

import math

import numpy as np


def wilson_interval(wins: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion of `wins` out of `n` (n >= 1)."""
    return _wilson(wins / n, n, confidence)


def _wilson(p: float, n: float, confidence: float) -> tuple[float, float]:
    """Wilson score interval of an observed proportion p over n (n may be an effective size)."""
    from scipy.special import ndtri

    z = float(ndtri(0.5 + confidence / 2))
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, center - half), min(1.0, center + half)


def t_quantile(confidence: float, dof: int) -> float:
    """The two-sided Student t quantile for `confidence` with `dof` degrees of freedom."""
    from scipy.special import stdtrit

    return float(stdtrit(dof, 0.5 + confidence / 2))


def mean_halfwidth(values: np.ndarray, confidence: float = 0.95) -> float:
    """Half-width of the Student t confidence interval of the mean of `values` (an array or a
    pandas Series; NaN if fewer than 2 values)."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return math.nan
    sem = float(np.std(values, ddof=1)) / math.sqrt(len(values))
    return t_quantile(confidence, len(values) - 1) * sem


def mean_from_sums(
    n: int, total: float, squares: float, confidence: float = 0.95
) -> tuple[float, float]:
    """Mean and Student t half-width from a count, a sum and a sum of squares (NaN where
    undefined: no values for the mean, fewer than two for the half-width)."""
    if n == 0:
        return math.nan, math.nan
    mean = total / n
    if n < 2:
        return mean, math.nan
    var = max(0.0, (squares - total * total / n) / (n - 1))
    return mean, t_quantile(confidence, n - 1) * math.sqrt(var / n)


def cluster_spread(seats, total, seats2, seats_total, total2) -> float:
    """The sum over games of (Y - r M)^2, divided by (sum of M)^2, where M and Y are a strategy's
    seats and total (wins, IP) in one game and r = total / seats its mean per seat: the ratio
    estimator's variance of r without the G / (G - 1) factor. From sums over games
    (`games.abyss.engine.aggregate.CLUSTER_SUMS`)."""
    return max(0.0, _deviations(seats, total, seats2, seats_total, total2) / seats**4)


def _deviations(seats, total, seats2, seats_total, total2):
    """(sum of M)^2 times the sum over games of (Y - r M)^2: exact for integers, as no division
    comes before the subtraction."""
    return total2 * seats * seats - 2 * total * seats * seats_total + total * total * seats2


def clustered_mean(
    games, seats, total, seats2, seats_total, total2, confidence: float = 0.95
) -> tuple[float, float]:
    """Mean per seat (total / seats) and its Student t half-width with the game as the unit:
    variance G / (G - 1) * `cluster_spread`, G - 1 degrees of freedom (NaN where undefined).
    With one seat per game it is `mean_from_sums`."""
    if seats == 0:
        return math.nan, math.nan
    mean = total / seats
    if games < 2:
        return mean, math.nan
    var = games / (games - 1) * cluster_spread(seats, total, seats2, seats_total, total2)
    return mean, t_quantile(confidence, games - 1) * math.sqrt(var)


def clustered_rate(
    seats, wins, seats2, seats_wins, wins2, confidence: float = 0.95
) -> tuple[float, float]:
    """Wilson interval of a win rate with the game as the unit: the Wilson interval of the
    observed rate over the effective number of seat-games, p (1 - p) / `cluster_spread` (Kish's
    design effect, the Korn-Graubard interval), never more than the seat-games themselves (the
    NCHS convention: a design effect below 1 counts as 1). So it is wider than the seat-games'
    Wilson interval when a strategy's seats win together (shared first places), and the same
    when one seat's win is another's loss or with one seat per game."""
    if wins in (0, seats):  # no win or no loss: no design effect to measure
        return wilson_interval(wins, seats, confidence)
    binomial = wins * (seats - wins) * seats * seats  # p (1 - p) times seats^4
    spread = _deviations(seats, wins, seats2, seats_wins, wins2)  # cluster_spread times seats^4
    n_eff = seats if spread * seats <= binomial else binomial / spread
    return _wilson(wins / seats, n_eff, confidence)
