"""The search player's decisions for the reference engine: the fast path's own, to the bit.

The reference engine (`games.abyss.engine.rules.game.Game`) keeps the encoded state at the start of
every turn when a seat plays `search`. At a search decision, `reference_choice` loads that state
into a kernel workspace with the turn's search decisions so far (the script) and
`kernel.search_choice` does what the fast path's driver (`kernel.play_searched`) does for the
next one: replay the turn from its start with the script, find the decision past it (the probe),
value its options. Same workspace, same script, same search keys: the same choice
(`sim.core.driver.reference_choice_for`).

The replay and the rollouts run in a workspace of their own: the real game's random streams are
not drawn from, in either engine. Compiled only when the reference engine meets a search seat.
"""

from __future__ import annotations

from games.abyss.engine.kernel import game as KN
from games.abyss.engine.kernel import workspace as W
from sim.core.driver import reference_choice_for


def workspace_at(tables, kinds, params, turn_start, seed, game):
    """A workspace of the seats' `kinds` and `params` at `turn_start` (state, stream counters:
    `state.encode`) of game `game` of `seed`."""
    s = KN.new_workspace(W.cached_template(tables), kinds, params)
    KN.load_state(s, *turn_start, seed, game)
    return s


reference_choice = reference_choice_for(KN.search_choice, workspace_at, KN.DRIVER_LAYOUT)
