"""Sampled games replayed turn by turn for the tension metrics (docs/metrics.md): every
`sim.core.samples.EVERY`-th game of a run, each seat's running score (the IP it would score if
the game ended now: Lords, Locations, Coalition and the Pearl Master, all face up) after every
round, a round being one turn of each seat from the first player's.

The replay plays the game the kernel played: the same workspace, the same turn, end-of-turn and
scoring functions, in the kernel's loop, scoring after each round. Its final row is the kernel's
own final score (tests/conspiracy/test_conspiracy_tension.py)."""

from __future__ import annotations

import numpy as np

from games.conspiracy.engine import state as S
from games.conspiracy.engine.kernel import game as KN
from sim.core.jit import njit
from sim.core.samples import NOT_PLAYED, GameSamples, sampled

#: rounds kept at most (a longer game skips its later rounds and keeps its final row; never at the
#: shipped data, whose longest games take about 15)
MAX_ROUNDS = 64


@njit(cache=True)
def replay(template, seed, games, seatings, kinds, params, out):
    """Replay game games[i] (seat s: line-up entry seatings[i, s]) for every i, its running
    scores into out[i, round, seat] (rounds past its end untouched); the rounds each played."""
    n_players = seatings.shape[1]
    row = np.zeros((n_players, KN.N_SEAT_FIELDS), dtype=np.int32)
    played = np.zeros(len(games), dtype=np.int64)
    for i in range(len(games)):
        s = template.copy()
        KN.start_task(s, seed, games[i], seatings[i], kinds, params)
        r = 0
        while not KN.turn_limit(s):  # the kernel's loop (`sim.core.driver.play_for`)
            seat = s[S.NEXT_SEAT]
            KN.take_turn(s, seat)
            if KN.end_of_turn(s, seat):
                break
            if s[S.NEXT_SEAT] == 0 and r < out.shape[1] - 1:  # a round is over
                KN.score(s, row)
                out[i, r, :] = row[:, KN.R_SCORE]
                r += 1
        KN.finish(s)
        KN.score(s, row)
        out[i, r, :] = row[:, KN.R_SCORE]
        played[i] = r + 1
    return played


def samples(tables, seed: int, games, seatings, strategies, out_seats) -> GameSamples | None:
    """The sampled games among `games` (seat s of game i: line-up entry seatings[i, s]) replayed
    with their running scores, their final scores and ranks the kernel's `out_seats`; None when
    a seat searches (its turns need the search driver)."""
    from games.conspiracy.engine.fast import lineup_arrays
    from games.conspiracy.engine.policies import SEARCH

    kinds, params = lineup_arrays(strategies)
    if (kinds == SEARCH).any():
        return None
    n_players = seatings.shape[1]
    picked = sampled(games)
    scores = np.full((len(picked), MAX_ROUNDS, n_players), NOT_PLAYED, dtype=np.int32)
    played = replay(S.cached_template(tables), np.int64(seed), games[picked],
                    np.ascontiguousarray(seatings[picked]), kinds, params, scores)  # fmt: skip
    return GameSamples(games[picked], seatings[picked].astype(np.int16),
                       scores[:, : played.max(initial=0)], out_seats[picked, :, KN.R_SCORE],
                       out_seats[picked, :, KN.R_RANK].astype(np.int8))._ordered()  # fmt: skip
