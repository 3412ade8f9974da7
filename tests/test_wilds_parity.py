"""Parity: the warped-crystal fast path (`sim.wilds.kernel`) plays exactly the reference
engine's episodes: every crystal's final space, HP, strikes, warps and breaking turn, the number of
turns and the climber's final space."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.wilds import kernel as KN
from sim.wilds.cards import load_cards
from sim.wilds.rules import Game


def reference(t, seed, game, value):
    g = Game(t, seed=seed, game=game, strike_value=value, record=False).play()
    crystals = [
        (c.row, c.col, c.hp, int(c.warped), int(c.broken), c.strikes, c.warps, c.broken_turn)
        for c in g.crystals
    ]
    return np.array(crystals, dtype=np.int64), (g.turn, *g.climber)


def compare(t, seed, games, value):
    out_crystals, out_games = KN.run_episodes(t, seed, np.array(games), value)
    for i, game in enumerate(games):
        crystals, summary = reference(t, seed, game, value)
        assert (out_crystals[i] == crystals).all(), (game, value)
        assert tuple(out_games[i]) == summary, (game, value)


@pytest.mark.parametrize("value", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("tie", ["reading", "continue"])
def test_parity_ci(value, tie) -> None:
    t = load_cards(overrides={"rules.snap_tie": tie})
    compare(t, 11, list(range(40)), value)


def test_parity_with_every_crystal_warped() -> None:
    t = load_cards()
    t = dataclasses.replace(t, crystal_warped=np.ones(t.n_crystals, dtype=bool))
    compare(t, 3, list(range(60)), 0)


@pytest.mark.slow
@pytest.mark.parametrize("value", [0, 1, 2, 3, 4])
def test_parity_3000_seeds(value) -> None:
    t = load_cards()
    for seed in range(30):
        compare(t, seed, list(range(100)), value)
