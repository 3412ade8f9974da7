"""The 10 Lords of the Leviathan expansion: every power, its limits and its interactions.

Specification: the Leviathan rule text `shared/seeds/000_e41d5a114fc236c8.txt` (quoted as
"Leviathan") and the Lord texts of `shared/reference/components.md` section 2.7 (quoted as
"components 2.7"), with its clarifications. Base readings (docs/rules-notes.md): a power without an
arrow works while its Lord is free (not under a Location) and not disabled by the Assassin; an
arrow power applies once, on recruitment. The Shaman (components 1.4): "You are protected against
the Powers of Military Lords" (the Soldier guild, so also the Border Guard).

Each test arranges the Border with `set_border` (Leviathan cards are named by their printed
number 1-20), fixes the dice with `dice` (a roll nobody expected fails the test), calls one engine
method (`recruit`, `explore`, `fight`, `apply_recruit_power`, ...) with `Scripted` policies
answering, and checks the result and `audit(g) == []`.

Leviathans used (components 2.4: race, spaces Resistance/tokens, penalty):

    #1  Jellyfish  R3/1 R7/2 R5/1   3 Allies      #3  Jellyfish  R9/3   3 Wounds
    #4  Jellyfish  R6/1             2 Wounds      #5  Shellfish  R4/1 R6/2 R5/1   3 Pearls
    #7  Shellfish  R8/3             3 Wounds      #8  Shellfish  R6/1   2 Wounds
    #9  Squid      R3/1 R7/2 R5/1   1 Lord        #12 Squid      R5/1   2 Wounds
    #15 Seahorse   R7/4             3 Wounds      #16 Seahorse   R5/2   2 Wounds
    #17 no race    R4/1 R7/1 R6/1   4 Wounds      #19 no race    R9/2   3 Wounds

Border zones are 0-8 here; a 2d6 sum of 7 selects zone 4 (components 2.3: zone 5 of 1-9).
"""

from __future__ import annotations

import pytest
from abyss_helpers import (
    Race,
    Scripted,
    give_allies,
    give_location,
    give_lord,
    lev_tables,
    lord_id,
    new_game,
    put_in_court,
    set_pearls,
    stack_deck,
    tables,
)

from games.abyss.engine.audit import audit
from games.abyss.engine.cards.constants import Power
from games.abyss.engine.rules.base import FINISH
from games.abyss.engine.rules.base import Decision as D
from games.abyss.engine.rules.game import Game
from games.abyss.engine.rules.leviathan import LevDecision as L
from games.abyss.engine.rules.leviathan import MonsterChoice

J, C, S, SH, Q = Race.JELLYFISH, Race.CRAB, Race.SEAHORSE, Race.SHELLFISH, Race.SQUID


# ------------------------------------------------------------------------------- helpers
def make_game(*scripts: dict, n: int = 3, seed: int = 0) -> tuple[Game, list[Scripted]]:
    """A Leviathan game whose seat i answers from `scripts[i]` (default: the first option)."""
    policies = [Scripted(dict(scripts[i]) if i < len(scripts) else {}) for i in range(n)]
    return new_game(n, seed, policies, t=lev_tables()), policies


def lev(g: Game, number: int) -> int:
    """The Leviathan id of the card printed `number`."""
    return g.t.leviathan_number.tolist().index(number)


def _take_leviathan(g: Game, leviathan: int) -> None:
    for place in (g.leviathan_deck, g.leviathan_discard, *(p.killed for p in g.players)):
        if leviathan in place:
            place.remove(leviathan)
            return
    for zone, there in enumerate(g.border):
        if there == leviathan:
            g.border[zone] = -1
            g.life[zone] = 0
            return
    raise LookupError(leviathan)


def set_border(g: Game, *placed: tuple) -> None:
    """Empty the Border (its Leviathans go to the bottom of the deck), then put each
    (zone, number) or (zone, number, life space) there."""
    for zone, there in enumerate(g.border):
        if there >= 0:
            g.leviathan_deck.insert(0, there)
            g.border[zone] = -1
            g.life[zone] = 0
    for zone, number, *life in placed:
        leviathan = lev(g, number)
        _take_leviathan(g, leviathan)
        g.border[zone] = leviathan
        g.life[zone] = life[0] if life else 0


def deck_top(g: Game, number: int) -> int:
    """Put a Leviathan card on top of the Leviathan deck (drawn next)."""
    leviathan = lev(g, number)
    _take_leviathan(g, leviathan)
    g.leviathan_deck.append(leviathan)
    return leviathan


def dice(monkeypatch, g: Game, *values: int) -> list[int]:
    """Each die rolled from now on shows the next of `values`; an extra roll fails the test.

    Returns the list of rolls still to come (empty once all were used)."""
    rolls = list(values)

    def die() -> int:
        assert rolls, "a die was rolled that the rules do not call for"
        return rolls.pop(0)

    monkeypatch.setattr(g.rng, "die", die)
    return rolls


def clear_hand(g: Game, seat: int) -> None:
    """Discard a player's hand (the starting Crab 1 included)."""
    p = g.players[seat]
    g.exploration_discard.extend(p.hand)
    p.hand.clear()


def set_court(g: Game, *names: str) -> list[int]:
    """The Court holds `names`, then Lords from the deck up to six (full: no refill)."""
    ids = put_in_court(g, *names, clear=True)
    while len(g.court) < g.t.court_size:
        g.court.append(g.lord_deck.pop())
    return ids


def recruit(g: Game, pols: list[Scripted], seat: int, name: str, *pay: tuple) -> int:
    """Seat recruits the Lord `name` from the Court, paying exactly with new Allies `pay`."""
    (lord,) = set_court(g, name)
    ids = give_allies(g, seat, *pay)
    pols[seat].answers[D.RECRUIT_LORD] = [lord]
    pols[seat].answers[D.PAY_ALLY] = [*ids, FINISH]
    g.recruit(g.players[seat])
    assert lord in g.players[seat].lords
    return lord


def asked(policy: Scripted, decision) -> list[tuple[list[int], int]]:
    """(options, answer) of every time `decision` was asked of this policy."""
    return [(options, answer) for d, options, answer in policy.asked if d == decision]


def events(g: Game, kind: str, **match) -> list[dict]:
    return [
        e for e in g.events if e["event"] == kind and all(e.get(k) == v for k, v in match.items())
    ]


def strongest(g: Game, seat: int, options: list[int]) -> int:
    """ATTACK_ALLY: the highest-value Ally offered."""
    return max(options, key=lambda a: (g.value(a), -a))


def pearl_gains(g: Game, why: str, who: int) -> int:
    return sum(e["n"] for e in events(g, "pearls", why=why, who=who))


# =============================================================================== the tables
NEW_LORD_NAMES = {
    "The Intrepid",
    "The Border Guard",
    "The Taxidermist",
    "The Arms Dealer",
    "The Metamorph",
    "The Sorcerer",
    "The Altruist",
    "The Rebel",
    "The Coward",
    "The Breeder",
}  # components 2.7; their printed values are checked in test_cards_leviathan.py


def test_tamer_is_not_in_the_lord_deck_with_the_expansion():
    """Leviathan, Setup 4: "Take the Tamer from the base game's Lords and return her to the box.
    Carefully shuffle the new Lords with those you already have." (components 2.2: 44 Lords)."""
    assert "The Tamer" in tables().lord_name  # the base game has her
    t = lev_tables()
    assert "The Tamer" not in t.lord_name
    assert int(Power.TAMER) not in t.lord_power.tolist()
    assert t.n_lords == 44
    g, _ = make_game()
    in_play = sorted(g.lord_deck + g.court)
    assert in_play == list(range(44))
    names = {t.lord_name[i] for i in in_play}
    assert NEW_LORD_NAMES <= names
    assert audit(g) == []


# =============================================================================== Intrepid
def intrepid_game(monkeypatch, with_intrepid: bool):
    """Seat 0 explores, reveals a Monster and fights (strongest Ally first) with Crabs 4, 4, 3 in
    hand; three one-Life Leviathans wait: #4 (R6) in zone 1, #8 (R6) zone 5, #12 (R5) zone 7."""
    g, pols = make_game(
        {
            L.MONSTER_CHOICE: [MonsterChoice.FIGHT],
            L.LEVIATHAN_TARGET: [1, 5, 7],
            L.FIGHT_ANOTHER: [1, 1],
            L.ATTACK_ALLY: strongest,
        }
    )
    set_border(g, (1, 4), (5, 8), (7, 12))
    clear_hand(g, 0)
    crabs = give_allies(g, 0, (C, 4), (C, 4), (C, 3))
    stack_deck(g, (None, 0))
    intrepid = give_lord(g, 0, "Intrepid") if with_intrepid else None
    rolls = dice(monkeypatch, g, 2, 2, 3)  # Crab 4 + 2, Crab 4 + 2, Crab 3 + 3: 6 each
    return g, pols, crabs, intrepid, rolls


def test_intrepid_fights_a_second_leviathan_never_a_third(monkeypatch):
    """The Intrepid (components 2.7, semi-permanent): "If you slay a Leviathan, you can fight a
    second one." A second kill ends the fight although a third Leviathan could be attacked."""
    g, pols, crabs, _, rolls = intrepid_game(monkeypatch, with_intrepid=True)
    p0 = g.players[0]
    g.explore(p0)
    assert p0.killed == [lev(g, 4), lev(g, 8)]
    assert asked(pols[0], L.FIGHT_ANOTHER) == [([0, 1], 1)]  # once: never a third
    assert g.border[7] == lev(g, 12) and g.border[1] == g.border[5] == -1
    assert p0.hand == [crabs[2]] and rolls == [3]
    assert g.n_fights == 1 and g.n_kills == 2
    assert g.scourge == 0
    assert audit(g) == []


def test_without_intrepid_the_fight_stops_after_one_kill(monkeypatch):
    """Leviathan: "On your turn, you can fight ONLY ONE Leviathan." and "The death of a Leviathan
    ends your turn." Without the Intrepid no second fight is offered."""
    g, pols, crabs, _, rolls = intrepid_game(monkeypatch, with_intrepid=False)
    p0 = g.players[0]
    g.explore(p0)
    assert p0.killed == [lev(g, 4)]
    assert asked(pols[0], L.FIGHT_ANOTHER) == []
    assert g.border[5] == lev(g, 8) and g.border[7] == lev(g, 12)
    assert p0.hand == crabs[1:] and rolls == [2, 3]
    assert audit(g) == []


def test_intrepid_may_decline_the_second_fight(monkeypatch):
    """The Intrepid (components 2.7): "you CAN fight a second one" - an option, not a duty."""
    g, pols, _, _, rolls = intrepid_game(monkeypatch, with_intrepid=True)
    pols[0].answers[L.FIGHT_ANOTHER] = [0]
    g.explore(g.players[0])
    assert g.players[0].killed == [lev(g, 4)]
    assert asked(pols[0], L.FIGHT_ANOTHER) == [([0, 1], 0)]
    assert rolls == [2, 3]
    assert audit(g) == []


@pytest.mark.parametrize("how", ["disabled", "under_location"])
def test_intrepid_disabled_or_under_a_location_does_not_work(monkeypatch, how):
    """The Intrepid (components 2.7) is semi-permanent: "If you slay a Leviathan, you can fight a
    second one." - only while free and not disabled (docs/rules-notes.md: a power "without an
    arrow works while its Lord is free and not disabled by the Assassin")."""
    g, pols, _, intrepid, rolls = intrepid_game(monkeypatch, with_intrepid=True)
    p0 = g.players[0]
    if how == "disabled":
        p0.disabled.add(intrepid)
    else:
        give_location(g, 0, "Parliament", [intrepid])
    g.explore(p0)
    assert p0.killed == [lev(g, 4)]
    assert asked(pols[0], L.FIGHT_ANOTHER) == []
    assert rolls == [2, 3]
    assert audit(g) == []


def test_intrepid_after_a_failed_attack_no_second_fight(monkeypatch):
    """The Intrepid (components 2.7): "IF you slay a Leviathan, you can fight a second one." An
    attack that fails to kill gives no second Leviathan (the player just stops)."""
    g, pols, _, _, rolls = intrepid_game(monkeypatch, with_intrepid=True)
    rolls[:] = [1]  # Crab 4 + 1 = 5 < 6: the attack fails
    g.explore(g.players[0])
    assert g.players[0].killed == []
    assert asked(pols[0], L.FIGHT_ANOTHER) == []
    assert asked(pols[0], L.ATTACK_AGAIN) == [([0, 1], 0)]
    assert audit(g) == []


# ============================================================================ Border Guard
def border_guard_game(monkeypatch, n: int = 3, resident: int | None = 3):
    """Seat 0 will recruit the Border Guard; #16 is on top of the Leviathan deck and the dice
    show 3 + 4 = 7 (zone 4), where `resident` waits (None: zone 4 is free)."""
    g, pols = make_game(n=n)
    placed = [(0, 12)] + ([(4, resident)] if resident else [])
    set_border(g, *placed)
    new = deck_top(g, 16)
    rolls = dice(monkeypatch, g, 3, 4)
    return g, pols, new, rolls


def test_border_guard_target_adds_a_leviathan_and_is_attacked(monkeypatch):
    """The Border Guard (components 2.7, arrow): "The opponent of your choice adds a new Leviathan
    to the Border." Clarification: "the targeted opponent adds a Leviathan exactly as if they had
    explored past a Monster, and can be attacked by the resident Leviathan." Leviathan: "The
    Leviathan already present in the zone attacks you before being removed by the newcomer"."""
    g, pols, new, rolls = border_guard_game(monkeypatch, resident=3)  # #3: 3 Wounds
    pols[0].answers[D.TARGET_OPPONENT] = [2]
    recruit(g, pols, 0, "Border Guard", (C, 5), (J, 3))
    assert asked(pols[0], D.TARGET_OPPONENT) == [([1, 2], 2)]  # never the recruiting player
    assert [p.wounds for p in g.players] == [0, 0, 3]
    assert g.border[4] == new and g.life[4] == 0
    assert lev(g, 3) in g.leviathan_discard
    assert lev(g, 3) not in g.players[2].killed  # discarded, nobody's kill
    assert rolls == [] and g.n_leviathan_attacks == 1
    assert events(g, "leviathan_arrives", why="border_guard", zone=4)
    assert audit(g) == []


def test_border_guard_on_a_free_zone_nobody_is_attacked(monkeypatch):
    """Leviathan, "If the zone is free: Place the Leviathan in it and place a Life Point token on
    the top space of its card." (the Border Guard's target adds it as if exploring)."""
    g, pols, new, rolls = border_guard_game(monkeypatch, resident=None)
    pols[0].answers[D.TARGET_OPPONENT] = [1]
    recruit(g, pols, 0, "Border Guard", (C, 5), (J, 3))
    assert g.border[4] == new and g.life[4] == 0 and g.border[0] == lev(g, 12)
    assert [p.wounds for p in g.players] == [0, 0, 0]
    assert g.n_leviathan_attacks == 0 and rolls == []
    assert audit(g) == []


@pytest.mark.parametrize("resident", [5, 1, 9])
def test_border_guard_penalty_hits_only_the_target(monkeypatch, resident):
    """Leviathan: "Suffer the attack of this Leviathan by immediately applying the penalty
    effect": "Discard three Pearls" (#5), "Discard three Allies" (#1), "Discard one of your free
    Lords (those that were previously used to take control of a Location are protected)" (#9).
    With the Border Guard ("The opponent of your choice adds a new Leviathan") the chosen
    opponent suffers it - not the recruiting player, not the other opponent."""
    g, pols, _, _ = border_guard_game(monkeypatch, resident=resident)
    pols[0].answers[D.TARGET_OPPONENT] = [1]
    victim, other = g.players[1], g.players[2]
    for seat in (1, 2):
        set_pearls(g, seat, 5)
        give_allies(g, seat, (S, 1), (SH, 2), (Q, 3), (J, 4))  # 5 cards with the start Crab
    keeper, reaper = give_lord(g, 1, "Keeper"), give_lord(g, 1, "Reaper")
    give_lord(g, 2, "Miller")
    shepherd = give_lord(g, 1, "Shepherd")
    give_location(g, 1, "Parliament", [shepherd])  # protected from the Lord penalty
    pols[1].answers[L.LOSE_LORD] = [reaper]
    set_pearls(g, 0, 4)
    before_other = (other.pearls, list(other.hand), list(other.lords), other.wounds)
    recruit(g, pols, 0, "Border Guard", (C, 5), (J, 3))
    p0 = g.players[0]
    assert p0.pearls == 4 and p0.wounds == 0 and p0.lords == [lord_id(g, "Border Guard")]
    assert len(p0.hand) == 1  # the starting Crab
    assert (other.pearls, other.hand, other.lords, other.wounds) == before_other
    if resident == 5:
        assert victim.pearls == 2 and len(victim.hand) == 5
    elif resident == 1:
        assert victim.pearls == 5 and len(victim.hand) == 2
        assert len(asked(pols[1], D.DISCARD_ALLY)) == 3  # the victim chooses
    else:
        assert asked(pols[1], L.LOSE_LORD) == [([keeper, reaper], reaper)]
        assert victim.lords == [keeper, shepherd] and reaper in g.lord_discard
    assert audit(g) == []


def test_shaman_owner_cannot_be_targeted_by_the_border_guard(monkeypatch):
    """Shaman (components 1.4): "You are protected against the Powers of Military Lords." The
    Border Guard is a Soldier (Crab) Lord: "The opponent of your choice adds a new Leviathan"
    may only choose an unprotected opponent."""
    g, pols, new, rolls = border_guard_game(monkeypatch, n=4, resident=3)
    give_lord(g, 1, "Shaman")
    pols[0].answers[D.TARGET_OPPONENT] = [3]
    recruit(g, pols, 0, "Border Guard", (C, 5), (J, 3))
    assert asked(pols[0], D.TARGET_OPPONENT) == [([2, 3], 3)]
    assert [p.wounds for p in g.players] == [0, 0, 0, 3]
    assert g.border[4] == new and rolls == []
    assert audit(g) == []


def test_border_guard_does_nothing_when_every_opponent_has_a_shaman(monkeypatch):
    """Shaman (components 1.4): "You are protected against the Powers of Military Lords." With
    every opponent protected (a two-player game, the only opponent owns the Shaman) the Border
    Guard's "The opponent of your choice adds a new Leviathan" has no target: no Leviathan is
    drawn, no die rolled, and the recruiting player is never hit instead."""
    g, pols, new, rolls = border_guard_game(monkeypatch, n=2, resident=3)
    give_lord(g, 1, "Shaman")
    border, deck = list(g.border), list(g.leviathan_deck)
    recruit(g, pols, 0, "Border Guard", (C, 5), (J, 3))
    assert asked(pols[0], D.TARGET_OPPONENT) == []
    assert g.border == border and g.leviathan_deck == deck and deck[-1] == new
    assert [p.wounds for p in g.players] == [0, 0]
    assert rolls == [3, 4] and g.n_leviathan_attacks == 0
    assert audit(g) == []


def test_border_guard_target_with_a_disabled_shaman_is_not_protected(monkeypatch):
    """Shaman (components 1.4) is semi-permanent; docs/rules-notes.md: semi-permanent powers work
    while the Lord is free and "not disabled by the Assassin". A disabled Shaman does not protect
    against the Border Guard's "The opponent of your choice adds a new Leviathan"."""
    g, pols, new, rolls = border_guard_game(monkeypatch, n=2, resident=3)
    shaman = give_lord(g, 1, "Shaman")
    g.players[1].disabled.add(shaman)
    recruit(g, pols, 0, "Border Guard", (C, 5), (J, 3))
    assert [p.wounds for p in g.players] == [0, 3]
    assert g.border[4] == new and rolls == []
    assert audit(g) == []


def test_border_guard_with_an_empty_leviathan_deck_adds_nothing(monkeypatch):
    """Leviathan: "Reveal the top card of the Leviathan deck" - with the deck empty the Border
    Guard's target has nothing to add and is not attacked."""
    g, pols, _, rolls = border_guard_game(monkeypatch, resident=3)
    g.leviathan_discard.extend(g.leviathan_deck)
    g.leviathan_deck.clear()
    border = list(g.border)
    recruit(g, pols, 0, "Border Guard", (C, 5), (J, 3))
    assert g.border == border and [p.wounds for p in g.players] == [0, 0, 0]
    assert rolls == [3, 4]
    assert audit(g) == []


# ============================================================================ Taxidermist
def fight_game(monkeypatch, *lords: str, border=((3, 1), (6, 12)), allies=((C, 5),), rolls=(5,)):
    """Seat 0 owns `lords`, holds only `allies` and will fight (zone 3 first) with dice `rolls`.
    Default Border: #1 (R3/1 R7/2 R5/1) in zone 3, #12 (R5/1) in zone 6."""
    g, pols = make_game({L.LEVIATHAN_TARGET: [3], L.ATTACK_ALLY: strongest})
    set_border(g, *border)
    clear_hand(g, 0)
    ids = give_allies(g, 0, *allies)
    owned = [give_lord(g, 0, name) for name in lords]
    set_pearls(g, 0, 0)
    left = dice(monkeypatch, g, *rolls)
    return g, pols, ids, owned, left


@pytest.mark.parametrize("taxidermist", [False, True])
def test_taxidermist_two_pearls_per_life_point_of_a_multi_life_attack(monkeypatch, taxidermist):
    """The Taxidermist (components 2.7, semi-permanent): "Earn 2 Pearls for each Health point you
    remove from a Leviathan." Leviathan: "If your Attack Power is equal to or greater than the sum
    of multiple Leviathan Resistance levels, it loses as many Life Points as levels are
    surpassed." Crab 5 + die 5 = 10 = 3 + 7 removes two Life Points of #1: +4 Pearls."""
    lords = ("Taxidermist",) if taxidermist else ()
    g, _, _, _, left = fight_game(monkeypatch, *lords)
    p0 = g.players[0]
    g.fight(p0)
    assert g.life[3] == 2 and g.border[3] == lev(g, 1)
    assert p0.pearls == (4 if taxidermist else 0)
    assert pearl_gains(g, "taxidermist", 0) == (4 if taxidermist else 0)
    assert len(p0.tokens) == 1 + 2  # the printed rewards are unchanged
    assert left == []
    assert audit(g) == []


def test_taxidermist_kill_of_all_three_life_points(monkeypatch):
    """The Taxidermist (components 2.7): "Earn 2 Pearls for each Health point you remove from a
    Leviathan." One attack of 15 = 3 + 7 + 5 kills #1 outright: 3 x 2 Pearls. The power comes
    from a Crab 2 with "After rolling the die, you can spend as many Pearls as you wish to add to
    your Attack Power": die 6 + 2 + 7 Pearls."""
    g, pols, _, _, left = fight_game(monkeypatch, "Taxidermist", allies=((C, 2, 1),), rolls=(6,))
    set_pearls(g, 0, 7)
    pols[0].answers[L.ADD_PEARLS] = [7]
    p0 = g.players[0]
    g.fight(p0)
    assert p0.killed == [lev(g, 1)] and g.border[3] == -1
    assert p0.pearls == 0 + 3 * 2 and pearl_gains(g, "taxidermist", 0) == 6
    assert len(p0.tokens) == 1 + 2 + 1
    assert left == []
    assert audit(g) == []


def test_taxidermist_no_pearls_for_a_failed_attack(monkeypatch):
    """The Taxidermist pays "for each Health point you remove"; a failed attack removes none and
    gives only Leviathan's consolation: "Your Ally is discarded, but you still gain 1 Pearl"."""
    g, _, _, _, left = fight_game(monkeypatch, "Taxidermist", border=((3, 7),), rolls=(2,))
    p0 = g.players[0]
    g.fight(p0)  # Crab 5 + 2 = 7 < 8
    assert p0.pearls == 1 and pearl_gains(g, "taxidermist", 0) == 0 and p0.tokens == []
    assert left == []
    assert audit(g) == []


def test_taxidermist_under_a_location_earns_nothing(monkeypatch):
    """The Taxidermist (components 2.7) is semi-permanent ("Earn 2 Pearls for each Health point
    you remove"): under a Location its power is hidden (docs/rules-notes.md)."""
    g, _, _, owned, _ = fight_game(monkeypatch, "Taxidermist")
    give_location(g, 0, "Parliament", owned)
    g.fight(g.players[0])
    assert g.life[3] == 2 and g.players[0].pearls == 0
    assert audit(g) == []


# ============================================================================ Arms Dealer
@pytest.mark.parametrize("n_leviathans", [1, 3, 9])
def test_arms_dealer_one_pearl_per_leviathan_on_the_border(n_leviathans):
    """The Arms Dealer (components 2.7, arrow): "Earn 1 Pearl for each Leviathan present at the
    Border." Killed or discarded Leviathans do not count."""
    g, pols = make_game()
    set_border(g, *[(zone, zone + 1) for zone in range(n_leviathans)])
    _take_leviathan(g, lev(g, 20))
    g.players[1].killed.append(lev(g, 20))  # a killed Leviathan ...
    g.scourge = 1
    _take_leviathan(g, lev(g, 19))
    g.leviathan_discard.append(lev(g, 19))  # ... and a discarded one are not at the Border
    set_pearls(g, 0, 0)
    recruit(g, pols, 0, "Arms Dealer", (SH, 5), (J, 3))
    assert g.players[0].pearls == n_leviathans
    assert pearl_gains(g, "arms_dealer", 0) == n_leviathans
    assert [p.pearls for p in g.players[1:]] == [1, 1]
    assert audit(g) == []


def test_arms_dealer_is_once_only():
    """The Arms Dealer (components 2.7) has an arrow: "Powers marked with an arrow are applied once
    upon recruitment" - owning it later gives nothing at the start of a turn or on a new
    Leviathan."""
    g, pols = make_game()
    set_border(g, (0, 1), (1, 2))
    set_pearls(g, 0, 0)
    recruit(g, pols, 0, "Arms Dealer", (SH, 5), (J, 3))
    assert g.players[0].pearls == 2
    _take_leviathan(g, lev(g, 3))
    g.place_leviathan(lev(g, 3), 2)  # a third Leviathan arrives later
    pols[0].answers[D.ACTION] = [0]  # explore, take the first Ally
    stack_deck(g, (S, 1))
    pols[0].answers[D.TAKE_ALLY] = [1]
    g.take_turn(0)
    assert pearl_gains(g, "arms_dealer", 0) == 2
    assert audit(g) == []


# ============================================================================== Metamorph
@pytest.mark.parametrize("number", [17, 18, 19, 20])
def test_metamorph_any_race_fights_a_raceless_leviathan(monkeypatch, number):
    """The Metamorph (components 2.7, semi-permanent): "When you fight a Leviathan, use an Ally of
    the Race of your choice." - also against #17-20, whose race is "- (Crab only)"
    (components 2.4). A Seahorse 5 + die 6 = 11 takes at least one Life Point of each."""
    g, pols, ids, _, left = fight_game(
        monkeypatch,
        "Metamorph",
        border=((3, number), (6, 12)),
        allies=((S, 5), (C, 1)),
        rolls=(6,),
    )
    seahorse, crab = ids
    p0 = g.players[0]
    assert g.attack_allies(p0, lev(g, number)) == sorted([seahorse, crab])
    g.fight(p0)
    assert asked(pols[0], L.ATTACK_ALLY) == [(sorted([seahorse, crab]), seahorse)]
    assert seahorse in g.exploration_discard
    if number in (19, 20):  # R9 / R7: killed
        assert p0.killed == [lev(g, number)] and g.border[3] == -1
    else:  # #17: 11 = 4 + 7 removes two Life Points; #18: 11 < 7 + 5 removes one
        assert p0.killed == [] and g.life[3] == {17: 2, 18: 1}[number]
    assert left == []
    assert audit(g) == []


def test_metamorph_any_race_fights_a_raced_leviathan_and_is_offered_to_fight(monkeypatch):
    """The Metamorph (components 2.7): "use an Ally of the Race of your choice". Leviathan:
    "if you do not have an Ally of the requested Race, you CANNOT fight" - with the Metamorph a
    Squid Ally is enough to fight Jellyfish #4 when a Monster is revealed."""
    g, pols, ids, _, left = fight_game(
        monkeypatch, "Metamorph", border=((3, 4),), allies=((Q, 5),), rolls=(1, 3, 4)
    )
    pols[0].answers[L.MONSTER_CHOICE] = [MonsterChoice.FIGHT]
    stack_deck(g, (None, 0))
    p0 = g.players[0]
    g.explore(p0)
    assert asked(pols[0], L.MONSTER_CHOICE) == [([0, 1], 1)]
    assert p0.killed == [lev(g, 4)] and ids[0] in g.exploration_discard
    assert g.n_fights == 1
    assert left == []  # the kill emptied the Border: a new Leviathan was rolled for (3 + 4)
    assert g.border[4] >= 0
    assert audit(g) == []


def test_without_metamorph_a_non_matching_race_is_not_offered(monkeypatch):
    """Leviathan: "Discard from your hand ONE Ally of the requested Race" and "Important: if you
    do not have an Ally of the requested Race, you CANNOT fight. You must then continue your
    Exploration and add a new Leviathan." components 2.4: "Cards 17-20 have no race printed, so
    only Crabs can attack them." Without the Metamorph a Seahorse fights neither #19 nor #4."""
    g, pols, ids, _, _ = fight_game(
        monkeypatch, border=((3, 19), (5, 4)), allies=((S, 5), (C, 1)), rolls=()
    )
    crab = ids[1]
    p0 = g.players[0]
    assert g.attack_allies(p0, lev(g, 19)) == [crab]
    assert g.attack_allies(p0, lev(g, 4)) == [crab]
    clear_hand(g, 0)
    give_allies(g, 0, (S, 4))
    assert g.fightable_zones(p0) == []
    stack_deck(g, (None, 0), (S, 1))
    pols[0].answers[D.TAKE_ALLY] = [1]
    deck_top(g, 16)
    left = dice(monkeypatch, g, 1, 1)  # the new Leviathan goes to zone 0
    g.explore(p0)
    assert asked(pols[0], L.MONSTER_CHOICE) == []  # only "continue": not even asked
    assert g.border[0] == lev(g, 16) and g.n_fights == 0 and g.n_continues == 1
    assert left == []
    assert audit(g) == []


def test_metamorph_disabled_does_not_work(monkeypatch):
    """The Metamorph is semi-permanent ("When you fight a Leviathan, use an Ally of the Race of
    your choice."): disabled by the Assassin, it counts only for points."""
    g, _, ids, owned, _ = fight_game(
        monkeypatch, "Metamorph", border=((3, 19),), allies=((S, 5), (C, 1)), rolls=()
    )
    g.players[0].disabled.add(owned[0])
    assert g.attack_allies(g.players[0], lev(g, 19)) == [ids[1]]
    assert audit(g) == []


# =============================================================================== Sorcerer
def sorcerer_game(monkeypatch, *keep: tuple, rolls=()):
    """Seat 0 recruits the Sorcerer (Jellyfish 5 + Squid 3), keeping only `keep` in hand.
    Border: #12 (Squid R5/1) in zone 2, #8 (Shellfish R6/1) in zone 6."""
    g, pols = make_game({L.ATTACK_ALLY: strongest, L.LEVIATHAN_TARGET: [2]})
    set_border(g, (2, 12), (6, 8))
    clear_hand(g, 0)
    kept = give_allies(g, 0, *keep)
    left = dice(monkeypatch, g, *rolls)
    return g, pols, kept, left


def test_sorcerer_fights_immediately_on_recruitment(monkeypatch):
    """The Sorcerer (components 2.7, arrow): "You can immediately fight a Leviathan."
    Clarification: "an immediate fight during the recruit turn". Crab 4 + die 1 = 5 kills #12."""
    g, pols, kept, left = sorcerer_game(monkeypatch, (C, 4), rolls=(1,))
    pols[0].answers[L.USE_POWER] = [1]
    recruit(g, pols, 0, "Sorcerer", (J, 5), (Q, 3))
    p0 = g.players[0]
    assert asked(pols[0], L.USE_POWER) == [([0, 1], 1)]
    assert p0.killed == [lev(g, 12)] and kept[0] in g.exploration_discard
    assert g.n_fights == 1 and g.n_kills == 1 and g.scourge == 0
    assert left == []
    assert audit(g) == []


def test_sorcerer_fight_may_be_declined(monkeypatch):
    """The Sorcerer (components 2.7): "You CAN immediately fight a Leviathan." - declining leaves
    the Border and the hand alone."""
    g, pols, kept, left = sorcerer_game(monkeypatch, (C, 4))
    pols[0].answers[L.USE_POWER] = [0]
    border = list(g.border)
    recruit(g, pols, 0, "Sorcerer", (J, 5), (Q, 3))
    assert asked(pols[0], L.USE_POWER) == [([0, 1], 0)]
    assert g.border == border and g.players[0].hand == kept and g.n_fights == 0
    assert audit(g) == []


@pytest.mark.parametrize("keep", [(), ((J, 4),)], ids=["empty_hand", "jellyfish_only"])
def test_sorcerer_not_offered_without_an_eligible_ally(monkeypatch, keep):
    """The Sorcerer (components 2.7): "You can immediately fight a Leviathan." Leviathan:
    "Important: if you do not have an Ally of the requested Race, you CANNOT fight." With no Ally
    (or only a Jellyfish, while the Border holds a Squid and a Shellfish Leviathan) the fight is
    not offered."""
    g, pols, kept, left = sorcerer_game(monkeypatch, *keep)
    pols[0].answers[L.USE_POWER] = [1]
    border = list(g.border)
    recruit(g, pols, 0, "Sorcerer", (J, 5), (Q, 3))
    assert asked(pols[0], L.USE_POWER) == []
    assert g.border == border and g.players[0].hand == kept and g.n_fights == 0
    assert audit(g) == []


def test_sorcerer_attacks_again_until_it_stops(monkeypatch):
    """The Sorcerer's fight is a normal fight: Leviathan "you can attack it multiple times,
    provided you discard a new Ally of the requested Race." First attack 4 + 1 < 6 fails (+1
    Pearl), the second 4 + 2 kills #8."""
    g, pols, kept, left = sorcerer_game(monkeypatch, (SH, 4), (SH, 4), rolls=(1, 2))
    pols[0].answers[L.USE_POWER] = [1]
    pols[0].answers[L.ATTACK_AGAIN] = [1]
    set_pearls(g, 0, 0)
    recruit(g, pols, 0, "Sorcerer", (J, 5), (Q, 3))
    p0 = g.players[0]
    assert p0.killed == [lev(g, 8)] and p0.hand == [] and p0.pearls == 1
    assert g.n_fights == 1 and left == []
    assert audit(g) == []


# =============================================================================== Altruist
@pytest.mark.parametrize("altruist", [False, True])
def test_altruist_one_extra_token_per_life_point(monkeypatch, altruist):
    """The Altruist (components 2.7, semi-permanent): "Win 1 extra Monster token for each Health
    point you remove from a Leviathan." Crab 5 + die 5 = 10 = 3 + 7 removes two Life Points of
    #1 (printed rewards 1 + 2 tokens): 3 tokens, 5 with the Altruist."""
    lords = ("Altruist",) if altruist else ()
    g, pols, _, _, left = fight_game(monkeypatch, *lords)
    p0 = g.players[0]
    g.fight(p0)
    assert g.life[3] == 2
    assert len(p0.tokens) == (5 if altruist else 3)
    assert len(asked(pols[0], L.TOKEN_DECK)) == len(p0.tokens)  # each chosen from either deck
    assert left == []
    assert audit(g) == []


def test_altruist_extra_tokens_may_come_from_the_leviathan_deck(monkeypatch):
    """The Altruist: "Win 1 extra Monster token for each Health point" and Leviathan: "You can
    choose your Monster tokens from those of this expansion, those of the base game, or a mix of
    both." Killing #12 (R5/1 token) gives 2 tokens; here both from the new deck, kept hidden."""
    g, pols, _, _, left = fight_game(monkeypatch, "Altruist", border=((3, 12), (6, 1)))
    pols[0].answers[L.TOKEN_DECK] = [1, 1]
    pols[0].answers[L.REVEAL_TOKEN] = [0, 0]
    p0 = g.players[0]
    g.fight(p0)
    assert p0.killed == [lev(g, 12)]
    assert p0.tokens == [] and len(p0.held_tokens) == 2
    assert left == []
    assert audit(g) == []


def test_altruist_disabled_gives_no_extra_token(monkeypatch):
    """The Altruist is semi-permanent: a Lord disabled by the Assassin "counts only for points"."""
    g, _, _, owned, _ = fight_game(monkeypatch, "Altruist")
    g.players[0].disabled.add(owned[0])
    g.fight(g.players[0])
    assert len(g.players[0].tokens) == 3
    assert audit(g) == []


# ================================================================================== Rebel
def rebel_game(monkeypatch, *border: tuple, rolls=()):
    g, pols = make_game()
    set_border(g, *border)
    set_pearls(g, 0, 0)
    left = dice(monkeypatch, g, *rolls)
    return g, pols, left


def test_rebel_removes_one_life_point_with_its_reward(monkeypatch):
    """The Rebel (Leviathan): "choose a Leviathan. It loses one Life Point as if you had made a
    successful attack against it. You thus take the corresponding reward." #9 (Squid, R3/1
    token) loses its top Life Point: 1 Monster token, no die, no Ally discarded."""
    g, pols, left = rebel_game(monkeypatch, (1, 4), (5, 9))
    pols[0].answers[L.LEVIATHAN_TARGET] = [5]
    recruit(g, pols, 0, "Rebel", (Q, 5), (J, 3))
    p0 = g.players[0]
    assert asked(pols[0], L.LEVIATHAN_TARGET) == [([1, 5], 5)]  # any Leviathan at the Border
    assert g.border[5] == lev(g, 9) and g.life[5] == 1
    assert len(p0.tokens) == 1 and p0.killed == [] and p0.pearls == 0
    assert g.n_fights == 0 and left == []
    assert audit(g) == []


def test_rebel_kills_on_the_last_life_point_and_keeps_the_card(monkeypatch):
    """The Rebel (Leviathan): "If it was its last Life Point, you kill it and keep the Leviathan
    card in front of you." and "If you are the first player to kill a Leviathan, take the Scourge
    of the Abyss." #1 on its last space (R5/1 token)."""
    g, pols, left = rebel_game(monkeypatch, (1, 4), (5, 1, 2))
    pols[0].answers[L.LEVIATHAN_TARGET] = [5]
    recruit(g, pols, 0, "Rebel", (Q, 5), (J, 3))
    p0 = g.players[0]
    assert p0.killed == [lev(g, 1)] and g.border[5] == -1
    assert len(p0.tokens) == 1 and g.scourge == 0 and g.n_kills == 1
    assert g.border[1] == lev(g, 4) and left == []
    assert audit(g) == []


def test_rebel_kill_takes_the_scourge_on_a_tie(monkeypatch):
    """Leviathan: "As soon as an opponent reaches or exceeds the number of Leviathans killed by
    the most valiant defender, they take the statue from the player who currently possesses it."
    The Rebel's kill ("you kill it and keep the Leviathan card") counts."""
    g, pols, left = rebel_game(monkeypatch, (1, 4), (5, 12))
    _take_leviathan(g, lev(g, 20))
    g.players[1].killed.append(lev(g, 20))
    g.scourge = 1
    pols[0].answers[L.LEVIATHAN_TARGET] = [5]
    recruit(g, pols, 0, "Rebel", (Q, 5), (J, 3))
    assert g.players[0].killed == [lev(g, 12)] and g.scourge == 0
    assert audit(g) == []


def test_rebel_kill_of_the_last_leviathan_adds_a_new_one(monkeypatch):
    """Leviathan: "each time a player kills the last Leviathan present on the Border, they
    automatically add a new one ... without taking into account the Exploration." After the
    Rebel's kill the dice place the next Leviathan; nobody is attacked."""
    g, pols, left = rebel_game(monkeypatch, (5, 4), rolls=(6, 6))
    new = deck_top(g, 3)
    recruit(g, pols, 0, "Rebel", (Q, 5), (J, 3))
    assert g.players[0].killed == [lev(g, 4)]
    assert g.border[8] == new and g.life[8] == 0 and g.border_zones() == [8]
    assert [p.wounds for p in g.players] == [0, 0, 0] and left == []
    assert audit(g) == []


def test_rebel_with_taxidermist_and_altruist(monkeypatch):
    """The Rebel removes a Life Point "as if you had succeeded with an attack" (components 2.7),
    so "Earn 2 Pearls for each Health point you remove" (Taxidermist) and "Win 1 extra Monster
    token for each Health point you remove" (Altruist) both apply: #9's R3/1 space pays 1 + 1
    tokens and 2 Pearls."""
    g, pols, left = rebel_game(monkeypatch, (5, 9))
    give_lord(g, 0, "Taxidermist")
    give_lord(g, 0, "Altruist")
    recruit(g, pols, 0, "Rebel", (Q, 5), (J, 3))
    p0 = g.players[0]
    assert g.life[5] == 1 and len(p0.tokens) == 2 and p0.pearls == 2
    assert pearl_gains(g, "taxidermist", 0) == 2 and left == []
    assert audit(g) == []


# ================================================================================= Coward
def coward_game(monkeypatch, coward_seat: int | None = 0):
    """Seat 0 explores: a Monster, then a Seahorse 2 that it takes. Border: #12 (zone 2)."""
    g, pols = make_game({D.TAKE_ALLY: [1]})
    set_border(g, (2, 12))
    monster, seahorse = stack_deck(g, (None, 0), (S, 2))
    lord = give_lord(g, coward_seat, "Coward") if coward_seat is not None else None
    left = dice(monkeypatch, g)
    return g, pols, monster, seahorse, lord, left


def test_coward_ignores_the_monster_and_keeps_exploring(monkeypatch):
    """The Coward (components 2.7, semi-permanent): "You can choose to ignore Monsters revealed
    during your Exploration, the cards are discarded." No Leviathan is added (no die, no
    attack) and the Exploration continues."""
    g, pols, monster, seahorse, _, left = coward_game(monkeypatch)
    pols[0].answers[L.MONSTER_CHOICE] = [MonsterChoice.IGNORE]
    deck = list(g.leviathan_deck)
    p0 = g.players[0]
    g.explore(p0)
    assert asked(pols[0], L.MONSTER_CHOICE) == [([0, 1, 2], MonsterChoice.IGNORE)]
    assert monster in g.exploration_discard
    assert seahorse in p0.hand  # the Exploration went on ...
    assert events(g, "reveal", card=seahorse)[0]["slot"] == 1  # ... the Monster's space freed
    assert g.leviathan_deck == deck and g.border_zones() == [2]
    assert g.n_continues == 0 and g.n_fights == 0 and p0.wounds == 0 and left == []
    assert audit(g) == []


def test_coward_may_still_continue_or_fight(monkeypatch):
    """The Coward: "You CAN choose to ignore Monsters" - continuing (add a Leviathan) stays
    possible. Leviathan: "Reveal the top card of the Leviathan deck, then roll the 2 dice."
    """
    g, pols, monster, seahorse, _, left = coward_game(monkeypatch)
    pols[0].answers[L.MONSTER_CHOICE] = [MonsterChoice.CONTINUE]
    new = deck_top(g, 16)
    left += [1, 2]  # zone 0
    g.explore(g.players[0])
    assert g.border[0] == new and g.n_continues == 1 and left == []
    assert seahorse in g.players[0].hand
    assert audit(g) == []


@pytest.mark.parametrize("how", ["none", "opponent", "disabled", "under_location"])
def test_ignore_not_offered_without_a_working_coward_of_ones_own(monkeypatch, how):
    """The Coward (components 2.7): "You can choose to ignore Monsters revealed during YOUR
    Exploration" - not an opponent's Coward, nor a disabled one or one under a Location (a
    semi-permanent power, docs/rules-notes.md). The explorer holds the starting Crab 1 so both
    Leviathan choices are offered."""
    seat = {"none": None, "opponent": 1}.get(how, 0)
    g, pols, _, _, lord, left = coward_game(monkeypatch, seat)
    if how == "disabled":
        g.players[0].disabled.add(lord)
    elif how == "under_location":
        give_location(g, 0, "Parliament", [lord])
    pols[0].answers[L.MONSTER_CHOICE] = [MonsterChoice.CONTINUE]
    left += [3, 4]
    g.explore(g.players[0])
    assert asked(pols[0], L.MONSTER_CHOICE) == [([0, 1], 0)]
    assert g.n_continues == 1 and left == []
    assert audit(g) == []


# ================================================================================ Breeder
def test_breeder_places_a_leviathan_on_a_free_zone_of_choice(monkeypatch):
    """The Breeder (components 2.7, arrow): "Draw a Leviathan and place it on any free space of
    the Border." No dice are rolled and nobody is attacked; occupied zones are not offered."""
    g, pols = make_game()
    set_border(g, (4, 3), (5, 1))
    new = deck_top(g, 7)
    left = dice(monkeypatch, g)
    pols[0].answers[L.BORDER_ZONE] = [7]
    recruit(g, pols, 0, "Breeder", (S, 5), (J, 5))
    assert asked(pols[0], L.BORDER_ZONE) == [([0, 1, 2, 3, 6, 7, 8], 7)]
    assert g.border[7] == new and g.life[7] == 0
    assert g.border[4] == lev(g, 3) and g.border[5] == lev(g, 1)
    assert [p.wounds for p in g.players] == [0, 0, 0] and g.n_leviathan_attacks == 0
    assert left == []
    assert audit(g) == []


def test_breeder_with_an_empty_leviathan_deck_does_nothing(monkeypatch):
    """The Breeder: "Draw a Leviathan" - with the Leviathan deck empty there is nothing to draw."""
    g, pols = make_game()
    set_border(g, (4, 3))
    g.leviathan_discard.extend(g.leviathan_deck)
    g.leviathan_deck.clear()
    left = dice(monkeypatch, g)
    recruit(g, pols, 0, "Breeder", (S, 5), (J, 5))
    assert asked(pols[0], L.BORDER_ZONE) == []
    assert g.border_zones() == [4] and left == []
    assert audit(g) == []


def test_breeder_with_a_full_border_does_nothing(monkeypatch):
    """The Breeder (components 2.7): "Draw a Leviathan and place it on ANY FREE SPACE of the
    Border." The text does not say what happens when no space is free; the engine's reading
    (reported as an ambiguity) is that nothing is drawn and no Leviathan is replaced."""
    g, pols = make_game()
    set_border(g, *[(zone, zone + 1) for zone in range(9)])
    border, deck = list(g.border), list(g.leviathan_deck)
    left = dice(monkeypatch, g)
    recruit(g, pols, 0, "Breeder", (S, 5), (J, 5))
    assert asked(pols[0], L.BORDER_ZONE) == []
    assert g.border == border and g.leviathan_deck == deck and left == []
    assert audit(g) == []
