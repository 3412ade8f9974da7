"""What every game's search player shares (`sim.core.search`): the option it plays departs from its
rollout policy's own only when the rollouts say so clearly (docs/search.md, "How it decides")."""

from __future__ import annotations

import numpy as np

from sim.core.search import confident, most_visited


def _rollouts(means, n, seed=0):
    """Visits, summed rewards and summed squares of n win/loss rollouts per option."""
    rng = np.random.default_rng(seed)
    wins = rng.random((len(means), n)) < np.asarray(means)[:, None]
    return np.full(len(means), n, np.int64), wins.sum(1).astype(float), wins.sum(1).astype(float)


def test_a_clearly_better_option_replaces_the_policys():
    visits, total, squares = _rollouts([0.2, 0.8], 64)
    best = most_visited(visits + np.array([0, 1]), total)
    assert best == 1 and confident(visits, total, squares, best, 0, 1.0) == 1


def test_noise_among_equal_options_keeps_the_policys():
    """Twenty options of equal worth, four rollouts each: the largest mean is luck."""
    visits, total, squares = _rollouts([0.3] * 20, 4, seed=3)
    best = int(np.argmax(total))
    assert total[best] > total[0]  # the luckiest looks better than the policy's option 0
    assert confident(visits, total, squares, best, 0, 1.0) == 0
    assert confident(visits, total, squares, best, 0, 0.0) == best  # 0: always the best
    assert confident(visits, total, squares, best, -1, 1.0) == best  # no default recorded
