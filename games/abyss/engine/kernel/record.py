"""The search player's fight-or-explore decisions, recorded (`abyss-mc ev search`,
docs/fight-or-explore.md "Under search play").

`play_recorded` is the search driver (`kernel.play_searched`) that also records every
fight-or-explore decision point a search seat decides: a Monster revealed with a fightable
Leviathan (`kernel_leviathan.leviathan_monster`: D_MONSTER_CHOICE with M_FIGHT among the options,
the points `games.abyss.engine.fork` counts). For each it keeps

- the situation, by the fork's own `kernel_fork.record_fork` (the rule's inputs: the risk of
  continuing `policies.arrival_risk` and the best chance of damage `policies.zone_chance`,
  columns `games.abyss.engine.fork.INFO_COLUMNS`), taken in the replay of the turn that meets the
  decision: the fork point is set to the turn's next one, so the fork's code fires there;
- the search's choice and, per option, its rollouts and summed reward;
- `replicates` extra rollouts of every option (`kernel.rollout`, the search's own rollout) on
  keys of their own: the j-th of every option shares keys (common random numbers), and none
  shares keys with the search's, so they measure the options independently of its estimates.

Nothing of the game changes: the situation is read (the fork point has no re-keying, no forced
choice, no rule switch) in a replay the driver discards anyway, and the extra rollouts run in the
scratch workspace the search's rollouts use, which every rollout sets afresh from the turn's
start. tests/abyss/test_search_record.py checks that a recorded game is byte for byte the game
`play_searched` plays.
"""

from __future__ import annotations

import numpy as np

from games.abyss.engine import policies as P
from games.abyss.engine import state as S
from games.abyss.engine.kernel import game as KN
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.kernel.scoring import score
from games.abyss.engine.state import N_SEAT_FIELDS, R_SCORE
from sim.core.driver import tables_for
from sim.core.jit import njit
from sim.core.search import PROBE

#: Options of a fight-or-explore decision at most: continue, fight, ignore (the Coward).
MAX_OPTIONS = 3
#: Rows of a point's values (`values[point, row, option]`).
V_OPTION, V_VISITS, V_TOTAL, V_EVAL_REWARD, V_EVAL_IP = range(5)
N_VALUE_ROWS = 5
#: The extra rollouts' key index: game << GAME_SHIFT | point << POINT_SHIFT | replicate.
GAME_SHIFT, POINT_SHIFT = 24, 12
MAX_EVAL_REPLICATES = 1 << POINT_SHIFT
MAX_POINTS = 1 << (GAME_SHIFT - POINT_SHIFT)  # recorded per game (more are counted only)
#: `games.abyss.engine.fork.INFO_COLUMNS`: the seat, the turn, and the strategy's choice (the
# search's).
INFO_SEAT, INFO_TURN, OWN_CHOICE = 0, 1, 8


@njit(cache=True)
def is_point(s):
    """The decision the probe met is a fight-or-explore decision point (as `leviathan_monster`
    counts them: fighting is the second option)."""
    return (
        s[W.SEARCH_DECISION] == P.D_MONSTER_CHOICE
        and s[W.SEARCH_N] > 1
        and s[W.SEARCH_OPTS + 1] == P.M_FIGHT
    )


@njit(cache=True)
def play_recorded(s, game, eval_seed, replicates, info, values):
    """`kernel.play_searched`, recording the first len(info) fight-or-explore decisions of the
    search seats into info[p] (the situation; own_choice: the search's) and values[p]
    (`V_*` rows per option); returns the number of such decisions (recorded or not)."""
    start = np.empty(W.SEARCH_BEGIN, dtype=np.int32)
    scratch = s.copy()
    rows = np.zeros((S.MAX_PLAYERS, N_SEAT_FIELDS), dtype=np.int32)
    n_points = 0
    while not KN.turn_limit(s):
        seat = s[S.NEXT_SEAT]
        start[:] = s[: W.SEARCH_BEGIN]
        trace = s[W.TRACE]
        s[W.SCRIPT] = 0
        searching = start[W.POLICY_KIND + seat] == P.SEARCH
        scripted = 0  # fight-or-explore points of this turn already in the script
        while True:
            s[: W.SEARCH_BEGIN] = start
            s[W.TRACE] = trace
            if searching:  # the turn's next point: the fork's record_fork reads it there
                s[W.FORK_AT] = start[W.FORK_COUNT] + scripted + 1
            s[W.SEARCH_MODE], s[W.SEARCH_COUNT], s[W.SEARCH_FOUND] = PROBE, 0, 0
            KN.take_turn(s, seat)
            s[W.FORK_AT] = 0
            if s[W.SEARCH_FOUND] == 0:
                break
            k = s[W.SCRIPT]
            visits, total = np.zeros(s[W.SEARCH_N], np.int64), np.zeros(s[W.SEARCH_N])
            choice = KN.search_decision(s, start, scratch, rows, seat, visits, total)
            if searching and is_point(s):
                if n_points < info.shape[0]:
                    key = (np.int64(game) << GAME_SHIFT) + (np.int64(n_points) << POINT_SHIFT)
                    record_point(s, choice, visits, total, info[n_points], values[n_points])
                    evaluate(s, start, scratch, rows, seat, k, eval_seed, key, replicates,
                             values[n_points])  # fmt: skip
                n_points += 1
                scripted += 1
            s[W.SCRIPT + 1 + k] = choice
            s[W.SCRIPT] = k + 1
        s[W.SEARCH_MODE] = 0
        if KN.end_of_turn(s, seat):
            break
    KN.finish(s)
    return n_points


@njit(cache=True)
def record_point(s, choice, visits, total, info, values):
    """The situation `record_fork` left in W.FORK_INFO (the search's choice as own_choice),
    and the search's options, rollouts and summed rewards. A situation not of this seat and
    turn (the fork point was not met: a replay that diverged) is marked seat -1."""
    for i in range(W.N_FORK_INFO):
        info[i] = s[W.FORK_INFO + i]
    info[OWN_CHOICE] = choice
    if info[INFO_SEAT] != s[W.SEARCH_SEAT] or info[INFO_TURN] != s[S.TURN]:
        info[INFO_SEAT] = -1
    values[:, :] = -1.0
    for i in range(s[W.SEARCH_N]):
        values[V_OPTION, i] = s[W.SEARCH_OPTS + i]
        values[V_VISITS, i] = visits[i]
        values[V_TOTAL, i] = total[i]


@njit(cache=True)
def evaluate(s, start, w, rows, seat, k, eval_seed, key, replicates, values):
    """`replicates` rollouts of every option of the decision past the script's first k, the
    j-th of every option on the keys (eval_seed, key + j): summed reward and final IP."""
    n = s[W.SEARCH_N]
    options = s[W.SEARCH_OPTS : W.SEARCH_OPTS + n].copy()
    values[V_EVAL_REWARD, :n] = 0.0
    values[V_EVAL_IP, :n] = 0.0
    for j in range(replicates):
        for i in range(n):
            r = KN.rollout(s, start, w, rows, seat, seat, k, options[i], eval_seed, key + j)
            values[V_EVAL_REWARD, i] += r
            values[V_EVAL_IP, i] += rows[seat, R_SCORE]


def record_tables(template, seed, games, seatings, lineup_kinds, lineup_params, eval_seed,
                  replicates, out_seats, out_info, out_values, out_count):  # fmt: skip
    """Play game games[i] of `seed` (seatings as `kernel.play_tables`) with `play_recorded`:
    its final scores into out_seats[i], its fight-or-explore decisions of search seats into
    out_info[i] and out_values[i], their number into out_count[i]."""
    n_tasks = out_seats.shape[0]
    no_traj = np.full(n_tasks, -1, dtype=np.int64)
    _record_tables(template, n_tasks, (seed, games, seatings, lineup_kinds, lineup_params,
                   no_traj, eval_seed, replicates), (out_seats, out_info, out_values,
                   out_count))  # fmt: skip


@njit(cache=True)
def record_task(s, i, ins, outs):
    """Task i of `record_tables`."""
    seed, games, seatings, lineup_kinds, lineup_params, no_traj, eval_seed, replicates = ins
    out_seats, out_info, out_values, out_count = outs
    KN.start_task(s, i, seed, games, seatings, lineup_kinds, lineup_params, no_traj)
    s[W.FORK_AT] = s[W.FORK_CHOICE] = s[W.FORK_REKEY] = s[W.FORK_N_SET] = 0
    out_count[i] = play_recorded(s, games[i], eval_seed, replicates, out_info[i], out_values[i])
    score(s, out_seats[i])


_record_tables = tables_for(record_task)
