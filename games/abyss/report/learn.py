"""Abyss's part of `abyss-mc learn` (docs/learned.md): the search's decisions recorded on the
fast path, as `reports.learned_fit.Records`, and a fit written as the learned player's weights.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from games.abyss.engine import policy_params as P
from reports.learned_fit import Records, to_fixed

#: the fixed point of the kernel's weights (policy_params.LEARNED_SCALE = 2**BITS)
BITS = 12
assert P.LEARNED_SCALE == 1 << BITS
#: the decisions the learned player scores (the fit's codes)
N_CODES = P.N_LEARNED


def search_records(tables, lineup: list[str], seed: int, games: np.ndarray, registry) -> Records:
    """Play games `games` of `seed` with `lineup` (one strategy per seat, a search among them;
    seats as given, the caller rotates) on the fast path, recording every decision a search seat
    makes that the learned player scores."""
    from games.abyss.engine.fast import lineup_arrays
    from games.abyss.engine.kernel import learn as L
    from games.abyss.engine.kernel import workspace as W

    n = len(lineup)
    kinds, params = lineup_arrays(registry.make_policies(lineup, n))
    seatings = np.tile(np.arange(n, dtype=np.int64), (len(games), 1))
    games = np.ascontiguousarray(games, dtype=np.int64)
    _, _, rec = L.learn_tables(W.cached_template(tables), seed, games, seatings, kinds, params)
    count, row, n_options, features, visits, total, chosen, seat, _turn = rec
    keep = np.arange(row.shape[1])[None, :] < count[:, None]
    game_ids = np.broadcast_to(games[:, None], row.shape)
    return Records(code=row[keep], n=n_options[keep], features=features[keep].astype(float),
                   visits=visits[keep], total=total[keep], chosen=chosen[keep], seat=seat[keep],
                   game=game_ids[keep])  # fmt: skip


def write_weights(path: Path, weights: np.ndarray, base: str, n_players: int, meta: dict) -> None:
    """The fitted weights (float, the features' units) as a weights file of the kernel."""
    from strategies.learned import save_weights

    save_weights(path, to_fixed(weights, BITS), P.LEARNED_DECISIONS, P.FEATURE_NAMES,
                 {"game": "abyss", "players": n_players, "base": base, **meta})  # fmt: skip


def base_strategy(n_players: int) -> str:
    """The learned player's default base and field: the strongest open preset at that count
    (the search's default model, docs/search.md)."""
    return f"pearl_economist_open_{n_players}p"
