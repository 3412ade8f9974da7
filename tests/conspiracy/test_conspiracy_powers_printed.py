"""The powers of the *Abyss: Conspiracy* Lords and Locations, checked against their printed texts:
the consequences and edge cases that tests/conspiracy/test_conspiracy_rules.py leaves open
(docs/card-powers.md maps every card to the tests that check it).

Printed texts: the seed rule text /work/shared/seeds/004_f62d138e7f50b9bc.txt ("seed": LORD CARDS,
KEYS, THE PEARL MASTER) and components.md 3.1 (Lords) and 3.5 (Locations); readings where the
texts are silent: docs/rules-notes.md, "Conspiracy".
"""

from __future__ import annotations

from conspiracy_helpers import (
    Scripted,
    bga_tables,
    events,
    give_lords,
    gold,
    location,
    lord,
    new_game,
    plain_fillers,
    set_pile,
    silver,
    stack_location_deck,
    stack_lord_deck,
    tables,
    take_lord,
)
from test_conspiracy_rules import draw_one, place, plain_locations, take_location, turn_sources

from games.conspiracy.engine.rules.game import LOCATION_DRAW, PILE, Decision, score_player

Y, R, G, B, P = range(5)  # colour ids: yellow, red, green, blue, purple


# ================================================================================ the 0 (swap)
def test_zero_swap_joins_a_coalition():
    """Seed, LORD CARDS: "One zero (with the power to swap two Lords within your chamber)"; scoring
    3: "the biggest group of adjacent Lords of the same color is identified and 3 points are
    scored for each Lord within it". Red at spots 1 and 3 (not adjacent) and the red 0 placed at
    spot 4: swapping the yellow at spot 2 with the 0 makes the reds 1-2-3 one group of 3 (9 IP)
    instead of 3-4 (6 IP); declined, the Chamber stays as placed."""
    t = tables()
    first = [lord(t, R, 4), lord(t, Y, 4), lord(t, R, 3)]
    zero = lord(t, R, 0)
    coalitions = {}
    for answer in (1 * 16 + 3, -1):
        g = new_game(2, policies=[Scripted({Decision.SWAP: [answer]}), Scripted()])
        give_lords(g, 0, first)
        p = place(g, 0, zero)
        coalitions[answer] = score_player(t, p, False).coalition
        if answer >= 0:
            assert p.chamber == [first[0], zero, first[2], first[1]]
            assert events(g, "swap") == [{"event": "swap", "turn": 0, "who": 0, "spots": [1, 3]}]
        else:
            assert p.chamber == [*first, zero] and events(g, "swap") == []
    assert coalitions == {1 * 16 + 3: 3 * 3, -1: 3 * 2}


def test_zero_taken_with_a_pile_swaps_when_it_is_placed():
    """Seed, STEP 2: "place your chosen Lord(s) in your Senate Chamber and apply the effects of the
    cards you have just placed" (components.md 3.2: "With a whole pile, place them one at a time;
    each one's effect applies"). The red 0 placed second from a pile is asked to swap among the
    three Lords then in the Chamber."""
    t = tables()
    zero, four = lord(t, R, 0), lord(t, R, 4)
    pol = Scripted(
        {Decision.SOURCE: [PILE + R], Decision.PLACE: [four], Decision.SWAP: [0 * 16 + 2]}
    )
    g = new_game(2, policies=[pol, Scripted()])
    (mine,) = give_lords(g, 0, [lord(t, B, 4)])
    set_pile(g, R, [zero, four])
    g.take_turn(0)
    assert pol.questions(Decision.SWAP) == [[-1, 0 * 16 + 1, 0 * 16 + 2, 1 * 16 + 2]]
    assert g.players[0].chamber == [zero, four, mine]
    assert g.players[0].pearls == 1  # the 4's Pearl: "Lords with 4 ... give you 1"
    assert pol.unused() == {}


# ================================================================================ the 3s and 4s
def test_pile_lords_give_their_pearls_but_those_returned_give_none():
    """Seed, THE PEARL MASTER: "Lords with 4 and 3 Influence Points respectively give you 1 and 2
    Pearls." - each Lord placed from a pile; END OF THE GAME note: with more Lords than free
    spaces "replace the remaining cards faceup in the discard pile" - those are not placed and
    give nothing. Two free spaces, a pile of a 3 and two 4s: the 3 and one 4 placed, 3 Pearls."""
    t = tables()
    three, four_a, four_b = lord(t, G, 3), lord(t, G, 4, 0), lord(t, G, 4, 1)
    pol = Scripted({Decision.SOURCE: [PILE + G], Decision.PLACE: [three, four_a]})
    g = new_game(2, policies=[pol, Scripted()])
    set_pile(g, G, [three, four_a, four_b])
    give_lords(g, 0, plain_fillers(g, 13, avoid=[three, four_a, four_b]))
    g.take_turn(0)
    p = g.players[0]
    assert p.chamber[13:] == [three, four_a] and g.piles[G] == [four_b]
    assert p.pearls == 2 + 1
    assert [e["n"] for e in events(g, "pearls")] == [2, 1]
    assert g.pearl_master == 0


# ================================================================================ the 6
def test_six_reveals_a_lord_whose_effect_applies_to_nobody_and_can_be_taken():
    """Seed, LORD CARDS: "One 6 (which forces the top card of the deck to be discarded)";
    components.md 3.1: "reveal the top Lord of the deck onto its colour's discard pile". The
    revealed Lord is discarded, not placed: a 3 (2 Pearls) on top of the deck gives nobody Pearls
    or the Pearl Master, the 6 itself has no key and no Pearl; the revealed 3 then lies face up on
    the green pile for the next player to take."""
    t = tables()
    revealed = lord(t, G, 3)
    pol1 = Scripted({Decision.SOURCE: [PILE + G]})
    g = new_game(2, policies=[Scripted(), pol1])
    stack_lord_deck(g, [revealed])
    six = take_lord(g, lord(t, R, 6))
    p0 = g.players[0]
    g.place(p0, six)
    assert p0.chamber == [six] and g.piles[G] == [revealed]
    assert [p.pearls for p in g.players] == [0, 0] and g.pearl_master == -1
    assert p0.keys == [] and p0.locations == []
    assert events(g, "reveal") == [{"event": "reveal", "turn": 0, "who": 0, "lord": revealed}]
    g.take_turn(1)
    assert PILE + G in pol1.questions(Decision.SOURCE)[0]
    assert g.players[1].chamber == [revealed] and g.players[1].pearls == 2


# ================================================================================ Locations
def test_location_9_with_an_empty_deck_leaves_the_piles_open():
    """components.md 3.5 #9: "until your next turn, each opponent may only take the **top 1** Lord
    of the deck". With no Lord left in the deck the text is silent; docs/rules-notes.md: "with
    none, the restriction does not apply" - the opponent takes a discard pile."""
    pols = [Scripted(draw_one()), Scripted()]
    g = new_game(2, policies=pols)
    take_location(g, 0, 9)
    for card in list(g.lord_deck):
        g.discard(take_lord(g, card))
    assert g.restriction and g.lord_deck == []
    piles = [PILE + c for c, cards in enumerate(g.piles) if cards]
    assert turn_sources(g, 1, pols[1]) == piles
    assert [e["who"] for e in events(g, "take_pile")] == [1]


def test_location_10_with_one_lord_left_draws_that_one():
    """components.md 3.5 #10: "until your next turn, each opponent must take the top 2 from the
    deck, keep 1 and discard 1". With one Lord left in the deck the opponent draws it (no choice to
    make, nothing discarded) and takes no pile (docs/rules-notes.md: "With fewer Lords left in
    the deck, they draw what there is")."""
    t = tables()
    last = lord(t, B, 4)
    pols = [Scripted(draw_one()), Scripted()]
    g = new_game(2, policies=pols)
    take_location(g, 0, 10)
    for card in list(g.lord_deck):
        if card != last:
            g.discard(take_lord(g, card))
    piles = [list(pile) for pile in g.piles]
    assert turn_sources(g, 1, pols[1]) == [1]
    assert pols[1].questions(Decision.KEEP) == []
    assert g.players[1].chamber == [last] and g.lord_deck == []
    assert [list(pile) for pile in g.piles] == piles


def test_location_12_also_reshuffles_the_locations_drawn_with_it():
    """Seed, KEYS STEP 1: "Draw 1, 2 or 3 Location cards at the same time. Choose one of them, then
    discard the rest faceup."; components.md 3.5 #12: "immediately shuffle all available Locations
    back into the deck". Drawn with two others, #12 is kept: the two go face up, then back into
    the deck with the face-up ones already there."""
    t = tables()
    twelve = location(t, 12)
    a, b, up = plain_locations(t, 3)
    pol = Scripted(
        {Decision.LOCATION_SOURCE: [LOCATION_DRAW + 3], Decision.LOCATION_KEEP: [twelve]}
    )
    g = new_game(2, policies=[pol, Scripted()])
    stack_location_deck(g, [a, twelve, b])
    g.location_deck.remove(up)
    g.locations_available.append(up)
    deck = set(g.location_deck) - {a, twelve, b}
    p = place(g, 0, gold(t, Y, 0), gold(t, Y, 1))
    assert p.locations == [twelve]
    assert g.locations_available == []
    assert set(g.location_deck) == deck | {a, b, up}
    assert pol.unused() == {}


def test_location_13_two_different_keys_suffice_under_the_bga_key_rule_too():
    """components.md 3.5 #13: "for the rest of the game you need only 2 keys of any type"; 3.2:
    "Location #13 lowers the requirement to **any 2 keys**" - also under the Board Game Arena
    key rule (rules.key_rule = "bga": two identical keys only), where a silver and a gold key
    alone never take a Location."""
    t = bga_tables()
    g = new_game(2, policies=[Scripted(draw_one()), Scripted(draw_one())], t=t)
    p = take_location(g, 0, 13)
    q = place(g, 1, silver(t, P, 0), gold(t, P, 0), lord(t, P, 4))
    assert q.locations == [] and len(q.keys) == 2  # the opponent: no #13, no pair
    place(g, 0, silver(t, B, 0), gold(t, B, 0))
    assert len(p.locations) == 2 and p.keys == []
