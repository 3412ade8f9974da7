"""The strategies as the engines see them: policy objects, made by `strategies` and passed in.

The engines never read preset files or parse strategy names: the caller resolves each seat's
strategy (`strategies.<game>.make_policies`) and passes the policies. A policy has a `name` (its
spec, as results name it), a `kind` and an int32 parameter vector `params()` for the compiled
policies, and `choose(game, seat, decision, options)` for the reference engine.
"""

from __future__ import annotations

import numpy as np

#: The search player's slots in its parameter vector, the same in every game: rollouts per
#: decision (the budget), the UCB exploration constant (thousandths), determinizations cycled (0:
#: a new one for every rollout), the confidence with which an option must beat the rollout
#: policy's own to be played (millionths, `sim.core.search.confident`), and its model of the
#: opponents (`sim.core.search.OPPONENTS_*`). A game puts its rollout policy after them.
S_ROLLOUTS, S_EXPLORATION, S_DETERMINIZATIONS, S_CONFIDENCE, S_OPPONENTS = range(5)


def lineup_arrays(policies: list, n_params: int) -> tuple[np.ndarray, np.ndarray]:
    """Strategy kinds and parameter vectors of a line-up of policies, for a compiled kernel."""
    kinds = np.array([p.kind for p in policies], dtype=np.int64)
    params = np.zeros((len(policies), n_params), dtype=np.int32)
    for i, p in enumerate(policies):
        params[i] = p.params()
    return kinds, params

