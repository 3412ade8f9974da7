"""The warped-crystal rules of Leviathan Wilds: Shattered Peak (`sim.wilds.rules`), one test per
rule sentence of the seed text and its three worked examples, on PLACEHOLDER data."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.wilds.cards import SNAP_TIES, TERRAIN, CardDataError, load_cards
from sim.wilds.rules import Crystal, Game

#  col: 0123456
MAP = [
    "#######",  # row 0
    "#######",  # row 1
    "##...##",  # row 2: open in the middle
    "#######",  # row 3
]


def game(rows=MAP, tie="reading", **kw) -> Game:
    """A game on a drawn map, with no crystal yet (the placeholder deck and climber)."""
    terrain = np.array([[TERRAIN[ch] for ch in row] for row in rows], dtype=np.int8)
    t = dataclasses.replace(
        load_cards(), terrain=terrain, snap_tie=SNAP_TIES.index(tie), start=(0, 0)
    )
    g = Game(t, seed=1, record=True, **kw)
    g.crystals = []
    return g


def warped(g: Game, r: int, c: int, hp: int = 6) -> Crystal:
    crystal = Crystal(r, c, hp, warped=True)
    g.crystals.append(crystal)
    return crystal


def top_card(g: Game, move=None, regain=0) -> None:
    """Make the next warp card a diagram `move` (or a regain card)."""
    for card in range(len(g.t.warp_regain)):
        if regain and int(g.t.warp_regain[card]) == regain:
            break
        if move and tuple(int(x) for x in g.t.warp_move[card]) == move:
            break
    else:
        raise AssertionError("no such card in the placeholder deck")
    g.deck.remove(card)
    g.deck.append(card)


def test_surrounding_is_the_eight_neighbours() -> None:
    """ "Any space that is either orthogonally or diagonally adjacent to a point of reference ...
    is considered to be a surrounding space to that point of reference." """
    g = game()
    assert sorted(g.surrounding(1, 3)) == sorted(
        [(0, 2), (0, 3), (0, 4), (1, 2), (1, 4), (2, 2), (2, 3), (2, 4)]
    )
    assert sorted(g.surrounding(0, 0)) == [(0, 1), (1, 0), (1, 1)]  # the map's corner


@pytest.mark.parametrize(("value", "lost"), [(1, 1), (2, 2), (3, 2), (4, 2)])
def test_strike_value_above_two_is_reduced_to_two(value, lost) -> None:
    """ "When a climber strikes a warped crystal, if the strike value was greater than 2, reduce
    the strike value to 2." """
    g = game()
    crystal = warped(g, 1, 3, hp=6)
    top_card(g, regain=1)  # keeps the crystal in place
    g.strike(crystal, value)
    assert crystal.hp == min(6, 6 - lost + 1)


def test_plain_crystals_take_the_whole_strike() -> None:
    g = game()
    crystal = Crystal(1, 3, 6, warped=False)
    g.crystals.append(crystal)
    g.strike(crystal, 4)
    assert crystal.hp == 2 and crystal.warps == 0


def test_a_warp_card_is_drawn_only_if_the_crystal_did_not_break() -> None:
    """ "Then, if the crystal did not break, that climber draws a card from the warp deck and
    resolves its effect." """
    g = game()
    crystal = warped(g, 1, 3, hp=2)
    deck = list(g.deck)
    g.strike(crystal, 4)  # reduced to 2: breaks
    assert crystal.broken and g.deck == deck and not g.discard
    crystal = warped(g, 1, 3, hp=3)
    g.strike(crystal, 2)  # 1 HP left: a card is drawn
    assert not crystal.broken and len(g.discard) == 1 and crystal.warps == 1


def test_example_1_the_diagram_moves_the_crystal() -> None:
    """Example 1: "Fix strikes the warped crystal in his space and draws this warp card, so the
    crystal moves 2 spaces to the left." ("If a diagram is drawn, the crystal moves according to
    that diagram.")"""
    g = game()
    crystal = warped(g, 1, 4)
    top_card(g, move=(0, -2))
    g.strike(crystal, 1)
    assert (crystal.row, crystal.col) == (1, 2)


def test_example_2_an_open_landing_snaps_to_either_adjacent_non_open_space() -> None:
    """Example 2: "After moving, this warped crystal lands in an open space, and must be moved to
    either adjacent non-open space." ("When moving a warped crystal, if it would be placed in an
    open space, it is placed in the closest non-open space instead.") Of the two, the stated
    tie rule ("reading", the default) takes the first in reading order."""
    rows = ["#######", "##...##", "#.....#", "###.###"]
    g = game(rows=rows)
    crystal = warped(g, 0, 3)
    top_card(g, move=(2, 0))  # down two, into the open (2, 3)
    g.strike(crystal, 1)
    assert (crystal.row, crystal.col) == (3, 2)  # (3, 2) and (3, 4) are the adjacent ones


@pytest.mark.parametrize(("tie", "expected"), [("reading", (1, 2)), ("continue", (3, 2))])
def test_snap_tie_rules(tie, expected) -> None:
    """Six non-open spaces surround the open landing (2, 3): "reading" takes the first in reading
    order, "continue" the ones furthest along the move (down), then reading order."""
    g = game(tie=tie)
    crystal = warped(g, 1, 3)
    top_card(g, move=(1, 0))
    g.strike(crystal, 1)
    assert (crystal.row, crystal.col) == expected
    assert max(abs(crystal.row - 2), abs(crystal.col - 3)) == 1


def test_snap_goes_to_the_closest_ring_first() -> None:
    rows = ["#.....#", "#.....#", "#.....#"]
    g = game(rows=rows)
    r, c = g.snap(1, 3, 0, 0)
    assert not g.is_open(r, c) and max(abs(r - 1), abs(c - 3)) == 3  # the nearest non-open ring


def test_example_3_a_move_off_the_map_goes_as_far_as_it_can() -> None:
    """Example 3: "This warp diagram would move the crystal off the map, so it moves as far as it
    can in the same direction instead." ("If a warp card diagram would cause a crystal or climber
    to be moved off the map, that crystal or climber moves as far as it can in that direction
    instead.")"""
    g = game()
    crystal = warped(g, 1, 1)
    top_card(g, move=(0, -2))
    g.strike(crystal, 1)
    assert (crystal.row, crystal.col) == (1, 0)
    crystal = warped(g, 0, 0)
    top_card(g, move=(-1, -1))  # at the corner already: stays
    g.strike(crystal, 1)
    assert (crystal.row, crystal.col) == (0, 0)


def test_an_empty_warp_deck_is_the_discard_reshuffled() -> None:
    g = game()
    n = len(g.deck)
    for _ in range(n + 3):
        g.draw_warp()
    assert len(g.deck) + len(g.discard) == n


def test_crystals_never_rest_on_open_spaces_or_off_the_map() -> None:
    """Invariants over many games of the placeholder scenario with every strike value."""
    t = load_cards()
    for game_index in range(200):
        for value in (0, 1, 2, 3, 4):
            g = Game(t, seed=7, game=game_index, strike_value=value, record=False)
            g.play()
            for crystal in g.crystals:
                assert g.on_map(crystal.row, crystal.col)
                assert not g.is_open(crystal.row, crystal.col)
                assert crystal.broken
            assert not g.is_open(*g.climber)


def test_same_seed_same_game() -> None:
    t = load_cards()
    a = Game(t, seed=3, game=5).play()
    b = Game(t, seed=3, game=5).play()
    assert a.events == b.events


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"climber.ap_per_turn": 0}, "ap_per_turn"),
        ({"rules.snap_tie": "random"}, "snap_tie"),
        ({"map.rows": '["#.x"]'}, "unknown space"),
        ({"climber.start": "[0, 0]"}, "non-open"),
        ({"nothing.here": 1}, "unknown key"),
    ],
)
def test_malformed_data_is_a_one_line_error(overrides, message) -> None:
    with pytest.raises(CardDataError, match=message) as info:
        load_cards(overrides=overrides)
    assert "\n" not in str(info.value)
