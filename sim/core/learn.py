"""The search's decisions recorded for a learned player (docs/learned.md), written once for every
game: the search driver (`sim.core.driver`, `searched_loop`) with a record after each decision
the learned player scores.

At the probe, the game's `record_features` has written the features of each of the decision's
options (REC_FEATURES) and its weight row (REC_ROW, -1: a decision it does not score); after the
search's rollouts, `record` keeps them with each option's rollouts and summed reward, the option
played, the deciding seat and the turn. The game played is the search driver's, byte for byte:
recording reads, it never decides (tests/abyss/test_learned.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.core.driver import tables_for
from sim.core.jit import njit_closure

#: decisions recorded per game at most (a game of four Abyss search seats meets about 150-250)
MAX_RECORDS = 512


class RecordLayout(NamedTuple):
    """A game's workspace offsets for recording: the switch, the weight row and features the
    probe writes, the probe's decision (SEARCH_N, SEARCH_SEAT, SEARCH_OPTS) and the turn; the
    features per option and the options recorded at most (a decision with more is skipped)."""

    rec_on: int
    rec_row: int
    rec_features: int
    search_n: int
    search_seat: int
    search_opts: int
    turn: int
    n_features: int
    max_options: int


def recorder_for(searched_loop, start_task, record_results, layout: RecordLayout):
    """The game's `learn_tables(template, seed, games, seatings, kinds, params, max_records)`:
    its search games (`searched_loop`, from `sim.core.driver.drivers_for`; `start_task` and
    `record_results` as in the game's play task) with every scored decision recorded."""
    rec_on, rec_row, rec_features, search_n, search_seat, search_opts, turn = layout[:7]
    n_features, max_options = layout.n_features, layout.max_options

    @njit_closure
    def record(s, out, i, seat, visits, total, choice):
        """Task i's next record, if the decision has a weight row and room is left."""
        count, row, n_options, features, rec_visits, rec_total, chosen, rec_seat, rec_turn = out
        r = count[i]
        n = s[search_n]
        if s[rec_row] < 0 or r >= row.shape[1] or n > max_options:
            return
        count[i] = r + 1
        row[i, r], n_options[i, r], rec_turn[i, r] = s[rec_row], n, s[turn]
        rec_seat[i, r] = s[search_seat]  # the deciding seat (it may be asked in another's turn)
        for j in range(n):
            if s[search_opts + j] == choice:
                chosen[i, r] = j
            rec_visits[i, r, j] = visits[j]
            rec_total[i, r, j] = total[j]
            for k in range(n_features):
                features[i, r, j, k] = s[rec_features + j * n_features + k]

    recorded_game = searched_loop(record)

    @njit_closure
    def learn_task(s, i, ins, outs):
        """Task i: a search game, recorded."""
        seed, games, seatings, lineup_kinds, lineup_params, no_traj = ins
        out_seats, out_games = outs[0], outs[1]
        rec = outs[2:]
        start_task(s, i, seed, games, seatings, lineup_kinds, lineup_params, no_traj)
        s[rec_on] = 1
        recorded_game(s, rec, i)
        s[rec_on] = 0
        record_results(s, out_seats[i], out_games[i])

    play = tables_for(learn_task)

    def learn_tables(template, seed, games, seatings, lineup_kinds, lineup_params, n_seat_fields,
                     n_game_fields, max_records=None):  # fmt: skip
        """Play game games[i] of `seed` (seatings as the game's `play_tables`) with the search
        recording: (out_seats, out_games, records), records a tuple of arrays (count[g], then
        per game and record: row, n, features[K, F], visits[K], total[K], chosen, seat,
        turn)."""
        n_tasks, n_players = seatings.shape
        m = max_records or MAX_RECORDS
        k = max_options
        out_seats = np.zeros((n_tasks, n_players, n_seat_fields), dtype=np.int32)
        out_games = np.zeros((n_tasks, n_game_fields), dtype=np.int32)
        rec = (
            np.zeros(n_tasks, np.int64),
            np.full((n_tasks, m), -1, np.int64),
            np.zeros((n_tasks, m), np.int64),
            np.zeros((n_tasks, m, k, n_features), np.int64),
            np.zeros((n_tasks, m, k), np.float64),
            np.zeros((n_tasks, m, k), np.float64),
            np.full((n_tasks, m), -1, np.int64),
            np.zeros((n_tasks, m), np.int64),
            np.zeros((n_tasks, m), np.int64),
        )
        no_traj = np.full(n_tasks, -1, dtype=np.int64)
        play(template, n_tasks, (np.int64(seed), games, seatings, lineup_kinds, lineup_params,
             no_traj), (out_seats, out_games, *rec))  # fmt: skip
        return out_seats, out_games, rec

    return learn_tables
