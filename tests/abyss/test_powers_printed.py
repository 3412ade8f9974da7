"""The Lord powers of Abyss and its Leviathan expansion, checked against their printed texts: the
consequences and edge cases that tests/abyss/test_rules_lords.py and test_rules_leviathan_lords.py
leave open (docs/card-powers.md maps every power to the tests that check it).

Printed texts: components.md 1.4 and 2.7 (the card wording) with its clarifications, and the
rulebook ("Powers marked with an arrow are applied once upon recruitment. Powers without an arrow
are semi-permanent until the Lord is used to control a Location"; components.md 1.3: "its owner
chooses when during their turn to apply it"; a Lord disabled by the Assassin "counts only for
points"). The Slaver, the Hunter and Black Smokers are checked elsewhere.

Each test arranges a state with the helpers of the two Lord test modules, runs the engine's own
method (`recruit`, `apply_recruit_power`, `take_turn`, `explore`) with `Scripted` policies
answering, and checks every consequence the text names, then `audit(g) == []`.
"""

from __future__ import annotations

import pytest
from abyss_helpers import (
    Race,
    give_allies,
    give_location,
    give_lord,
    lord_id,
    put_in_court,
    set_pearls,
    stack_deck,
)
from test_rules_leviathan_lords import make_game as lev_game
from test_rules_leviathan_lords import recruit as lev_recruit
from test_rules_leviathan_lords import set_border
from test_rules_lords import (
    PAY,
    _explore_ship_master,
    _hand_of,
    asked,
    events,
    location_deck_top,
    make_game,
    pearl_gains,
    set_court,
    to_council,
    with_rules,
)

from games.abyss.engine.audit import audit
from games.abyss.engine.cards.constants import Power
from games.abyss.engine.rules.base import Action
from games.abyss.engine.rules.base import Decision as D
from games.abyss.engine.rules.game import Game
from games.abyss.engine.rules.leviathan import LevDecision as L

J, C, S, SH, Q = Race.JELLYFISH, Race.CRAB, Race.SEAHORSE, Race.SHELLFISH, Race.SQUID


def recruit_from(g: Game, pols, seat: int, court: list[str], name: str, pearls: int = 0) -> int:
    """Seat recruits `name` (paid exactly with PAY[name]) from a Court holding only `court`."""
    put_in_court(g, *court, clear=True)
    lord = lord_id(g, name)
    give_allies(g, seat, *PAY[name])
    set_pearls(g, seat, pearls)
    pols[seat].answers[D.RECRUIT_LORD] = [lord]
    g.recruit(g.players[seat])
    assert lord in g.players[seat].lords
    return lord


def turns(g: Game, rounds: int) -> None:
    """Every seat plays `rounds` turns in order (first options: explore, buy nothing)."""
    for _ in range(rounds):
        for seat in range(g.n_players):
            g.take_turn(seat)


# ======================================================================== once vs permanent
@pytest.mark.parametrize(
    "name, kind, why",
    [
        ("Jailer", "discard_ally", "jailer"),
        ("Seeker", "pearls", "seeker"),
        ("Assassin", "assassinate", None),
    ],
)
def test_military_arrow_power_hits_each_opponent_once_never_again(name, kind, why):
    """Arrow powers "are applied once upon recruitment": the Jailer (#2) "Each of your opponents
    must discard 1 Ally from their hand.", the Seeker (#3) "Each of your opponents must return 2
    Pearls to the Treasury.", the Assassin (#4) "Disable 1 Lord from each opponent." - once per
    opponent on recruitment, and two more rounds of turns (the owner's included) add nothing
    (each opponent keeps a second Ally, Pearls and a second free Lord that a repeat would hit)."""
    g, _ = make_game()
    for seat, lords in ((1, ("Keeper", "Miller")), (2, ("Reaper", "Landowner"))):
        give_allies(g, seat, (J, 1), (C, 2), (SH, 3))
        set_pearls(g, seat, 6)
        for lord_name in lords:
            give_lord(g, seat, lord_name)
    lord = give_lord(g, 0, name)
    g.apply_recruit_power(g.players[0], lord)
    match = {"why": why} if why else {}
    hits = events(g, kind, **match)
    assert sorted(e.get("who") if why else e["victim"] for e in hits) == [1, 2]
    turns(g, 2)
    assert events(g, kind, **match) == hits
    assert audit(g) == []


# ============================================================================== Assassin
def test_assassin_skips_an_opponent_without_a_free_working_lord():
    """The Assassin (#4): "Disable 1 Lord from each opponent." components.md: Lords under a
    Location are "no longer "free" and can no longer be targeted". An opponent whose Lords are
    all under Locations, or whose only free Lord is already disabled, loses nothing more; the
    others are still hit."""
    g, pols = make_game(n=4)
    p0, p1, p2, p3 = g.players
    keeper = give_lord(g, 1, "Keeper")
    give_location(g, 1, "Parliament", [keeper])
    reaper = give_lord(g, 2, "Reaper")
    p2.disabled.add(reaper)
    shepherd = give_lord(g, 3, "Shepherd")
    assassin = give_lord(g, 0, "Assassin")
    g.apply_recruit_power(p0, assassin)
    assert p1.disabled == set() and keeper in p1.under
    assert p2.disabled == {reaper}
    assert p3.disabled == {shepherd}
    assert [e["victim"] for e in events(g, "assassinate")] == [3]
    assert asked(pols[0], D.ASSASSIN_TARGET) == []  # one target each at most: nothing to choose
    assert audit(g) == []


# ============================================================================= Commander
def test_commander_disabled_limits_nobody():
    """The Commander (#5) is semi-permanent ("Your opponents can no longer hold more than 6 Allies
    in hand"); disabled by the Assassin it "counts only for points": an opponent holding 8 takes
    a 9th Ally in an exploration and ends the turn with 9, discarding nothing."""
    g, _ = make_game({}, {D.TAKE_ALLY: [1]})
    p1 = g.players[1]
    commander = give_lord(g, 0, "Commander")
    g.players[0].disabled.add(commander)
    _hand_of(g, 1, 8)
    (squid,) = stack_deck(g, (Q, 5))
    g.take_turn(1)
    assert squid in p1.hand and len(p1.hand) == 9
    assert events(g, "discard_ally", why="commander") == []
    assert audit(g) == []


def test_commander_limit_is_checked_at_the_end_of_the_opponents_turn():
    """The Commander (#5): "Your opponents can no longer hold more than 6 Allies in hand. They must
    immediately discard any extras." components.md (from [UTIL]): "They discard down on
    recruitment and re-check at the end of each of their turns" - the reading the engine follows
    (docs/rules-notes.md). An opponent holding 6 who buys a 7th Ally during the owner's
    exploration keeps it until the end of their own next turn, then discards down to 6."""
    g, pols = make_game({D.TAKE_ALLY: [1]}, {D.BUY: [1], D.ACTION: [Action.REQUEST_SUPPORT]})
    p1 = g.players[1]
    give_lord(g, 0, "Commander")
    _hand_of(g, 1, 6)
    set_pearls(g, 1, 3)
    bought, _ = stack_deck(g, (Q, 5), (S, 1))
    g.explore(g.players[0])
    assert bought in p1.hand and len(p1.hand) == 7
    set_court(g)
    to_council(g, C, 1)
    g.take_turn(1)
    assert len(p1.hand) == 6
    assert len(events(g, "discard_ally", who=1, why="commander")) == 2
    assert audit(g) == []


# ================================================================================= Tamer
def test_tamer_disabled_gives_the_full_reward():
    """The Tamer (#6) is semi-permanent ("When your opponents fight a Monster, they earn the reward
    from the previous Monster Track space"): disabled by the Assassin it no longer lowers the
    reward - at space 2 the opponent takes the Key of space 2."""
    g, _ = make_game()
    tamer = give_lord(g, 1, "Tamer")
    g.players[1].disabled.add(tamer)
    p0 = g.players[0]
    g.threat = 2
    g.fight_monster(p0, False)
    assert p0.keys == 1 and events(g, "fight_monster", who=0)[0]["space"] == 2
    assert audit(g) == []


def test_tamer_lowers_the_reward_of_a_last_space_monster_but_not_its_pearl():
    """The Tamer (#6): "they earn the reward from the previous Monster Track space". Rulebook: "If
    a Monster is revealed on the last space of the Exploration Track, you must fight it. You
    receive the Threat Track reward plus one Pearl." At space 3 (Key + Pearl, or Key + Monster)
    the Tamer gives the reward of space 2 (a Key) - and the extra Pearl of the last space stays."""
    g, pols = make_game({D.TAKE_ALLY: [0, 0, 0, 0]})
    give_lord(g, 1, "Tamer")
    p0 = g.players[0]
    set_pearls(g, 0, 0)
    stack_deck(g, (C, 1), (C, 2), (Q, 1), (J, 3), (None, 0))
    g.threat = 3
    g.explore(p0)
    (fight,) = events(g, "fight_monster", who=0)
    assert fight["space"] == 2
    assert asked(pols[0], D.THREAT_REWARD) == []  # space 2 has a single reward
    assert p0.keys == 1 and p0.tokens == []
    assert pearl_gains(g, "monster", 0) == 0 and pearl_gains(g, "last_space", 0) == 1
    assert p0.pearls == 1 and g.threat == 0
    assert audit(g) == []


# =========================================================================== Ship Master
@pytest.mark.parametrize("how", ["disabled", "under"])
def test_ship_master_disabled_or_under_a_location_pays_nothing(how):
    """The Ship Master (#8) is semi-permanent: "Gain 1 Pearl for each different Race that you send
    to the Council." Disabled ("counts only for points") or slid under a Location, the same
    exploration (two races sent to the Council) pays nothing."""
    g, pols = make_game()
    ship_master = give_lord(g, 0, "Ship Master")
    if how == "disabled":
        g.players[0].disabled.add(ship_master)
    else:
        give_location(g, 0, "The Dockworks", [ship_master])
    set_pearls(g, 0, 0)
    assert _explore_ship_master(g, pols, 0) == 0
    assert g.players[0].pearls == 0
    assert audit(g) == []


# ============================================================================= Landlord
def test_landlord_pearl_at_the_start_of_an_extra_turn_too():
    """The Landlord (#11): "Gain 1 Pearl now and at the start of EACH of your turns." The Invoker
    (#15): "Take an extra turn after this one." - the extra turn is one of the owner's turns:
    seat 0 recruits the Invoker on turn 1 and gains the Landlord's Pearl at the start of turns 1
    and 2 (the extra one), not at the start of seat 1's turn 3."""
    g, pols = make_game({D.ACTION: [Action.RECRUIT]}, t=with_rules(turn_limit=3))
    give_lord(g, 0, "Landlord")
    invoker = lord_id(g, "Invoker")
    pols[0].answers[D.RECRUIT_LORD] = [invoker]
    set_court(g, "Invoker")
    give_allies(g, 0, *PAY["Invoker"])
    g.play()
    assert [e["who"] for e in events(g, "turn_start")] == [0, 0, 1]
    assert [e["turn"] for e in events(g, "pearls", why="landlord")] == [1, 2]
    assert audit(g) == []


# ===================================================================== Apprentice, Oracle
def test_apprentice_takes_one_stack_even_with_the_alchemist():
    """The Apprentice (#16): "Add 1 stack of cards from the Council to your hand." The Alchemist
    (#18): "When you request support from the Council, add 2 stacks to your hand instead of 1."
    The Apprentice's stack is not a request for support: one stack, even for the Alchemist's
    owner."""
    g, pols = make_game({D.COUNCIL_STACK: [int(Q)]})
    give_lord(g, 0, "Alchemist")
    to_council(g, J, 1)
    to_council(g, C, 2)
    squid = to_council(g, Q, 3)
    apprentice = give_lord(g, 0, "Apprentice")
    g.apply_recruit_power(g.players[0], apprentice)
    assert g.players[0].hand == squid
    assert len(asked(pols[0], D.COUNCIL_STACK)) == 1
    assert g.council[J] and g.council[C]
    assert audit(g) == []


@pytest.mark.parametrize("how", ["working", "empty_council", "disabled", "under", "opponent"])
def test_oracle_offered_only_to_its_free_owner_with_a_stack_to_discard(how):
    """The Oracle (#17): "During YOUR turn, you MAY discard 1 stack of cards from the council."
    Offered (before the action) to its owner while a stack is in the Council; not with an empty
    Council (nothing to discard), nor when disabled ("counts only for points") or under a
    Location (semi-permanent), nor to an opponent of its owner."""
    g, pols = make_game({D.ACTION: [Action.REQUEST_SUPPORT]})
    oracle = give_lord(g, 1 if how == "opponent" else 0, "Oracle")
    if how == "disabled":
        g.players[0].disabled.add(oracle)
    elif how == "under":
        give_location(g, 0, "The Sanctuary", [oracle])
    set_court(g)
    if how == "empty_council":
        # explore instead: the first Ally is taken, nothing reaches the Council
        pols[0].answers[D.ACTION] = [Action.EXPLORE]
        pols[0].answers[D.TAKE_ALLY] = [1]
        stack_deck(g, (S, 2))
    else:
        to_council(g, C, 1, 2)
    g.take_turn(0)
    offered = [int(Power.ORACLE)] if how == "working" else []
    assert [options[1:] for options, _ in asked(pols[0], D.POWER)] == [offered] * len(offered)
    assert events(g, "oracle") == []  # declined where offered (first option)
    assert audit(g) == []


# ========================================================================== Illusionist
def test_illusionist_without_an_available_location_asks_nothing():
    """The Illusionist (#19): "You can exchange one of your Locations for a different AVAILABLE
    one." With no face-up Location there is nothing to take: nothing is asked, nothing moves."""
    g, pols = make_game()
    p0 = g.players[0]
    keeper = give_lord(g, 0, "Keeper")
    mine = give_location(g, 0, "The Jail", [keeper])
    g.location_deck.extend(g.locations_available)
    g.locations_available.clear()
    deck = list(g.location_deck)
    illusionist = give_lord(g, 0, "Illusionist")
    g.apply_recruit_power(p0, illusionist)
    assert asked(pols[0], D.ILLUSIONIST_GIVE) == [] and asked(pols[0], D.ILLUSIONIST_TAKE) == []
    assert p0.locations == [mine] and p0.location_lords == {mine: [keeper]}
    assert g.location_deck == deck and g.locations_available == []
    assert audit(g) == []


# ========================================================================== Opportunist
def test_opportunist_not_offered_with_an_empty_lord_deck():
    """The Opportunist (#21): "During your turn, you may discard a Lord from the Court and replace
    it with the top one from the deck." With no Lord left in the deck there is no replacement:
    the power is not offered and the Court is unchanged."""
    g, pols = make_game({D.ACTION: [Action.REQUEST_SUPPORT]})
    give_lord(g, 0, "Opportunist")
    set_court(g)
    g.lord_discard.extend(g.lord_deck)
    g.lord_deck.clear()
    to_council(g, C, 1)
    court = list(g.court)
    g.take_turn(0)
    assert asked(pols[0], D.POWER) == []
    assert g.court == court and events(g, "opportunist") == []
    assert audit(g) == []


def test_opportunist_may_be_used_before_plotting():
    """The Opportunist (#21): "During your turn, you may discard a Lord from the Court and replace
    it with the top one from the deck." components.md 1.3: a power without an arrow - "its owner
    chooses when during their turn to apply it". Plotting at Court is step 1 of the turn, so
    the owner may replace a Lord first and then plot, having seen the Lord it brought in."""
    opportunist = int(Power.OPPORTUNIST)
    g, pols = make_game(
        {D.POWER_BEFORE_PLOT: [opportunist], D.PLOT: [1, 0], D.ACTION: [Action.REQUEST_SUPPORT]}
    )
    give_lord(g, 0, "Opportunist")
    set_court(g)
    g.lord_deck.insert(0, g.court.pop())  # five Lords: plotting is possible
    set_pearls(g, 0, 3)
    to_council(g, C, 1)
    g.take_turn(0)
    kinds = [e["event"] for e in g.events if e["event"] in ("opportunist", "plot")]
    assert kinds == ["opportunist", "plot"]


# ============================================================================ Corruptor
def test_corruptor_with_an_empty_court_recruits_nothing_more():
    """The Corruptor (#22): "You can recruit a second Lord FROM THE COURT by paying 5 Pearls".
    Rulebook order: "Lord Powers ..." then "Refill the Court". Recruited as the Court's last Lord,
    there is no second Lord to take: nothing is asked, no Pearl is paid, and the emptied Court is
    refilled with the 2 Pearls of the rulebook."""
    g, pols = make_game()
    p0 = g.players[0]
    corruptor = recruit_from(g, pols, 0, ["Corruptor"], "Corruptor", pearls=5)
    assert asked(pols[0], D.COURT_LORD) == []
    assert p0.lords == [corruptor]
    assert p0.pearls == 5 + 2 and pearl_gains(g, "court_refill", 0) == 2
    assert len(g.court) == g.t.court_size
    assert audit(g) == []


def test_corruptor_second_lord_refills_the_court_once():
    """The Corruptor (#22): "You can recruit a second Lord from the Court by paying 5 Pearls
    instead of its normal cost." Rulebook: "If only two Lords remain, you gain two Pearls and must
    refill the Court". Corruptor, Trader and Keeper in the Court: after both recruitments one
    Lord remains; the Court is refilled once (2 Pearls), and the Trader's "Gain 3 Pearls." applies:
    5 - 5 + 3 + 2."""
    g, pols = make_game()
    p0 = g.players[0]
    trader = lord_id(g, "Trader")
    pols[0].answers[D.COURT_LORD] = [trader]
    corruptor = recruit_from(g, pols, 0, ["Corruptor", "Trader", "Keeper"], "Corruptor", 5)
    assert asked(pols[0], D.COURT_LORD)[0][0][1:] == [trader, lord_id(g, "Keeper")]
    assert p0.lords == [corruptor, trader]
    assert p0.pearls == 5 - 5 + 3 + 2
    assert len(events(g, "court_refill")) == 1 and pearl_gains(g, "court_refill", 0) == 2
    assert len(g.court) == g.t.court_size and lord_id(g, "Keeper") in g.court
    assert audit(g) == []


# ======================================================================= Traitor, Schemer
def test_traitor_with_an_empty_court_replaces_nothing():
    """The Traitor (#23): "You can discard one of your other free Lords and replace it with any
    Lord FROM THE COURT." Recruited as the Court's last Lord, there is nothing to replace with:
    no Lord is asked for or discarded."""
    g, pols = make_game()
    p0 = g.players[0]
    keeper = give_lord(g, 0, "Keeper")
    traitor = recruit_from(g, pols, 0, ["Traitor"], "Traitor")
    assert asked(pols[0], D.OWN_LORD) == [] and asked(pols[0], D.COURT_LORD) == []
    assert p0.lords == [keeper, traitor] and g.lord_discard == []
    assert audit(g) == []


def test_schemer_with_an_empty_lord_deck_replaces_nothing():
    """The Schemer (#26): "You may discard one of your other free Lords and replace it with the
    top one FROM THE DECK." With the Lord deck empty nothing is asked or discarded."""
    g, pols = make_game()
    p0 = g.players[0]
    keeper = give_lord(g, 0, "Keeper")
    schemer = give_lord(g, 0, "Schemer")
    g.lord_discard.extend(g.lord_deck)
    g.lord_deck.clear()
    discard = list(g.lord_discard)
    g.apply_recruit_power(p0, schemer)
    assert asked(pols[0], D.OWN_LORD) == []
    assert p0.lords == [keeper, schemer] and g.lord_discard == discard
    assert audit(g) == []


# ============================================================================== Diplomat
@pytest.mark.parametrize("how", ["disabled", "under"])
def test_diplomat_disabled_or_under_a_location_requires_the_guild_race_again(how):
    """The Diplomat (#24) is semi-permanent: "When you recruit, you may use any Races of your
    choice". Disabled or under a Location, the Trader (Merchant) needs a Shellfish again."""
    g, _ = make_game()
    p0 = g.players[0]
    diplomat = give_lord(g, 0, "Diplomat")
    (trader,) = set_court(g, "Trader")
    give_allies(g, 0, (J, 4), (C, 3), (Q, 3))
    set_pearls(g, 0, 0)
    assert trader in g.affordable_lords(p0)  # working: any three races
    if how == "disabled":
        p0.disabled.add(diplomat)
    else:
        give_location(g, 0, "Parliament", [diplomat])
    assert trader not in g.affordable_lords(p0)
    assert g.payment_rule(p0, trader).required == int(SH)
    assert audit(g) == []


# =========================================================================== Ambassadors
@pytest.mark.parametrize("name", ["Sage", "Elder"])
def test_ambassador_with_a_short_stack_draws_what_is_left(name):
    """The Sage (#33) "Draw 2 Locations, place one under your control and make the other one
    available."; the Elder (#35) "Draw 3 Locations, ...". With a single Location left in the
    stack, that one is drawn and controlled (nothing to choose, nothing made available)."""
    g, pols = make_game()
    p0 = g.players[0]
    (last,) = location_deck_top(g, "The Chasm")
    g.locations_available.extend(g.location_deck[:-1])
    del g.location_deck[:-1]
    available = list(g.locations_available)
    lord = recruit_from(g, pols, 0, [name], name)
    assert asked(pols[0], D.LOCATION_KEEP) == []
    assert p0.locations == [last] and p0.location_lords == {last: [lord]}
    assert g.location_deck == [] and g.locations_available == available
    assert audit(g) == []


def test_hermit_with_an_empty_stack_controls_nothing_and_stays_free():
    """The Hermit (#34): "Draw 1 Location and place it under your control." With the stack empty
    nothing is drawn: no Location, the face-up ones untouched, and the Hermit stays a free Lord
    (its IP counts)."""
    g, pols = make_game()
    p0 = g.players[0]
    g.locations_available.extend(g.location_deck)
    g.location_deck.clear()
    available = list(g.locations_available)
    hermit = recruit_from(g, pols, 0, ["Hermit"], "Hermit")
    assert p0.locations == [] and hermit in p0.free_lords()
    assert g.locations_available == available and events(g, "ambassador") == []
    assert g.score(p0).lords == 5
    assert audit(g) == []


# ================================================================================ Rebel
def test_rebel_with_an_empty_border_does_nothing():
    """The Rebel (components 2.7): "Remove 1 Health point from a Leviathan AT THE BORDER, as if you
    had succeeded with an attack." With the Border empty (the Leviathan deck ran out) there is
    no Leviathan to hurt: nothing is asked and no reward is given."""
    g, pols = lev_game()
    set_border(g)
    g.leviathan_discard.extend(g.leviathan_deck)  # the deck ran out: the Border stays empty
    g.leviathan_deck.clear()
    set_pearls(g, 0, 0)
    lev_recruit(g, pols, 0, "Rebel", (Q, 5), (J, 3))
    p0 = g.players[0]
    assert asked(pols[0], L.LEVIATHAN_TARGET) == []
    assert p0.tokens == [] and p0.held_tokens == [] and p0.pearls == 0 and p0.killed == []
    assert events(g, "rebel") == []
    assert audit(g) == []
