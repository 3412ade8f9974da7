"""The search player's driver on Conspiracy's fast path (docs/search.md, "Abyss: Conspiracy"):
determinized flat Monte Carlo with UCB1, as Abyss's
(`games.abyss.engine.kernel.game.play_searched`).

Every turn of a game with a search seat is played from a copy of its start; at the first search
decision past the turn's script the turn stops being real (`kernel.searched` records it),
rollouts from the turn's start value each option, the best joins the script and the turn is
replayed, until it ends with every search decision scripted. A rollout forks at the decision
(`kernel.determinize`: the face-down decks in a canonical order, reshuffled with the search's own
keys), then every seat plays the searching seat's rollout policy to the end of the game.

Compiled only for line-ups with a search seat (`play_tables_searched`): the plain `play_tables`
never reaches this module. The reference engine plays the same games through `reference_choice`.
"""

from __future__ import annotations

import numpy as np

from games.conspiracy.engine import state as S
from games.conspiracy.engine.kernel import game as KN
from sim.core.driver import DriverLayout, drivers_for, reference_choice_for, tables_for
from sim.core.jit import njit
from sim.core.learn import RecordLayout, recorder_for
from sim.core.rng import N_STREAMS

DRIVER_LAYOUT = DriverLayout(S.SEARCH_BLOCKS, KN.SEARCH_SLOTS, S.FORK_KEYS, -1, S.NEXT_SEAT,
                             S.MAX_PLAYERS, KN.N_SEAT_FIELDS, KN.R_RANK, KN.R_SCORE)
#: the search player's driver (`sim.core.driver`): `play_game` plays `kernel.play`, or
#: with a search seat (policies.SEARCH) `play_searched`
play_game, play_searched, rollout, search_decision, search_choice, searched_loop = (
    drivers_for(KN.take_turn, KN.end_of_turn, KN.turn_limit, KN.play, KN.finish, KN.score,
                DRIVER_LAYOUT)
)


# ----------------------------------------------------------------------------- the reference engine
def workspace_at(tables, kinds, params, turn_start, seed, game):
    """A workspace of the seats' `kinds` and `params` at `turn_start` (state, stream counters:
    `S.encode`) of game `game` of `seed`."""
    from sim.core.rng import stream_keys

    state, counters = turn_start
    s = S.cached_template(tables).copy()
    n = len(kinds)
    s[S.POLICY_KIND : S.POLICY_KIND + n] = kinds
    s[S.POLICY_PARAMS : S.POLICY_PARAMS + n * S.N_PARAMS] = np.asarray(params).reshape(-1)
    s[: S.STATE_SIZE] = state
    keys = np.zeros(N_STREAMS, dtype=np.uint64)
    stream_keys(np.int64(seed), np.int64(game), keys)
    s[S.RNG_KEYS : S.RNG_KEYS + 2 * N_STREAMS] = keys.view(np.int32)
    s[S.RNG_COUNTERS : S.RNG_COUNTERS + 2 * N_STREAMS] = counters.astype(np.int64).view(np.int32)
    return s


#: the search's choice for the reference engine (`sim.core.driver.reference_choice_for`)
reference_choice = reference_choice_for(search_choice, workspace_at, DRIVER_LAYOUT)


def play_tables_searched(template, seed, games, seatings, lineup_kinds, lineup_params, out_seats,
                         out_games):  # fmt: skip
    """`kernel.play_tables` for a line-up with the search player (`play_game`): the same games,
    this driver compiled only when it is used."""
    _searched_tables(template, out_games.shape[0], (seed, games, seatings, lineup_kinds,
                     lineup_params), (out_seats, out_games))  # fmt: skip


_searched_tables = tables_for(KN.table_task_for(play_game))


@njit(cache=True)
def start_recorded(s, i, seed, games, seatings, lineup_kinds, lineup_params, _no_traj):
    """Task i's line-up seated and its game set up (`sim.core.learn`'s task)."""
    KN.start_task(s, seed, games[i], seatings[i], lineup_kinds, lineup_params)


#: the search's games with its decisions recorded for the learned player (`sim.core.learn`)
learn_tables = recorder_for(searched_loop, start_recorded, KN.results, RecordLayout(
    S.REC_ON, S.REC_ROW, S.REC_FEATURES, S.SEARCH_N, S.SEARCH_SEAT, S.SEARCH_OPTS, S.TURN,
    S.N_FEATURES, S.MAX_REC_OPTIONS))
N_SEAT_FIELDS, N_GAME_FIELDS = KN.N_SEAT_FIELDS, KN.N_GAME_FIELDS
