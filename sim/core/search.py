"""What every game's search player shares (docs/search.md): UCB1 over a decision's options, the
reward of a finished rollout, the search's own random keys, and the canonical shuffle that keeps
a determinization from depending on the true order of a face-down deck.

Each game keeps its own driver (the turn replayed from its start, `searched`, `determinize`):
those read the game's workspace layout. These helpers take the offsets and columns as arguments.
"""

from __future__ import annotations

import numpy as np

from sim.core.jit import njit
from sim.core.workspace import shuffle_in


@njit(cache=True)
def ucb(total, visits, r, c):
    """UCB1: the option with the highest mean reward + c * sqrt(ln r / its visits), r the
    rollouts so far (every option visited at least once)."""
    best, best_value = 0, -1e300
    for i in range(len(visits)):
        value = total[i] / visits[i] + c * np.sqrt(np.log(r) / visits[i])
        if value > best_value:
            best, best_value = i, value
    return best


@njit(cache=True)
def most_visited(visits, total):
    """The option played: the most visited, the best summed reward among equals."""
    best = 0
    for i in range(1, len(visits)):
        if visits[i] > visits[best] or (visits[i] == visits[best] and total[i] > total[best]):
            best = i
    return best


@njit(cache=True)
def confident(visits, total, squares, best, default, z):
    """`best`, if its mean reward beats the `default` option's (the rollout policy's own) by
    more than z standard errors of the difference; else `default`. Where many options share a
    small budget their means are noisy, and the largest of them is the luckiest, not the best:
    the search departs from its model of good play only when the rollouts say so clearly.
    z = 0: `best`, always."""
    if z <= 0.0 or default < 0 or best == default or visits[default] == 0:
        return best
    se2 = 0.0
    for i in (best, default):
        n = visits[i]
        mean = total[i] / n
        var = squares[i] / n - mean * mean if n > 1 else 0.25
        se2 += max(var, 1e-6) / n
    gain = total[best] / visits[best] - total[default] / visits[default]
    return best if gain > z * np.sqrt(se2) else default


@njit(cache=True, inline="always")
def share_reward(rows, n_players, seat, rank_col, score_col):
    """The seat's share of the win (ties shared: every seat ranked 1), plus a thousandth of its
    score margin over the best other seat, clipped to +-100 (a tie-break between equal
    shares). rows[q, rank_col] and rows[q, score_col]: seat q's rank and final score."""
    winners, other = 0, -(1 << 30)
    for q in range(n_players):
        if rows[q, rank_col] == 1:
            winners += 1
        if q != seat:
            other = max(other, rows[q, score_col])
    share = 1.0 / winners if rows[seat, rank_col] == 1 else 0.0
    return share + 0.001 * max(-100.0, min(100.0, rows[seat, score_col] - other)) / 100.0


@njit(cache=True, inline="always")
def search_seed(s, keys, turn, k):
    """The search's own seed at the k-th search decision of turn `turn`: from the game's first
    stream key (a function of the run's seed and the game's index), never from the cards."""
    return np.int64(s[keys] & 0x7FFFFFFF) * (1 << 20) + np.int64(turn) * 1024 + k


@njit(cache=True, inline="always")
def canonical_shuffle_in(s, off, keys, counters, stream):
    """Sort the stack at s[off:], then shuffle it from the stream keyed at s[keys:]: the result
    depends on its cards, never on their order. (An insertion sort: a deck is short, and
    numba's generic sort doubles the compile.)"""
    for i in range(off + 2, off + 1 + s[off]):
        v = s[i]
        j = i
        while j > off + 1 and s[j - 1] > v:
            s[j] = s[j - 1]
            j -= 1
        s[j] = v
    shuffle_in(s, off, keys, counters, stream)
