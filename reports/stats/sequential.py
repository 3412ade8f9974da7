"""Anytime-valid inference for stopping a tournament: a confidence sequence for a mean
and the comparison of every pair of strategies, checked after each chunk of blocks."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from itertools import combinations

import numpy as np
import pandas as pd

from reports.stats.blocks import block_differences


class ConfidenceSequence:
    """Anytime-valid confidence sequence for the mean of i.i.d. observations bounded in [lo, hi].

    Guarantee: if the observations are independent with common mean ``mu`` and lie in
    ``[lo, hi]``, then ``P(mu is in interval() after every update, for all n at once) >= 1 -
    alpha``. It holds uniformly over time, so the interval may be checked after every chunk and
    the experiment stopped at any data-dependent time (for instance as soon as :meth:`decided`)
    without inflating the error: the chance that an interval *ever* excludes the true mean is at
    most ``alpha`` (a fixed-n t interval checked repeatedly would not keep this). More exactly the
    validity needs only that each observation has conditional mean ``mu`` given the past; the
    order in which observations arrive must not depend on their values.

    Two boundaries (``method``):

    * ``"eb"`` (default): the predictable plug-in empirical-Bernstein confidence sequence of
      Waudby-Smith & Ramdas (2024), "Estimating means of bounded random variables by betting",
      JRSS-B 86(1), their predictable plug-in empirical-Bernstein (PrPl-EB) confidence sequence
      (Theorem 2). With ``x`` rescaled to [0, 1]::

          mu_t = (1/2 + sum_{i<=t} x_i) / (t + 1)
          s2_t = (1/4 + sum_{i<=t} (x_i - mu_i)^2) / (t + 1)
          lam_t = min(sqrt(2 log(2/alpha) / (s2_{t-1} t log(1 + t))), c)   (c = 1/2)
          v_t = 4 (x_t - mu_{t-1})^2,   psi(l) = (-log(1 - l) - l) / 4
          C_t = sum lam_i x_i / sum lam_i  ±  (log(2/alpha) + sum v_i psi(lam_i)) / sum lam_i

      It adapts to the variance, which matters here: paired block differences of win share range
      over [-1, 1] but usually have a far smaller variance.
    * ``"normal-mixture"``: Robbins' two-sided normal-mixture boundary for sub-Gaussian increments
      (Robbins 1970, "Statistical methods related to the law of the iterated logarithm", Ann.
      Math. Statist. 41; in the form of Howard, Ramdas, McAuliffe & Sekhon 2021, "Time-uniform,
      nonparametric, nonasymptotic confidence sequences", Ann. Statist. 49(2)): by Hoeffding's
      lemma the increments are sub-Gaussian with ``sigma = (hi - lo)/2``, the mixture of
      ``exp(l S_t - l^2 t sigma^2 / 2)`` over ``l ~ N(0, 1/rho)`` is a nonnegative martingale, and
      Ville's inequality gives ``|S_t - t mu| <= sqrt((t sigma^2 + rho) log((t sigma^2 + rho) /
      (rho alpha^2)))`` for all ``t`` at once. ``rho = t_opt sigma^2 / (2 log(1/alpha) + log(1 +
      2 log(1/alpha)))`` makes the boundary (nearly) tightest after ``t_opt`` observations; any
      ``rho > 0`` is valid. It ignores the variance, so it is wider unless the data fill the
      range.

    Both are intersected over time (the running intersection of a confidence sequence is again
    one), so the interval never widens. It can in principle become empty, an event of probability
    at most ``alpha``.
    """

    def __init__(
        self,
        alpha: float = 0.05,
        lo: float = -1.0,
        hi: float = 1.0,
        method: str = "eb",
        t_opt: float = 1000.0,
        c: float = 0.5,
    ) -> None:
        if not 0 < alpha < 1:
            raise ValueError("alpha must be in (0, 1)")
        if not hi > lo:
            raise ValueError("need lo < hi")
        if method not in ("eb", "normal-mixture"):
            raise ValueError(f"unknown method {method!r}; use 'eb' or 'normal-mixture'")
        if not 0 < c < 1:
            raise ValueError("c must be in (0, 1)")
        self.alpha, self.lo, self.hi, self.method, self.c = alpha, float(lo), float(hi), method, c
        self.n = 0
        self._sum = 0.0  # sum of the rescaled x_i
        self._sq = 0.0  # sum (x_i - mu_i)^2 (eb)
        self._lam = 0.0  # sum lam_i (eb)
        self._lam_x = 0.0  # sum lam_i x_i (eb)
        self._v_psi = 0.0  # sum v_i psi(lam_i) (eb)
        self._lo, self._hi = 0.0, 1.0  # running intersection, rescaled to [0, 1]
        # normal mixture on the [0, 1] scale (sigma^2 = 1/4); rho nearly minimises the boundary
        # at t_opt (checked numerically against scipy.optimize)
        log_a = 2 * math.log(1 / alpha)
        self._rho = float(t_opt) * 0.25 / (log_a + math.log(1 + log_a))

    def update(self, values: Iterable[float] | np.ndarray | float) -> ConfidenceSequence:
        """Add observations (in arrival order). Values outside ``[lo, hi]`` raise ValueError."""
        x = np.atleast_1d(np.asarray(values, dtype=float)).ravel()
        if not len(x):
            return self
        if np.isnan(x).any() or x.min() < self.lo or x.max() > self.hi:
            raise ValueError(f"observations must lie in [{self.lo}, {self.hi}]")
        x = (x - self.lo) / (self.hi - self.lo)
        t = self.n + np.arange(1, len(x) + 1, dtype=float)
        cum = self._sum + np.cumsum(x)
        if self.method == "eb":
            mu = (0.5 + cum) / (t + 1)  # mu_t
            mu_prev = np.concatenate([[(0.5 + self._sum) / (self.n + 1)], mu[:-1]])
            cum_sq = self._sq + np.cumsum((x - mu) ** 2)
            s2 = (0.25 + cum_sq) / (t + 1)
            s2_prev = np.concatenate([[(0.25 + self._sq) / (self.n + 1)], s2[:-1]])
            log_term = math.log(2 / self.alpha)
            lam = np.minimum(np.sqrt(2 * log_term / (s2_prev * t * np.log1p(t))), self.c)
            v = 4 * (x - mu_prev) ** 2
            psi = (-np.log1p(-lam) - lam) / 4
            cum_lam = self._lam + np.cumsum(lam)
            cum_lam_x = self._lam_x + np.cumsum(lam * x)
            cum_v_psi = self._v_psi + np.cumsum(v * psi)
            centre = cum_lam_x / cum_lam
            half = (log_term + cum_v_psi) / cum_lam
            self._sq, self._lam = float(cum_sq[-1]), float(cum_lam[-1])
            self._lam_x, self._v_psi = float(cum_lam_x[-1]), float(cum_v_psi[-1])
        else:
            v_rho = 0.25 * t + self._rho
            centre = cum / t
            half = np.sqrt(v_rho * np.log(v_rho / (self._rho * self.alpha**2))) / t
        self._lo = max(self._lo, float(np.max(centre - half)))
        self._hi = min(self._hi, float(np.min(centre + half)))
        self._sum = float(cum[-1])
        self.n += len(x)
        return self

    @property
    def mean(self) -> float:
        """The sample mean of the observations so far (NaN before any)."""
        return self.lo + (self.hi - self.lo) * self._sum / self.n if self.n else math.nan

    def interval(self) -> tuple[float, float]:
        """The current confidence interval ``(lo, hi)`` for the mean, on the original scale."""
        scale = self.hi - self.lo
        return self.lo + scale * self._lo, self.lo + scale * self._hi

    def decided(self, null: float = 0.0) -> bool:
        """Whether the interval excludes ``null`` (0: the sign of the mean is settled)."""
        lo, hi = self.interval()
        return lo > null or hi < null


class SequentialComparison:
    """Anytime-valid comparison of every pair of strategies, fed chunks of blocks as they arrive.

    Each unordered pair ``(a, b)``, ``a < b``, gets a :class:`ConfidenceSequence` for the mean
    paired per-block difference ``E[mean metric of a - mean metric of b]`` (see
    :func:`block_differences`), at level ``alpha / K`` for ``K`` pairs with the default Bonferroni
    correction (``correction="none"`` uses ``alpha`` for each pair).

    Guarantee (Bonferroni + the time-uniform coverage of each sequence): with probability at least
    ``1 - alpha``, every pair's interval contains its true mean difference at every moment
    simultaneously. Hence, at any stopping time (however chosen from the data, e.g. the first
    chunk after which :meth:`all_decided`), the probability that any pair has been declared in
    the wrong direction, or that a pair with no true difference has ever been declared, is at most
    ``alpha`` (family-wise error rate). Blocks must be fed each once, in an order that does not
    depend on their outcomes (chunks are taken in ascending block order). A pair whose true
    difference is 0 is never decided, so give the tournament a budget as well.

    ``bounds`` is the range of one per-block difference: ``(-1, 1)`` for win share; set it for
    other metrics (e.g. ``(-max_ip, max_ip)``). ``method`` and ``t_opt`` go to
    :class:`ConfidenceSequence`.
    """

    def __init__(
        self,
        strategies: Iterable[str],
        alpha: float = 0.05,
        correction: str = "bonferroni",
        metric: str = "win",
        bounds: tuple[float, float] = (-1.0, 1.0),
        method: str = "eb",
        t_opt: float = 1000.0,
    ) -> None:
        names = sorted(set(strategies))
        if len(names) < 2:
            raise ValueError("need at least two strategies")
        self.pairs = list(combinations(names, 2))
        if correction == "bonferroni":
            self.pair_alpha = alpha / len(self.pairs)
        elif correction == "none":
            self.pair_alpha = alpha
        else:
            raise ValueError(f"unknown correction {correction!r}; use 'bonferroni' or 'none'")
        self.alpha, self.metric, self.strategies = alpha, metric, names
        lo, hi = bounds
        self.sequences = {
            pair: ConfidenceSequence(self.pair_alpha, lo, hi, method=method, t_opt=t_opt)
            for pair in self.pairs
        }

    def update(self, chunk: pd.DataFrame) -> SequentialComparison:
        """Add a chunk of new blocks (long-form tournament rows, as for :func:`pairwise`)."""
        diffs = block_differences(chunk, self.metric)
        return self.update_differences({p: d for p, d in diffs.items() if p in self.sequences})

    def update_differences(
        self, diffs: Mapping[tuple[str, str], Iterable[float] | np.ndarray]
    ) -> SequentialComparison:
        """Add per-block differences ``a - b`` for pairs keyed ``(a, b)``; a key ``(b, a)`` is
        accepted and its values negated."""
        for (a, b), values in diffs.items():
            if (a, b) in self.sequences:
                self.sequences[(a, b)].update(values)
            elif (b, a) in self.sequences:
                self.sequences[(b, a)].update(-np.asarray(values, dtype=float))
            else:
                raise KeyError(f"unknown pair {(a, b)}")
        return self

    def status(self) -> pd.DataFrame:
        """One row per pair: ``a``, ``b``, ``n_blocks``, ``diff`` (sample mean), ``lo``, ``hi``,
        ``decided`` and ``better`` (the strategy shown better; missing while undecided)."""
        rows = []
        for (a, b), cs in self.sequences.items():
            lo, hi = cs.interval()
            better = a if lo > 0 else b if hi < 0 else None
            rows.append(
                {
                    "a": a,
                    "b": b,
                    "n_blocks": cs.n,
                    "diff": cs.mean,
                    "lo": lo,
                    "hi": hi,
                    "decided": better is not None,
                    "better": better,
                }
            )
        return pd.DataFrame(rows)

    def decided_pairs(self) -> list[tuple[str, str]]:
        """The pairs whose interval excludes 0."""
        return [pair for pair, cs in self.sequences.items() if cs.decided()]

    def all_decided(self) -> bool:
        """Whether every pair is decided (the tournament can stop)."""
        return all(cs.decided() for cs in self.sequences.values())
