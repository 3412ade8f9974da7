"""A state-value oracle for drama and decisiveness (docs/metrics.md), written once for every game.

A game set up in a workspace is played to its end by its seats' strategies; at its start and
after every round (one turn of each seat, from the first player's), each seat's chance to win is
estimated by rollouts: the state copied, every random stream re-keyed, what no player can see
redealt (the game's `determinize`, for no seat: the view of someone watching the table), and the
game played to its end by the same strategies; a seat's value is its mean share of the win
(ties shared). The rollouts of a row are kept as `FOLDS` means of equal parts (folds), so that
`reports.metrics.drama` can pick a favourite on some folds and read its chance on another: a maximum
over noisy estimates read on the estimates that chose it is biased up. The last row is the
game's own result (in every fold). A game hands over what its search driver takes
(`sim.core.driver.drivers_for`): its turn, the final tally and its `DriverLayout`.
"""

from __future__ import annotations

import numpy as np

from sim.core.driver import play_for
from sim.core.jit import njit_closure
from sim.core.rng import N_STREAMS, stream_keys_in

#: `determinize` for no seat: every player's face-down cards and tokens are redealt
WATCHER = -1
#: rows kept per game at most: the start and the rounds (a longer game's last row is its result)
MAX_ROUNDS = 64
#: the oracle's stream of keys (`game_key`)
ORACLE_STREAM = 0x0DA
#: the rollouts of a row are kept as this many means of equal folds (`reports.metrics.drama`
#: cross-fits)
FOLDS = 4


def oracle_for(take_turn, end_of_turn, turn_limit, finish, score, determinize, layout):
    """`values(s, n_rollouts, key, out) -> rows`: the game set up in `s` played to its end,
    out[r, k, seat] each seat's estimated chance to win before round r (r = 0: at the start) by
    fold k of its rollouts (out.shape[1] folds of n_rollouts / folds each) and, in the last row
    written, its share of the actual win (every k). Rollout j of row r is keyed by (key,
    r * n_rollouts + j), fold k holding the k-th n_rollouts / folds of them: the values are a
    pure function of the game and the key, and the folds' mean is the estimate of all
    n_rollouts."""
    next_at, fork_at, players_at = layout.next_seat, layout.fork_keys, layout.slots.n_players
    max_players, n_fields, r_rank = layout.max_players, layout.n_seat_fields, layout.r_rank

    @njit_closure
    def add_shares(rows, n, weight, out_row):
        winners = 0
        for q in range(n):
            if rows[q, r_rank] == 1:
                winners += 1
        for q in range(n):
            if rows[q, r_rank] == 1:
                out_row[q] += weight / winners

    to_the_end = play_for(take_turn, end_of_turn, turn_limit, finish, next_at)

    @njit_closure
    def estimate(s, w, rows, n_rollouts, key, first, out_row):
        n, folds = s[players_at], out_row.shape[0]
        per_fold = n_rollouts // folds
        for k in range(folds):
            out_row[k, :n] = 0.0
            for j in range(k * per_fold, (k + 1) * per_fold):
                w[:] = s
                stream_keys_in(w, fork_at, key, first + j, N_STREAMS)
                determinize(w, WATCHER)
                to_the_end(w)
                score(w, rows)
                add_shares(rows, n, 1.0 / per_fold, out_row[k])

    @njit_closure
    def values(s, n_rollouts, key, out):
        w = s.copy()
        rows = np.zeros((max_players, n_fields), dtype=np.int32)
        estimate(s, w, rows, n_rollouts, key, np.int64(0), out[0])  # int64 as below: one compile
        r = 1
        while not turn_limit(s):
            seat = s[next_at]
            take_turn(s, seat)
            if end_of_turn(s, seat):
                break
            if s[next_at] == 0 and r < out.shape[0] - 1:  # a round is over
                estimate(s, w, rows, n_rollouts, key, r * n_rollouts, out[r])
                r += 1
        finish(s)
        score(s, rows)
        for k in range(out.shape[1]):
            out[r, k, : s[players_at]] = 0.0
            add_shares(rows, s[players_at], 1.0, out[r, k])
        return r + 1

    return values


def game_key(seed: int, game: int) -> int:
    """The rollouts' key of game `game` of a run of `seed` (its own stream: the oracle's numbers
    never meet the games')."""
    return int(np.random.SeedSequence([ORACLE_STREAM, seed, game]).generate_state(1, np.uint64)[0]
               >> np.uint64(1))  # fmt: skip


def play_values(values, template: np.ndarray, setup, seed: int, games, seatings,
                n_rollouts: int, max_rounds: int = MAX_ROUNDS) -> np.ndarray:  # fmt: skip
    """`values` (of `oracle_for`) over game games[i] (seat s: line-up entry seatings[i, s]) for
    every i, each set up in a copy of `template` by `setup(s, i, games, seatings)`: [game, row,
    fold, seat], NaN past each game's result row. `n_rollouts`: a multiple of `FOLDS`."""
    if n_rollouts < FOLDS or n_rollouts % FOLDS:
        raise ValueError(f"n_rollouts must be a multiple of {FOLDS}; got {n_rollouts}")
    games = np.ascontiguousarray(games, dtype=np.int64)
    seatings = np.ascontiguousarray(seatings, dtype=np.int64)
    out = np.full((len(games), max_rounds, FOLDS, seatings.shape[1]), np.nan)
    for i, game in enumerate(games):
        s = template.copy()
        setup(s, i, games, seatings)
        values(s, np.int64(n_rollouts), np.int64(game_key(seed, int(game))), out[i])
    return out
