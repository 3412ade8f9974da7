"""A game's fast path played turn by turn, written once for every game: the play loop
(`play_for`) and the search player's driver (docs/search.md: each turn replayed from a copy of its
start until every search decision in it is scripted; `drivers_for`), with the same step for the
reference engine (`reference_choice_for`).

A game hands over its turn (`take_turn`, `end_of_turn`, `turn_limit`), the final tally
(`finish`, `score`) and its workspace offsets (`DriverLayout`, `search_blocks`); what a
decision's rollouts are and how their options are chosen is `sim.core.search`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.core import search as C
from sim.core.jit import borrow, get_num_threads, njit_closure
from sim.core.rng import N_STREAMS, stream_keys_in
from sim.core.workspace import LANES


class DriverLayout(NamedTuple):
    """A game's workspace offsets and sizes the driver reads and writes."""

    blocks: C.SearchBlocks  # the search's fields (`search_blocks`)
    slots: C.SearchSlots  # the seats' policies and the search's parameters
    fork_keys: int
    traj_on: int  # the round-by-round record's switch; -1: the game keeps none
    next_seat: int
    max_players: int
    n_seat_fields: int  # the columns of a seat's final row
    r_rank: int
    r_score: int


#: the search decisions a turn may hold at most (its script)
MAX_SCRIPT = 256


#: options of a decision the learned player scores and the search records at most
MAX_REC_OPTIONS = 16


def record_blocks(layout, n_features: int) -> tuple[int, int, int]:
    """The learned player's record fields of a workspace (`sim.core.learn`), from `layout` on:
    REC_ON (the switch), REC_ROW (the probe's weight row, -1: none) and REC_FEATURES (the features
    of each of the decision's options, MAX_REC_OPTIONS at most). They lie below SEARCH_BEGIN, so a
    turn's replay keeps them."""
    on, row = layout.scalars(2)
    return on, row, layout.block(MAX_REC_OPTIONS * n_features)


def search_blocks(layout, row_width: int) -> C.SearchBlocks:
    """The search's fields of a workspace, from `layout` (a `sim.core.stack.Layout`) on:
    SEARCH_BEGIN (a turn's replay restores the workspace below it), then SEARCH_MODE (0 off,
    1 probe, 2 rollout), SEARCH_COUNT (search decisions asked so far in this replay of the
    turn), SCRIPT (their number, then the options chosen), SEARCH_FORCE (a rollout's option),
    SEARCH_FOUND (probe: 1 when the decision past the script was met), SEARCH_DEFAULT (probe:
    the rollout policy's own option there), SEARCH_SEAT, SEARCH_DECISION, SEARCH_N and
    SEARCH_OPTS (its seat, decision and options, `row_width` at most), and TRACE (decisions asked
    so far; then (seat, decision, option, n) per decision)."""
    begin = layout.size
    mode, count, script = layout.block(1), layout.block(1), layout.block(1 + MAX_SCRIPT)
    force, found, default = layout.scalars(3)
    seat, decision, n_options = layout.scalars(3)
    options, trace = layout.block(row_width), layout.block(1)
    return C.SearchBlocks(begin, mode, count, script, force, found, default, seat, decision,
                          n_options, options, trace)  # fmt: skip


class Drivers(NamedTuple):
    play_game: object
    play_searched: object
    rollout: object
    search_decision: object
    search_choice: object
    #: `searched_loop(record)`: a recording driver (`loop(s, out, i)`)
    searched_loop: object


def tables_for(play_task):
    """A game's tasks on all threads: `play_tables(template, n_tasks, ins, outs)` plays task i
    (0 <= i < n_tasks) by `play_task(s, i, ins, outs)` (`ins`, `outs`: tuples of the task's
    arrays). The tasks are dealt to LANES lanes, each with its own workspace (a copy of
    `template`, which holds the card tables) reused task after task: a task must depend only on
    its inputs (seed, game index, seating), never on its lane.

    The lanes run on a pool of Python threads, each lane a compiled call that releases the GIL,
    as many threads as numba's (`set_num_threads`). Not `prange`: numba compiles a parallel loop's
    body as a function of its own and generates the game's whole tree again there, 10 of a cold
    run's 80 s (docs/benchmarks.md)."""

    @njit_closure(nogil=True)
    def play_lane(template, lane, n_lanes, n_tasks, ins, outs):
        owned = template.copy()
        s = borrow(owned)  # `owned` lives as long as the lane
        for i in range(lane, n_tasks, n_lanes):
            play_task(s, i, ins, outs)
        owned[0] = owned[0]  # keep the lane's workspace alive to here

    def play_tables(template, n_tasks, ins, outs):
        n_tasks = int(n_tasks)
        n_lanes = min(LANES, n_tasks)
        threads = min(get_num_threads(), n_lanes)

        def lane(i: int) -> None:
            play_lane(template, i, n_lanes, n_tasks, ins, outs)

        if threads <= 1:
            for i in range(n_lanes):
                lane(i)
            return
        first = 0
        if not play_lane.signatures:  # a first call compiles: here, not on every thread at once
            lane(0)
            first = 1
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(threads, thread_name_prefix="lane") as pool:
            list(pool.map(lane, range(first, n_lanes)))

    return play_tables


def play_for(take_turn, end_of_turn, turn_limit, finish, next_seat: int):
    """A game's `play(s)`: turns until the end (resuming from s[next_seat], the seat of the
    next turn), then the final tally `finish`. `end_of_turn(s, seat)` names the next seat and
    says when the game is over; `turn_limit(s)` is a safety stop before a turn."""

    @njit_closure
    def play(s):
        while not turn_limit(s):
            seat = s[next_seat]
            take_turn(s, seat)
            if end_of_turn(s, seat):
                break
        finish(s)

    return play


def drivers_for(take_turn, end_of_turn, turn_limit, play, finish, score, layout: DriverLayout):
    """A game's search driver, compiled for it with its own turn and layout."""
    L, B, Q = layout, layout.blocks, layout.slots
    begin, trace_at, script_at, mode_at, count_at = B.begin, B.trace, B.script, B.mode, B.count
    found_at, force_at, n_at = B.found, B.force, B.n_options
    fork_at, traj_at, next_at = L.fork_keys, L.traj_on, L.next_seat
    players_at, kind_at, search_kind = Q.n_players, Q.policy_kind, Q.search_kind
    max_players, n_fields, r_rank, r_score = L.max_players, L.n_seat_fields, L.r_rank, L.r_score

    @njit_closure
    def rollout(s, start, w, rows, active, seat, k, option, seed, j):
        """One rollout of `option` at the search decision past the script's first k: the turn
        replayed from `start` in w, forked there on the keys of (seed, j), played to the end by
        the rollout policy; the seat's reward (rows: every seat's final score and rank)."""
        w[:begin] = start
        w[script_at : script_at + 1 + k] = s[script_at : script_at + 1 + k]
        w[mode_at], w[count_at], w[force_at] = C.ROLLOUT, 0, option
        if traj_at >= 0:
            w[traj_at] = 0
        w[trace_at] = 0
        stream_keys_in(w, fork_at, seed, j, N_STREAMS)
        take_turn(w, active)
        if end_of_turn(w, active):
            finish(w)
        else:
            play(w)
        score(w, rows)
        return C.share_reward(rows, w[players_at], seat, r_rank, r_score)

    search_decision = C.search_decision_for(rollout, B, Q)

    def searched_loop(record):
        """`play_searched` calling `record(s, out, i, seat, visits, total, choice)` after each
        search decision (its options' rollouts and summed rewards, the option played): a
        recording driver writes task i's records into `out`."""

        @njit_closure
        def loop(s, out, i):
            start = np.empty(begin, dtype=np.int32)
            scratch = s.copy()
            rows = np.zeros((max_players, n_fields), dtype=np.int32)
            while not turn_limit(s):
                seat = s[next_at]
                start[:] = s[:begin]
                trace = s[trace_at]
                s[script_at] = 0
                while True:
                    s[:begin] = start
                    s[trace_at] = trace
                    s[mode_at], s[count_at], s[found_at] = C.PROBE, 0, 0
                    take_turn(s, seat)
                    if s[found_at] == 0:
                        break
                    k = s[script_at]
                    visits, total = np.zeros(s[n_at], np.int64), np.zeros(s[n_at])
                    choice = search_decision(s, start, scratch, rows, seat, visits, total)
                    record(s, out, i, seat, visits, total, choice)
                    s[script_at + 1 + k] = choice
                    s[script_at] = k + 1
                s[mode_at] = 0
                if end_of_turn(s, seat):
                    break
            finish(s)

        return loop

    @njit_closure
    def no_record(s, out, i, seat, visits, total, choice):
        pass

    plain_loop = searched_loop(no_record)

    @njit_closure
    def play_searched(s):
        """Determinized flat Monte Carlo: each turn is played from a copy of its start; at the
        first search decision past the turn's script the turn stops being real (`searched`
        records it), rollouts from the turn's start value each option, the best joins the
        script and the turn is replayed, until it ends with every search decision scripted.
        Nothing of the real game is changed by a rollout: they run in a copy."""
        plain_loop(s, None, 0)

    @njit_closure
    def play_game(s):
        """`play`, or with a search seat `play_searched`."""
        for q in range(s[players_at]):
            if s[kind_at + q] == search_kind:
                play_searched(s)
                return
        play(s)

    @njit_closure
    def search_choice(s, k):
        """The search's choice at the turn's k-th search decision (0-based), s holding the
        turn's start and the first k in its script (`play_searched`, one pass of its loop). The
        probe leaves the decision's seat, number and options in the layout's seat, decision
        and options for the caller to check; found == 0: the turn has no such decision (and 0
        is returned: any integer may be an option)."""
        start = s[:begin].copy()
        seat = s[next_at]
        s[script_at] = k
        s[trace_at] = 0
        s[mode_at], s[count_at], s[found_at] = C.PROBE, 0, 0
        take_turn(s, seat)
        if s[found_at] == 0:
            return 0
        n = s[n_at]
        visits, total = np.zeros(n, np.int64), np.zeros(n)
        rows = np.zeros((max_players, n_fields), dtype=np.int32)
        return search_decision(s, start, s.copy(), rows, seat, visits, total)

    return Drivers(play_game, play_searched, rollout, search_decision, search_choice,
                   searched_loop)


def reference_choice_for(search_choice, workspace_at, layout: DriverLayout):
    """The reference engine's search step: `reference_choice(tables, kinds, params,
    turn_start, script, seed, game)`, the search's choice past `script` (the options the search
    seats chose so far in the turn, in order) in the turn starting at `turn_start` of game
    `game` of `seed`, the seats playing `kinds` and `params`. `workspace_at(tables, kinds,
    params, turn_start, seed, game)` is the game's workspace at that turn's start. Returns
    (option, (seat, decision, options)): the decision the replay reached, for the reference
    engine to check against its own (None: the replay met no such decision)."""
    L = layout.blocks

    def reference_choice(tables, kinds, params, turn_start, script, seed, game):
        if len(script) >= MAX_SCRIPT:
            raise ValueError(f"more than {MAX_SCRIPT} search decisions in one turn")
        s = workspace_at(tables, kinds, params, turn_start, seed, game)
        s[L.script + 1 : L.script + 1 + len(script)] = script
        option = int(search_choice(s, np.int64(len(script))))
        if s[L.found] == 0:
            return option, None
        n = int(s[L.n_options])
        options = [int(x) for x in s[L.options : L.options + n]]
        return option, (int(s[L.seat]), int(s[L.decision]), options)

    return reference_choice
