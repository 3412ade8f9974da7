"""The search's decisions recorded for the learned player (docs/learned.md): `sim.core.learn` with
Abyss's search driver (`kernel.game.searched_loop`) and workspace. At the probe,
`policies.record_features` writes the features of each of the decision's options
(W.REC_FEATURES) and its weight row (W.REC_ROW)."""

from __future__ import annotations

from games.abyss.engine import state as S
from games.abyss.engine.kernel import game as KN
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.policy_params import N_FEATURES
from sim.core.learn import RecordLayout, recorder_for

_learn_tables = recorder_for(KN.searched_loop, KN.start_task, KN.record_results, RecordLayout(
    W.REC_ON, W.REC_ROW, W.REC_FEATURES, W.SEARCH_N, W.SEARCH_SEAT, W.SEARCH_OPTS, S.TURN,
    N_FEATURES, W.MAX_REC_OPTIONS))


def learn_tables(template, seed, games, seatings, lineup_kinds, lineup_params, max_records=None):
    """Play game games[i] of `seed` (seatings as `kernel.game.play_tables`) with the search
    recording: (out_seats, out_games, records), records a tuple of arrays (count[g], then per
    game and record: row, n, features[K, F], visits[K], total[K], chosen, seat, turn)."""
    return _learn_tables(template, seed, games, seatings, lineup_kinds, lineup_params,
                         S.N_SEAT_FIELDS, S.N_GAME_FIELDS, max_records)  # fmt: skip
