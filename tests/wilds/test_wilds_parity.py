"""Parity: the warped-crystal fast path (`games.wilds.engine.kernel`) plays exactly the reference
engine's episodes: every crystal's final space, HP, strikes, warps and breaking turn, the number of
turns and the climber's final space."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from games.wilds.engine import kernel as KN
from games.wilds.engine.cards import WARP_CLIMBER, load_cards
from games.wilds.engine.rules import Game


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


def climber_deck(t, every: int, scale: int = 1):
    """Every `every`-th diagram of the deck moves the climber; moves scaled by `scale`."""
    targets = t.warp_target.copy()
    targets[np.flatnonzero(t.warp_regain == 0)[::every]] = WARP_CLIMBER
    return dataclasses.replace(t, warp_target=targets, warp_move=t.warp_move * scale)


@pytest.mark.parametrize("value", [0, 1, 2])
@pytest.mark.parametrize("tie", ["reading", "continue"])
def test_parity_with_climber_diagrams(value, tie) -> None:
    """Half the diagrams move the climber (who may land on, and walk off, open spaces)."""
    t = climber_deck(load_cards(overrides={"rules.snap_tie": tie}), 2)
    compare(t, 13, list(range(60)), value)


def test_parity_with_long_climber_diagrams_and_every_crystal_warped() -> None:
    """Only climber diagrams, 3-space moves (off the map's edge often)."""
    t = load_cards()
    t = climber_deck(t, 1, 3)
    t = dataclasses.replace(t, crystal_warped=np.ones(t.n_crystals, dtype=bool))
    compare(t, 4, list(range(60)), 0)


@pytest.mark.slow
@pytest.mark.parametrize("value", [0, 1, 2, 3, 4])
def test_parity_3000_seeds(value) -> None:
    t = load_cards()
    for seed in range(30):
        compare(t, seed, list(range(100)), value)


@pytest.mark.slow
@pytest.mark.parametrize("value", [0, 1, 2])
def test_parity_3000_seeds_with_climber_diagrams(value) -> None:
    t = climber_deck(load_cards(), 2)
    for seed in range(30):
        compare(t, seed, list(range(100)), value)
