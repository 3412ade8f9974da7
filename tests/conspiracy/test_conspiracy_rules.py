"""Rule tests of the *Abyss: Conspiracy* reference engine (games/conspiracy/engine/rules/game.py).

One test (or one parametrised test) per rule sentence; the sentence is quoted in the docstring.
Sources: the seed rule text /work/shared/seeds/004_f62d138e7f50b9bc.txt ("seed") and
/work/shared/reference/components.md section 3 ("3.1" Lords, "3.3" adjacency, "3.5" Locations).

Situations are scripted with tests/conspiracy_helpers.py: decks are stacked (the top card is the
END of the list), Lords are put into Chambers directly, and `Game.place` / `Game.take_turn` run
the engine's own logic from there.
"""

from __future__ import annotations

import pytest
from conspiracy_helpers import (
    RandomPolicy,
    Scripted,
    bga_tables,
    bonus_tables,
    chamber_of_colours,
    events,
    give_location,
    give_lords,
    gold,
    keyless_swap_tables,
    location,
    lord,
    lord_ids,
    new_game,
    parse_chamber,
    plain_fillers,
    set_available,
    set_pearls,
    set_pile,
    silver,
    stack_location_deck,
    stack_lord_deck,
    tables,
    take_lord,
)

from games.conspiracy.engine.cards.loader import (
    KeyKind,
    KeyRule,
    LocationPower,
    LocationScore,
    ZeroSwap,
)
from games.conspiracy.engine.rules.game import (
    LOCATION_DRAW,
    NO_SWAP,
    PILE,
    Decision,
    Game,
    Player,
    largest_group,
    location_score,
    lords_score,
    score_player,
)

Y, R, G, B, P = range(5)  # colour ids: yellow, red, green, blue, purple

# components.md 3.3, spots 1-15 (printed numbering)
NEIGHBOURS = {
    1: [2, 6],
    2: [1, 3, 6, 7],
    3: [2, 4, 7, 8],
    4: [3, 5, 8, 9],
    5: [4, 9],
    6: [1, 2, 7, 10],
    7: [2, 3, 6, 8, 10, 11],
    8: [3, 4, 7, 9, 11, 12],
    9: [4, 5, 8, 12],
    10: [6, 7, 11, 13],
    11: [7, 8, 10, 12, 13, 14],
    12: [8, 9, 11, 14],
    13: [10, 11, 14, 15],
    14: [11, 12, 13, 15],
    15: [13, 14],
}


def place(g: Game, seat: int, *cards: int) -> Player:
    """Place Lords one by one through the engine (`Game.place`: effects, keys, Locations)."""
    p = g.players[seat]
    for card in cards:
        take_lord(g, card)
        g.place(p, card)
    return p


def colour_of(g: Game, card: int) -> int:
    return int(g.t.lord_colour[card])


def draw_one(answers: dict | None = None) -> dict:
    """Scripts for drawing Locations one at a time from the deck (else the first option)."""

    def source(g: Game, seat: int, options: list[int]) -> int:
        return LOCATION_DRAW + 1 if LOCATION_DRAW + 1 in options else options[0]

    return {Decision.LOCATION_SOURCE: source, **(answers or {})}


def plain_locations(t, n: int) -> list[int]:
    """`n` Locations without power or Pearls (#1, #5-#8, #100, #101)."""
    out = [
        i
        for i in range(t.n_locations)
        if t.location_power[i] == LocationPower.NONE and t.location_pearls[i] == 0
    ]
    return out[:n]


# ================================================================================ STEP 1: recruit
@pytest.mark.parametrize("n", [1, 2, 3])
def test_draw_one_two_or_three_and_keep_one(n):
    """Seed, DECK: "1. Draw 1, 2 or 3 cards at the same time from the top of the Lord deck" /
    "2. Choose ONE CARD ONLY to add to your Senate Chamber." / "3. The remaining cards are
    discarded faceup and divided according to their color in the different discard piles."."""
    t = tables()
    drawn = [lord(t, Y, 0), lord(t, R, 0), lord(t, G, 0)][:n]
    keep = drawn[-1]
    pol = Scripted({Decision.SOURCE: [n], **({Decision.KEEP: [keep]} if n > 1 else {})})
    g = new_game(2, policies=[pol, Scripted()])
    stack_lord_deck(g, drawn)
    deck_before = len(g.lord_deck)

    g.take_turn(0)

    assert pol.questions(Decision.SOURCE) == [[1, 2, 3]]  # no pile yet
    if n > 1:
        assert pol.questions(Decision.KEEP) == [sorted(drawn)]
    assert g.players[0].chamber == [keep]
    assert len(g.lord_deck) == deck_before - n
    for card in drawn[:-1]:
        assert g.piles[colour_of(g, card)] == [card]
    assert sum(len(pile) for pile in g.piles) == n - 1
    assert events(g, "draw")[0]["drawn"] == drawn
    assert pol.unused() == {}


def test_discarded_lords_go_on_top_of_their_colour_pile_in_draw_order():
    """Seed, DECK 3: "There can therefore be up to 5 discard piles, one of each color. The Lords
    of the same discard pile are placed on top of each other" (the Lords already there stay
    below; the engine discards in the order drawn: the former top card of the deck first)."""
    t = tables()
    below = [lord(t, Y, 1, 0)]
    first, second, third = lord(t, Y, 4, 0), lord(t, Y, 3, 0), lord(t, Y, 4, 1)
    pol = Scripted({Decision.SOURCE: [3], Decision.KEEP: [second]})
    g = new_game(2, policies=[pol, Scripted()])
    set_pile(g, Y, below)
    stack_lord_deck(g, [first, second, third])

    g.take_turn(0)

    assert g.players[0].chamber == [second]
    assert g.piles[Y] == [*below, first, third]


def test_discarded_lords_of_several_colours_split_over_the_piles():
    """Seed, DECK 3: "divided according to their color in the different discard piles"."""
    t = tables()
    a, b, c = lord(t, B, 4), lord(t, P, 3), lord(t, B, 3)
    pol = Scripted({Decision.SOURCE: [3], Decision.KEEP: [b]})
    g = new_game(2, policies=[pol, Scripted()])
    stack_lord_deck(g, [a, b, c])
    g.take_turn(0)
    assert g.piles[B] == [a, c]
    assert g.piles[P] == []


def test_take_a_whole_discard_pile():
    """Seed, DISCARD: "Choose a discard pile of one color; take ALL the Lords to add to your
    Senate Chamber"."""
    t = tables()
    pile = [lord(t, R, 4, 0), lord(t, R, 3, 0), lord(t, R, 4, 1)]
    pol = Scripted({Decision.SOURCE: [PILE + R]})
    g = new_game(2, policies=[pol, Scripted()])
    set_pile(g, R, pile)
    set_pile(g, G, [lord(t, G, 3)])
    deck = list(g.lord_deck)

    g.take_turn(0)

    assert pol.questions(Decision.SOURCE) == [[1, 2, 3, PILE + R, PILE + G]]
    assert sorted(g.players[0].chamber) == sorted(pile)
    assert g.piles[R] == []
    assert g.piles[G] == [lord(t, G, 3)]  # other piles untouched
    assert g.lord_deck == deck  # nothing drawn


def test_only_non_empty_piles_can_be_chosen():
    """Seed, DISCARD: "Choose a discard pile of one color" (a pile must hold Lords)."""
    g = new_game(2)
    t = g.t
    set_pile(g, P, [lord(t, P, 4)])
    assert g.source_options(g.players[0]) == [1, 2, 3, PILE + P]


def test_choose_the_order_of_placement():
    """Seed, STEP 2: "if you recruit more than one Lord, choose the order in which they are
    placed"."""
    t = tables()
    a, b, c = lord(t, G, 3, 0), lord(t, G, 4, 0), lord(t, G, 6)
    pol = Scripted({Decision.SOURCE: [PILE + G], Decision.PLACE: [c, a]})
    g = new_game(2, policies=[pol, Scripted()])
    set_pile(g, G, [a, b, c])

    g.take_turn(0)

    assert g.players[0].chamber == [c, a, b]
    assert pol.questions(Decision.PLACE) == [sorted([a, b, c]), sorted([a, b])]
    assert [e["spot"] for e in events(g, "place")] == [0, 1, 2]


def test_each_placed_lord_takes_the_next_spot_left_to_right_top_to_bottom():
    """Seed, STEP 2: "The player must always add the Lord(s) by placing them: from left to right
    and from top to bottom so creating an inverted pyramid" (spots 1-5, 6-9, 10-12, 13-14, 15;
    spot k is index k - 1 of `Player.chamber`)."""
    g = new_game(2, seed=3)
    placed = []
    for _ in range(15):
        g.take_turn(0)
        placed.append(events(g, "place")[-1])
    assert [e["spot"] for e in placed] == list(range(15))
    assert g.players[0].chamber == [e["lord"] for e in placed]  # no swap (declined)
    assert g.t.chamber_rows.tolist() == [5, 4, 3, 2, 1]
    for spot, neighbours in NEIGHBOURS.items():
        assert [int(x) + 1 for x in g.t.adjacency[spot - 1] if x >= 0] == neighbours
    assert g.end_trigger == 0


def test_pile_larger_than_the_free_spaces_returns_the_rest_face_up():
    """Seed, END OF THE GAME, note: "if a player chooses to recruit Lords using a discard pile
    that contains more cards than free spaces in their Senate Chamber, they choose enough cards
    to complete their Chamber and replace the remaining cards faceup in the discard pile"."""
    t = tables()
    pile = [lord(t, B, 3, 0), lord(t, B, 3, 1), lord(t, B, 4, 0), lord(t, B, 4, 1)]
    first, second = pile[3], pile[0]
    pol = Scripted({Decision.SOURCE: [PILE + B], Decision.PLACE: [first, second]})
    g = new_game(2, policies=[pol, Scripted()])
    set_pile(g, B, pile)
    give_lords(g, 0, plain_fillers(g, 13, avoid=pile))

    g.take_turn(0)

    p = g.players[0]
    assert len(p.chamber) == 15
    assert p.chamber[13:] == [first, second]
    assert pol.questions(Decision.PLACE) == [sorted(pile), sorted(pile[:3])]
    assert g.piles[B] == [pile[1], pile[2]]  # back face up, in their pile order
    assert events(g, "returned_to_pile")[0]["lords"] == [pile[1], pile[2]]
    assert g.end_trigger == 0


# ================================================================================ keys
@pytest.mark.parametrize("kind", ["silver", "gold"])
def test_two_identical_keys_take_a_location_immediately(kind):
    """Seed, KEYS: "To take control of a Location, two identical keys are required." / "If they
    are identical, you immediately take control of a Location"."""
    t = tables()
    pick = silver if kind == "silver" else gold
    g = new_game(2, policies=[Scripted(draw_one()), Scripted()])
    p = place(g, 0, pick(t, Y, 0))
    assert p.locations == [] and len(p.keys) == 1
    place(g, 0, pick(t, R, 0))
    assert len(p.locations) == 1
    assert p.location_spots == [1]  # on the Lord just added
    assert p.keys == []


@pytest.mark.parametrize("third", ["silver", "gold"])
def test_two_different_keys_wait_for_a_third_key(third):
    """Seed, KEYS: "If they are different, you will take control of a Location only after gaining
    a third key, whatever its color."."""
    t = tables()
    g = new_game(2, policies=[Scripted(draw_one()), Scripted()])
    p = place(g, 0, silver(t, Y), gold(t, Y))
    assert p.locations == []
    assert p.keys == [KeyKind.SILVER, KeyKind.GOLD]
    place(g, 0, lord(t, Y, 4))  # a keyless Lord changes nothing
    assert p.locations == []
    place(g, 0, (silver if third == "silver" else gold)(t, R))
    assert len(p.locations) == 1
    assert p.location_spots == [3]
    assert p.keys == []


def test_the_location_masks_the_last_key_and_resets_the_count():
    """Seed, KEYS STEP 2: "Place your Location on the Lord you have just added to your Senate
    Chamber, so as to mask the last key revealed. By doing this, your key count is reset to zero:
    none of the keys placed before a Location can be used. You can take control of another
    Location if you succeed in obtaining other keys."."""
    t = tables()
    g = new_game(2, policies=[Scripted(draw_one()), Scripted()])
    p = place(g, 0, gold(t, Y, 0), silver(t, Y, 0), silver(t, Y, 1))
    assert p.location_spots == [2]  # third key: on the Lord just added
    assert p.keys == []
    # a gold key now: with the gold key of spot 0 it would be a pair, but that one is spent
    place(g, 0, gold(t, R, 0))
    assert p.keys == [KeyKind.GOLD] and len(p.locations) == 1
    # "You can take control of another Location if you succeed in obtaining other keys."
    place(g, 0, gold(t, R, 1))
    assert p.location_spots == [2, 4]
    assert p.keys == []


def test_keys_of_one_pile_count_one_by_one():
    """Seed, KEYS: "When you add a Lord that gives you a second key, check the two keys in your
    possession" (Lords of a pile are added one at a time: a pair takes a Location before the
    next Lord of the pile is placed)."""
    t = tables()
    pile = [silver(t, P, 0), silver(t, P, 1), silver(t, P, 2)]
    pol = Scripted({Decision.SOURCE: [PILE + P], **draw_one()})
    g = new_game(2, policies=[pol, Scripted()])
    set_pile(g, P, pile)
    g.take_turn(0)
    p = g.players[0]
    assert p.location_spots == [1]
    assert p.keys == [KeyKind.SILVER]


@pytest.mark.parametrize("key_rule", ["seed", "bga"])
def test_key_rules_agree_with_two_key_kinds(key_rule):
    """components.md 3.2 step 3 / game.toml `rules.key_rule`: the seed text ("when you have
    either two identical keys, or three keys") and the BGA reading (two identical keys only)
    coincide: with two key kinds three keys always hold a pair."""
    t = bga_tables() if key_rule == "bga" else tables()
    assert t.key_rule == (KeyRule.BGA if key_rule == "bga" else KeyRule.SEED)
    g = new_game(2, policies=[Scripted(draw_one()), Scripted()], t=t)
    p = place(g, 0, silver(t, Y), gold(t, Y))
    assert p.locations == []
    place(g, 0, gold(t, R))
    assert p.location_spots == [2]
    p = place(g, 1, gold(t, B, 0), gold(t, B, 1))
    assert p.location_spots == [1]


def test_bga_key_rule_gives_identical_games():
    """The two readings of the key rule coincide: a few hundred random games with
    `rules.key_rule = "bga"` have exactly the traces and events of the default (seed) rule."""
    seed_t, bga_t = tables(), bga_tables()
    for i in range(300):
        n = 2 + i % 3
        a = Game(seed_t, [RandomPolicy()] * n, seed=11, game=i).play()
        b = Game(bga_t, [RandomPolicy()] * n, seed=11, game=i).play()
        assert a.trace == b.trace, i
        assert a.events == b.events, i


# ================================================================================ Location choice
@pytest.mark.parametrize("k", [1, 2, 3])
def test_location_draw_one_to_three_keep_one_rest_face_up(k):
    """Seed, KEYS STEP 1: "Choose a Location. Draw 1, 2 or 3 Location cards at the same time.
    Choose one of them, then discard the rest faceup."."""
    t = tables()
    drawn = plain_locations(t, 3)[:k]
    keep = drawn[0]
    answers = {Decision.LOCATION_SOURCE: [LOCATION_DRAW + k]}
    if k > 1:
        answers[Decision.LOCATION_KEEP] = [keep]
    pol = Scripted(answers)
    g = new_game(2, policies=[pol, Scripted()])
    stack_location_deck(g, drawn)
    deck = len(g.location_deck)
    p = place(g, 0, silver(t, Y, 0), silver(t, Y, 1))
    assert pol.questions(Decision.LOCATION_SOURCE) == [[LOCATION_DRAW + i for i in (1, 2, 3)]]
    assert p.locations == [keep]
    assert sorted(g.locations_available) == sorted(drawn[1:])
    assert len(g.location_deck) == deck - k
    assert pol.unused() == {}


def test_location_take_a_face_up_one():
    """Seed, KEYS STEP 1: "-OR- take 1 of the available faceup Locations."."""
    t = tables()
    up = plain_locations(t, 2)
    pol = Scripted({Decision.LOCATION_SOURCE: [up[1]]})
    g = new_game(2, policies=[pol, Scripted()])
    set_available(g, up)
    deck = list(g.location_deck)
    p = place(g, 0, gold(t, Y, 0), gold(t, Y, 1))
    assert pol.questions(Decision.LOCATION_SOURCE) == [
        sorted(up) + [LOCATION_DRAW + i for i in (1, 2, 3)]
    ]
    assert p.locations == [up[1]]
    assert g.locations_available == [up[0]]
    assert g.location_deck == deck


def test_location_draw_limited_by_the_deck():
    """Seed, KEYS STEP 1: "Draw 1, 2 or 3 Location cards" (no more than the deck holds)."""
    t = tables()
    pol = Scripted(draw_one())
    g = new_game(2, policies=[pol, Scripted()])
    last = plain_locations(t, 2)
    stack_location_deck(g, last)
    g.locations_available.extend(g.location_deck[:-2])
    del g.location_deck[:-2]
    place(g, 0, gold(t, Y, 0), gold(t, Y, 1))
    assert pol.questions(Decision.LOCATION_SOURCE)[0][-2:] == [LOCATION_DRAW + 1, LOCATION_DRAW + 2]
    assert LOCATION_DRAW + 3 not in pol.questions(Decision.LOCATION_SOURCE)[0]


# ================================================================================ Location powers
def take_location(g: Game, seat: int, number: int, colour=None, copy: int = 0) -> Player:
    """Let `seat` take Location #number through the engine: stack it on top of the Location deck
    and place two identical keys (the policy of the seat must draw 1: see `draw_one`)."""
    t = g.t
    stack_location_deck(g, [location(t, number, colour)])
    held = {x for pl in g.players for x in pl.chamber}
    for kind in (KeyKind.GOLD, KeyKind.SILVER):
        free = [x for x in lord_ids(t, key=kind) if x not in held]
        if len(free) >= 2:
            break
    p = place(g, seat, free[0], free[1])
    assert p.locations[-1] == location(t, number, colour)
    return p


@pytest.mark.parametrize(("number", "pearls"), [(2, 1), (3, 2), (4, 3)])
def test_locations_with_immediate_pearls(number, pearls):
    """components.md 3.5: #2 "5; +1 Pearl now", #3 "4; +2 Pearls now", #4 "3; +3 Pearls now"
    (Pearls gained count for the Pearl Master: seed, "The first player that gains one or several
    Pearls takes the Pearl Master token")."""
    g = new_game(2, policies=[Scripted(draw_one()), Scripted()])
    p = take_location(g, 0, number)
    assert p.pearls == pearls
    assert g.pearl_master == 0


def turn_sources(g: Game, seat: int, pol: Scripted) -> list[int]:
    """Play one turn of `seat` and return the SOURCE options it had."""
    before = len(pol.asked)
    g.take_turn(seat)
    asked = [o for _, d, o, _ in pol.asked[before:] if d == Decision.SOURCE]
    if asked:
        return asked[0]
    # a single legal option is taken without asking: read it from the log
    e = [x for x in g.events if x["event"] in ("draw", "take_pile") and x["who"] == seat][-1]
    return [len(e["drawn"])] if e["event"] == "draw" else [PILE + e["colour"]]


def test_location_9_opponents_take_only_the_top_lord_until_the_owners_next_turn():
    """components.md 3.5 #9: "until your next turn, each opponent may only take the **top 1**
    Lord of the deck"."""
    t = tables()
    pols = [Scripted(draw_one()) for _ in range(3)]
    g = new_game(3, policies=pols)
    take_location(g, 0, 9)
    set_pile(g, R, [lord(t, R, 4, 0)])
    for seat in (1, 2):
        top = lord(t, G, 4, seat - 1)
        stack_lord_deck(g, [top])
        assert turn_sources(g, seat, pols[seat]) == [1]
        assert g.players[seat].chamber[-1] == top
    assert g.piles[R] == [lord(t, R, 4, 0)]
    # the owner is never restricted; at the owner's next turn the restriction ends
    assert turn_sources(g, 0, pols[0]) == [1, 2, 3, PILE + R]
    assert turn_sources(g, 1, pols[1])[:3] == [1, 2, 3]
    assert g.restriction == 0


def test_location_10_opponents_take_the_top_two_keep_one_discard_one():
    """components.md 3.5 #10: "until your next turn, each opponent must take the top 2 from the
    deck, keep 1 and discard 1"."""
    t = tables()
    a, b = lord(t, Y, 4, 0), lord(t, B, 4, 0)
    pols = [Scripted(draw_one()), Scripted({Decision.KEEP: [b]})]
    g = new_game(2, policies=pols)
    take_location(g, 0, 10)
    set_pile(g, R, [lord(t, R, 4, 0)])
    stack_lord_deck(g, [a, b])
    assert turn_sources(g, 1, pols[1]) == [2]
    assert pols[1].questions(Decision.KEEP) == [sorted([a, b])]
    assert g.players[1].chamber == [b]
    assert g.piles[Y] == [a]
    assert g.piles[R] == [lord(t, R, 4, 0)]
    assert turn_sources(g, 0, pols[0])[:4] == [1, 2, 3, PILE + Y]  # owner unrestricted
    assert g.restriction == 0


def test_location_11_reshuffles_the_discarded_lords_into_the_deck():
    """components.md 3.5 #11: "immediately shuffle all discarded Lords back into the deck"."""
    t = tables()
    g = new_game(2, policies=[Scripted(draw_one()), Scripted()])
    discarded = set_pile(g, R, [lord(t, R, 4, 0), lord(t, R, 3)]) + set_pile(g, P, [lord(t, P, 6)])
    deck = set(g.lord_deck)
    take_location(g, 0, 11)
    assert all(pile == [] for pile in g.piles)
    used = set(g.players[0].chamber)
    assert set(g.lord_deck) == (deck - used) | set(discarded)


def test_location_12_reshuffles_the_available_locations_into_the_deck():
    """components.md 3.5 #12: "immediately shuffle all available Locations back into the
    deck"."""
    t = tables()
    g = new_game(2, policies=[Scripted(draw_one()), Scripted()])
    up = set_available(g, plain_locations(t, 3))
    deck = set(g.location_deck) - {location(t, 12)}
    take_location(g, 0, 12)
    assert g.locations_available == []
    assert set(g.location_deck) == deck | set(up)


def test_location_13_any_two_keys_for_the_rest_of_the_game():
    """components.md 3.5 #13: "for the rest of the game you need only 2 keys of any type" (for
    its owner only)."""
    t = tables()
    g = new_game(2, policies=[Scripted(draw_one()), Scripted(draw_one())])
    p = take_location(g, 0, 13)
    assert p.any_two_keys
    place(g, 0, silver(t, B, 0), lord(t, B, 4))
    assert len(p.locations) == 1
    place(g, 0, gold(t, B, 0))
    assert len(p.locations) == 2 and p.location_spots[-1] == len(p.chamber) - 1
    q = place(g, 1, silver(t, P, 0), gold(t, P, 0))  # the opponent: still 2 identical or 3
    assert q.locations == []


def test_location_14_choose_new_locations_from_the_whole_deck():
    """components.md 3.5 #14: "for the rest of the game you choose new Locations from the whole
    deck (then reshuffle), not from the available ones"."""
    t = tables()
    want = location(t, 101, "green")
    pol = Scripted({**draw_one(), Decision.LOCATION_KEEP: [want]})
    g = new_game(2, policies=[pol, Scripted()])
    p = take_location(g, 0, 14)
    assert p.whole_deck
    up = set_available(g, plain_locations(t, 2))
    deck = sorted(g.location_deck)
    asked = len(pol.asked)
    place(g, 0, gold(t, G, 0), gold(t, G, 1))
    new = pol.asked[asked:]
    assert [(d, o) for _, d, o, _ in new] == [(Decision.LOCATION_KEEP, deck)]
    assert p.locations[-1] == want
    assert sorted(g.location_deck) == [x for x in deck if x != want]
    assert g.locations_available == up  # never offered


def test_location_14_never_takes_a_face_up_location_even_with_an_empty_deck():
    """components.md 3.5 #14: "for the rest of the game you choose new Locations from the whole
    deck (then reshuffle), not from the available ones" (an empty deck leaves nothing to
    choose)."""
    t = tables()
    g = new_game(2, policies=[Scripted(draw_one()), Scripted()])
    p = take_location(g, 0, 14)
    g.locations_available.extend(g.location_deck)
    g.location_deck.clear()
    up = list(g.locations_available)
    place(g, 0, gold(t, G, 0), gold(t, G, 1))
    assert len(p.locations) == 1
    assert g.locations_available == up


# ================================================================================ Location scoring
def player(chamber=(), locations=(), pearls=0, spots=None) -> Player:
    locations = list(locations)
    return Player(
        seat=0,
        chamber=list(chamber),
        locations=locations,
        location_spots=list(spots) if spots is not None else [0] * len(locations),
        pearls=pearls,
    )


@pytest.mark.parametrize(
    ("number", "ip"),
    [(1, 7), (2, 5), (3, 4), (4, 3), (9, 3), (10, 3), (11, 3), (12, 3), (13, 3), (14, 3)],
)
def test_fixed_location_scores(number, ip):
    """components.md 3.5: #1 7; #2 5; #3 4; #4 3; #9-#14 3 (whatever the Chamber holds)."""
    t = tables()
    loc = location(t, number)
    assert t.location_score[loc] == LocationScore.FIXED
    assert location_score(t, player(locations=[loc]), loc) == ip
    full = player(chamber=range(0, 60, 4), locations=[loc], pearls=9)
    assert location_score(t, full, loc) == ip


def test_location_5_one_per_silver_key_used_or_not():
    """components.md 3.5 #5: "1 per silver key in your Chamber (used or not)"."""
    t = tables()
    loc, other = location(t, 5), location(t, 1)
    chamber = [silver(t, Y, 0), silver(t, Y, 1), silver(t, R, 0), gold(t, R, 0), lord(t, R, 6)]
    p = player(chamber, locations=[other, loc], spots=[1, 2])  # two silver keys spent
    assert location_score(t, p, loc) == 3
    assert location_score(t, player([gold(t, Y)], [loc]), loc) == 0


def test_location_6_two_per_gold_key_used_or_not():
    """components.md 3.5 #6: "2 per gold key in your Chamber (used or not)"."""
    t = tables()
    loc = location(t, 6)
    chamber = [gold(t, Y, 0), gold(t, Y, 1), silver(t, R, 0), gold(t, B, 0)]
    assert location_score(t, player(chamber, [loc], spots=[1]), loc) == 6


@pytest.mark.parametrize(("pearls", "ip"), [(0, 0), (1, 0), (2, 1), (5, 2), (8, 4)])
def test_location_7_one_per_pair_of_pearls(pearls, ip):
    """components.md 3.5 #7: "1 per pair of Pearls you hold (⌊pearls/2⌋)"."""
    t = tables()
    loc = location(t, 7)
    assert location_score(t, player(locations=[loc], pearls=pearls), loc) == ip


@pytest.mark.parametrize("n", [1, 2, 4])
def test_location_8_two_per_location_this_one_included(n):
    """components.md 3.5 #8: "2 per Location you control (this one included)"."""
    t = tables()
    loc = location(t, 8)
    others = plain_locations(t, 10)
    others.remove(loc)
    p = player(locations=[loc, *others[: n - 1]])
    assert location_score(t, p, loc) == 2 * n


@pytest.mark.parametrize("colour", ["yellow", "red", "green", "blue", "purple"])
def test_location_100_ip_of_your_most_influential_lord_of_its_colour(colour):
    """components.md 3.5 #100 (one per colour): "IP of your most influential Lord of that
    colour" (0 without one)."""
    t = tables()
    loc = location(t, 100, colour)
    mine = [lord(t, colour, 1), lord(t, colour, 4), lord(t, colour, 2)]
    others = [lord(t, c, 6) for c in range(5) if t.colour_names[c] != colour]
    assert location_score(t, player(mine + others, [loc]), loc) == 4
    assert location_score(t, player(others, [loc]), loc) == 0
    assert location_score(t, player([lord(t, colour, 0)], [loc]), loc) == 0


@pytest.mark.parametrize("colour", ["yellow", "red", "green", "blue", "purple"])
def test_location_101_one_plus_one_per_lord_of_its_colour(colour):
    """components.md 3.5 #101 (one per colour): "1 + 1 per Lord of that colour in your
    Chamber"."""
    t = tables()
    loc = location(t, 101, colour)
    mine = lord_ids(t, colour=colour)[:5]
    others = [lord(t, c, 6) for c in range(5) if t.colour_names[c] != colour]
    assert location_score(t, player(mine + others, [loc]), loc) == 6
    assert location_score(t, player(others, [loc]), loc) == 1


def chamber_of_ips(t, ips: list[int]) -> list[int]:
    """Distinct Lords with these IPs spot by spot (colours rotate, so colours do not matter)."""
    used: set[int] = set()
    out = []
    for k, ip in enumerate(ips):
        ids = lord_ids(t, ip=ip)
        ids = ids[k % len(ids) :] + ids[: k % len(ids)]
        card = next(x for x in ids if x not in used)
        used.add(card)
        out.append(card)
    return out


def test_bonus_locations_only_with_the_option():
    """components.md 3.5: "\\* = "Bonus locations" game option (`gameoptions.inc.php`); not among
    the 24."."""
    assert tables().n_locations == 24
    assert not any(21 <= n <= 25 for n in tables().location_number.tolist())
    t = bonus_tables()
    assert t.n_locations == 29
    g = new_game(2, t=t)
    numbers = sorted(int(t.location_number[c]) for c in g.location_deck)
    assert numbers[:5] == [1, 2, 3, 4, 5] and numbers[14:19] == [21, 22, 23, 24, 25]
    assert len(new_game(2).location_deck) == 24


# Spots (printed):   1  2  3  4  5 / 6  7  8  9 / 10 11 12 / 13 14 / 15
GROUP_CHAMBER = [1, 1, 4, 2, 2, 1, 3, 4, 2, 3, 3, 4, 0, 6, 4]


@pytest.mark.parametrize(
    ("number", "ip"),
    [
        # 1-IP at 1, 2, 6 (a triangle): 3 Lords -> 1 x 3
        (21, 3),
        # 2-IP at 4, 5, 9 (a triangle): 3 -> 2 x 3
        (22, 6),
        # 3-IP at 7, 10, 11 (7-10, 7-11, 10-11): 3 -> 2 x 3
        (23, 6),
        # 4-IP at 3, 8, 12 (3-8, 8-12) and 15 apart: 3 -> 2 x 3
        (24, 6),
        # neither key nor Pearl: the 0 at 13 and the 6 at 14 -> 1 + 2
        (25, 3),
    ],
)
def test_bonus_location_scores(number, ip):
    """components.md 3.5: #21 "1 per Lord in your largest connected group of **1-IP** Lords
    (any colour)"; #22 "2 per Lord in your largest connected group of 2-IP Lords"; #23 ... 3-IP;
    #24 ... 4-IP; #25 "1 + 1 per Lord giving neither pearl nor key (the 0-IP and 6-IP Lords)"."""
    t = bonus_tables()
    loc = location(t, number)
    chamber = chamber_of_ips(t, GROUP_CHAMBER)
    assert location_score(t, player(chamber, [loc]), loc) == ip


def test_bonus_group_needs_adjacency():
    """components.md 3.5 #22 with 2-IP Lords at spots 1, 3 and 5 (pairwise not adjacent): the
    largest group is 1 Lord."""
    t = bonus_tables()
    loc = location(t, 22)
    chamber = chamber_of_ips(t, [2, 4, 2, 4, 2])
    assert location_score(t, player(chamber, [loc]), loc) == 2


# ================================================================================ Lord powers
def swap_after_three_lords(t, answer: int) -> tuple[list[list[int]], list[int], list[int]]:
    """A Chamber of a 0, a silver-key 1 and a 4, then a 0 placed, the swap answered `answer`:
    (the swap questions, the Chamber, the Chamber expected from `answer`)."""
    pol = Scripted({Decision.SWAP: [answer]})
    g = new_game(2, policies=[pol, Scripted()], t=t)
    first = [lord(t, Y, 0), silver(t, Y), lord(t, R, 4)]
    give_lords(g, 0, first)
    zero = lord(t, R, 0)
    p = place(g, 0, zero)
    expected = [*first, zero]
    if answer != NO_SWAP:
        i, j = divmod(answer, 16)
        expected[i], expected[j] = expected[j], expected[i]
    return pol.questions(Decision.SWAP), p.chamber, expected


@pytest.mark.parametrize("answer", [NO_SWAP, 0 * 16 + 1, 1 * 16 + 3, 2 * 16 + 3])
def test_zero_ip_lord_swaps_any_two_lords_or_not(answer):
    """Seed, LORD CARDS: "One zero (with the power to swap two Lords within your chamber)": the
    text puts no limit on the two Lords, so Lords with keys may move (default
    rules.zero_swap = "any"); the 0 itself is one of the Lords; declining is allowed."""
    t = tables()
    assert t.zero_swap == ZeroSwap.ANY
    questions, chamber, expected = swap_after_three_lords(t, answer)
    every_pair = [i * 16 + j for i in range(4) for j in range(i + 1, 4)]
    assert questions == [[NO_SWAP, *every_pair]]
    assert chamber == expected


def test_zero_ip_lord_swap_keeps_the_keys_already_counted():
    """Seed, KEYS: "When you add a Lord that gives you a second key, check the two keys in your
    possession": keys count when a Lord is added, so moving a key Lord with the 0 changes neither
    the keys held nor a Location taken."""
    t = tables()
    pol = Scripted({Decision.SWAP: [0 * 16 + 2]})
    g = new_game(2, policies=[pol, Scripted()])
    place(g, 0, silver(t, Y), lord(t, Y, 4))
    assert g.players[0].keys == [KeyKind.SILVER]
    p = place(g, 0, lord(t, R, 0))
    assert p.chamber[0] == lord(t, R, 0) and p.chamber[2] == silver(t, Y)
    assert p.keys == [KeyKind.SILVER] and p.locations == []


@pytest.mark.parametrize("answer", [NO_SWAP, 0 * 16 + 3, 2 * 16 + 3, 0 * 16 + 2])
def test_zero_ip_lord_keyless_option_swaps_two_keyless_lords_or_not(answer):
    """rules.zero_swap = "keyless" (Board Game Arena; components.md 3.1: "two Lords in the
    Chamber (this one included) may swap places, except Lords with keys"); declining is
    allowed."""
    questions, chamber, expected = swap_after_three_lords(keyless_swap_tables(), answer)
    assert questions == [[NO_SWAP, 0 * 16 + 2, 0 * 16 + 3, 2 * 16 + 3]]
    assert chamber == expected


def test_zero_ip_lord_keyless_option_without_keyless_partner_asks_nothing():
    """components.md 3.1 (Board Game Arena): "Needs ≥2 key-less Lords (`canSwap`)"."""
    t = keyless_swap_tables()
    pol = Scripted()
    g = new_game(2, policies=[pol, Scripted()], t=t)
    give_lords(g, 0, [silver(t, Y), gold(t, Y)])
    p = place(g, 0, lord(t, B, 0))
    assert pol.questions(Decision.SWAP) == []
    assert p.chamber[-1] == lord(t, B, 0)


def test_zero_ip_lord_first_in_the_chamber_asks_nothing():
    """A swap needs two Lords: the 0 alone in the Chamber has no partner."""
    t = tables()
    pol = Scripted()
    g = new_game(2, policies=[pol, Scripted()])
    p = place(g, 0, lord(t, B, 0))
    assert pol.questions(Decision.SWAP) == [] and p.chamber == [lord(t, B, 0)]


def test_six_ip_lord_reveals_the_top_lord_onto_its_colour_pile():
    """Seed, LORD CARDS: "One 6 (which forces the top card of the deck to be discarded)";
    components.md 3.1: "reveal the top Lord of the deck onto its colour's discard pile"."""
    t = tables()
    g = new_game(2)
    top = lord(t, G, 4)
    set_pile(g, G, [lord(t, G, 3)])
    stack_lord_deck(g, [top])
    six = take_lord(g, lord(t, R, 6))
    deck = len(g.lord_deck)
    g.place(g.players[0], six)
    assert g.piles[G] == [lord(t, G, 3), top]
    assert len(g.lord_deck) == deck - 1


def test_six_ip_lord_with_an_empty_deck_reveals_nothing():
    """Seed, LORD CARDS: the 6 "forces the top card of the deck to be discarded" (no card: no
    effect)."""
    t = tables()
    g = new_game(2)
    six = lord(t, R, 6)
    take_lord(g, six)
    while g.lord_deck:
        g.discard(g.lord_deck.pop())
    piles = [list(pile) for pile in g.piles]
    p = g.players[0]
    g.place(p, six)
    assert p.chamber == [six]
    assert g.piles == piles


# ================================================================================ Pearl Master
def test_three_and_four_ip_lords_give_pearls():
    """Seed, THE PEARL MASTER: "Lords with 4 and 3 Influence Points respectively give you 1 and
    2 Pearls."."""
    t = tables()
    g = new_game(2)
    p = place(g, 0, lord(t, Y, 4))
    assert p.pearls == 1
    place(g, 0, lord(t, Y, 3))
    assert p.pearls == 3


def test_first_player_to_gain_pearls_takes_the_pearl_master():
    """Seed: "The first player that gains one or several Pearls takes the Pearl Master token"."""
    t = tables()
    g = new_game(3)
    assert g.pearl_master == -1
    place(g, 2, lord(t, R, 4))
    assert g.pearl_master == 2
    place(g, 2, lord(t, R, 3))
    assert g.pearl_master == 2  # "If they gain more Pearls later, the marker is moved forward"
    assert g.players[2].pearls == 3


def test_equal_pearls_steal_the_pearl_master():
    """Seed: "If an opponent reaches the same number of Pearls as held by the Pearl Master, they
    steal the Pearl Master token from them."."""
    t = tables()
    g = new_game(2)
    set_pearls(g, 0, 2, master=True)
    place(g, 1, lord(t, B, 3))
    assert g.players[1].pearls == 2
    assert g.pearl_master == 1


def test_more_pearls_steal_the_pearl_master():
    """Seed: "If an opponent has more Pearls, they steal the Pearl Master token then move the
    marker forward to the number of Pearls in their possession."."""
    t = tables()
    g = new_game(2)
    set_pearls(g, 0, 1, master=True)
    set_pearls(g, 1, 1)
    place(g, 1, lord(t, B, 3))
    assert g.pearl_master == 1
    assert g.players[1].pearls == 3


def test_fewer_pearls_do_not_steal_the_pearl_master():
    """Seed: the token changes hands only when an opponent "reaches the same number of Pearls" or
    "has more Pearls"."""
    t = tables()
    g = new_game(2)
    set_pearls(g, 0, 3, master=True)
    place(g, 1, lord(t, B, 4), lord(t, B, 4, 1))
    assert g.players[1].pearls == 2
    assert g.pearl_master == 0


# ================================================================================ end of the game
@pytest.mark.parametrize(
    ("n", "trigger"), [(2, 0), (2, 1), (3, 0), (3, 1), (3, 2), (4, 0), (4, 2), (4, 3)]
)
def test_fifteenth_lord_ends_the_game_after_one_last_turn_each(n, trigger):
    """Seed, END OF THE GAME: "The game ends when a player completes their Senate Chamber by
    placing their 15th and final Lord. Each opponent then gets to play one last turn." (the
    triggering player does not play again)."""
    g = new_game(n, seed=5)
    give_lords(g, trigger, plain_fillers(g, 14))
    g.play()
    turns = [e["who"] for e in events(g, "turn")]
    assert turns == list(range(trigger + 1)) + [(trigger + i) % n for i in range(1, n)]
    assert g.end_trigger == trigger
    assert len(g.players[trigger].chamber) == 15
    assert events(g, "end_triggered") == [
        {"event": "end_triggered", "turn": trigger + 1, "who": trigger}
    ]
    assert len(g.scores) == n and len(g.ranks) == n


def test_an_opponent_completing_their_chamber_in_the_last_turn_ends_nothing_more():
    """Seed: "Each opponent then gets to play one last turn." (even one who completes their own
    Chamber in it: the game then ends)."""
    g = new_game(2, seed=2)
    give_lords(g, 0, plain_fillers(g, 14))
    give_lords(g, 1, plain_fillers(g, 14))
    g.play()
    assert [e["who"] for e in events(g, "turn")] == [0, 1]
    assert g.end_trigger == 0
    assert [len(p.chamber) for p in g.players] == [15, 15]


def test_the_end_is_triggered_by_a_pile_overflowing_the_chamber():
    """Seed: the 15th Lord may come from a pile "that contains more cards than free spaces";
    "Each opponent then gets to play one last turn"."""
    t = tables()
    pile = [lord(t, B, 3, 0), lord(t, B, 4, 0), lord(t, B, 4, 1)]
    g = new_game(3, seed=4, policies=[Scripted({Decision.SOURCE: [PILE + B]})] + [Scripted()] * 2)
    set_pile(g, B, pile)
    give_lords(g, 0, plain_fillers(g, 14, avoid=pile))
    g.play()
    assert g.end_trigger == 0
    assert [e["who"] for e in events(g, "turn")] == [0, 1, 2]


# ================================================================================ scoring
def test_lords_score_the_most_influential_lord_of_each_colour():
    """Seed, scoring 1: "Your Lords: the Influence Points from each of the most influential Lord
    of each race/color in your senate chamber"."""
    t = tables()
    chamber = [lord(t, Y, 1), lord(t, Y, 6), lord(t, Y, 4), lord(t, R, 2), lord(t, R, 3)]
    chamber += [lord(t, G, 0), lord(t, B, 4), lord(t, B, 4, 1)]
    assert lords_score(t, chamber) == 6 + 3 + 0 + 4
    assert lords_score(t, []) == 0


def pyramid(picture: str) -> list[str]:
    return parse_chamber(picture)


def by_colour(t):
    return lambda card: int(t.lord_colour[card])


DIAGONAL = """
    r y g b p
     r b y g
      r g p
       r y
        r
"""


def test_coalition_diagonal_chain_is_connected():
    """Seed, scoring 3: "the biggest group of adjacent Lords of the same color is identified and
    3 points are scored for each Lord within it"; components.md 3.3: spots 1-6-10-13-15 form a
    chain (1~6, 6~10, 10~13, 13~15)."""
    t = tables()
    chamber = chamber_of_colours(t, pyramid(DIAGONAL))
    assert largest_group(t, chamber, by_colour(t)) == 5
    assert score_player(t, player(chamber), False).coalition == 15


@pytest.mark.parametrize(
    ("picture", "size"),
    [
        ("r y r .", 1),  # 1 and 3 are not adjacent
        ("r r y .", 2),  # 1 and 2 are
        ("y g b p r r .", 1),  # 5 and 6 are not (ends of rows 1 and 2)
        ("r y g b p r .", 2),  # 1 and 6 are
        ("r r r r r r r r r r r r y y y", 12),  # red at 1-12: one group
        # the other diagonal 5-9-12-14-15 (g 2~6 and b 3~7 are pairs)
        ("y g b p r  g b y r  y g r  b r  r", 5),
        # the diagonal of DIAGONAL broken at 10: red {1, 6} and {13, 15}
        ("r y g b p  r b y g  p g p  r y  r", 2),
    ],
)
def test_coalition_adjacency_of_drawn_chambers(picture, size):
    """components.md 3.3: "Adjacency rule: left/right in the same row, plus the two cards touching
    it in the row above and the row below (hex-like)." (only occupied spots count)."""
    t = tables()
    chamber = chamber_of_colours(t, pyramid(picture))
    assert largest_group(t, chamber, by_colour(t)) == size


def test_coalition_every_pair_of_spots_follows_the_adjacency_table():
    """components.md 3.3, the neighbour table: two same-colour Lords form a group of 2 exactly
    when their spots are neighbours."""
    t = tables()
    chamber = list(range(15))
    for a in range(1, 16):
        for b in range(a + 1, 16):
            pair = {a - 1, b - 1}
            size = largest_group(t, chamber, lambda x, pair=pair: 1 if x in pair else None)
            assert size == (2 if b in NEIGHBOURS[a] else 1), (a, b)


def test_score_parts_of_a_drawn_chamber():
    """Seed, scoring: "1. Your Lords ... 2. Your Locations: the total of Influence Points from
    the Locations you control. 3. Your Lords Coalition ... 4. The Pearl Master: the player who has
    the Pearl Master token gains a bonus of 5 Influence Points."."""
    t = tables()
    chamber = chamber_of_colours(t, pyramid(DIAGONAL))  # lowest ids: 0s and silver keys
    locs = [location(t, 1), location(t, 8), location(t, 101, "red")]
    p = player(chamber, locs, pearls=4)
    s = score_player(t, p, True)
    # y: 0, 1, 1 -> 1; r: 0,1,1,1,1 -> 1; g: 0,1,1 -> 1; b: 0,1 -> 1; p: 0,1 -> 1
    assert s.lords == 5
    assert s.locations == 7 + 2 * 3 + (1 + 5)
    assert s.coalition == 15
    assert s.pearl_master == 5
    assert s.total == 5 + 19 + 15 + 5
    assert score_player(t, p, False).pearl_master == 0


def tie_game(n: int) -> Game:
    """A finished-looking game whose seats 0 and 1 have equal totals (mirror Chambers)."""
    t = tables()
    g = new_game(n)
    give_lords(g, 0, [lord(t, Y, 4), lord(t, Y, 2), lord(t, Y, 1)])
    give_lords(g, 1, [lord(t, R, 4), lord(t, R, 2), lord(t, R, 1)])
    return g


def test_tie_the_player_with_most_pearls_wins():
    """Seed: "In case of a tie, the tied player with the most Pearls wins."."""
    t = tables()
    g = tie_game(2)
    set_pearls(g, 0, 3, master=True)
    set_pearls(g, 1, 1)
    give_location(g, 1, location(t, 2))  # 5 IP: equals the Pearl Master's +5
    g.score()
    assert g.scores[0].total == g.scores[1].total == 4 + 9 + 5
    assert g.ranks == [1, 2]


def test_tie_with_equal_pearls_shares_the_victory():
    """Seed: "If there is still a tie, the victory is shared."."""
    t = tables()
    g = tie_game(3)
    set_pearls(g, 0, 2)
    set_pearls(g, 1, 2)
    set_pearls(g, 2, 4, master=True)
    give_lords(g, 2, [lord(t, B, 1)])
    g.score()
    assert g.scores[0].total == g.scores[1].total > g.scores[2].total
    assert g.ranks == [1, 1, 3]


def test_more_points_beat_more_pearls():
    """Seed: "The player with the highest Influence Points score wins the game!" (Pearls only
    break ties)."""
    t = tables()
    g = tie_game(2)
    give_lords(g, 1, [lord(t, R, 6)])
    set_pearls(g, 0, 6)
    g.score()
    assert g.scores[1].total > g.scores[0].total
    assert g.ranks == [2, 1]
