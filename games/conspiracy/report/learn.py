"""Conspiracy's part of `abyss-mc learn` (docs/learned.md, `reports.runs.learn`): what the learned
player scores, and the search's games with its decisions recorded on the fast path."""

from __future__ import annotations

import numpy as np

from games.conspiracy.engine import policies as P
from games.conspiracy.engine import state as S

GAME = "conspiracy"
#: the decisions the learned player scores (the fit's codes: a decision is its own row) and
#: their features
DECISIONS, FEATURES, N_CODES = P.LEARNED_DECISIONS, P.FEATURE_NAMES, S.N_LEARNED
#: the fixed point of the kernel's weights (state.LEARNED_SCALE = 2**BITS)
BITS = 12
assert S.LEARNED_SCALE == 1 << BITS
#: a 2-player game meets some 30 to 60 search decisions per seat
MAX_RECORDS = 160


def record_tables(tables, seed: int, games: np.ndarray, seatings: np.ndarray, policies) -> tuple:
    """The records of games `games` of `seed` (`sim.core.learn`'s arrays) for the seats'
    policies, a search among them."""
    from games.conspiracy.engine.fast import lineup_arrays
    from games.conspiracy.engine.kernel import search as KS

    kinds, params = lineup_arrays(policies)
    return KS.learn_tables(S.cached_template(tables), seed, games, seatings, kinds, params,
                           KS.N_SEAT_FIELDS, KS.N_GAME_FIELDS, MAX_RECORDS)[2]  # fmt: skip


def base_strategy(n_players: int) -> str:
    """The learned player's default base: the strongest open preset at 2 players (docs/search.md:
    a tournament of the 2-player presets)."""
    return f"key_hunter_open_{n_players}p"
