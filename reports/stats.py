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
* :func:`crn_variance_ratio`: how much CRN shrank the variance of a paired difference;
* :func:`plackett_luce`: a multiplayer rating from finishing orders, with a block bootstrap;
* :class:`ConfidenceSequence`, :class:`SequentialComparison`: anytime-valid confidence sequences for
  stopping a tournament as soon as every pair of strategies is told apart.

Heavy libraries (scipy.stats, statsmodels, choix) are imported inside the functions that use them so
that importing this module, and starting the CLI, stays fast.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from reports.intervals import mean_halfwidth, wilson_interval

__all__ = [
    "ConfidenceSequence",
    "SequentialComparison",
    "adjust_pvalues",
    "adjusted_levels",
    "block_differences",
    "block_means",
    "crn_variance_ratio",
    "pairwise",
    "pairwise_matrix",
    "plackett_luce",
    "strategy_summary",
]

REQUIRED_COLUMNS = ("block", "table", "seat", "strategy", "win", "ip", "rank")
#: Elo points per unit of Plackett-Luce log-strength: with this scale, a head-to-head game is won
#: with probability 1 / (1 + 10 ** (-(elo_a - elo_b) / 400)), as in the Elo system.
ELO_PER_LOG_STRENGTH = 400.0 / math.log(10.0)


def _check_columns(df: pd.DataFrame, columns: Iterable[str]) -> None:
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
    _check_columns(df, ("block", "strategy", metric))
    means = df.groupby(["block", "strategy"], sort=True)[metric].mean().unstack("strategy")
    means.columns.name = "strategy"
    return means.astype(float)


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
    _check_columns(df, REQUIRED_COLUMNS)
    win = block_means(df, "win")
    ip = block_means(df, "ip")
    games = df.groupby("strategy")["win"].size()
    rows = []
    wins = df.groupby("strategy")["win"].sum()
    for strategy in win.columns:
        w, w_lo, w_hi = _t_interval(win[strategy].to_numpy(), conf)
        # A rate's interval stays within [0, 1], and is never narrower than the Wilson interval
        # of the seat-games: with no variation between blocks (a strategy that always or never
        # wins) the t interval would have zero width.
        k, m = float(wins[strategy]), int(games[strategy])
        wl, wh = wilson_interval(int(round(k)), m, conf)
        if not math.isnan(w_lo):
            w_lo, w_hi = max(0.0, min(w_lo, wl)), min(1.0, max(w_hi, wh))
        s, s_lo, s_hi = _t_interval(ip[strategy].to_numpy(), conf)
        rows.append(
            {
                "strategy": strategy,
                "games": int(games[strategy]),
                "blocks": int(win[strategy].notna().sum()),
                "win_rate": w,
                "win_lo": w_lo,
                "win_hi": w_hi,
                "win_se": standard_error(win[strategy].to_numpy()),
                "mean_ip": s,
                "ip_lo": s_lo,
                "ip_hi": s_hi,
            }
        )
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
    if np.ptp(d) == 0:  # no variance: the t statistic is 0/0 or ±inf
        return mean, lo, hi, (1.0 if mean == 0 else 0.0)
    from scipy.stats import ttest_1samp

    return mean, lo, hi, float(ttest_1samp(d, 0.0).pvalue)


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
    _check_columns(df, ("block", "strategy", metric))
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


# --- Plackett-Luce rating ----------------------------------------------------------------------


class _ChoiceEvents:
    """Each table's finishing order as Luce choice events, the identical ones counted once.

    An event is a strategy chosen from the seats still in (a multiset of strategies, the chosen
    seat among them). Ties use Breslow's rule (see :func:`plackett_luce`): every seat of a tied
    group is chosen from all the seats still in when the group finishes. ``chosen[u]`` and
    ``members[u]`` (seats of each strategy still in) describe the distinct events, ``count[u]``
    how often each occurred, and ``by_block`` (blocks x distinct events, sparse) how often in
    each block, in the order of ``blocks`` (sorted). A tournament of 100,000 tables has a few
    thousand distinct events: the fit and its intervals work on those.
    """

    def __init__(self, df: pd.DataFrame, index: Mapping[str, int]):
        from scipy import sparse

        n = len(index)
        d = df.sort_values(["block", "table", "rank", "seat"], kind="stable")
        key = d[["block", "table"]].to_numpy()
        new_table = np.ones(len(d), dtype=bool)
        new_table[1:] = (key[1:] != key[:-1]).any(axis=1)
        table_of = np.cumsum(new_table) - 1
        position = np.arange(len(d)) - np.flatnonzero(new_table)[table_of]
        n_tables, width = int(table_of[-1]) + 1 if len(d) else 0, int(position.max(initial=0)) + 1
        item = np.full((n_tables, width), -1, dtype=np.int64)
        rank = np.full((n_tables, width), np.iinfo(np.int64).min, dtype=np.int64)
        item[table_of, position] = d["strategy"].map(index).to_numpy()
        rank[table_of, position] = d["rank"].to_numpy()
        seated = item >= 0
        onehot = np.zeros((n_tables, width, n))
        onehot[seated] = np.eye(n)[item[seated]]
        # members[t, k]: the seats of table t still in when seat k is chosen (rank >= its rank)
        still_in = (rank[:, None, :] >= rank[:, :, None]) & seated[:, None, :]
        members = np.matmul(still_in.astype(float), onehot).astype(np.int64)
        event = seated & (still_in.sum(axis=2) > 1)
        table_block = key[new_table, 0]
        rows = pd.DataFrame(np.column_stack([item[event], members[event]]))
        inverse = rows.groupby(list(rows.columns), sort=True).ngroup().to_numpy()  # hashed
        self.count = np.bincount(inverse)
        distinct = rows.to_numpy()[np.unique(inverse, return_index=True)[1]]
        self.chosen, self.members = distinct[:, 0], distinct[:, 1:].astype(float)
        self.blocks, block_of = np.unique(
            np.broadcast_to(table_block[:, None], event.shape)[event], return_inverse=True
        )
        self.by_block = sparse.csr_matrix(
            (np.ones(len(inverse)), (block_of.ravel(), inverse.ravel())),
            shape=(len(self.blocks), len(distinct)),
        )  # duplicates summed

    def choice_probabilities(self, theta: np.ndarray) -> np.ndarray:
        """p[u, i]: the chance of event u's choice falling on strategy i (Luce's rule)."""
        w = self.members * np.exp(theta - theta.max())
        return w / w.sum(axis=1, keepdims=True)


def _fit_pl(n_items: int, events: _ChoiceEvents, alpha: float) -> np.ndarray:
    """The maximum-likelihood strengths by iterative Luce spectral ranking, as
    ``choix.ilsr_top1`` (its Markov chain, its regularisation ``alpha``, its stationary
    distribution and convergence test), with each distinct event weighted by its count instead
    of repeated: the same estimate, thousands of times faster on a tournament."""
    from choix.convergence import NormOfDifferenceTest
    from choix.utils import exp_transform, log_transform, statdist

    chosen = np.eye(n_items)[events.chosen]
    rivals = events.members - chosen  # the other seats of each event (copies of the chosen too)
    converged = NormOfDifferenceTest(1e-8, order=1)
    params = np.zeros(n_items)
    for _ in range(1000):
        rate = events.count / (events.members @ exp_transform(params))  # 1 / (sum of weights)
        chain = alpha + (rivals * rate[:, None]).T @ chosen  # chain[loser, winner]
        chain -= np.diag(chain.sum(axis=1))
        params = log_transform(statdist(chain))
        if converged(params):
            return params - params.mean()
    raise RuntimeError("the Plackett-Luce fit did not converge after 1000 iterations")


def plackett_luce(
    df: pd.DataFrame,
    intervals: bool = True,
    conf: float = 0.95,
    alpha: float = 0.01,
) -> pd.DataFrame:
    """Plackett-Luce ratings from each table's finishing order, on every table given.

    Model (Luce 1959; Plackett 1975): strategy ``i`` has strength ``w_i = exp(theta_i)``; a table's
    order is produced by choosing the winner among the seats with probability proportional to
    strength, then second place among the rest, and so on. Several seats of one strategy at a table
    are separate copies of the same strength. The model is fitted by maximum likelihood as
    ``choix.ilsr_top1`` fits it (`_fit_pl`: iterative Luce spectral ranking, Maystre &
    Grossglauser 2015, "Fast and accurate inference of Plackett-Luce models", NeurIPS), each
    table contributing its sequence of choices. ``alpha`` is choix's regularisation (a small
    constant rate added between every pair of strategies, like a few pseudo-comparisons) which
    keeps the estimate finite when a strategy never beats another; it is negligible against
    thousands of tables.

    Ties (seats sharing a rank) use Breslow's approximation (Breslow 1974, "Covariance analysis of
    censored survival data", Biometrics 30, the standard treatment of tied event times in the Cox
    model, which has this same likelihood): every seat of a tied group is "chosen" from the full set
    of seats still in when the group finishes, tied rivals included, and then the whole group
    leaves. So a tie between ``a`` and ``b`` from ``{a, b, c}`` contributes ``w_a/(w_a+w_b+w_c) ·
    w_b/(w_a+w_b+w_c)``: symmetric in ``a`` and ``b``, independent of seat order, and no arbitrary
    tie-break.

    Reported: ``strength`` = ``theta`` centred to mean 0 over strategies (so ``exp(theta_a -
    theta_b)`` is the odds that ``a`` finishes ahead of ``b`` head to head), and ``elo`` =
    ``strength · 400 / ln 10`` (Elo-like points centred at 0). ``lo``/``hi`` and ``elo_lo``/
    ``elo_hi`` are Wald intervals with the cluster-robust (sandwich) variance, the block as the
    cluster (`_sandwich_se`): valid whatever the correlation of the tables of a block (common
    random numbers), and computed in one pass, so the rating uses every block. ``intervals=False``
    gives NaN intervals.

    Cost: identical choice events are counted once (`_ChoiceEvents`), so the fit and the sandwich
    work on a few thousand distinct events whatever the number of tables.

    Returns a DataFrame indexed by strategy, sorted by decreasing strength, with columns
    ``strength``, ``lo``, ``hi``, ``elo``, ``elo_lo``, ``elo_hi``, ``tables``.
    """
    _check_columns(df, ("block", "table", "seat", "strategy", "rank"))
    names = sorted(df["strategy"].unique())
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    events = _ChoiceEvents(df, index)
    theta = _fit_pl(n, events, alpha)
    if intervals:
        from scipy.stats import norm

        half = norm.ppf(0.5 + conf / 2) * _sandwich_se(n, theta, events)
        lo, hi = theta - half, theta + half
    else:
        lo = hi = np.full(n, np.nan)
    tables = df[["strategy", "block", "table"]].drop_duplicates()["strategy"].value_counts()
    out = pd.DataFrame(
        {
            "strength": theta,
            "lo": lo,
            "hi": hi,
            "elo": theta * ELO_PER_LOG_STRENGTH,
            "elo_lo": lo * ELO_PER_LOG_STRENGTH,
            "elo_hi": hi * ELO_PER_LOG_STRENGTH,
            "tables": tables.reindex(names).to_numpy(dtype=int),
        },
        index=pd.Index(names, name="strategy"),
    )
    return out.sort_values("strength", ascending=False, kind="stable")


def _sandwich_se(n: int, theta: np.ndarray, events: _ChoiceEvents) -> np.ndarray:
    """Standard errors of the centred strengths: V = H+ (sum_b s_b s_b') H+, where event e
    (item c chosen from the multiset S_e) has choice probabilities p_ie = m_ie w_i / sum_j m_je w_j,
    score onehot(c) - p_e and information diag(p_e) - p_e p_e'; s_b sums the scores of block b's
    events, and H+ is the inverse of the summed information on the centred subspace (strengths are
    defined up to a constant: the null space is the all-ones vector)
    (White 1982; Liang & Zeger 1986)."""
    p = events.choice_probabilities(theta)
    k = events.count.astype(float)
    info = np.diag(k @ p) - (p * k[:, None]).T @ p
    score = np.eye(n)[events.chosen] - p
    s = np.asarray(events.by_block @ score)
    # adding J/n fills the null space (scores and centred strengths are orthogonal to ones) and
    # leaves the inverse on the centred subspace unchanged
    h_inv = np.linalg.inv(info + np.full((n, n), 1.0 / n))
    centre = np.eye(n) - np.full((n, n), 1.0 / n)
    v = centre @ h_inv @ (s.T @ s) @ h_inv @ centre
    return np.sqrt(np.clip(np.diag(v), 0.0, None))


# --- anytime-valid sequential inference --------------------------------------------------------


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
