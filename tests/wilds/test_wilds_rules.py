"""The warped-crystal rules of Leviathan Wilds: Shattered Peak (`games.wilds.engine.rules`), one
test per rule sentence of the seed text and its three worked examples, on PLACEHOLDER data."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from games.wilds.engine.cards import (
    SNAP_TIES,
    TERRAIN,
    WARP_CLIMBER,
    CardDataError,
    describe,
    load_cards,
)
from games.wilds.engine.rules import Crystal, Game

#  col: 0123456
MAP = [
    "#######",  # row 0
    "#######",  # row 1
    "##...##",  # row 2: open in the middle
    "#######",  # row 3
]


def game(rows=MAP, tie="reading", overrides=None, **kw) -> Game:
    """A game on a drawn map, with no crystal yet (the placeholder deck and climber)."""
    terrain = np.array([[TERRAIN[ch] for ch in row] for row in rows], dtype=np.int8)
    t = dataclasses.replace(
        load_cards(overrides=overrides), terrain=terrain, snap_tie=SNAP_TIES.index(tie),
        start=(0, 0),
    )  # fmt: skip
    g = Game(t, seed=1, record=True, **kw)
    g.crystals = []
    return g


def warped(g: Game, r: int, c: int, hp: int = 6) -> Crystal:
    crystal = Crystal(r, c, hp, warped=True)
    g.crystals.append(crystal)
    return crystal


def top_card(g: Game, move=None, regain=0, climber=False) -> None:
    """Make the next warp card a diagram `move` (of the climber if `climber`), or a regain card."""
    for card in range(len(g.t.warp_regain)):
        if regain and int(g.t.warp_regain[card]) == regain:
            break
        if (
            move
            and int(g.t.warp_regain[card]) == 0
            and tuple(int(x) for x in g.t.warp_move[card]) == move
            and (int(g.t.warp_target[card]) == WARP_CLIMBER) == climber
        ):
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


# Climber diagrams (placeholder cards `{ climber = [rows, cols] }`): the diagram moves the climber
# who drew it, not the struck crystal.
CLIMBER_DECK = {
    "warp.cards": "[{ climber = [0, -2] }, { climber = [0, -3] }, { climber = [1, 0] },"
    " { climber = [-2, -2] }, { move = [0, -2] }, { regain = 1 }]"
}


def climber_game(at: tuple[int, int], card: tuple[int, int]) -> tuple[Game, Crystal]:
    """The climber at `at` strikes a warped crystal in its space; the next card: climber `card`."""
    g = game(overrides=dict(CLIMBER_DECK))
    g.climber = at
    crystal = warped(g, *at)
    top_card(g, move=card, climber=True)
    g.strike(crystal, 1)
    return g, crystal


def test_a_climber_diagram_moves_the_climber_not_the_crystal() -> None:
    """ "that climber draws a card from the warp deck and resolves its effect": a climber diagram
    moves the climber; the crystal stays where it is, and the card counts as a warp of it."""
    g, crystal = climber_game((1, 4), (0, -2))
    assert g.climber == (1, 2)
    assert (crystal.row, crystal.col, crystal.hp, crystal.warps) == (1, 4, 5, 1)
    assert g.events[-1]["event"] == "warp_climber" and g.events[-1]["to"] == [1, 2]


@pytest.mark.parametrize(
    ("at", "card", "expected"),
    [((1, 1), (0, -3), (1, 0)), ((1, 2), (-2, -2), (0, 1)), ((0, 0), (-2, -2), (0, 0))],
)
def test_a_climber_diagram_off_the_map_goes_as_far_as_it_can(at, card, expected) -> None:
    """ "If a warp card diagram would cause a crystal or climber to be moved off the map, that
    crystal or climber moves as far as it can in that direction instead." """
    g, crystal = climber_game(at, card)
    assert g.climber == expected
    assert (crystal.row, crystal.col) == at


def test_a_climber_is_not_snapped_off_an_open_space() -> None:
    """ "When moving a warped crystal, if it would be placed in an open space, it is placed in the
    closest non-open space instead." speaks of crystals only: the climber stays on the open space
    (2, 3), and its path leaves from there over non-open spaces."""
    g, crystal = climber_game((1, 3), (1, 0))
    assert g.climber == (2, 3) and g.is_open(2, 3)
    assert (crystal.row, crystal.col) == (1, 3)
    far = warped(g, 0, 0)
    step = g.next_step(far)
    assert step is not None and not g.is_open(*step)
    assert max(abs(step[0] - 2), abs(step[1] - 3)) == 1


def test_games_with_climber_diagrams_keep_everything_on_the_map() -> None:
    """Invariants with climber diagrams in the placeholder scenario: the climber stays on the map
    (maybe on an open space); crystals stay on non-open spaces."""
    t = load_cards(overrides=dict(CLIMBER_DECK))
    moved = 0
    for game_index in range(100):
        g = Game(t, seed=9, game=game_index).play()
        assert g.on_map(*g.climber)
        moved += sum(e["event"] == "warp_climber" for e in g.events)
        for crystal in g.crystals:
            assert g.on_map(crystal.row, crystal.col) and not g.is_open(crystal.row, crystal.col)
        for e in g.events:
            if e["event"] in ("warp", "warp_climber"):
                assert g.on_map(*e["to"])
    assert moved > 0


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


def test_climber_cards_load() -> None:
    cards = "[{ climber = [0, -2] }, { move = [1, 0] }, { regain = 1 }]"
    t = load_cards(overrides={"warp.cards": cards})
    assert t.warp_target.tolist() == [WARP_CLIMBER, 0, 0]
    assert t.warp_move.tolist() == [[0, -2], [1, 0], [0, 0]]
    assert t.warp_regain.tolist() == [0, 0, 1]
    assert "3 cards, 2 diagrams (1 moving the climber)" in describe(t)
    assert load_cards().warp_target.tolist() == [0] * 12  # the shipped deck moves crystals only


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("[{ climber = [0, 0] }]", r"cards\[0\]: climber: a diagram moves the climber; \[0, 0\]"),
        ("[{ move = [1, 0] }, { move = [0, 0] }]", r"cards\[1\]: move: a diagram moves the cr"),
        ("[{ climber = [0, 10] }]", r"climber\[1\]: must be in -9..9"),
        ("[{ climber = [1] }]", "climber: must have 2..2 entries"),
        ("[{ climber = [0, 1], move = [1, 0] }]", r"expected \{ move = .*\{ climber = "),
        ("[{ climber = [0, 1] }", "invalid TOML array"),
    ],
)
def test_malformed_warp_cards_are_one_line_errors(cards, message) -> None:
    with pytest.raises(CardDataError, match=message) as info:
        load_cards(overrides={"warp.cards": cards})
    assert "\n" not in str(info.value)
