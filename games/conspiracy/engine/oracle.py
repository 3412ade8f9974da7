"""Conspiracy's state-value oracle for drama and decisiveness (`sim.core.oracle`): the fast
path's turn, final tally and search layout; a game set up as the tables' task. Made when first
imported: its kernel compiles only for `abyss-mc drama`."""

from __future__ import annotations

import numpy as np

from games.conspiracy.engine import state as S
from games.conspiracy.engine.kernel import game as KN
from games.conspiracy.engine.kernel.search import DRIVER_LAYOUT
from sim.core.oracle import oracle_for, play_values

values = oracle_for(KN.take_turn, KN.end_of_turn, KN.turn_limit, KN.finish, KN.score,
                    KN.determinize, DRIVER_LAYOUT)  # fmt: skip


def oracle_values(tables, *, seed: int, games, seatings, strategies: list, n_rollouts: int):
    """Each seat's chance to win before every round (`sim.core.oracle`; as Abyss's)."""
    from games.conspiracy.engine.fast import lineup_arrays
    from games.conspiracy.engine.policies import SEARCH

    kinds, params = lineup_arrays(strategies)
    setup = lambda s, i, g, seats: KN.start_task(s, np.int64(seed), g[i], seats[i], kinds, params)  # noqa: E731
    if (kinds == SEARCH).any():
        return None
    return play_values(values, S.cached_template(tables), setup, seed, games, seatings,
                       n_rollouts)  # fmt: skip
