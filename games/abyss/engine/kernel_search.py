"""The search player's decisions for the reference engine: the fast path's own, to the bit.

The reference engine (`games.abyss.engine.rules.Game`) keeps the encoded state at the start of
every turn
when a seat plays `search`. At a search decision, `reference_choice` loads that state into a
kernel workspace with the turn's search decisions so far (the script) and `search_choice` does
what the fast path's driver (`kernel.play_searched`) does for the next one: replay the turn from
its start with the script, find the decision past it (the probe), value its options by
`kernel.search_decision`. Same workspace, same script, same search keys: the same choice.

The replay and the rollouts run in a workspace of their own: the real game's random streams are
not drawn from, in either engine. Compiled only when the reference engine meets a search seat.
"""

from __future__ import annotations

import numpy as np

from games.abyss.engine import kernel as KN
from games.abyss.engine import kernel_base as B
from games.abyss.engine import state as S
from games.abyss.engine import workspace as W
from sim.core.jit import njit


@njit(cache=True)
def search_choice(s, k):
    """The search's choice at the turn's k-th search decision (0-based), s holding the turn's
    start and the first k in its script (`play_searched`, one pass of its loop). The probe
    leaves the decision's seat, number and options in s[W.SEARCH_SEAT], s[W.SEARCH_DECISION],
    s[W.SEARCH_OPTS:] for the caller to check; s[W.SEARCH_FOUND] == 0: the turn has no such
    decision (and 0 is returned: any integer may be an option)."""
    start = s[: W.SEARCH_BEGIN].copy()
    seat = s[S.NEXT_SEAT]
    s[W.SCRIPT] = k
    s[W.TRACE] = 0
    s[W.SEARCH_MODE], s[W.SEARCH_COUNT], s[W.SEARCH_FOUND] = B.PROBE, 0, 0
    KN.take_turn(s, seat)
    if s[W.SEARCH_FOUND] == 0:
        return 0
    n = s[W.SEARCH_N]
    visits, total = np.zeros(n, np.int64), np.zeros(n)
    rows = np.zeros((S.MAX_PLAYERS, S.N_SEAT_FIELDS), dtype=np.int32)
    return KN.search_decision(s, start, s.copy(), rows, seat, visits, total)


def reference_choice(tables, kinds, params, turn_start, script, seed, game):
    """The search's choice past `script` (the options the search seats chose so far in the
    turn, in order) in the turn starting at `turn_start` (state, stream counters: `S.encode`)
    of game `game` of `seed`, the seats playing `kinds` and `params` (`fast.lineup_arrays`).
    Returns (option, (seat, decision, options)): the decision the replay reached, for the
    reference engine to check against its own (None: the replay met no such decision)."""
    if len(script) >= W.MAX_SCRIPT:
        raise ValueError(f"more than {W.MAX_SCRIPT} search decisions in one turn")
    s = KN.new_workspace(W.cached_template(tables), kinds, params)
    KN.load_state(s, *turn_start, seed, game)
    s[W.SCRIPT + 1 : W.SCRIPT + 1 + len(script)] = script
    option = int(search_choice(s, np.int64(len(script))))
    if s[W.SEARCH_FOUND] == 0:
        return option, None
    n = int(s[W.SEARCH_N])
    options = [int(x) for x in s[W.SEARCH_OPTS : W.SEARCH_OPTS + n]]
    return option, (int(s[W.SEARCH_SEAT]), int(s[W.SEARCH_DECISION]), options)
