"""A multiplayer rating from finishing orders: Plackett-Luce strengths fitted to every table's
order (choix), their sandwich standard errors with the block as the cluster, and Elo points."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from reports.stats.blocks import check_columns

#: Elo points per unit of Plackett-Luce log-strength: with this scale, a head-to-head game is won
#: with probability 1 / (1 + 10 ** (-(elo_a - elo_b) / 400)), as in the Elo system.
ELO_PER_LOG_STRENGTH = 400.0 / math.log(10.0)


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
    check_columns(df, ("block", "table", "seat", "strategy", "rank"))
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
