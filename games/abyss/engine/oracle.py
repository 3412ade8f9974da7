"""Abyss's state-value oracle for drama and decisiveness (`sim.core.oracle`): the fast path's
turn, final tally and search layout; a game set up as the tables' task, its round-by-round record
off. Made when first imported: its kernel compiles only for `abyss-mc drama`."""

from __future__ import annotations

import numpy as np

from games.abyss.engine.kernel import game as KN
from games.abyss.engine.kernel.base import determinize
from sim.core.oracle import oracle_for, play_values

values = oracle_for(KN.take_turn, KN.end_of_turn, KN.turn_limit, KN.finish, KN.score,
                    determinize, KN.DRIVER_LAYOUT)  # fmt: skip


def oracle_values(tables, *, seed: int, games, seatings, strategies: list, n_rollouts: int):
    """Each seat's chance to win before every round of game games[i] (seat s: line-up entry
    seatings[i, s]), by `n_rollouts` rollouts, the last row its result; None when a seat
    searches (its turns need the search's driver)."""
    from games.abyss.engine.fast import lineup_arrays
    from games.abyss.engine.kernel.workspace import cached_template
    from games.abyss.engine.policy_params import SEARCH

    kinds, params = lineup_arrays(strategies)
    off = np.full(len(games), -1, dtype=np.int64)  # no round-by-round record
    return None if (kinds == SEARCH).any() else play_values(
        values, cached_template(tables), lambda s, i, g, seats: KN.start_task(
            s, np.int64(i), np.int64(seed), g, seats, kinds, params, off),
        seed, games, seatings, n_rollouts)  # fmt: skip
