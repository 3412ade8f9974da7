"""Is the ranking of strategies transitive, or does it rest on a cycle (rock-paper-scissors)?

Input: a heuristic payoff table of a multiplayer game (:class:`PayoffTable`): ``share[i, j]`` is
the mean win share of strategy ``i`` in one seat against a field of copies of ``j`` in the other
seats (parity ``1/n_players``, the diagonal by definition), ``se[i, j]`` its standard error, and
``n[i, j]`` the games (carried for the report; the z tests use only the se).

* :func:`dominance`: the significant "beats" graph. For each unordered pair, the head-to-head
  advantage ``d[i, j] = share[i, j] - share[j, i]`` (the same two strategies with the roles
  swapped), se ``sqrt(se_ij^2 + se_ji^2)``, a two-sided z test, Holm-adjusted over all pairs
  (``reports.stats.blocks.adjust_pvalues``). Edge ``i -> j`` only where ``d > 0`` significantly;
  pairs
  not told apart get no edge. Each edge's interval is at the level Holm tested it
  (``reports.stats.blocks.adjusted_levels``), so it excludes 0 exactly when the edge is there.
* :func:`find_cycles`: strongly connected components of that graph with more than one member;
  one shortest directed cycle of each, with the data behind each edge.
* :func:`alpharank`: alpha-rank (Omidshafiei et al. 2019, "alpha-Rank: Multi-Agent Evaluation by
  Evolution", Sci. Rep. 9), single population: the Markov chain over monomorphic populations.
* :func:`rank_strategies`: all of it, as a :class:`Ranking`. Its :meth:`Ranking.verdict` rests on
  the significant graph alone: "best: X" when one strategy is on top and beats every other, "no
  best strategy: cycle A > B > C > A" when the top is a cycle, "cannot tell" otherwise.

numpy is imported here; scipy, pandas and ``reports.stats.blocks`` (which imports pandas) inside the
functions that use them.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import NamedTuple

import numpy as np

CONF = 0.95
M = 50  # alpha-rank population size (the paper's and OpenSpiel's default)
ALPHA_START, ALPHA_MAX, PI_TOL = 1.0, 1e4, 1e-6  # the alpha sweep (see alpharank)


@dataclass
class PayoffTable:
    names: list[str]
    share: np.ndarray
    se: np.ndarray
    n: np.ndarray
    n_players: int

    def __post_init__(self) -> None:
        k = len(self.names)
        self.names = [str(x) for x in self.names]
        self.share = np.array(self.share, dtype=float)
        self.se = np.array(self.se, dtype=float)
        self.n = np.array(self.n, dtype=int)
        for a in (self.share, self.se, self.n):
            if a.shape != (k, k):
                raise ValueError(f"share, se and n must be {k} x {k}")
        # one strategy against a field of itself is parity by definition, not a measurement
        np.fill_diagonal(self.share, self.parity)
        np.fill_diagonal(self.se, 0.0)
        np.fill_diagonal(self.n, 0)

    @property
    def parity(self) -> float:
        return 1.0 / self.n_players

    @classmethod
    def from_frame(cls, df, n_players: int, names: list[str] | None = None) -> PayoffTable:
        """From a tidy DataFrame with columns ``player, field, share, se, n`` (one row per
        off-diagonal cell; a cell not given is NaN with 0 games). ``names`` fixes the order;
        by default the order of first appearance."""
        import pandas as pd

        if names is None:
            names = list(pd.unique(df[["player", "field"]].to_numpy().ravel()))
        index = {x: i for i, x in enumerate(names)}
        k = len(names)
        share, se, n = np.full((k, k), np.nan), np.full((k, k), np.nan), np.zeros((k, k), int)
        i = df["player"].map(index).to_numpy()
        j = df["field"].map(index).to_numpy()
        share[i, j], se[i, j] = df["share"].to_numpy(float), df["se"].to_numpy(float)
        n[i, j] = df["n"].to_numpy(int)
        return cls(list(names), share, se, n, n_players)

    def to_frame(self):
        """The tidy DataFrame :meth:`from_frame` reads: the off-diagonal cells, row-major."""
        import pandas as pd

        i, j = np.nonzero(~np.eye(len(self.names), dtype=bool))
        names = np.array(self.names, dtype=object)
        cells = {"share": self.share[i, j], "se": self.se[i, j], "n": self.n[i, j]}
        return pd.DataFrame({"player": names[i], "field": names[j], **cells})


class Edge(NamedTuple):
    """``winner`` beats ``loser`` head to head: ``d`` = share(winner vs a field of loser) -
    share(loser vs a field of winner), its interval ``lo, hi`` and Holm-adjusted p."""

    winner: str
    loser: str
    d: float
    lo: float
    hi: float
    p_adj: float


def dominance(table: PayoffTable, conf: float = CONF) -> list[Edge]:
    """The significant edges (see the module's docstring); a NaN cell leaves its pair out."""
    from scipy.special import ndtr, ndtri

    from reports.stats.blocks import adjust_pvalues, adjusted_levels

    i, j = np.triu_indices(len(table.names), 1)
    d = table.share[i, j] - table.share[j, i]
    se = np.hypot(table.se[i, j], table.se[j, i])
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(se > 0, 2 * ndtr(-np.abs(d) / se), np.where(d != 0, 0.0, 1.0))
    p[~np.isfinite(d) | ~np.isfinite(se)] = np.nan  # not played: outside the family
    p_adj = adjust_pvalues(p, "holm")
    half = ndtri(0.5 + adjusted_levels(p, conf, "holm") / 2) * se
    edges = []
    for k in np.flatnonzero(p_adj < 1 - conf):
        win, lose = (i[k], j[k]) if d[k] > 0 else (j[k], i[k])
        a, h = abs(float(d[k])), float(half[k])
        names = table.names[win], table.names[lose]
        edges.append(Edge(*names, a, a - h, a + h, float(p_adj[k])))
    return edges


def _adjacency(names: list[str], edges: list[Edge]) -> np.ndarray:
    index = {x: i for i, x in enumerate(names)}
    adj = np.zeros((len(names), len(names)), dtype=bool)
    for e in edges:
        adj[index[e.winner], index[e.loser]] = True
    return adj


def _components(adj: np.ndarray) -> np.ndarray:
    """Strongly connected component label of each strategy."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    return connected_components(csr_matrix(adj), directed=True, connection="strong")[1]


def _shortest_cycle(adj: np.ndarray) -> list[int]:
    """One shortest directed cycle of a strongly connected graph (node list, not closed):
    the minimum over edges u -> v of the shortest path v ~> u, plus that edge."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    dist, pred = shortest_path(csr_matrix(adj), unweighted=True, return_predecessors=True)
    u, v = min(zip(*np.nonzero(adj), strict=True), key=lambda e: (dist[e[1], e[0]], e[1], e[0]))
    path = [u]
    while path[-1] != v:
        path.append(pred[v, path[-1]])
    return [int(x) for x in reversed(path)]  # v ... u, and u beats v closes it


def find_cycles(names: list[str], edges: list[Edge]) -> list[list[Edge]]:
    """One shortest cycle (its edges, in order) for each strongly connected component of the
    graph with more than one member; every such component contains a cycle."""
    adj = _adjacency(names, edges)
    labels = _components(adj)
    by_pair = {(e.winner, e.loser): e for e in edges}
    cycles = []
    for c in dict.fromkeys(labels):  # components in order of their first member
        members = np.flatnonzero(labels == c)
        if len(members) < 2:
            continue
        nodes = members[_shortest_cycle(adj[np.ix_(members, members)])]
        ring = [names[x] for x in [*nodes, nodes[0]]]
        cycles.append([by_pair[a, b] for a, b in pairwise(ring)])
    return cycles


def log_fixation(x: np.ndarray, m: int = M) -> np.ndarray:
    """log of the fixation probability of one mutant with fitness gain ``x = alpha * (f_mutant -
    f_resident)`` under the Fermi process in a population of ``m``:
    ``(1 - exp(-x)) / (1 - exp(-m x))`` (``1/m`` at ``x = 0``), in log space since
    ``rho(-x) = exp(-(m - 1) x) rho(x)`` underflows for large selection intensity."""
    x = np.asarray(x, dtype=float)
    y = np.abs(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        pos = np.log(-np.expm1(-y)) - np.log(-np.expm1(-m * y))  # log rho(|x|)
    pos = np.where(y > 1e-12, pos, -np.log(m))  # neutral (0/0): 1/m
    return pos + (m - 1) * np.minimum(x, 0.0)


def log_stationary(log_p: np.ndarray) -> np.ndarray:
    """log of the stationary distribution of an irreducible chain given the logs of its
    off-diagonal transition probabilities (the diagonal is ignored). The Grassmann-Taksar-Heyman
    elimination (GTH 1985) uses no subtraction, so it keeps the relative accuracy of the tiniest
    rates; in log space nothing underflows either, so even the strategies alpha-rank gives a
    probability of 1e-500 are still ordered."""
    from scipy.special import logsumexp

    lp = np.array(log_p, dtype=float)
    np.fill_diagonal(lp, -np.inf)
    k = len(lp)
    for s in range(k - 1, 0, -1):  # censor the chain on states 0..s-1
        lp[:s, s] -= logsumexp(lp[s, :s])
        lp[:s, :s] = np.logaddexp(lp[:s, :s], lp[:s, s, None] + lp[None, s, :s])
    log_pi = np.zeros(k)
    for s in range(1, k):
        log_pi[s] = logsumexp(log_pi[:s] + lp[:s, s])
    return log_pi - logsumexp(log_pi)


def _alpharank_log_pi(gain: np.ndarray, alpha: float, m: int) -> np.ndarray:
    k = len(gain)
    eta = 1.0 / max(k - 1, 1)
    # transition r -> s: eta * rho(mutant s in a population of r), gain[s, r]
    return log_stationary(np.log(eta) + log_fixation(alpha * gain.T, m))


def alpharank(
    share: np.ndarray, n_players: int, m: int = M, alpha: float | None = None
) -> tuple[np.ndarray, np.ndarray, float]:
    """alpha-rank's stationary distribution: ``(pi, log pi, alpha)``.

    A mutant ``s`` in a population of ``r`` earns ``share[s, r]`` (it plays one seat against a
    field of ``r``); the residents earn parity. It fixates with :func:`log_fixation` of
    ``alpha * (share[s, r] - parity)``; ``r -> s`` has probability ``rho / (K - 1)``. A missing
    cell (NaN) counts as neutral.

    ``alpha=None`` sweeps like the paper: from 1, doubled until pi moves by less than 1e-6 (the
    limit alpha -> infinity, mass on the sink components of the response graph, is then reached
    to that precision), at most 1e4 (then every payoff gap above ~3e-5 is resolved)."""
    gain = np.nan_to_num(np.asarray(share, dtype=float) - 1.0 / n_players, nan=0.0)
    if alpha is not None:
        log_pi = _alpharank_log_pi(gain, alpha, m)
        return np.exp(log_pi), log_pi, float(alpha)
    a, prev = ALPHA_START, None
    while True:
        log_pi = _alpharank_log_pi(gain, a, m)
        pi = np.exp(log_pi)
        if a >= ALPHA_MAX or (prev is not None and np.max(np.abs(pi - prev)) < PI_TOL):
            return pi, log_pi, a
        a, prev = min(2 * a, ALPHA_MAX), pi


@dataclass
class Ranking:
    names: list[str]
    pi: np.ndarray  # alpha-rank's stationary distribution: a point estimate, blind to noise
    order: list[str]  # names by decreasing pi (by log pi, so the tiny masses are ordered too)
    beats: list[Edge]  # the significant graph
    cycles: list[list[Edge]]  # one shortest cycle per strongly connected component
    # the top components: no strategy outside beats them (sinks of the graph pointing from loser
    # to winner, as alpha-rank's response graph points to the invader); by decreasing pi mass
    sink: list[tuple[str, ...]]
    alpha: float
    log_pi: np.ndarray

    def verdict(self) -> str:
        """From the significant graph only: the honest answer; pi ranks beside it."""
        if not self.beats:
            return "cannot tell"
        if len(self.sink) > 1:
            tops = ("{" + ", ".join(c) + "}" if len(c) > 1 else c[0] for c in self.sink)
            return "cannot tell which leads: " + ", ".join(tops)
        top = self.sink[0]
        if len(top) > 1:
            cycle = next(c for c in self.cycles if c[0].winner in top)
            return "no best strategy: cycle " + " > ".join(ring(cycle))
        best = top[0]
        untold = set(self.names) - {best} - {e.loser for e in self.beats if e.winner == best}
        if untold:
            return f"cannot tell: {best} leads, not told apart from {', '.join(sorted(untold))}"
        return f"best: {best}"

    def frame(self):
        """One row per strategy, by rank: ``name, pi, rank, in_cycle``."""
        import pandas as pd

        cyclic = {e.winner for c in self.cycles for e in c}
        index = [self.names.index(x) for x in self.order]
        return pd.DataFrame(
            {
                "name": self.order,
                "pi": self.pi[index],
                "rank": np.arange(1, len(index) + 1),
                "in_cycle": [x in cyclic for x in self.order],
            }
        )


def _sinks(names: list[str], edges: list[Edge], pi: np.ndarray) -> list[tuple[str, ...]]:
    """The components that no strategy outside them beats, by decreasing pi mass."""
    labels = _components(_adjacency(names, edges))
    index = {x: i for i, x in enumerate(names)}
    beaten = {
        labels[index[e.loser]] for e in edges if labels[index[e.winner]] != labels[index[e.loser]]
    }
    tops = [np.flatnonzero(labels == c) for c in dict.fromkeys(labels) if c not in beaten]
    tops.sort(key=lambda mem: -pi[mem].sum())
    return [tuple(names[i] for i in mem) for mem in tops]


def head_to_head(seats, n_players: int) -> PayoffTable:
    """A payoff table from a tournament of mixed tables (long-form seats with `block`, `table`,
    `strategy`, `win`): for each pair, i's advantage over j in the games they both played,
    `d` (i's win share minus j's in a game, averaged within a block, then over the blocks that
    hold such games: the block, one deal, is the unit). Its cells are `share[i, j] = parity +
    d / 2` and `share[j, i] = parity - d / 2` with `se = se(d) / sqrt(2)` each, so that
    :func:`dominance` tests exactly `d` with its paired standard error. Unlike a table of one
    seat against a field of copies, this is zero-sum head to head: it can be cyclic (A ahead of
    B where both sit, B of C, C of A) where the strategies' overall win rates cannot."""
    wide = wins_by_game(seats)
    names = [str(x) for x in wide.columns]
    w, blocks = wide.to_numpy(float), wide.index.get_level_values("block").to_numpy()
    k, parity = len(names), 1.0 / n_players
    share, se, n = np.full((k, k), parity), np.zeros((k, k)), np.zeros((k, k), int)
    for i, j in zip(*np.triu_indices(k, 1), strict=True):
        both = ~np.isnan(w[:, i]) & ~np.isnan(w[:, j])
        if not both.any():
            share[i, j] = share[j, i] = np.nan
            continue
        per_block = _block_means(blocks[both], w[both, i] - w[both, j])
        m = len(per_block)
        d = per_block.mean()
        s = per_block.std(ddof=1) / np.sqrt(m) if m > 1 else np.nan
        share[i, j], share[j, i] = parity + d / 2, parity - d / 2
        se[i, j] = se[j, i] = s / np.sqrt(2)
        n[i, j] = n[j, i] = int(both.sum())
    return PayoffTable(names, share, se, n, n_players)


def wins_by_game(seats):
    """Each strategy's win share in each game (`block`, `table`) of a tournament; NaN where it
    did not play."""
    import pandas as pd

    from reports.stats.blocks import by_cell

    # (an integer `win` keeps pivot_table's integer sums)
    cells = by_cell(seats, ["block", "table"], "win") if seats["win"].dtype.kind == "f" else None
    if cells is None:
        return seats.pivot_table(index=["block", "table"], columns="strategy", values="win",
                                 aggfunc="sum", observed=True)  # fmt: skip
    index, names, sums, _, present = cells
    return pd.DataFrame(np.where(present, sums, np.nan), index=index, columns=names)


def ring(cycle: list[Edge]) -> list[str]:
    """A cycle's strategies in order, the first repeated at the end (A, B, C, A)."""
    return [e.winner for e in cycle] + [cycle[0].winner]


def _block_means(blocks: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The mean of `values` within each block."""
    _, inverse, counts = np.unique(blocks, return_inverse=True, return_counts=True)
    return np.bincount(inverse, weights=values) / counts


def rank_strategies(
    table: PayoffTable, m: int = M, alpha: float | None = None, conf: float = CONF
) -> Ranking:
    """The significant graph, its cycles, alpha-rank and the top components, as a Ranking."""
    edges = dominance(table, conf)
    pi, log_pi, a = alpharank(table.share, table.n_players, m, alpha)
    order = [table.names[i] for i in np.argsort(-log_pi, kind="stable")]
    cycles = find_cycles(table.names, edges)
    sink = _sinks(table.names, edges, pi)
    return Ranking(list(table.names), pi, order, edges, cycles, sink, a, log_pi)
