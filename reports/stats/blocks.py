"""Statistics for strategy tournaments played with common random numbers (CRN).

A tournament is a set of *blocks*. Block ``b`` is one game seed: every *table* (seating or line-up)
of block ``b`` deals the same decks, so the results of one block are correlated, strongly so when
one deal favours one style of play. Blocks are independent and identically distributed (distinct
seeds), so every interval and test here treats the **block as the independent unit**: each statistic
is first reduced to one number per block, and inference is over those per-block numbers (a
cluster-robust analysis with the block as the cluster). Seat-games are never treated as independent.

Input: a long-form DataFrame with one row per (block, table, seat) and the columns

* ``block`` (int): the game seed; ``table`` (int): the line-up within the block; ``seat`` (int);
* ``strategy`` (str);
* ``win`` (float): ``1/k`` if the seat is among ``k`` tied winners, else 0;
* ``ip`` (int): the final score; ``rank`` (int): 1 = best, tied seats share the best rank.

Public API

* :func:`block_means`: per-block mean of a metric for each strategy (blocks x strategies);
* :func:`strategy_summary`: win rate and mean score of each strategy with block t intervals;
* :func:`pairwise`, :func:`pairwise_matrix`: paired block differences between strategies, paired t
  tests and Holm-adjusted p-values (:func:`adjust_pvalues`), with the intervals that match them
  (:func:`adjusted_levels`);
* :func:`crn_variance_ratio`: how much CRN shrank the variance of a paired difference.

The Plackett-Luce rating is `reports.stats.rating`; anytime-valid confidence sequences for
stopping a tournament are `reports.stats.sequential`.

Heavy libraries (scipy.stats, statsmodels, choix) are imported inside the functions that use them so
that importing this module, and starting the CLI, stays fast.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from reports.stats.intervals import mean_halfwidth, wilson_interval

__all__ = [
    "adjust_pvalues",
    "adjusted_levels",
    "block_differences",
    "block_means",
    "check_columns",
    "crn_variance_ratio",
    "pairwise",
    "pairwise_matrix",
    "strategy_summary",
]

REQUIRED_COLUMNS = ("block", "table", "seat", "strategy", "win", "ip", "rank")


def check_columns(df: pd.DataFrame, columns: Iterable[str]) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"missing column(s) {missing}; expected {list(REQUIRED_COLUMNS)}")


# --- per-block reduction -----------------------------------------------------------------------


def block_means(df: pd.DataFrame, metric: str = "win") -> pd.DataFrame:
    """Mean of ``metric`` over each strategy's seat-games in each block.

    Returns a DataFrame indexed by block (ascending) with one column per strategy (sorted by name);
    NaN where a strategy does not play in a block. These per-block means are the i.i.d. units that
    every interval and test in this module is computed from.
    """
    check_columns(df, ("block", "strategy", metric))
    cells = by_cell(df, ["block"], metric)
    if cells is None:  # (pandas' own way: `by_cell`)
        means = df.groupby(["block", "strategy"], sort=True)[metric].mean().unstack("strategy")
        means.columns.name = "strategy"
        return means.astype(float)
    index, names, sums, counts, _ = cells
    with np.errstate(divide="ignore", invalid="ignore"):
        means = np.where(counts > 0, sums / counts, np.nan)
    return pd.DataFrame(means, index=index, columns=names)


#: the largest frame `by_cell` counts itself: on 540,000 rows pandas' grouping was faster
SMALL = 50_000


def by_cell(df: pd.DataFrame, rows: list[str], metric: str):
    """`metric` summed in each cell of `rows` (one column or several: their combinations that
    occur, ascending) by `strategy` (sorted by name): `(index, strategies, sums, counts,
    present)`, `counts` the values that are not NaN, `present` the cells with a row at all. What
    `groupby(rows + ["strategy"]).unstack()` gives, with numpy's counting in place of pandas'
    grouping (a fraction of its time on a small frame: the statistics' many-seed tests call it
    thousands of times); None where pandas must decide: a strategy not of pandas' string type
    (categorical, object: the columns keep pandas' type), a metric not of numpy's float or int
    type, a missing key, no rows, a frame of over SMALL rows, a sum that rounds (`exact_sums`)."""
    keys = [*rows, "strategy"]
    if not (0 < len(df) <= SMALL and isinstance(df["strategy"].dtype, pd.StringDtype)
            and df[metric].dtype.kind in "fiu"):  # fmt: skip
        return None
    coded = [pd.factorize(df[k], sort=True) for k in keys]
    if any((codes < 0).any() for codes, _ in coded):
        return None
    row = np.zeros(len(df), dtype=np.int64)
    for codes, uniques in coded[:-1]:
        row = row * len(uniques) + codes
    used, row = np.unique(row, return_inverse=True)
    levels = []
    for _, uniques in reversed(coded[:-1]):
        levels.append(uniques.take(used % len(uniques)))
        used = used // len(uniques)
    index = (pd.Index(levels[0], name=rows[0]) if len(rows) == 1
             else pd.MultiIndex.from_arrays(levels[::-1], names=rows))  # fmt: skip
    s_codes, names = coded[-1]
    shape = (len(index), len(names))
    cell = row * len(names) + s_codes
    values = df[metric].to_numpy(dtype=float)
    ok = ~np.isnan(values)
    sums = exact_sums(cell[ok], values[ok], shape[0] * shape[1])
    if sums is None:
        return None
    counts = np.bincount(cell[ok], minlength=shape[0] * shape[1])
    present = np.bincount(cell, minlength=shape[0] * shape[1]) > 0
    return (index, names.rename("strategy"), sums.reshape(shape), counts.reshape(shape),
            present.reshape(shape))  # fmt: skip


def exact_sums(cell: np.ndarray, values: np.ndarray, n: int) -> np.ndarray | None:
    """The sum of `values` in each of `n` cells when no sum rounds (every value a multiple of
    2^-20, every partial sum below 2^33: win shares of 1, 1/2, 1/4, scores), so it is the same to
    the last bit in any order and as pandas' compensated grouped sums; None otherwise (a third
    of a win: the caller asks pandas)."""
    scaled = values * 2.0**20
    if not (np.array_equal(scaled, np.round(scaled)) and np.abs(scaled).sum() < 2.0**53):
        return None
    return np.bincount(cell, weights=values, minlength=n)


def _t_interval(values: np.ndarray, conf: float) -> tuple[float, float, float]:
    """Mean and Student t interval of i.i.d. values (NaN interval for fewer than 2 values)."""
    values = values[~np.isnan(values)]
    if not len(values):
        return math.nan, math.nan, math.nan
    mean = float(values.mean())
    half = mean_halfwidth(values, conf)
    return mean, mean - half, mean + half


def standard_error(values: np.ndarray) -> float:
    """The standard error of the mean of i.i.d. values (NaN for fewer than 2)."""
    values = values[~np.isnan(values)]
    return float(values.std(ddof=1) / math.sqrt(len(values))) if len(values) > 1 else math.nan


def strategy_summary(df: pd.DataFrame, conf: float = 0.95) -> pd.DataFrame:
    """Win rate and mean score of each strategy, with block-clustered t intervals.

    For each strategy the per-block mean of ``win`` (and of ``ip``) over its seat-games in that
    block is computed; the estimate is the mean of these per-block means over the blocks where the
    strategy plays, and the interval is the Student t interval over those blocks,
    ``mean ± t_{n-1, (1+conf)/2} · s / sqrt(n)``, with ``n`` blocks and ``s`` the standard deviation
    of the per-block means. This is the cluster-robust (clusters = blocks) interval for a mean, with
    the ``G - 1`` degrees of freedom that Cameron & Miller (2015), "A practitioner's guide to
    cluster-robust inference", J. Human Resources 50(2), recommend for ``G`` clusters.

    Why not a Wilson interval on seat-games (as Abyss's ``summary_text`` does for ordinary
    runs)? Under
    CRN the seat-games of one block share their decks, so their outcomes are positively correlated;
    the binomial variance ``p(1-p)/N`` of ``N`` seat-games then understates the true variance by
    about the design effect ``1 + (m - 1)·ICC`` (``m`` seat-games per block, ``ICC`` the intra-block
    correlation), and the Wilson interval under-covers. Reducing each block to one number and
    treating blocks as the independent units is valid whatever the correlation within a block.

    With a single table per block and one seat per strategy per table, each block is one game and
    this is the ordinary t interval over games. When every block gives every strategy the same
    number of seat-games (a balanced design) the mean of block means equals the pooled
    wins / seat-games; otherwise each block is weighted equally.

    Returns a DataFrame indexed by strategy, sorted by decreasing win rate, with columns ``games``
    (seat-games), ``blocks``, ``win_rate``, ``win_lo``, ``win_hi``, ``win_se`` (the standard error
    over blocks), ``mean_ip``, ``ip_lo``,
    ``ip_hi``. Intervals are NaN for a strategy seen in fewer than two blocks. Win-rate intervals
    are clipped to [0, 1] and are never narrower than the Wilson interval of the seat-games (the
    t interval has zero width when the per-block means never vary); score intervals have zero
    width in that case.
    """
    check_columns(df, REQUIRED_COLUMNS)
    win = block_means(df, "win")
    ip = block_means(df, "ip").reindex(columns=win.columns)
    codes, names = pd.factorize(df["strategy"], sort=True)
    # (seat-games and wins per strategy: `groupby("strategy")["win"]`'s size and sum)
    games = dict(zip(names, np.bincount(codes[codes >= 0], minlength=len(names)).tolist(),
                     strict=True))  # fmt: skip
    wins = None
    if df["win"].dtype.kind in "fiu":
        values = df["win"].to_numpy(dtype=float)
        ok = ~np.isnan(values) & (codes >= 0)
        wins = exact_sums(codes[ok], values[ok], len(names))
    wins = (df.groupby("strategy")["win"].sum().to_dict() if wins is None
            else dict(zip(names, wins.tolist(), strict=True)))  # fmt: skip
    rows = []
    for strategy, w_blocks, ip_blocks in zip(win.columns, win.to_numpy().T, ip.to_numpy().T,
                                             strict=True):  # fmt: skip
        w, w_lo, w_hi = _t_interval(w_blocks, conf)
        # A rate's interval stays within [0, 1], and is never narrower than the Wilson interval
        # of the seat-games: with no variation between blocks (a strategy that always or never
        # wins) the t interval would have zero width.
        k, m = wins[strategy], games[strategy]
        wl, wh = wilson_interval(int(round(k)), m, conf)
        if not math.isnan(w_lo):
            w_lo, w_hi = max(0.0, min(w_lo, wl)), min(1.0, max(w_hi, wh))
        s, s_lo, s_hi = _t_interval(ip_blocks, conf)
        blocks = int((~np.isnan(w_blocks)).sum())
        rows.append({"strategy": strategy, "games": m, "blocks": blocks, "win_rate": w,
                     "win_lo": w_lo, "win_hi": w_hi, "win_se": standard_error(w_blocks),
                     "mean_ip": s, "ip_lo": s_lo, "ip_hi": s_hi})  # fmt: skip
    columns = ["games", "blocks", "win_rate", "win_lo", "win_hi", "win_se", "mean_ip", "ip_lo",
               "ip_hi"]  # fmt: skip
    if not rows:
        return pd.DataFrame(columns=columns, index=pd.Index([], name="strategy"))
    out = pd.DataFrame(rows).set_index("strategy")
    return out.sort_values("win_rate", ascending=False, kind="stable")[columns]


# --- pairwise comparisons ----------------------------------------------------------------------


def block_differences(df: pd.DataFrame, metric: str = "win") -> dict[tuple[str, str], np.ndarray]:
    """Paired per-block differences for every unordered pair of strategies.

    Keys are pairs ``(a, b)`` with ``a < b`` (by name); the value holds, for each block where both
    ``a`` and ``b`` play (in ascending block order), the mean ``metric`` of ``a``'s seat-games in
    the block minus that of ``b``'s. Under CRN both means share the block's decks, so the
    difference cancels much of the deal-to-deal variance (see :func:`crn_variance_ratio`).
    """
    means = block_means(df, metric)
    out = {}
    for a, b in combinations(sorted(means.columns), 2):
        d = (means[a] - means[b]).to_numpy()
        out[(a, b)] = d[~np.isnan(d)]
    return out


def adjust_pvalues(pvalues: Sequence[float] | np.ndarray, method: str = "holm") -> np.ndarray:
    """Multiplicity-adjusted p-values via ``statsmodels.stats.multitest.multipletests``.

    ``method`` is any method statsmodels accepts (``"holm"``: Holm 1979, "A simple sequentially
    rejective multiple test procedure", Scand. J. Statist. 6, controls the family-wise error rate
    under any dependence; ``"bonferroni"``; ``"fdr_bh"``; ...) or ``"none"``. NaN p-values are left
    out of the family and stay NaN.
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if method == "none":
        out[ok] = p[ok]
    elif method == "holm" and ok.any():
        # statsmodels' Holm runs gc.collect() on every call (a tenth of a second in a large
        # process, and verdicts over many seeds call it often): the same numbers by hand
        idx = np.flatnonzero(ok)
        order = idx[np.argsort(p[idx], kind="stable")]
        steps = p[order] * np.arange(len(order), 0, -1)
        out[order] = np.minimum(1.0, np.maximum.accumulate(steps))
    elif ok.any():
        from statsmodels.stats.multitest import multipletests

        out[ok] = multipletests(p[ok], method=method)[1]
    return out


def adjusted_levels(pvalues: Sequence[float] | np.ndarray, conf: float = 0.95,
                    method: str = "holm") -> np.ndarray:  # fmt: skip
    """The confidence level of each comparison's interval that matches its multiple-test
    decision: the two-sided t interval at that level excludes 0 exactly when the adjusted p-value
    is below ``1 - conf`` (a t test and its t interval are duals).

    * ``"none"``: ``conf`` for every comparison;
    * ``"bonferroni"``: ``1 - (1 - conf)/m`` for all ``m``: simultaneous intervals (all ``m``
      cover together with probability at least ``conf``);
    * ``"holm"``: the level at which Holm's step-down procedure tested the comparison. With the
      p-values sorted and ``r`` of them rejected, the ``i``-th smallest (from 0) of the rejected
      is tested at ``1 - (1 - conf)/(m - i)`` and every comparison not rejected at
      ``1 - (1 - conf)/(m - r)``, the Bonferroni level over those left. These intervals are not
      simultaneous for the rejected comparisons (the decisions are what controls the
      family-wise error rate); Bonferroni's are, and wider.

    NaN p-values are outside the family (as in :func:`adjust_pvalues`): NaN level."""
    p = np.asarray(pvalues, dtype=float)
    alpha = 1 - conf
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = len(ok)
    if method == "none":
        out[ok] = conf
    elif method == "bonferroni":
        out[ok] = 1 - alpha / max(m, 1)
    elif method == "holm":
        order = ok[np.argsort(p[ok], kind="stable")]
        steps = m - np.arange(m)  # Holm multiplies the i-th smallest p by m - i
        passed = p[order] * steps < alpha
        r = m if passed.all() else int(np.argmin(passed))  # rejected: the first r in order
        out[order[:r]] = 1 - alpha / steps[:r]
        out[order[r:]] = 1 - alpha / max(m - r, 1)
    else:
        raise ValueError(f"no intervals match the correction {method!r}; use holm, "
                         "bonferroni or none")  # fmt: skip
    return out


def paired_test(d: np.ndarray, conf: float) -> tuple[float, float, float, float]:
    """Mean, t interval and two-sided one-sample t-test p-value (H0: mean 0) of differences."""
    mean, lo, hi = _t_interval(d, conf)
    if len(d) < 2:
        return mean, lo, hi, math.nan
    if np.isnan(d).any():  # as scipy's ttest_1samp: a missing difference gives no p-value
        return mean, lo, hi, math.nan
    if np.ptp(d) == 0:  # no variance: the t statistic is 0/0 or ±inf
        return mean, lo, hi, (1.0 if mean == 0 else 0.0)
    from scipy.special import stdtr

    # scipy.stats.ttest_1samp's statistic and p-value (tests/core/test_stats.py compares them),
    # without its wrapper (0.04 ms a call, not 0.36 ms): the report and tests call it thousands
    # of times
    t = mean / math.sqrt(d.var(ddof=1) / len(d))  # (`mean`: d's, no value missing here)
    return mean, lo, hi, float(2 * stdtr(len(d) - 1, -abs(t)))


def pairwise(
    df: pd.DataFrame, metric: str = "win", conf: float = 0.95, correction: str = "holm"
) -> pd.DataFrame:
    """Paired comparisons of every pair of strategies, clustered by block.

    One row per **unordered** pair ``(a, b)`` with ``a < b`` by name (the ``b - a`` comparison is
    the same row with the sign flipped; :func:`pairwise_matrix` lays both out). For each block where
    both play, ``d_block = mean(metric of a's seat-games) - mean(metric of b's seat-games)``; blocks
    are i.i.d., so the ``d_block`` are too, and

    * ``diff`` is their mean, ``lo``/``hi`` the Student t interval at level ``conf``;
    * ``p`` is the two-sided paired t-test of ``E[d] = 0`` (``scipy.stats.ttest_1samp`` over
      blocks, i.e. the paired t-test of Student 1908 applied to block means);
    * ``p_adj`` is ``p`` adjusted for the ``K(K-1)/2`` comparisons with ``correction`` (default
      Holm, see :func:`adjust_pvalues`), and ``significant`` is ``p_adj < 1 - conf``;
    * ``level``, ``lo_adj``, ``hi_adj``: the interval at the level that matches the correction
      (:func:`adjusted_levels`), which excludes 0 exactly when the pair is ``significant`` (NaN
      for a correction without matching intervals).

    ``lo``/``hi`` are per-comparison (not simultaneous); the Holm-adjusted decisions control the
    family-wise error rate at ``1 - conf``. ``n_blocks`` is the number of blocks both played in.
    """
    check_columns(df, ("block", "strategy", metric))
    rows, diffs = [], []
    for (a, b), d in block_differences(df, metric).items():
        mean, lo, hi, p = paired_test(d, conf)
        rows.append({"a": a, "b": b, "n_blocks": len(d), "diff": mean, "se": standard_error(d),
                     "lo": lo, "hi": hi, "p": p})  # fmt: skip
        diffs.append(d)
    columns = ["a", "b", "n_blocks", "diff", "se", "lo", "hi", "p", "p_adj", "significant",
               "level", "lo_adj", "hi_adj"]  # fmt: skip
    if not rows:
        return pd.DataFrame(columns=columns)
    out = pd.DataFrame(rows)
    out["p_adj"] = adjust_pvalues(out["p"].to_numpy(), correction)
    out["significant"] = (out["p_adj"] < 1 - conf).to_numpy(dtype=bool)
    matched = correction in ("holm", "bonferroni", "none")
    out["level"] = adjusted_levels(out["p"], conf, correction) if matched else np.nan
    bounds = [(np.nan, np.nan) if math.isnan(level) else _t_interval(d, level)[1:]
              for d, level in zip(diffs, out["level"], strict=True)]  # fmt: skip
    out[["lo_adj", "hi_adj"]] = np.array(bounds, dtype=float).reshape(-1, 2)
    return out[columns]


def pairwise_matrix(pairs: pd.DataFrame, value: str = "diff") -> pd.DataFrame:
    """Square strategy x strategy matrix of one column of :func:`pairwise`'s output.

    Entry ``[row, col]`` reads "row compared with col". For ``diff`` the matrix is antisymmetric
    (``M[b, a] = -M[a, b]``); for ``lo``/``hi`` the mirrored entry is the negated other bound (the
    interval of ``b - a`` is ``[-hi, -lo]``), so ``M_lo[i, j] <= M_diff[i, j] <= M_hi[i, j]``
    holds everywhere. Other columns (``p``, ``p_adj``, ``significant``, ``n_blocks``) are
    symmetric. The diagonal is 0 for ``diff``/``lo``/``hi`` and NaN otherwise.
    """
    names = sorted(set(pairs["a"]) | set(pairs["b"]))
    # the mirrored entry M[b, a]: (source column, sign)
    mirror = {"diff": ("diff", -1), "lo": ("hi", -1), "hi": ("lo", -1)}.get(value, (value, 1))
    m = pd.DataFrame(index=pd.Index(names, name="strategy"), columns=names, dtype=object)
    for row in pairs.itertuples(index=False):
        m.loc[row.a, row.b] = getattr(row, value)
        other = getattr(row, mirror[0])
        m.loc[row.b, row.a] = -other if mirror[1] < 0 else other
    for name in names:
        m.loc[name, name] = 0.0 if mirror[1] < 0 else np.nan
    if value == "significant":
        return m
    return m.astype(float)


def crn_variance_ratio(df: pd.DataFrame, a: str, b: str, metric: str = "win") -> float:
    """Variance of the paired block difference relative to independent seeds.

    ``Var(mean_a - mean_b) / (Var(mean_a) + Var(mean_b))`` over the blocks where both play, with
    sample variances of the per-block means. Independent seeds would give about 1; a value ``r < 1``
    means CRN needs only ``r`` times as many blocks for the same precision of ``a - b``.
    """
    means = block_means(df, metric)[[a, b]].dropna()
    if len(means) < 2:
        return math.nan
    var_a, var_b = means[a].var(ddof=1), means[b].var(ddof=1)
    denom = var_a + var_b
    return float((means[a] - means[b]).var(ddof=1) / denom) if denom > 0 else math.nan
