"""The state vector (`games.abyss.engine.state`): encode/decode round trips along whole games, and
a game decoded between two turns plays on to exactly the same end as the uninterrupted game."""

from __future__ import annotations

import numpy as np
import pytest

from games.abyss.engine import state as S
from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.rules.decode import decode
from games.abyss.engine.rules.game import Game
from games.abyss.strategies import REGISTRY


@pytest.fixture(scope="module", params=[(), ("leviathan",)], ids=["base", "leviathan"])
def tables(request):
    return load_cards(expansions=request.param)


def _final(g: Game):
    return (
        [s.total for s in g.scores],
        list(g.ranks),
        g.end_reason,
        g.turn,
        S.encode(g)[0].tobytes(),
    )


def _states_between_turns(tables, specs, n, seed, game):
    """Play a game, encoding the state each time play() is about to start a turn."""
    states = []

    class Recorder(Game):
        def take_turn(self, seat: int) -> None:
            states.append(S.encode(self))
            super().take_turn(seat)

    g = Recorder(
        tables, REGISTRY.make_policies(specs, n), seed=seed, game=game, record=False
    ).play()
    return g, states


def test_round_trip_along_whole_games(tables):
    """encode(decode(encode(g))) == encode(g) at every turn of random and greedy games."""
    for n, specs in ((2, ["random"]), (4, ["greedy", "random"]), (3, ["greedy"])):
        g, states = _states_between_turns(tables, specs, n, seed=5, game=n)
        assert len(states) == g.turn
        for s, counters in states:
            again = decode(s, counters, tables, REGISTRY.make_policies(specs, n), seed=5, game=n)
            s2, c2 = S.encode(again)
            np.testing.assert_array_equal(s, s2)
            np.testing.assert_array_equal(counters, c2)


def test_decoded_game_plays_on_to_the_same_end(tables):
    """A game decoded between two turns finishes exactly like the uninterrupted game."""
    n, specs, seed = 4, ["greedy", "random"], 9
    for game in range(3):
        g, states = _states_between_turns(tables, specs, n, seed, game)
        for k in (0, len(states) // 3, len(states) - 1):
            s, counters = states[k]
            resumed = decode(
                s, counters, tables, REGISTRY.make_policies(specs, n), seed, game
            ).play()
            assert _final(resumed) == _final(g)


def test_capacity_errors_are_clear():
    t = load_cards()
    S.check_capacity(t)  # the built-in data fits

    class Big:
        def __getattr__(self, name):
            return getattr(t, name)

        n_allies = S.MAX_ALLIES + 1

    with pytest.raises(Exception, match="at most 128 Exploration cards"):
        S.check_capacity(Big())
