"""Abyss's part of `abyss-mc learn` (docs/learned.md, `reports.runs.learn`): what the learned
player scores, and the search's games with its decisions recorded on the fast path."""

from __future__ import annotations

import numpy as np

from games.abyss.engine import policy_params as P

GAME = "abyss"
#: the decisions the learned player scores (the fit's codes: their rows) and their features
DECISIONS, FEATURES, N_CODES = P.LEARNED_DECISIONS, P.FEATURE_NAMES, P.N_LEARNED
#: the fixed point of the kernel's weights (policy_params.LEARNED_SCALE = 2**BITS)
BITS = 12
assert P.LEARNED_SCALE == 1 << BITS


def record_tables(tables, seed: int, games: np.ndarray, seatings: np.ndarray, policies) -> tuple:
    """The records of games `games` of `seed` (`sim.core.learn`'s arrays) for the seats'
    policies, a search among them."""
    from games.abyss.engine.fast import lineup_arrays
    from games.abyss.engine.kernel import learn as L
    from games.abyss.engine.kernel import workspace as W

    kinds, params = lineup_arrays(policies)
    return L.learn_tables(W.cached_template(tables), seed, games, seatings, kinds, params)[2]


def base_strategy(n_players: int) -> str:
    """The learned player's default base: the open preset whose worst share against fields of
    each open preset is highest (measured at 4 players: docs/learned.md, "Choosing the base")."""
    return f"farmer_open_{n_players}p"
