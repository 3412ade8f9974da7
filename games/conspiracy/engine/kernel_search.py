"""The search player's driver on Conspiracy's fast path (docs/search.md, "Abyss: Conspiracy"):
determinized flat Monte Carlo with UCB1, as Abyss's (`games.abyss.engine.kernel.play_searched`).

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

from games.conspiracy.engine import kernel as KN
from games.conspiracy.engine import policies as P
from games.conspiracy.engine import state as S
from sim.core import search as C
from sim.core.jit import borrow, njit, prange
from sim.core.rng import N_STREAMS, stream_keys_in
from sim.core.workspace import LANES


@njit(cache=True)
def play_game(s):
    """`kernel.play`, or with a search seat (policies.SEARCH) `play_searched`."""
    for q in range(s[S.N_PLAYERS]):
        if s[S.POLICY_KIND + q] == P.SEARCH:
            play_searched(s)
            return
    KN.play(s)


@njit(cache=True)
def play_searched(s):
    """`kernel.play` with every turn replayed until its search decisions are scripted. Nothing
    of the real game is changed by a rollout: they run in a copy."""
    start = np.empty(S.SEARCH_BEGIN, dtype=np.int32)
    scratch = s.copy()
    rows = np.zeros((S.MAX_PLAYERS, KN.N_SEAT_FIELDS), dtype=np.int32)
    while not KN.turn_limit(s):
        seat = s[S.NEXT_SEAT]
        start[:] = s[: S.SEARCH_BEGIN]
        trace = s[S.TRACE]
        s[S.SCRIPT] = 0
        while True:
            s[: S.SEARCH_BEGIN] = start
            s[S.TRACE] = trace
            s[S.SEARCH_MODE], s[S.SEARCH_COUNT], s[S.SEARCH_FOUND] = KN.PROBE, 0, 0
            KN.take_turn(s, seat)
            if s[S.SEARCH_FOUND] == 0:
                break
            k = s[S.SCRIPT]
            visits, total = np.zeros(s[S.SEARCH_N], np.int64), np.zeros(s[S.SEARCH_N])
            s[S.SCRIPT + 1 + k] = search_decision(s, start, scratch, rows, seat, visits, total)
            s[S.SCRIPT] = k + 1
        s[S.SEARCH_MODE] = 0
        if KN.end_of_turn(s, seat):
            return


@njit(cache=True)
def rollout(s, start, w, rows, active, seat, k, option, seed, j):
    """One rollout of `option` at the search decision past the script's first k: the turn
    replayed from `start` in w, forked there on the keys of (seed, j), played to the end by the
    rollout policy; the seat's reward (rows: every seat's final score and rank)."""
    w[: S.SEARCH_BEGIN] = start
    w[S.SCRIPT : S.SCRIPT + 1 + k] = s[S.SCRIPT : S.SCRIPT + 1 + k]
    w[S.SEARCH_MODE], w[S.SEARCH_COUNT], w[S.SEARCH_FORCE] = KN.ROLLOUT, 0, option
    w[S.TRACE] = 0
    stream_keys_in(w, S.FORK_KEYS, seed, j, N_STREAMS)
    KN.take_turn(w, active)
    if not KN.end_of_turn(w, active):
        KN.play(w)
    KN.score(w, rows)
    return C.share_reward(rows, w[S.N_PLAYERS], seat, KN.R_RANK, KN.R_SCORE)


#: the searching seat's option at the decision s recorded (`sim.core.search.search_decision_for`)
search_decision = C.search_decision_for(rollout, (
    S.SEARCH_SEAT, S.SEARCH_N, S.SEARCH_OPTS, S.SCRIPT, S.SEARCH_DEFAULT, S.TURN, S.RNG_KEYS,
    S.POLICY_PARAMS, S.N_PARAMS, P.S_ROLLOUTS, P.S_EXPLORATION, P.S_DETERMINIZATIONS,
    P.S_CONFIDENCE,
))  # fmt: skip


# ----------------------------------------------------------------------------- the reference engine
@njit(cache=True)
def search_choice(s, k):
    """The search's choice at the turn's k-th search decision (0-based), s holding the turn's
    start and the first k in its script (`play_searched`, one pass of its loop). The probe
    leaves the decision's seat, number and options in s[S.SEARCH_SEAT], s[S.SEARCH_DECISION],
    s[S.SEARCH_OPTS:] for the caller to check; s[S.SEARCH_FOUND] == 0: the turn has no such
    decision (and 0 is returned: any integer may be an option)."""
    start = s[: S.SEARCH_BEGIN].copy()
    seat = s[S.NEXT_SEAT]
    s[S.SCRIPT] = k
    s[S.TRACE] = 0
    s[S.SEARCH_MODE], s[S.SEARCH_COUNT], s[S.SEARCH_FOUND] = KN.PROBE, 0, 0
    KN.take_turn(s, seat)
    if s[S.SEARCH_FOUND] == 0:
        return 0
    n = s[S.SEARCH_N]
    visits, total = np.zeros(n, np.int64), np.zeros(n)
    rows = np.zeros((S.MAX_PLAYERS, KN.N_SEAT_FIELDS), dtype=np.int32)
    return search_decision(s, start, s.copy(), rows, seat, visits, total)


def reference_choice(tables, kinds, params, turn_start, script, seed, game):
    """The search's choice past `script` (the options the search seats chose so far in the
    turn, in order) in the turn starting at `turn_start` (state, stream counters: `S.encode`)
    of game `game` of `seed`, the seats playing `kinds` and `params` (`fast.lineup_arrays`).
    Returns (option, (seat, decision, options)): the decision the replay reached, for the
    reference engine to check against its own (None: the replay met no such decision)."""
    from sim.core.rng import stream_keys

    if len(script) >= S.MAX_SCRIPT:
        raise ValueError(f"more than {S.MAX_SCRIPT} search decisions in one turn")
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
    s[S.SCRIPT + 1 : S.SCRIPT + 1 + len(script)] = script
    option = int(search_choice(s, np.int64(len(script))))
    if s[S.SEARCH_FOUND] == 0:
        return option, None
    n = int(s[S.SEARCH_N])
    options = [int(x) for x in s[S.SEARCH_OPTS : S.SEARCH_OPTS + n]]
    return option, (int(s[S.SEARCH_SEAT]), int(s[S.SEARCH_DECISION]), options)


@njit(cache=True, parallel=True)
def play_tables_searched(template, seed, games, seatings, lineup_kinds, lineup_params, out_seats,
                         out_games):  # fmt: skip
    """`kernel.play_tables` for a line-up with the search player (`play_game`): the same games,
    this driver compiled only when it is used."""
    n_tasks = out_games.shape[0]
    n_lanes = min(LANES, n_tasks)
    for lane in prange(n_lanes):
        owned = template.copy()
        s = borrow(owned)
        for i in range(lane, n_tasks, n_lanes):
            KN.start_task(s, seed, games[i], seatings[i], lineup_kinds, lineup_params)
            play_game(s)
            KN.results(s, out_seats[i], out_games[i])
        owned[0] = owned[0]
