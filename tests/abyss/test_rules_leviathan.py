"""Rule tests for the Leviathan expansion: setup, Martial Law, Monsters revealed while exploring,
fighting Leviathans, the new end-of-game triggers, scoring, and the exact probabilities of the
dice (Border placement and attacks).

Every test quotes, in its docstring, the sentence of the rule text it checks: the specification is
the seed text `shared/seeds/000_e41d5a114fc236c8.txt` ("Leviathan"). Where the seed text is silent,
the quote comes from `shared/reference/components.md` section 2 and says so ("components 2.x").
The ten new Lords are tested in `tests/abyss/test_rules_leviathan_lords.py`.

The state is arranged with the helpers of `tests/abyss_helpers.py` (plus the Border helpers
below), dice are scripted by replacing `g.rng.die`, single `Game` methods are driven with
`Scripted` policies, and every test that mutates the state ends with `audit(g) == []`.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate, product

import pytest
from abyss_helpers import (
    Race,
    Scripted,
    give_allies,
    give_location,
    give_lord,
    lev_tables,
    new_game,
    set_pearls,
    stack_deck,
    tables,
    take_ally,
)
from scipy.stats import chisquare

from games.abyss.engine.audit import audit
from games.abyss.engine.cards.constants import (
    MONSTER,
    AbyssRng,
    AllyEffect,
    LeviathanToken,
    Penalty,
    Power,
    Stream,
)
from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.rules.base import Decision
from games.abyss.engine.rules.game import Game
from games.abyss.engine.rules.leviathan import LevDecision, MonsterChoice, life_points_removed
from games.abyss.engine.rules.scoring import seat_rows
from sim.core.rng import GameRng

CRAB, SQUID, SEAHORSE, JELLYFISH, SHELLFISH = (
    Race.CRAB,
    Race.SQUID,
    Race.SEAHORSE,
    Race.JELLYFISH,
    Race.SHELLFISH,
)
PLAIN, ADD_PEARLS, TWO_DICE = AllyEffect.NONE, AllyEffect.ADD_PEARLS, AllyEffect.TWO_DICE
M = (None, 0)  # a Monster card for stack_deck
CONTINUE, FIGHT = MonsterChoice.CONTINUE, MonsterChoice.FIGHT

# Components 2.3: the 2d6 sum -> Border zone (0-based here; the table numbers zones 1..9).
ZONE_OF_SUM = {2: 0, 3: 0, 4: 1, 5: 2, 6: 3, 7: 4, 8: 5, 9: 6, 10: 7, 11: 8, 12: 8}
# Two dice landing on each zone.
DICE_FOR_ZONE = {
    0: (1, 2),
    1: (1, 3),
    2: (2, 3),
    3: (3, 3),
    4: (3, 4),
    5: (4, 4),
    6: (4, 5),
    7: (5, 5),
    8: (5, 6),
}

# Components 2.4, typed in independently of the card data: number -> (allied race or None,
# [(Resistance, Monster tokens) per Life space, top first], (penalty, n)).
LEVIATHANS = {
    1: (JELLYFISH, [(3, 1), (7, 2), (5, 1)], (Penalty.ALLIES, 3)),
    2: (JELLYFISH, [(6, 2), (4, 1)], (Penalty.ALLIES, 3)),
    3: (JELLYFISH, [(9, 3)], (Penalty.WOUNDS, 3)),
    4: (JELLYFISH, [(6, 1)], (Penalty.WOUNDS, 2)),
    5: (SHELLFISH, [(4, 1), (6, 2), (5, 1)], (Penalty.PEARLS, 3)),
    6: (SHELLFISH, [(6, 2), (4, 1)], (Penalty.PEARLS, 3)),
    7: (SHELLFISH, [(8, 3)], (Penalty.WOUNDS, 3)),
    8: (SHELLFISH, [(6, 1)], (Penalty.WOUNDS, 2)),
    9: (SQUID, [(3, 1), (7, 2), (5, 1)], (Penalty.LORD, 1)),
    10: (SQUID, [(6, 2), (4, 1)], (Penalty.LORD, 1)),
    11: (SQUID, [(7, 2)], (Penalty.WOUNDS, 3)),
    12: (SQUID, [(5, 1)], (Penalty.WOUNDS, 2)),
    13: (SEAHORSE, [(3, 1), (7, 1), (5, 2)], (Penalty.WOUNDS, 3)),
    14: (SEAHORSE, [(6, 2), (4, 2)], (Penalty.WOUNDS, 2)),
    15: (SEAHORSE, [(7, 4)], (Penalty.WOUNDS, 3)),
    16: (SEAHORSE, [(5, 2)], (Penalty.WOUNDS, 2)),
    17: (None, [(4, 1), (7, 1), (6, 1)], (Penalty.WOUNDS, 4)),
    18: (None, [(7, 1), (5, 1)], (Penalty.WOUNDS, 3)),
    19: (None, [(9, 2)], (Penalty.WOUNDS, 3)),
    20: (None, [(7, 1)], (Penalty.WOUNDS, 2)),
}
WOUND_LEVIATHANS = [n for n, (_, _, (kind, _)) in LEVIATHANS.items() if kind == Penalty.WOUNDS]


# ----------------------------------------------------------------------------------- helpers
def game(n_players: int = 3, seed: int = 0, t=None, **answers_by_seat) -> Game:
    """A new Leviathan game; `s0=..., s1=...` give the answers dict of each seat's policy."""
    policies = [Scripted(answers_by_seat.get(f"s{s}")) for s in range(n_players)]
    return new_game(n_players, seed=seed, policies=policies, t=t or lev_tables())


@lru_cache(maxsize=1)
def no_trigger_tables():
    return load_cards(overrides={"rules.leviathan_end_trigger": False}, expansions=("leviathan",))


def asked(g: Game, seat: int, decision) -> list[tuple[list[int], int]]:
    """(options, answer) of every question `decision` put to `seat`'s policy."""
    return [(opts, ans) for d, opts, ans in g.policies[seat].asked if d == decision]


def events(g: Game, kind: str) -> list[dict]:
    return [e for e in g.events if e["event"] == kind]


def lev_id(g: Game, number: int) -> int:
    return g.t.leviathan_number.tolist().index(number)


def _take_leviathan(g: Game, lev: int) -> None:
    if lev in g.border:
        zone = g.border.index(lev)
        g.border[zone], g.life[zone] = -1, 0
        return
    for place in (g.leviathan_deck, g.leviathan_discard, *(p.killed for p in g.players)):
        if lev in place:
            place.remove(lev)
            return
    raise LookupError(lev)


def set_border(g: Game, zones: dict) -> dict[int, int]:
    """Make the Border hold exactly `zones` = {zone: number or (number, life index)}; Leviathans
    already there go back to the bottom of the deck. Returns {zone: leviathan id}."""
    for zone, lev in enumerate(g.border):
        if lev >= 0:
            g.border[zone], g.life[zone] = -1, 0
            g.leviathan_deck.insert(0, lev)
    ids = {}
    for zone, spec in zones.items():
        number, life = spec if isinstance(spec, tuple) else (spec, 0)
        lev = lev_id(g, number)
        _take_leviathan(g, lev)
        g.border[zone], g.life[zone] = lev, life
        ids[zone] = lev
    return ids


def stack_leviathans(g: Game, *numbers: int) -> list[int]:
    """Put Leviathans on top of the Leviathan deck, revealed in the order given."""
    ids = [lev_id(g, n) for n in numbers]
    for lev in ids:
        _take_leviathan(g, lev)
    for lev in reversed(ids):
        g.leviathan_deck.append(lev)
    return ids


def script_dice(g: Game, *values: int) -> list[int]:
    """Replace the die with scripted values; the returned queue is empty once all are rolled (an
    extra roll raises IndexError)."""
    queue = list(values)
    g.rng.die = lambda: queue.pop(0)
    return queue


def empty_hand(g: Game, seat: int) -> None:
    p = g.players[seat]
    while p.hand:
        g.exploration_discard.append(p.hand.pop())


def lev_token(g: Game, kind: LeviathanToken, amount: int, skip=()) -> int:
    t = g.t
    for tok in g.leviathan_tokens:
        if tok not in skip and (t.leviathan_token_kind[tok], t.leviathan_token_amount[tok]) == (
            kind,
            amount,
        ):
            return tok
    raise LookupError((kind, amount))


def top_lev_tokens(g: Game, *tokens: int) -> None:
    """Put Leviathan tokens on top of their deck, drawn in the order given."""
    for tok in tokens:
        g.leviathan_tokens.remove(tok)
    for tok in reversed(tokens):
        g.leviathan_tokens.append(tok)


def other_than(number: int, *more: int) -> int:
    """A single-space Wound Leviathan different from `number` (and `more`), used as a bystander
    on the Border so a kill does not empty it."""
    for n in (12, 16, 20, 8):
        if n != number and n not in more:
            return n
    raise AssertionError


def arrive_on(g: Game, resident, new_number: int, zone: int = 4):
    """Border = {zone: resident}; the next Leviathan is `new_number`, the dice land on `zone`;
    the Exploration deck starts with a Monster then a Squid 5. Returns the ids and the dice."""
    res = set_border(g, {zone: resident})[zone]
    (new,) = stack_leviathans(g, new_number)
    dice = script_dice(g, *DICE_FOR_ZONE[zone])
    monster, ally = stack_deck(g, M, (SQUID, 5))
    return res, new, monster, ally, dice


# ------------------------------------------------------------------------------------- setup
def test_border_zone_of_every_dice_sum():
    """Leviathan, Add a Leviathan: "roll the 2 dice. The sum of the results obtained indicates the
    Border zone where the Leviathan will position itself." Components 2.3: "9 zones. The sum of
    the 2d6 selects the zone." (table: sums 2-3 -> zone 1, 4 -> 2, ..., 10 -> 8, 11-12 -> 9)."""
    g = game()
    t = g.t
    assert t.n_border_zones == 9 and len(g.border) == len(g.life) == 9
    assert {s: int(t.border_zone_of_sum[s]) for s in range(2, 13)} == ZONE_OF_SUM
    for d1, d2 in product(range(1, 7), repeat=2):
        script_dice(g, d1, d2)
        assert g.roll_zone() == (d1, d2, ZONE_OF_SUM[d1 + d2])


@pytest.mark.parametrize("seed", range(8))
def test_setup_first_leviathan_on_the_zone_of_two_dice_with_life_on_top(seed):
    """Leviathan, Setup 2: "Carefully shuffle the Leviathan cards and form a deck. ... Roll two
    dice, reveal the first Leviathan, and place it face up in the Border zone corresponding to the
    dice total. Place a Life Point token on the top space of the Leviathan." """
    g = game(seed=seed)
    (arrival,) = events(g, "leviathan_arrives")
    rng = AbyssRng(seed, 0)  # the same streams as the game's: the dice are the game's first two
    dice = [rng.die(), rng.die()]
    deck = list(range(20))
    rng.shuffle(deck, Stream.LEVIATHAN_DECK)
    zone = ZONE_OF_SUM[sum(dice)]
    assert arrival["dice"] == dice and arrival["zone"] == zone and arrival["why"] == "setup"
    assert g.border == [deck[-1] if z == zone else -1 for z in range(9)]
    assert g.life[zone] == 0
    assert g.leviathan_deck == deck[:-1]
    assert g.leviathan_discard == [] and g.scourge == -1
    assert all(p.wounds == 0 and p.killed == [] and p.held_tokens == [] for p in g.players)
    assert audit(g) == []


def test_setup_first_leviathans_land_on_several_zones():
    """Leviathan, Setup 2: "place it face up in the Border zone corresponding to the dice total"
    -- across seeds the first zone varies (it is rolled, not fixed)."""
    zones = {game(seed=s).border_zones()[0] for s in range(40)}
    assert len(zones) >= 5


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_setup_one_value_1_crab_for_each_player(n_players):
    """Leviathan, Setup 3: "Deal one value 1 crab Ally from the base game to each player."
    Components 2.2: "the expansion adds a spare Crab 1: 5 players need 5 of them"."""
    g = game(n_players)
    t = g.t
    crabs = [p.hand for p in g.players]
    assert all(len(h) == 1 for h in crabs)
    crabs = [h[0] for h in crabs]
    assert len(set(crabs)) == n_players
    for a in crabs:
        assert (int(t.ally_race[a]), int(t.ally_value[a]), int(t.ally_effect[a])) == (CRAB, 1, 0)
    base = [a for a in crabs if t.ally_expansion[a] == 0]
    assert len(base) == min(n_players, 4)  # the spare Crab only for the fifth player
    assert len(g.exploration_deck) == 95 - n_players
    assert not set(crabs) & set(g.exploration_deck)
    assert audit(g) == []


def test_setup_new_exploration_cards_are_shuffled_into_the_deck():
    """Leviathan, Setup 3: "Then, carefully shuffle the new Exploration cards with those you
    already have." Components 2.2: "deck = 65 + 21 = 86 Allies + 9 Monsters = 95 cards, minus the
    starting Crabs dealt to players"."""
    g = game(4)
    t = g.t
    assert t.n_allies == 95
    new = [a for a in range(t.n_allies) if t.ally_expansion[a] == 1]
    assert len(new) == 24
    assert sum(1 for a in new if t.ally_race[a] == MONSTER) == 3
    assert Counter(int(t.ally_effect[a]) for a in new) == {
        ADD_PEARLS: 10,
        TWO_DICE: 10,
        PLAIN: 4,  # the 3 Monsters and the spare Crab 1
    }
    assert sum(1 for a in range(t.n_allies) if t.ally_race[a] == MONSTER) == 9
    # With 4 players all 24 new cards are in the deck, which holds 95 - 4 cards, shuffled.
    assert set(new) <= set(g.exploration_deck)
    assert len(g.exploration_deck) == 91
    assert g.exploration_deck != sorted(g.exploration_deck)
    assert audit(g) == []


def test_setup_tamer_removed_and_new_lords_shuffled_in():
    """Leviathan, Setup 4: "Take the Tamer from the base game's Lords and return her to the box.
    Carefully shuffle the new Lords with those you already have." Components 2.2: "44 Lords"."""
    g = game()
    t = g.t
    lords = g.court + g.lord_deck
    assert len(lords) == t.n_lords == 44 and sorted(lords) == list(range(44))
    assert "The Tamer" not in t.lord_name
    assert Power.TAMER not in [int(x) for x in t.lord_power]
    assert sum(int(x) for x in t.lord_expansion) == 10
    # The new Lords are shuffled in, not stacked on top or at the bottom.
    new_pos = [i for i, lord in enumerate(g.lord_deck) if t.lord_expansion[lord] == 1]
    assert new_pos != list(range(len(new_pos)))
    assert audit(g) == []


def test_setup_two_separate_monster_token_decks():
    """Leviathan, Setup 5: "Make a second deck with the new Monster tokens, which you will place
    face down next to those from the base game. Do not mix the two decks of Monster tokens." """
    g = game(s0={LevDecision.TOKEN_DECK: [0, 1]})
    t = g.t
    rng = GameRng(0, 0)
    base, lev = list(range(20)), list(range(20))
    rng.shuffle(base, Stream.MONSTER_TOKENS)
    rng.shuffle(lev, Stream.LEVIATHAN_TOKENS)
    assert g.monster_tokens == base and g.leviathan_tokens == lev
    assert set(int(x) for x in t.monster_token_ip) == {2, 3, 4}
    p = g.players[0]
    g.take_reward_token(p)  # from the base deck only
    assert len(g.monster_tokens) == 19 and len(g.leviathan_tokens) == 20
    assert p.tokens == [base[-1]] and p.held_tokens == []
    g.take_reward_token(p)  # from the Leviathan deck only
    assert len(g.monster_tokens) == 19 and len(g.leviathan_tokens) == 19
    assert p.held_tokens == [lev[-1]] and p.tokens == [base[-1]]
    assert audit(g) == []


def test_five_players_only_with_the_expansion():
    """Leviathan: "The game can be played by two to five players" / Setup 7: "To play with 5
    players, one of the players takes the cup from the expansion." (The base game is for 2-4.)"""
    with pytest.raises(ValueError):
        Game(tables(), [Scripted() for _ in range(5)], seed=0)
    g = Game(lev_tables(), [Scripted() for _ in range(5)], seed=0)
    assert g.n_players == 5 and audit(g) == []
    with pytest.raises(ValueError):
        Game(lev_tables(), [Scripted() for _ in range(6)], seed=0)
    with pytest.raises(ValueError):
        Game(lev_tables(), [Scripted()], seed=0)


def test_no_threat_track_a_monster_on_the_last_space_is_a_leviathan_choice():
    """Leviathan, Setup 1: "Leave the base game's Threat Track in the box." / "During the Explore
    the Depths action, if the revealed card is a Monster, you still have the choice to continue
    your Exploration or fight." -- no Threat Track reward, even for a Monster on the last space."""
    g = game(s0={LevDecision.MONSTER_CHOICE: [CONTINUE]})
    set_border(g, {0: 4})
    script_dice(g, *DICE_FOR_ZONE[4])
    cards = stack_deck(g, (CRAB, 2), (SQUID, 1), (SEAHORSE, 1), (JELLYFISH, 1), M, (SHELLFISH, 2))
    p = g.players[0]
    pearls, tokens = p.pearls, len(g.monster_tokens)
    g.explore(p)
    assert asked(g, 0, Decision.FIGHT_MONSTER) == []
    assert asked(g, 0, Decision.THREAT_REWARD) == []
    assert events(g, "fight_monster") == [] and events(g, "keep_exploring") == []
    assert len(asked(g, 0, LevDecision.MONSTER_CHOICE)) == 1
    assert g.threat == 0
    assert len(g.monster_tokens) == tokens
    # The Monster left the track: the Shellfish took the 5th space and was taken with 1 Pearl.
    assert p.hand[-1] == cards[5] and p.pearls == pearls + 1
    assert cards[4] in g.exploration_discard
    assert audit(g) == []


# ------------------------------------------------------------------------------- Martial Law
def test_martial_law_pay_a_pearl_or_discard_each_extra_ally():
    """Leviathan, Martial Law: "If you wish to keep more than 12 Allies in hand at the end of your
    turn, you must pay one Pearl for each extra Ally. Otherwise, you must discard each extra Ally
    for which you choose not to pay a Pearl." """
    g = game(s0={LevDecision.MARTIAL_LAW: [1, 0, 1], Decision.DISCARD_ALLY: lambda g, s, o: o[-1]})
    p = g.players[0]
    give_allies(g, 0, *[(race, v) for race in Race for v in (1, 2)], (SQUID, 3), (SQUID, 4),
                (SQUID, 5), (CRAB, 5))  # fmt: skip
    assert len(p.hand) == 15
    set_pearls(g, 0, 5)
    paid = g.pearls_to_treasury
    g.martial_law(p)
    assert [opts for opts, _ in asked(g, 0, LevDecision.MARTIAL_LAW)] == [[0, 1]] * 3
    assert len(asked(g, 0, Decision.DISCARD_ALLY)) == 1
    assert len(p.hand) == 14  # 12 + 2 paid for
    assert p.pearls == 3 and g.pearls_to_treasury == paid + 2
    assert [e["why"] for e in events(g, "discard_ally")] == ["martial_law"]
    assert audit(g) == []


def test_martial_law_exactly_12_allies_asks_nothing():
    """Leviathan, Martial Law: "If you wish to keep more than 12 Allies in hand at the end of your
    turn, you must pay one Pearl for each extra Ally." -- 12 is not more than 12."""
    g = game()
    p = g.players[0]
    give_allies(g, 0, *[(race, v) for race in Race for v in (2, 3)], (SQUID, 4))
    assert len(p.hand) == 12
    set_pearls(g, 0, 4)
    hand = list(p.hand)
    g.martial_law(p)
    assert p.hand == hand and p.pearls == 4
    assert g.policies[0].asked == []
    assert audit(g) == []


def test_martial_law_without_pearls_discards_the_extra_allies():
    """Leviathan, Martial Law: "Otherwise, you must discard each extra Ally for which you choose
    not to pay a Pearl." -- with no Pearl, discarding is the only option (not asked)."""
    g = game(s0={Decision.DISCARD_ALLY: lambda g, s, o: o[-1]})
    p = g.players[0]
    give_allies(g, 0, *[(race, v) for race in Race for v in (2, 3)], (SQUID, 4), (CRAB, 4),
                (SEAHORSE, 4))  # fmt: skip
    assert len(p.hand) == 14
    set_pearls(g, 0, 0)
    g.martial_law(p)
    assert asked(g, 0, LevDecision.MARTIAL_LAW) == []
    discarded = [ans for _, ans in asked(g, 0, Decision.DISCARD_ALLY)]
    assert len(discarded) == 2 and len(p.hand) == 12
    assert set(discarded) <= set(g.exploration_discard) and not set(discarded) & set(p.hand)
    assert p.pearls == 0
    assert audit(g) == []


@pytest.mark.parametrize("keep", ["plain", "effect"])
def test_martial_law_player_chooses_between_an_effect_ally_and_its_plain_twin(keep):
    """Leviathan, Martial Law: "Otherwise, you must discard each extra Ally for which you choose
    not to pay a Pearl." Components 2.6: the new Allies' effects "apply only when the Ally is used
    to fight" -- keeping the Crab 2 with an effect or the plain one is the player's choice."""
    g = game()
    p = g.players[0]
    give_allies(g, 0, *[(race, v) for race in Race for v in (3, 4)], (SQUID, 5))
    plain, fancy = give_allies(g, 0, (CRAB, 2), (CRAB, 2, ADD_PEARLS))
    assert len(p.hand) == 14
    set_pearls(g, 0, 0)
    crab1 = p.hand[0]
    gone = fancy if keep == "plain" else plain
    g.policies[0].answers[Decision.DISCARD_ALLY] = [gone, crab1]
    g.martial_law(p)
    assert [ans for _, ans in asked(g, 0, Decision.DISCARD_ALLY)] == [gone, crab1]
    assert len(p.hand) == 12 and gone not in p.hand
    assert (plain in p.hand) is (keep == "plain") and (fancy in p.hand) is (keep == "effect")
    assert audit(g) == []


def test_martial_law_applies_at_the_end_of_the_turn():
    """Leviathan, Martial Law: "If you wish to keep more than 12 Allies in hand at the end of your
    turn ... you must discard each extra Ally" -- the 14th Ally taken while exploring is
    checked only once the turn ends."""
    hand_sizes: list = []

    def take(g, seat, options):
        hand_sizes.append(len(g.players[seat].hand))
        return 1

    g = game(s0={Decision.TAKE_ALLY: take})
    p = g.players[0]
    give_allies(g, 0, *[(race, v) for race in Race for v in (2, 3)], (SQUID, 4), (CRAB, 4))
    assert len(p.hand) == 13
    set_pearls(g, 0, 0)
    (taken,) = stack_deck(g, (SHELLFISH, 5))
    g.take_turn(0)
    assert hand_sizes == [13]
    assert taken in p.hand or taken in g.exploration_discard
    assert len(p.hand) == 12
    assert [e["why"] for e in events(g, "discard_ally")] == ["martial_law", "martial_law"]
    assert audit(g) == []


# ------------------------------------------------------------- Monsters revealed: continue
def test_continue_into_a_free_zone_places_the_leviathan_and_exploration_continues():
    """Leviathan, Add a Leviathan: "If the zone is free: 1. Place the Leviathan in it and place a
    Life Point token on the top space of its card. 2. Discard the Monster from the Exploration
    Track. 3. Continue your Exploration." """
    g = game(s0={LevDecision.MONSTER_CHOICE: [CONTINUE], Decision.TAKE_ALLY: [1]})
    (old,) = set_border(g, {0: (4, 0)}).values()
    (new,) = stack_leviathans(g, 12)
    dice = script_dice(g, 3, 4)  # 7: zone 4
    monster, ally = stack_deck(g, M, (SQUID, 2))
    p = g.players[0]
    crab = p.hand[0]
    pearls = p.pearls
    g.explore(p)
    assert dice == []
    assert g.border[4] == new and g.life[4] == 0 and g.border[0] == old
    assert g.border_zones() == [0, 4]
    assert monster in g.exploration_discard and monster not in g.track
    assert p.hand == [crab, ally]  # the exploration went on to the next card
    assert asked(g, 0, LevDecision.MONSTER_CHOICE) == [([CONTINUE, FIGHT], CONTINUE)]
    assert p.wounds == 0 and p.pearls == pearls and g.leviathan_discard == []
    assert g.n_continues == 1 and g.n_leviathan_attacks == 0
    assert audit(g) == []


@pytest.mark.parametrize("number", WOUND_LEVIATHANS)
def test_occupied_zone_resident_inflicts_its_wounds_then_is_replaced(number):
    """Leviathan, Add a Leviathan: "If the zone is occupied: The Leviathan already present in the
    zone attacks you before being removed by the newcomer; you cannot avoid this attack." /
    "Receive as many Wound tokens as indicated on the Leviathan." / "2. Discard the Leviathan
    currently in place and replace it with the new one you drew. Place a Life Point token on the
    top space of this new card. 3. Discard the Monster from the Exploration Track and continue
    your Exploration." Components 2.4: "it is not anyone's kill"."""
    g = game(s0={LevDecision.MONSTER_CHOICE: [CONTINUE], Decision.TAKE_ALLY: [1]})
    _, spaces, (_, n) = LEVIATHANS[number]
    newcomer = 20 if number != 20 else 19
    res, new, monster, ally, dice = arrive_on(g, (number, len(spaces) - 1), newcomer)
    p = g.players[0]
    g.explore(p)
    assert dice == []
    assert p.wounds == n
    assert all(q.wounds == 0 for q in g.players[1:])
    assert g.border[4] == new and g.life[4] == 0  # the Life token on the newcomer's top space
    assert g.leviathan_discard == [res]
    assert all(q.killed == [] for q in g.players) and g.scourge == -1
    assert monster in g.exploration_discard and p.hand[-1] == ally
    assert g.n_leviathan_attacks == 1
    assert audit(g) == []


@pytest.mark.parametrize("number", [5, 6])
@pytest.mark.parametrize("pearls,lost", [(7, 3), (3, 3), (2, 2), (1, 1), (0, 0)])
def test_occupied_zone_pearl_penalty(number, pearls, lost):
    """Leviathan: "Discard three Pearls. If you have fewer than three Pearls, discard all you have.
    If you possess no Pearls, this attack has no effect on you." """
    g = game(s0={LevDecision.MONSTER_CHOICE: [CONTINUE], Decision.TAKE_ALLY: [1]})
    res, new, *_ = arrive_on(g, number, 20)
    set_pearls(g, 0, pearls)
    p = g.players[0]
    paid = g.pearls_to_treasury
    g.explore(p)
    assert p.pearls == pearls - lost
    assert g.pearls_to_treasury == paid + lost
    assert p.wounds == 0 and g.border[4] == new and g.leviathan_discard == [res]
    assert audit(g) == []


@pytest.mark.parametrize("number", [1, 2])
def test_occupied_zone_ally_penalty_the_victim_chooses_three(number):
    """Leviathan: "Discard three Allies." Components 2.4: "the victim chooses n Allies in hand to
    discard"."""
    g = game(s0={LevDecision.MONSTER_CHOICE: [CONTINUE], Decision.TAKE_ALLY: [1]})
    res, new, monster, ally, _ = arrive_on(g, number, 20)
    p = g.players[0]
    crab = p.hand[0]
    squid, horse, jelly, shell = give_allies(
        g, 0, (SQUID, 2), (SEAHORSE, 3), (JELLYFISH, 4), (SHELLFISH, 1)
    )
    g.policies[0].answers[Decision.DISCARD_ALLY] = [squid, shell, crab]
    g.explore(p)
    offered = asked(g, 0, Decision.DISCARD_ALLY)
    assert [ans for _, ans in offered] == [squid, shell, crab]
    assert sorted(offered[0][0]) == sorted([crab, squid, horse, jelly, shell])
    assert p.hand == [horse, jelly, ally]
    assert {squid, shell, crab} <= set(g.exploration_discard)
    assert g.border[4] == new and g.leviathan_discard == [res]
    assert audit(g) == []


@pytest.mark.parametrize("keep", ["plain", "effect"])
def test_ally_penalty_victim_chooses_between_an_effect_ally_and_its_plain_twin(keep):
    """Leviathan: "Discard three Allies." Components 2.4: "the victim chooses n Allies in hand to
    discard"; components 2.6: the new Allies' effects "apply only when the Ally is used to fight"
    -- a Squid 1 with an effect and a plain Squid 1 are different cards to keep."""
    g = game(s0={LevDecision.MONSTER_CHOICE: [CONTINUE], Decision.TAKE_ALLY: [1]})
    arrive_on(g, 1, 20)
    p = g.players[0]
    crab = p.hand[0]
    plain, fancy = give_allies(g, 0, (SQUID, 1), (SQUID, 1, ADD_PEARLS))
    horse, jelly = give_allies(g, 0, (SEAHORSE, 3), (JELLYFISH, 4))
    gone = fancy if keep == "plain" else plain
    kept = plain if keep == "plain" else fancy
    g.policies[0].answers[Decision.DISCARD_ALLY] = [gone, crab, horse]
    g.explore(p)
    first_options = asked(g, 0, Decision.DISCARD_ALLY)[0][0]
    assert plain in first_options and fancy in first_options
    assert p.hand[:2] == [kept, jelly]
    assert gone in g.exploration_discard
    assert audit(g) == []


@pytest.mark.parametrize("hand_size", [0, 1, 2, 3])
def test_occupied_zone_ally_penalty_with_three_or_fewer_allies(hand_size):
    """Leviathan: "Discard three Allies. If you have fewer than three Allies, discard all of them.
    If you have no Allies, this attack has no effect on you." """
    g = game(s0={LevDecision.MONSTER_CHOICE: [CONTINUE], Decision.TAKE_ALLY: [1]})
    res, new, monster, ally, _ = arrive_on(g, 1, 20)
    empty_hand(g, 0)
    p = g.players[0]
    hand = give_allies(g, 0, *[(CRAB, 2), (SQUID, 3), (SEAHORSE, 4)][:hand_size])
    g.explore(p)
    assert asked(g, 0, Decision.DISCARD_ALLY) == []
    assert p.hand == [ally]  # only the Ally taken after the attack
    assert set(hand) <= set(g.exploration_discard)
    assert len([e for e in events(g, "discard_ally") if e["why"] == "leviathan"]) == hand_size
    assert g.border[4] == new and g.leviathan_discard == [res]
    assert audit(g) == []


@pytest.mark.parametrize("number", [9, 10])
@pytest.mark.parametrize("n_free", [0, 1, 2])
def test_occupied_zone_lord_penalty_spares_lords_under_locations(number, n_free):
    """Leviathan: "Discard one of your free Lords (those that were previously used to take control
    of a Location are protected). If you possess no free Lords, the attack has no effect on
    you." Components 2.4: "the victim chooses 1 free Lord to discard"."""
    g = game(s0={LevDecision.MONSTER_CHOICE: [CONTINUE], Decision.TAKE_ALLY: [1]})
    res, new, *_ = arrive_on(g, number, 20)
    p = g.players[0]
    keeper = give_lord(g, 0, "Keeper")
    loc = give_location(g, 0, "Parliament", lords=[keeper])
    free = [give_lord(g, 0, name) for name in ("Miller", "Landowner")[:n_free]]
    g.policies[0].answers[LevDecision.LOSE_LORD] = [free[-1]] if free else []
    g.explore(p)
    offered = asked(g, 0, LevDecision.LOSE_LORD)
    if n_free == 2:
        assert offered == [(free, free[-1])]
    else:
        assert offered == []  # one free Lord: no choice; none: no effect
    lost = free[-1:]
    assert p.lords == [keeper, *free[:-1]]
    assert g.lord_discard == lost
    assert p.location_lords == {loc: [keeper]} and p.under == {keeper}
    assert g.border[4] == new and g.leviathan_discard == [res]
    assert audit(g) == []


@pytest.mark.parametrize(
    "number,hand,offered",
    [
        (3, [(SQUID, 5), (SHELLFISH, 4)], False),
        (3, [], False),
        (3, [(JELLYFISH, 1)], True),
        (3, [(CRAB, 1)], True),
        (17, [(JELLYFISH, 5), (SQUID, 5), (SEAHORSE, 5), (SHELLFISH, 5)], False),
        (17, [(JELLYFISH, 4, TWO_DICE), (SQUID, 2, ADD_PEARLS)], False),
        (17, [(CRAB, 2)], True),
        (20, [(CRAB, 3, TWO_DICE)], True),
    ],
)
def test_fight_offered_only_with_an_eligible_ally(number, hand, offered):
    """Leviathan, Fight a Leviathan: "Important: if you do not have an Ally of the requested Race,
    you CANNOT fight. You must then continue your Exploration and add a new Leviathan." /
    "Don't forget, a Crab Ally always allows you to fight." Components 2.4: "Cards 17–20 have no
    race printed, so only Crabs can attack them." """
    g = game(s0={Decision.TAKE_ALLY: [1]})
    set_border(g, {0: number})
    (new,) = stack_leviathans(g, 12)
    dice = script_dice(g, *DICE_FOR_ZONE[6])
    empty_hand(g, 0)
    give_allies(g, 0, *hand)
    stack_deck(g, M, (SHELLFISH, 2))
    g.explore(g.players[0])
    choice = asked(g, 0, LevDecision.MONSTER_CHOICE)
    assert choice == ([([CONTINUE, FIGHT], CONTINUE)] if offered else [])
    # Either way the explorer continued: a new Leviathan was added.
    assert dice == [] and g.border[6] == new and g.n_continues == 1 and g.n_fights == 0
    assert audit(g) == []


# ------------------------------------------------------------------------------- fighting
def test_eligible_allies_race_match_or_crab():
    """Leviathan, Calculate your Attack Power: "Discard from your hand ONE Ally of the requested
    Race." / "Don't forget, a Crab Ally always allows you to fight." Components 2.4: "Cards 17–20
    have no race printed, so only Crabs can attack them." """
    g = game()
    p = g.players[0]
    crab = p.hand[0]
    j2a, j2b, j3, squid, horse, crab4 = give_allies(
        g,
        0,
        (JELLYFISH, 2),
        (JELLYFISH, 2),
        (JELLYFISH, 3, TWO_DICE),
        (SQUID, 5),
        (SEAHORSE, 1, ADD_PEARLS),
        (CRAB, 4, TWO_DICE),
    )
    jelly2 = min(j2a, j2b)  # one per distinct (race, value, effect)
    assert g.attack_allies(p, lev_id(g, 3)) == sorted([crab, jelly2, j3, crab4])
    assert g.attack_allies(p, lev_id(g, 9)) == sorted([crab, squid, crab4])
    assert g.attack_allies(p, lev_id(g, 14)) == sorted([crab, horse, crab4])
    assert g.attack_allies(p, lev_id(g, 5)) == sorted([crab, crab4])
    for number in (17, 18, 19, 20):
        assert g.attack_allies(p, lev_id(g, number)) == sorted([crab, crab4])
    for number, (race, _, _) in LEVIATHANS.items():
        assert int(g.t.leviathan_race[lev_id(g, number)]) == (-1 if race is None else race)
    assert audit(g) == []


def test_fight_offers_the_eligible_allies_only():
    """Leviathan, Calculate your Attack Power: "Discard from your hand ONE Ally of the requested
    Race. Then, roll ONE die." -- the Squid is not offered against a Jellyfish Leviathan."""
    g = game(s0={LevDecision.ATTACK_ALLY: lambda g, s, o: o[-1]})
    set_border(g, {4: 3})
    p = g.players[0]
    crab = p.hand[0]
    jelly, squid = give_allies(g, 0, (JELLYFISH, 1), (SQUID, 5))
    dice = script_dice(g, 2)
    g.fight(p)
    assert asked(g, 0, LevDecision.ATTACK_ALLY) == [(sorted([crab, jelly]), max(crab, jelly))]
    assert dice == []
    assert squid in p.hand
    assert audit(g) == []


@pytest.mark.parametrize("die", range(1, 7))
def test_attack_power_is_one_die_plus_the_ally_value(die):
    """Leviathan: "Your Attack Power = the die result + the value of the discarded Ally." / "If
    your Attack Power is equal to or greater than the Leviathan's Resistance, it loses 1 Life
    Point." (Leviathan 11: Resistance 7; a Squid 3 needs a 4.)"""
    g = game()
    zones = set_border(g, {4: 11, 0: 20})
    p = g.players[0]
    (squid,) = give_allies(g, 0, (SQUID, 3))
    dice = script_dice(g, die)
    pearls = p.pearls
    killed = g.attack(p, 4, squid)
    (ev,) = events(g, "attack")
    assert dice == []  # exactly one die
    assert ev["die"] == die and ev["power"] == die + 3 and ev["pearls_added"] == 0
    assert squid not in p.hand and squid in g.exploration_discard
    success = die + 3 >= 7
    assert killed is success and ev["life_removed"] == int(success)
    if success:
        assert p.killed == [zones[4]] and g.border[4] == -1 and len(p.tokens) == 2
    else:
        assert g.border[4] == zones[4] and g.life[4] == 0 and p.pearls == pearls + 1
    assert audit(g) == []


@pytest.mark.parametrize(
    "d1,d2,success", [(2, 5, True), (5, 2, True), (1, 3, False), (3, 4, True), (6, 1, True)]
)
def test_two_dice_ally_keeps_the_higher_die(d1, d2, success):
    """Leviathan: "To calculate your Attack Power, roll BOTH dice and only take into account the
    higher of the two values." (Crab 3 with this effect against Leviathan 20, Resistance 7.)"""
    g = game()
    zones = set_border(g, {4: 20, 0: 12})
    p = g.players[0]
    (crab3,) = give_allies(g, 0, (CRAB, 3, TWO_DICE))
    dice = script_dice(g, d1, d2)
    killed = g.attack(p, 4, crab3)
    (ev,) = events(g, "attack")
    assert dice == []  # both dice rolled
    assert ev["die"] == max(d1, d2) and ev["power"] == max(d1, d2) + 3
    assert killed is success
    assert (p.killed == [zones[4]]) is success
    assert asked(g, 0, LevDecision.ADD_PEARLS) == []
    assert audit(g) == []


@pytest.mark.parametrize("added", [0, 1, 2, 3, 4])
def test_add_pearls_ally_spends_pearls_after_the_roll(added):
    """Leviathan: "After rolling the die, you can spend as many Pearls as you wish to add to your
    Attack Power: +1 per Pearl." (Squid 1 with this effect, die 3, against Resistance 7.)"""
    seen: list = []

    def spend(g, seat, options):
        seen.append((list(options), len(dice), g.players[seat].pearls))
        return added

    g = game(s0={LevDecision.ADD_PEARLS: spend})
    set_border(g, {4: 11, 0: 20})
    p = g.players[0]
    (squid1,) = give_allies(g, 0, (SQUID, 1, ADD_PEARLS))
    set_pearls(g, 0, 4)
    paid = g.pearls_to_treasury
    dice = script_dice(g, 3)
    killed = g.attack(p, 4, squid1)
    assert seen == [([0, 1, 2, 3, 4], 0, 4)]  # asked once, after the die was rolled
    (ev,) = events(g, "attack")
    assert ev["power"] == 3 + 1 + added and ev["pearls_added"] == added
    assert g.pearls_to_treasury == paid + added  # the Pearls go to the Treasury
    success = 4 + added >= 7
    assert killed is success
    assert p.pearls == 4 - added + (0 if success else 1)
    assert audit(g) == []


@pytest.mark.parametrize(
    "ally,pearls",
    [((SQUID, 3), 5), ((SQUID, 3, TWO_DICE), 5), ((SQUID, 4), 0), ((SQUID, 2, ADD_PEARLS), 0)],
)
def test_add_pearls_not_asked_for_other_allies_or_without_pearls(ally, pearls):
    """Leviathan: "After rolling the die, you can spend as many Pearls as you wish to add to your
    Attack Power" -- only the Allies with this effect, and only with Pearls to spend."""
    g = game()
    set_border(g, {4: 11, 0: 20})
    p = g.players[0]
    (a,) = give_allies(g, 0, ally)
    set_pearls(g, 0, pearls)
    script_dice(g, 1, 1)
    g.attack(p, 4, a)
    assert asked(g, 0, LevDecision.ADD_PEARLS) == []
    (ev,) = events(g, "attack")
    assert ev["pearls_added"] == 0 and ev["power"] == 1 + ally[1]
    assert audit(g) == []


@pytest.mark.parametrize(
    "number,life,power,removed",
    [
        (1, 0, 2, 0),
        (1, 0, 3, 1),
        (1, 0, 9, 1),
        (1, 0, 10, 2),
        (1, 0, 14, 2),
        (1, 0, 15, 3),
        (1, 0, 30, 3),
        (1, 1, 6, 0),
        (1, 1, 11, 1),
        (1, 1, 12, 2),
        (1, 2, 4, 0),
        (1, 2, 5, 1),
        (17, 0, 16, 2),
        (17, 0, 17, 3),
        (14, 0, 10, 2),
        (14, 1, 9, 1),
        (3, 0, 8, 0),
        (3, 0, 18, 1),
    ],
)
def test_resistance_levels_surpassed(number, life, power, removed):
    """Leviathan: "If your Attack Power is equal to or greater than the sum of multiple Leviathan
    Resistance levels, it loses as many Life Points as levels are surpassed." """
    g = game()
    assert life_points_removed(g.t, lev_id(g, number), life, power) == removed
    _, spaces, _ = LEVIATHANS[number]
    cum = list(accumulate(r for r, _ in spaces[life:]))
    assert removed == sum(1 for c in cum if power >= c)


def test_one_attack_removes_several_life_points_and_pays_each():
    """Leviathan: "If your Attack Power is equal to or greater than the sum of multiple Leviathan
    Resistance levels, it loses as many Life Points as levels are surpassed. Your attack is
    successful." / "When a Leviathan loses one of its Life Points, gain as a reward the number of
    Monster tokens indicated next to the Life Point token, and then move the life token to the
    next space." (Leviathan 1: R3/1 token, R7/2 tokens, R5/1 token; Jellyfish 5 + die 5 = 10.)"""
    g = game(s0={LevDecision.TOKEN_DECK: [0, 1, 0]})
    zones = set_border(g, {4: 1})
    p = g.players[0]
    (jelly,) = give_allies(g, 0, (JELLYFISH, 5))
    dice = script_dice(g, 5)
    assert g.attack(p, 4, jelly) is False
    assert dice == []
    (ev,) = events(g, "attack")
    assert ev["power"] == 10 and ev["life_removed"] == 2
    assert g.border[4] == zones[4] and g.life[4] == 2  # alive, Life token on the third space
    assert [opts for opts, _ in asked(g, 0, LevDecision.TOKEN_DECK)] == [[0, 1]] * 3
    assert len(p.tokens) == 2 and len(p.held_tokens) == 1
    assert len(g.monster_tokens) == 18 and len(g.leviathan_tokens) == 19
    assert audit(g) == []


def test_one_attack_can_kill_through_several_life_points():
    """Leviathan: "it loses as many Life Points as levels are surpassed" / "When a Leviathan loses
    its last Life Point, it is dead. In addition to the reward for your successful attack, take
    the Leviathan and keep its card face up in front of you." (Leviathan 5 from its second space:
    R6/2 tokens then R5/1 token; Shellfish 5 + die 6 = 11.)"""
    g = game()
    zones = set_border(g, {4: (5, 1), 0: 20})
    p = g.players[0]
    (shell,) = give_allies(g, 0, (SHELLFISH, 5))
    script_dice(g, 6)
    assert g.attack(p, 4, shell) is True
    assert p.killed == [zones[4]] and g.border[4] == -1
    assert len(p.tokens) == 3  # 2 + 1
    assert g.scourge == 0
    assert audit(g) == []


@pytest.mark.parametrize("number", sorted(LEVIATHANS))
def test_each_life_point_pays_the_tokens_printed_next_to_it(number):
    """Leviathan: "When a Leviathan loses one of its Life Points, gain as a reward the number of
    Monster tokens indicated next to the Life Point token, and then move the life token to the
    next space." Components 2.4 gives the tokens of every space."""
    g = game()
    zones = set_border(g, {4: number, 0: other_than(number)})
    p = g.players[0]
    _, spaces, _ = LEVIATHANS[number]
    for i, (_, tokens) in enumerate(spaces):
        before = len(p.tokens)
        killed = g.remove_life(p, 4, 1)
        assert len(p.tokens) - before == tokens
        last = i == len(spaces) - 1
        assert killed is last
        if not last:
            assert g.life[4] == i + 1 and g.border[4] == zones[4]
    assert p.killed == [zones[4]] and g.border[4] == -1
    assert len(asked(g, 0, LevDecision.TOKEN_DECK)) == sum(k for _, k in spaces)
    assert audit(g) == []


@pytest.mark.parametrize("empty", ["none", "base", "leviathan", "both"])
def test_reward_tokens_from_either_deck(empty):
    """Leviathan: "You can choose your Monster tokens from those of this expansion, those of the
    base game, or a mix of both." -- an empty deck leaves only the other one (no question)."""
    g = game(s0={LevDecision.TOKEN_DECK: [1, 0, 1]})
    set_border(g, {4: 15, 0: 20})  # Leviathan 15: 4 tokens
    p, q = g.players[0], g.players[1]
    if empty in ("base", "both"):
        q.tokens.extend(g.monster_tokens)
        g.monster_tokens.clear()
    if empty in ("leviathan", "both"):
        g.leviathan_token_discard.extend(g.leviathan_tokens)
        g.leviathan_tokens.clear()
    g.remove_life(p, 4, 1)
    choices = asked(g, 0, LevDecision.TOKEN_DECK)
    if empty == "none":
        assert [ans for _, ans in choices] == [1, 0, 1, 0]  # the script, then the first option
        assert len(p.tokens) == 2 and len(p.held_tokens) == 2
    else:
        assert choices == []
        assert len(p.tokens) == (4 if empty == "leviathan" else 0)
        assert len(p.held_tokens) == (4 if empty == "base" else 0)
    assert audit(g) == []


def test_base_monster_tokens_are_worth_influence_points():
    """Leviathan, rewards: "Gain 2 to 4 Influence Points." (a base-game Monster token)."""
    g = game()
    set_border(g, {4: 15, 0: 20})
    p = g.players[0]
    g.remove_life(p, 4, 1)
    assert len(p.tokens) == 4
    ips = [int(g.t.monster_token_ip[tok]) for tok in p.tokens]
    assert all(2 <= ip <= 4 for ip in ips)
    assert g.score(p).monsters == sum(ips)
    assert audit(g) == []


@pytest.mark.parametrize(
    "kind,amount",
    [
        (LeviathanToken.PEARLS, 2),
        (LeviathanToken.PEARLS, 3),
        (LeviathanToken.KEY, 1),
        (LeviathanToken.COUNCIL, 1),
    ],
)
def test_leviathan_token_revealed_at_once(kind, amount):
    """Leviathan: "Depending on the token, gain 2 to 3 Pearls, a Key, or a Council stack." / "If
    you take the new Monster tokens, you have the option, after consulting them, to reveal them
    immediately ... Once revealed, apply their effect and then discard them." """
    g = game(
        s0={
            LevDecision.TOKEN_DECK: [1],
            LevDecision.REVEAL_TOKEN: [1],
            Decision.COUNCIL_STACK: [SQUID],
        }
    )
    set_border(g, {4: 12, 0: 20})  # Leviathan 12: 1 token
    p = g.players[0]
    tok = lev_token(g, kind, amount)
    top_lev_tokens(g, tok)
    squids = stack_deck(g, (SQUID, 1), (SQUID, 2))
    crabs = stack_deck(g, (CRAB, 2))
    for a in squids:
        take_ally(g, a)
        g.council[SQUID].append(a)
    take_ally(g, crabs[0])
    g.council[CRAB].append(crabs[0])
    pearls, keys, hand = p.pearls, p.keys, list(p.hand)
    g.remove_life(p, 4, 1)
    assert asked(g, 0, LevDecision.REVEAL_TOKEN) == [([0, 1], 1)]
    assert p.held_tokens == [] and g.leviathan_token_discard == [tok]
    assert p.tokens == []  # Leviathan tokens are not kept (no IP)
    assert p.pearls == pearls + (amount if kind == LeviathanToken.PEARLS else 0)
    assert p.keys == keys + (1 if kind == LeviathanToken.KEY else 0)
    if kind == LeviathanToken.COUNCIL:
        assert asked(g, 0, Decision.COUNCIL_STACK) == [([CRAB, SQUID], SQUID)]
        assert p.hand == hand + squids and g.council[SQUID] == []
    else:
        assert p.hand == hand and g.council[SQUID] == squids
    assert audit(g) == []


def test_leviathan_tokens_held_then_revealed_at_the_start_of_later_turns():
    """Leviathan: "If you take the new Monster tokens, you have the option, after consulting them,
    to reveal them immediately or reveal them at the start of one of your next turns. Once
    revealed, apply their effect and then discard them." """
    g = game(
        s0={
            LevDecision.TOKEN_DECK: [1, 1],
            LevDecision.REVEAL_TOKEN: [0, 0, 2, 0, 1],
            Decision.TAKE_ALLY: [1, 1],
        }
    )
    set_border(g, {4: 14, 0: 20})  # Leviathan 14: 2 tokens on its first space
    p = g.players[0]
    three = lev_token(g, LeviathanToken.PEARLS, 3)
    key = lev_token(g, LeviathanToken.KEY, 1)
    top_lev_tokens(g, three, key)
    set_pearls(g, 0, 0)
    g.remove_life(p, 4, 1)
    assert p.held_tokens == [three, key]  # kept face down: no effect yet
    assert p.pearls == 0 and p.keys == 0
    assert [opts for opts, _ in asked(g, 0, LevDecision.REVEAL_TOKEN)] == [[0, 1], [0, 2]]
    # Next turn: reveal the Key (second held token), keep the Pearls for later.
    stack_deck(g, (CRAB, 2))
    g.take_turn(0)
    assert p.keys == 1 and p.pearls == 0 and p.held_tokens == [three]
    assert g.leviathan_token_discard == [key]
    kinds = [e["event"] for e in g.events if e["event"] in ("reveal_token", "reveal")]
    assert kinds[:2] == ["reveal_token", "reveal"]  # at the start of the turn, before exploring
    # The turn after: reveal the Pearls.
    stack_deck(g, (CRAB, 3))
    g.take_turn(0)
    assert p.pearls == 3 and p.held_tokens == [] and g.leviathan_token_discard == [key, three]
    assert [opts for opts, _ in asked(g, 0, LevDecision.REVEAL_TOKEN)][2:] == [
        [0, 1, 2],
        [0, 1],
        [0, 1],
    ]
    assert audit(g) == []


def test_failed_attack_discards_the_ally_and_pays_one_pearl():
    """Leviathan: "If your Attack Power is less than the Leviathan's Resistance, your attack has
    no effect on it. Your Ally is discarded, but you still gain 1 Pearl, a paltry salary for the
    risk you took." """
    g = game()
    zones = set_border(g, {4: (9, 1)})  # Leviathan 9 on its R7 space
    p = g.players[0]
    (squid,) = give_allies(g, 0, (SQUID, 2))
    script_dice(g, 4)
    pearls, gained = p.pearls, g.pearls_from_treasury
    assert g.attack(p, 4, squid) is False
    assert squid not in p.hand and g.exploration_discard[-1] == squid
    assert p.pearls == pearls + 1 and g.pearls_from_treasury == gained + 1
    assert g.border[4] == zones[4] and g.life[4] == 1
    assert p.tokens == [] and p.held_tokens == [] and p.killed == []
    assert asked(g, 0, LevDecision.TOKEN_DECK) == []
    assert audit(g) == []


def test_attack_again_the_same_leviathan_with_another_ally():
    """Leviathan, step 3: "On your turn, you can fight ONLY ONE Leviathan. However, you can attack
    it multiple times, provided you discard a new Ally of the requested Race. If you attack again,
    start again with the "Calculate your Attack Power" step." """
    g = game(
        s0={
            LevDecision.LEVIATHAN_TARGET: [4],
            LevDecision.ATTACK_AGAIN: [1, 1],
        }
    )
    zones = set_border(g, {4: 10, 0: 20})  # Leviathan 10: R6 then R4
    p = g.players[0]
    crab = p.hand[0]
    s2, s3, s4 = give_allies(g, 0, (SQUID, 2), (SQUID, 3), (SQUID, 4))
    g.policies[0].answers[LevDecision.ATTACK_ALLY] = [s4, s3, s2]
    # s4 + 1 = 5 fails R6; s3 + 3 = 6 hits R6; s2 + 1 = 3 fails R4; then the player stops
    # (the ATTACK_AGAIN script is exhausted: the first option, 0).
    dice = script_dice(g, 1, 3, 1)
    pearls = p.pearls
    g.fight(p)
    assert dice == []
    assert [ans for _, ans in asked(g, 0, LevDecision.ATTACK_ALLY)] == [s4, s3, s2]
    assert [ev["power"] for ev in events(g, "attack")] == [5, 6, 3]
    assert [ev["life_removed"] for ev in events(g, "attack")] == [0, 1, 0]
    assert len(asked(g, 0, LevDecision.ATTACK_AGAIN)) == 3
    assert len(asked(g, 0, LevDecision.LEVIATHAN_TARGET)) == 1
    assert {ev["zone"] for ev in events(g, "attack")} == {4}
    assert p.hand == [crab] and p.pearls == pearls + 2
    assert g.life[4] == 1 and g.border[4] == zones[4]
    assert len(p.tokens) == 2  # Leviathan 10's first space: 2 tokens
    assert audit(g) == []


def test_no_attack_again_without_another_eligible_ally():
    """Leviathan: "you can attack it multiple times, provided you discard a new Ally of the
    requested Race." -- with no eligible Ally left the fight ends without a question."""
    g = game()
    set_border(g, {4: 11})
    empty_hand(g, 0)
    p = g.players[0]
    (squid,) = give_allies(g, 0, (SQUID, 1))
    script_dice(g, 1)
    g.fight(p)
    assert asked(g, 0, LevDecision.ATTACK_AGAIN) == []
    assert asked(g, 0, LevDecision.ATTACK_ALLY) == []  # a single eligible Ally: no choice
    assert p.hand == [] and len(events(g, "attack")) == 1
    assert audit(g) == []


@pytest.mark.parametrize("outcome", ["kill", "stop"])
def test_only_one_leviathan_per_turn(outcome):
    """Leviathan, step 3: "On your turn, you can fight ONLY ONE Leviathan." / "The death of a
    Leviathan ends your turn." -- after a kill (or after stopping) no second Leviathan is
    attacked, although both can be."""
    g = game(
        s0={
            LevDecision.LEVIATHAN_TARGET: [4],
            LevDecision.ATTACK_ALLY: lambda g, s, o: o[-1],
            LevDecision.ATTACK_AGAIN: [0],
        }
    )
    zones = set_border(g, {4: 11, 6: 12})
    p = g.players[0]
    give_allies(g, 0, (SQUID, 5), (SQUID, 4), (SQUID, 3))
    dice = script_dice(g, 6 if outcome == "kill" else 1)
    g.fight(p)
    assert dice == []
    assert asked(g, 0, LevDecision.LEVIATHAN_TARGET) == [([4, 6], 4)]
    assert asked(g, 0, LevDecision.FIGHT_ANOTHER) == []
    assert len(events(g, "attack")) == 1
    assert g.border[6] == zones[6] and g.life[6] == 0
    if outcome == "kill":
        assert p.killed == [zones[4]]
        assert asked(g, 0, LevDecision.ATTACK_AGAIN) == []  # nothing left to attack again
    else:
        assert p.killed == [] and len(asked(g, 0, LevDecision.ATTACK_AGAIN)) == 1
    assert len(p.hand) == 3  # the starting Crab and two Squids left
    assert audit(g) == []


def test_a_fight_ends_the_exploration():
    """Leviathan: "if the revealed card is a Monster, you still have the choice to continue your
    Exploration or fight." Components 2.5: "The fight ends the exploration; the other Allies on
    the track go to the Council." """
    g = game(s0={Decision.TAKE_ALLY: [0, 0], LevDecision.MONSTER_CHOICE: [FIGHT]})
    zones = set_border(g, {4: 11})
    p = g.players[0]
    crab = p.hand[0]
    squid, shell, monster, crab5 = stack_deck(g, (SQUID, 2), (SHELLFISH, 3), M, (CRAB, 5))
    dice = script_dice(g, 1)
    pearls = p.pearls
    g.explore(p)
    assert dice == []
    (ev,) = events(g, "attack")
    assert ev["ally"] == crab and ev["power"] == 2  # the starting Crab 1 fought, and failed
    assert p.pearls == pearls + 1
    assert g.council[SQUID] == [squid] and g.council[SHELLFISH] == [shell]
    assert g.track == [] and monster in g.exploration_discard
    assert g.exploration_deck[-1] == crab5  # never revealed
    assert p.hand == []
    assert g.border[4] == zones[4] and g.n_fights == 1 and g.n_continues == 0
    assert audit(g) == []


@pytest.mark.parametrize("option", [False, True])
@pytest.mark.parametrize("outcome", ["kill", "no kill"])
def test_a_kill_ends_the_turn_before_the_once_per_turn_powers(option, outcome):
    """Leviathan: "The death of a Leviathan ends your turn." The Oracle (#17): "During your turn,
    you may discard 1 stack of cards from the council." After the kill there is no more "your
    turn", so the Oracle is not offered again (default); the rules option powers_after_kill
    offers it. Control Locations still happens ("If you gain a third Key, you must immediately
    take control of a Location"), and so does the end-of-turn Martial Law. Without a kill, the
    Oracle is offered after the action either way (the Council was empty before it).
    tests/abyss/test_parity.py plays both readings on both engines."""
    base = lev_tables()
    t = dataclasses.replace(base, rules=dataclasses.replace(base.rules, powers_after_kill=option))
    squid5 = (SQUID, 5)
    g = game(
        t=t,
        s0={
            Decision.ACTION: [0],  # Explore the Depths
            Decision.TAKE_ALLY: [0],  # leave the Squid 2 on the track
            LevDecision.MONSTER_CHOICE: [FIGHT],
            LevDecision.LEVIATHAN_TARGET: [4],
            LevDecision.ATTACK_ALLY: lambda g, s, o: o[-1],
            LevDecision.ATTACK_AGAIN: [0],
        },
    )
    zones = set_border(g, {4: 11, 6: 12})  # 11: Squid, one Life Point at Resistance 5
    p = g.players[0]
    give_lord(g, 0, "Oracle")
    give_allies(g, 0, squid5)
    (squid2, _monster) = stack_deck(g, (SQUID, 2), M)
    script_dice(g, 6 if outcome == "kill" else 1)
    assert not any(g.council)  # the Oracle cannot be used before the action
    g.take_turn(0)
    killed = outcome == "kill"
    assert (p.killed == [zones[4]]) is killed
    assert g.council[SQUID] == [squid2]  # the exploration ended: the track went to the Council
    offered = [options for options, _ in asked(g, 0, Decision.POWER)]
    expect_offer = option or not killed
    assert offered == ([[0, int(Power.ORACLE)]] if expect_offer else [])
    assert audit(g) == []


def test_kill_keeps_the_card_and_first_killer_takes_the_scourge():
    """Leviathan: "When a Leviathan loses its last Life Point, it is dead. ... take the Leviathan
    and keep its card face up in front of you." / "If you are the first player to kill a
    Leviathan, take the Scourge of the Abyss." """
    g = game()
    zones = set_border(g, {4: 11, 0: 20})
    p = g.players[1]
    (squid,) = give_allies(g, 1, (SQUID, 5))
    script_dice(g, 2)
    assert g.scourge == -1
    assert g.attack(p, 4, squid) is True
    assert p.killed == [zones[4]] and g.border[4] == -1
    assert zones[4] not in g.leviathan_discard and zones[4] not in g.leviathan_deck
    assert g.scourge == 1 and events(g, "scourge") == [
        {"turn": 0, "seat": 0, "event": "scourge", "who": 1}
    ]
    assert g.n_kills == 1
    assert audit(g) == []


def test_scourge_taken_on_reaching_the_holders_kills_kept_otherwise():
    """Leviathan: "As soon as an opponent reaches or exceeds the number of Leviathans killed by the
    most valiant defender, they take the statue from the player who currently possesses it." """
    g = game()
    zones = set_border(g, {0: 3, 2: 4, 4: 7, 6: 8, 8: 12})
    steps = [(0, 0, 0), (1, 2, 1), (0, 4, 0), (2, 6, 0)]  # (killer, zone, holder afterwards)
    for killer, zone, holder in steps:
        assert g.remove_life(g.players[killer], zone, 1) is True
        assert g.scourge == holder, (killer, zone)
        assert audit(g) == []
    assert [len(p.killed) for p in g.players] == [2, 1, 1]
    assert g.players[0].killed == [zones[0], zones[4]]
    assert g.border_zones() == [8]


def test_killing_the_last_leviathan_adds_a_new_one_at_once():
    """Leviathan: "Important: each time a player kills the last Leviathan present on the Border,
    they automatically add a new one. To do this, they follow the procedure for adding a
    Leviathan, without taking into account the Exploration. There must always be at least one
    Leviathan on the Border." """
    g = game()
    zones = set_border(g, {4: 11})
    (new,) = stack_leviathans(g, 17)
    p = g.players[0]
    (squid,) = give_allies(g, 0, (SQUID, 4))
    dice = script_dice(g, 6, 3, 4)  # the attack die, then 3 + 4 = 7: zone 4 again
    deck = len(g.leviathan_deck)
    assert g.attack(p, 4, squid) is True
    assert dice == []
    assert p.killed == [zones[4]]
    assert g.border_zones() == [4] and g.border[4] == new and g.life[4] == 0
    assert len(g.leviathan_deck) == deck - 1
    # Nobody is attacked by the arrival and nothing is discarded.
    assert g.leviathan_discard == [] and g.n_leviathan_attacks == 0
    assert all(q.wounds == 0 for q in g.players)
    assert events(g, "leviathan_arrives")[-1]["why"] == "empty_border"
    assert audit(g) == []


def test_killing_the_last_leviathan_with_an_empty_deck_leaves_the_border_empty():
    """Leviathan: "There must always be at least one Leviathan on the Border" cannot hold when
    "Reveal the top card of the Leviathan deck" finds none; the text is silent, nothing refills
    the Border, and "At the end of a player's turn, if the Leviathan deck ... [is] empty, each
    opponent has one last turn" is already under way. Martial Law still applies at the end of the
    turn the kill ended ("at the end of your turn")."""
    g = game(s0={Decision.ACTION: [0], LevDecision.MONSTER_CHOICE: [FIGHT],
                 LevDecision.ATTACK_ALLY: lambda g, s, o: o[-1]})  # fmt: skip
    zones = set_border(g, {4: 11})
    g.leviathan_discard.extend(g.leviathan_deck)
    g.leviathan_deck.clear()
    p = g.players[0]
    others = [(race, v) for race in (CRAB, SHELLFISH, JELLYFISH) for v in (1, 2, 3, 4)]
    give_allies(g, 0, (SQUID, 5), *others)  # 14 Allies in hand with the starting Crab
    stack_deck(g, M)
    dice = script_dice(g, 6)
    g.take_turn(0)
    assert dice == []
    assert p.killed == [zones[4]] and g.border_zones() == []
    assert events(g, "leviathan_deck_empty_on_add")[-1]["why"] == "empty_border"
    assert g.end_reason == "leviathan_deck_empty"
    assert len(p.hand) == g.t.hand_limit  # 13 after the fight, one over: Martial Law discarded it
    assert audit(g) == []


def test_killing_a_leviathan_that_is_not_the_last_adds_none():
    """Leviathan: "each time a player kills the last Leviathan present on the Border, they
    automatically add a new one." -- only the last one."""
    g = game()
    zones = set_border(g, {4: 11, 7: 19})
    p = g.players[0]
    (squid,) = give_allies(g, 0, (SQUID, 4))
    dice = script_dice(g, 6)
    deck = list(g.leviathan_deck)
    assert g.attack(p, 4, squid) is True
    assert dice == [] and g.leviathan_deck == deck
    assert g.border_zones() == [7] and g.border[7] == zones[7]
    assert audit(g) == []


# -------------------------------------------------------------------------------------- end
def _take_turn_exploring(g: Game, seat: int, race=CRAB, value=2) -> None:
    """One whole turn of `seat`: explore and take the first card (a plain Ally)."""
    g.policies[seat].answers[Decision.TAKE_ALLY] = [1]
    stack_deck(g, (race, value))
    g.take_turn(seat)


def test_empty_leviathan_deck_triggers_the_end_at_the_end_of_the_turn():
    """Leviathan, End of Game: "There are now two additional ways to trigger the end of the game.
    At the end of a player's turn, if the Leviathan deck OR any of the Monster token decks are
    empty, each opponent has one last turn" -- the deck emptied during the turn triggers the end
    only once the turn is over."""
    reasons: list = []
    g = game(
        s0={
            LevDecision.MONSTER_CHOICE: [CONTINUE],
            Decision.TAKE_ALLY: lambda g, s, o: reasons.append(g.end_reason) or 1,
        }
    )
    zones = set_border(g, {0: 3})
    while len(g.leviathan_deck) > 1:
        g.leviathan_discard.append(g.leviathan_deck.pop(0))
    last = g.leviathan_deck[0]
    script_dice(g, *DICE_FOR_ZONE[5])
    stack_deck(g, M, (CRAB, 2))
    g.take_turn(0)
    assert g.border[5] == last and g.border[0] == zones[0] and g.leviathan_deck == []
    assert reasons == [None]  # still running after the deck ran out
    assert g.end_reason == "leviathan_deck_empty"
    assert events(g, "end_triggered")[-1]["reason"] == "leviathan_deck_empty"
    assert audit(g) == []


@pytest.mark.parametrize("deck", ["base", "leviathan"])
def test_either_empty_monster_token_deck_triggers_the_end(deck):
    """Leviathan, End of Game: "At the end of a player's turn, if the Leviathan deck OR any of the
    Monster token decks are empty, each opponent has one last turn" """
    g = game()
    g.leviathan_end_check()
    assert g.end_reason is None
    if deck == "base":
        g.players[2].tokens.extend(g.monster_tokens)
        g.monster_tokens.clear()
    else:
        g.leviathan_token_discard.extend(g.leviathan_tokens)
        g.leviathan_tokens.clear()
    _take_turn_exploring(g, 0)
    assert g.end_reason == "monster_tokens_empty"
    assert audit(g) == []


def test_last_turns_monsters_are_discarded_without_effect():
    """Leviathan, End of Game: "each opponent has one last turn, during which Monsters that are
    revealed during Exploration are discarded without effect." """
    g = game(s0={LevDecision.MONSTER_CHOICE: [CONTINUE]})
    g.players[2].tokens.extend(g.monster_tokens)  # the base token deck is empty
    g.monster_tokens.clear()
    free = next(z for z in range(9) if g.border[z] < 0)
    border_before = list(g.border)
    dice = script_dice(g, *DICE_FOR_ZONE[free])  # for seat 0's Monster only
    # Each turn reveals until the 5th space and takes the last Ally (Monsters leave the track).
    cards = stack_deck(
        g,
        *[(CRAB, 2), (CRAB, 3), M, (SQUID, 2), (SQUID, 3), (SQUID, 4)],  # seat 0
        *[M, (SEAHORSE, 2), (SEAHORSE, 3), (SEAHORSE, 4), (JELLYFISH, 2), (JELLYFISH, 3)],
        *[(SHELLFISH, 2), (SHELLFISH, 3), M, (SHELLFISH, 4), (JELLYFISH, 4), (SQUID, 5)],
    )
    monsters = [cards[2], cards[6], cards[14]]
    assert all(g.t.ally_race[m] == MONSTER for m in monsters)
    g.play()
    assert g.over and g.end_reason == "monster_tokens_empty"
    assert [e["who"] for e in events(g, "turn_start")] == [0, 1, 2]
    assert dice == []
    assert len(asked(g, 0, LevDecision.MONSTER_CHOICE)) == 1
    assert asked(g, 1, LevDecision.MONSTER_CHOICE) == []
    assert asked(g, 2, LevDecision.MONSTER_CHOICE) == []
    discarded = events(g, "monster_discarded")
    assert [(e["seat"], e["why"]) for e in discarded] == [(1, "last_turns"), (2, "last_turns")]
    arrivals = [e for e in events(g, "leviathan_arrives") if e["why"] == "explore"]
    assert len(arrivals) == 1 and arrivals[0]["zone"] == free
    assert g.border == [border_before[z] if z != free else arrivals[0]["leviathan"]
                        for z in range(9)]  # fmt: skip
    assert set(monsters) <= set(g.exploration_discard)
    takes = [(e["who"], e["card"]) for e in events(g, "take")]
    assert takes == [(0, cards[5]), (1, cards[11]), (2, cards[17])]
    assert len(g.scores) == 3
    assert audit(g) == []


def test_end_trigger_rules_option_off():
    """Rules option `leviathan_end_trigger = false` (components 2.5: "This trigger is not in the
    BGA code"); the default is the seed text: "At the end of a player's turn, if the Leviathan
    deck OR any of the Monster token decks are empty, each opponent has one last turn"."""
    g = game(t=no_trigger_tables(), s1={LevDecision.MONSTER_CHOICE: [CONTINUE]})
    g.players[2].tokens.extend(g.monster_tokens)
    g.monster_tokens.clear()
    g.leviathan_discard.extend(g.leviathan_deck)
    g.leviathan_deck.clear()
    _take_turn_exploring(g, 0)
    assert g.end_reason is None
    g.policies[1].answers[Decision.TAKE_ALLY] = [1]
    stack_deck(g, M, (SQUID, 2))
    g.take_turn(1)
    assert g.end_reason is None
    assert len(asked(g, 1, LevDecision.MONSTER_CHOICE)) == 1  # Monsters still have effect
    assert audit(g) == []


# ---------------------------------------------------------------------------------- scoring
@pytest.mark.parametrize("wounds", [0, 1, 7])
def test_score_wounds_and_scourge(wounds):
    """Leviathan, Scoring: "Then, calculate your Influence Points as in the base game. Afterwards,
    subtract 1 Influence Point for each Wound token you possess. Finally, add 5 Influence Points
    to the total of the player who possesses the Scourge of the Abyss." """
    g = game()
    p0, p1 = g.players[0], g.players[1]
    empty_hand(g, 0)  # no Ally left to affiliate at the end: the Allies score is the Squid 4
    miller = give_lord(g, 0, "Miller")
    give_allies(g, 0, (SQUID, 4), affiliated=True)
    p0.tokens.append(g.monster_tokens.pop())
    lev = g.leviathan_deck[-1]
    _take_leviathan(g, lev)
    p0.killed.append(lev)
    g.scourge = 0
    p0.wounds, p1.wounds = wounds, 2
    base = int(g.t.lord_ip[miller]) + 4 + int(g.t.monster_token_ip[p0.tokens[0]])
    s0, s1 = g.score(p0), g.score(p1)
    assert s0.wounds == -wounds and s0.scourge == 5
    assert s1.wounds == -2 and s1.scourge == 0
    assert s0.total == base - wounds + 5
    for s in (s0, s1):
        assert s.total == s.lords + s.locations + s.allies + s.monsters + s.wounds + s.scourge
    g.final_scoring()
    rows = seat_rows(g, ["a", "b", "c"])
    r0 = rows[0]
    assert (r0["score_wounds"], r0["score_scourge"], r0["wounds"]) == (-wounds, 5, wounds)
    assert r0["leviathans_killed"] == 1 and r0["score"] == base - wounds + 5
    for row in rows:
        parts = [row[k] for k in row if k.startswith("score_")]
        assert row["score"] == sum(parts)
        assert row["score_wounds"] <= 0
    assert audit(g) == []


def test_scourge_points_follow_the_statue():
    """Leviathan: "The player who possesses the statue at the end of the game gains 5 Influence
    Points." -- when the statue changes hands, so do the 5 points."""
    g = game()
    set_border(g, {0: 3, 2: 4, 8: 12})
    p0, p1 = g.players[0], g.players[1]
    g.remove_life(p0, 0, 1)
    before = (g.score(p0).total, g.score(p1).total)
    assert g.score(p0).scourge == 5 and g.score(p1).scourge == 0
    tokens1 = g.score(p1).monsters
    g.remove_life(p1, 2, 1)  # ties: takes the statue
    assert g.scourge == 1
    assert g.score(p0).total == before[0] - 5
    assert g.score(p1).total == before[1] + 5 + g.score(p1).monsters - tokens1
    assert audit(g) == []


# ---------------------------------------------------------------------- exact probabilities
def test_border_zone_frequencies_match_two_dice():
    """Leviathan: "Reveal the top card of the Leviathan deck, then roll the 2 dice. The sum of the
    results obtained indicates the Border zone where the Leviathan will position itself."
    Components 2.3: probabilities 3/36, 3/36, 4/36, 5/36, 6/36, 5/36, 4/36, 3/36, 3/36.
    100,000 placements rolled by the engine's own dice (seeded GameRng) pass a chi-square test."""
    g = game(seed=2024)
    n = 100_000
    counts = Counter(g.roll_zone()[2] for _ in range(n))
    exact = Counter()
    for d1, d2 in product(range(1, 7), repeat=2):
        exact[ZONE_OF_SUM[d1 + d2]] += Fraction(1, 36)
    assert [exact[z] * 36 for z in range(9)] == [3, 3, 4, 5, 6, 5, 4, 3, 3]
    observed = [counts[z] for z in range(9)]
    expected = [float(exact[z]) * n for z in range(9)]
    assert sum(observed) == n
    assert chisquare(observed, expected).pvalue > 1e-4
    for z in range(9):
        assert abs(observed[z] / n - float(exact[z])) < 0.006
    # The two dice themselves: uniform and the sum triangular.
    rng = AbyssRng(7, 3)
    faces = Counter(rng.die() for _ in range(60_000))
    assert sorted(faces) == [1, 2, 3, 4, 5, 6]
    assert chisquare([faces[f] for f in range(1, 7)]).pvalue > 1e-4


def closed_form(resistances: list[int], value: int, two_dice: bool) -> dict[int, Fraction]:
    """P(Life Points removed = k) from the rule text alone: k levels are surpassed when the
    Attack Power reaches the sum of the first k Resistances; the die part is one die (uniform) or
    the higher of two dice, P(max <= m) = (m/6)^2."""

    def at_least(m: int) -> Fraction:  # P(die part >= m)
        m = max(m, 1)
        if m > 6:
            return Fraction(0)
        return 1 - Fraction(m - 1, 6) ** 2 if two_dice else Fraction(7 - m, 6)

    ge = [Fraction(1)] + [at_least(c - value) for c in accumulate(resistances)] + [Fraction(0)]
    return {k: ge[k] - ge[k + 1] for k in range(len(resistances) + 1)}


def enumerated(t, lev: int, life: int, value: int, two_dice: bool) -> dict[int, Fraction]:
    """The same distribution through the engine's `life_points_removed`, over every die roll."""
    dist: Counter = Counter()
    if two_dice:
        for d1, d2 in product(range(1, 7), repeat=2):
            dist[life_points_removed(t, lev, life, max(d1, d2) + value)] += Fraction(1, 36)
    else:
        for d in range(1, 7):
            dist[life_points_removed(t, lev, life, d + value)] += Fraction(1, 6)
    return dist


# (Leviathan number, life index, Ally (race, value, effect), Pearls always added)
ATTACK_CASES = [
    (11, 0, (SQUID, 3, PLAIN), 0),  # R7: a plain 3 hits with probability 1/2
    (1, 0, (JELLYFISH, 5, PLAIN), 0),  # R3, R7, R5
    (1, 1, (JELLYFISH, 4, TWO_DICE), 0),  # R7, R5
    (5, 0, (SHELLFISH, 4, TWO_DICE), 0),  # R4, R6, R5
    (14, 0, (SEAHORSE, 4, TWO_DICE), 0),  # R6, R4
    (13, 0, (SEAHORSE, 2, ADD_PEARLS), 4),  # R3, R7, R5 with +4 Pearls
    (18, 0, (CRAB, 5, PLAIN), 0),  # R7, R5 (Crab only)
]


def test_closed_form_examples():
    """Leviathan: "Your Attack Power = the die result + the value of the discarded Ally." / "roll
    BOTH dice and only take into account the higher of the two values." -- a plain 3 against
    Resistance 7 hits with probability 1/2; the higher of two dice is at most k with probability
    (k/6)^2."""
    assert closed_form([7], 3, False) == {0: Fraction(1, 2), 1: Fraction(1, 2)}
    for k in range(1, 7):
        below = sum(
            Fraction(1, 36) for d1, d2 in product(range(1, 7), repeat=2) if max(d1, d2) <= k
        )
        assert below == Fraction(k, 6) ** 2
    assert closed_form([4, 6, 5], 4, True) == {
        0: Fraction(0),
        1: Fraction(25, 36),
        2: Fraction(11, 36),
        3: Fraction(0),
    }


@pytest.mark.parametrize("number,life,ally,pearls", ATTACK_CASES)
def test_attack_outcome_distribution_is_exact(number, life, ally, pearls):
    """Leviathan: "Your Attack Power = the die result + the value of the discarded Ally." / "roll
    BOTH dice and only take into account the higher of the two values." / "you can spend as many
    Pearls as you wish to add to your Attack Power: +1 per Pearl." / "it loses as many Life Points
    as levels are surpassed." -- the closed form equals the engine's exact enumeration, and a
    seeded Monte Carlo of real `attack` calls matches it (chi-square and 0.02 tolerance)."""
    race, value, effect = ally
    two = effect == TWO_DICE
    _, spaces, _ = LEVIATHANS[number]
    exact = closed_form([r for r, _ in spaces[life:]], value + pearls, two)
    g = game(seed=number * 10 + life, s0={LevDecision.ADD_PEARLS: lambda g, s, o: o[-1]})
    lev = lev_id(g, number)
    assert enumerated(g.t, lev, life, value + pearls, two) == {k: v for k, v in exact.items() if v}
    # Monte Carlo through the real attack: the Leviathan is kept in place by recording the Life
    # Points removed instead of applying them.
    set_border(g, {4: (number, life)})
    empty_hand(g, 0)
    p = g.players[0]
    (a,) = give_allies(g, 0, ally)
    removed: list[int] = []
    g.remove_life = lambda p, zone, n: removed.append(n) or False
    g.record = False
    n = 6000
    for _ in range(n):
        set_pearls(g, 0, pearls)
        g.attack(p, 4, a)
        assert g.exploration_discard.pop() == a
        p.hand.append(a)
    counts = Counter(removed)
    counts[0] = n - len(removed)
    ks = [k for k in exact if exact[k] > 0]
    assert all(counts[k] == 0 for k in exact if exact[k] == 0)
    observed = [counts[k] for k in ks]
    expected = [float(exact[k]) * n for k in ks]
    assert chisquare(observed, expected).pvalue > 1e-4
    for k in ks:
        assert abs(counts[k] / n - float(exact[k])) < 0.02
    assert audit(g) == []


def test_exploration_of_only_monsters_in_the_last_turns_ends():
    """ "... each opponent has one last turn, during which Monsters that are revealed during
    Exploration are discarded without effect." With only Monsters left in the deck and the discard
    pile, a discarded Monster would come back at the next reshuffle for ever: once every card left
    has been revealed in this exploration, it ends as if the explorer had stopped (rules-notes)."""
    g = new_game(5, seed=1645, t=lev_tables())
    g.end_reason = "leviathan_deck_empty"
    monsters = [a for a in range(g.t.n_allies) if g.t.ally_race[a] == MONSTER]
    others = [a for a in g.exploration_deck + g.exploration_discard if a not in monsters]
    g.exploration_deck = [a for a in g.exploration_deck if a in monsters]
    g.exploration_discard = [a for a in g.exploration_discard if a in monsters]
    g.council[0].extend(others)  # the Allies are elsewhere
    hand = list(g.players[0].hand)
    g.explore(g.players[0])  # without the rule, this never returns
    assert g.track == [] and g.players[0].hand == hand
    assert sorted(g.exploration_deck + g.exploration_discard) == sorted(monsters)
    assert audit(g) == []
