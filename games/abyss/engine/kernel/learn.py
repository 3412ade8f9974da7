"""The search's decisions recorded for the learned player (docs/learned.md): the search driver
(`kernel.game.searched_loop`) with a record after each decision the learned player scores.

At the probe, `policies.record_features` has written the features of each of the decision's
options (W.REC_FEATURES) and its weight row (W.REC_ROW); after the search's rollouts, `record`
keeps them with each option's rollouts and summed reward, the option played and the seat. The
game played is the search driver's, byte for byte: recording reads, it never decides
(tests/abyss/test_learned.py).
"""

from __future__ import annotations

import numpy as np

from games.abyss.engine import state as S
from games.abyss.engine.kernel import game as KN
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.policy_params import N_FEATURES
from sim.core.driver import tables_for
from sim.core.jit import njit

#: decisions recorded per game at most (a game of four search seats meets about 150-250)
MAX_RECORDS = 512
K = W.MAX_REC_OPTIONS


@njit(cache=True)
def record(s, out, i, seat, visits, total, choice):
    """Task i's next record (`out`: count, row, n, features, visits, total, chosen, seat and
    turn per record), if the decision has a weight row and room is left."""
    count, row, n_options, features, rec_visits, rec_total, chosen, rec_seat, turn = out
    r = count[i]
    n = s[W.SEARCH_N]
    if s[W.REC_ROW] < 0 or r >= row.shape[1] or n > K:
        return
    count[i] = r + 1
    row[i, r], n_options[i, r], turn[i, r] = s[W.REC_ROW], n, s[S.TURN]
    rec_seat[i, r] = s[W.SEARCH_SEAT]  # the deciding seat (an offer may ask it in another's turn)
    for j in range(n):
        if s[W.SEARCH_OPTS + j] == choice:
            chosen[i, r] = j
        rec_visits[i, r, j] = visits[j]
        rec_total[i, r, j] = total[j]
        for k in range(N_FEATURES):
            features[i, r, j, k] = s[W.REC_FEATURES + j * N_FEATURES + k]


recorded_game = KN.searched_loop(record)


@njit(cache=True)
def learn_task(s, i, ins, outs):
    """Task i of `learn_tables`: a search game, recorded."""
    seed, games, seatings, lineup_kinds, lineup_params, no_traj = ins
    out_seats, out_games = outs[0], outs[1]
    rec = outs[2:]
    KN.start_task(s, i, seed, games, seatings, lineup_kinds, lineup_params, no_traj)
    s[W.REC_ON] = 1
    recorded_game(s, rec, i)
    s[W.REC_ON] = 0
    KN.record_results(s, out_seats[i], out_games[i])


_learn_tables = tables_for(learn_task)


def learn_tables(template, seed, games, seatings, lineup_kinds, lineup_params, max_records=None):
    """Play game games[i] of `seed` (seatings as `kernel.game.play_tables`) with the search
    recording: (out_seats, out_games, records), records a tuple of arrays (count[g], then per
    game and record: row, n, features[K, F], visits[K], total[K], chosen, seat, turn)."""
    n_tasks, n_players = seatings.shape
    m = max_records or MAX_RECORDS
    out_seats = np.zeros((n_tasks, n_players, S.N_SEAT_FIELDS), dtype=np.int32)
    out_games = np.zeros((n_tasks, S.N_GAME_FIELDS), dtype=np.int32)
    rec = (
        np.zeros(n_tasks, np.int64),
        np.full((n_tasks, m), -1, np.int64),
        np.zeros((n_tasks, m), np.int64),
        np.zeros((n_tasks, m, K, N_FEATURES), np.int64),
        np.zeros((n_tasks, m, K), np.float64),
        np.zeros((n_tasks, m, K), np.float64),
        np.full((n_tasks, m), -1, np.int64),
        np.zeros((n_tasks, m), np.int64),
        np.zeros((n_tasks, m), np.int64),
    )
    no_traj = np.full(n_tasks, -1, dtype=np.int64)
    _learn_tables(template, n_tasks, (np.int64(seed), games, seatings, lineup_kinds,
                  lineup_params, no_traj), (out_seats, out_games, *rec))  # fmt: skip
    return out_seats, out_games, rec
