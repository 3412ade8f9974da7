"""The 35 base Lords: every power, and how the powers interact (components.md 1.4).

A power marked with an arrow applies once, on recruitment ("Powers marked with an arrow are applied
once upon recruitment"). A power without an arrow is semi-permanent: it works while its Lord is free
(not slid under a Location) and not disabled by the Assassin ("Powers without an arrow are
semi-permanent until the Lord is used to control a Location").

Each test arranges a state with the helpers of `abyss_helpers`, calls one engine method (`recruit`,
`apply_recruit_power`, `take_turn`, `explore`, `fight_monster`, ...) with `Scripted` policies
answering, and checks the result and `audit(g) == []`. Race and guild numbers coincide:
Jellyfish = Mage, Crab = Soldier (Military), Seahorse = Farmer, Shellfish = Merchant,
Squid = Politician. Lord data used (components.md 1.4, name: cost/races, IP, Keys):

    Recruiter 10/2 4 1   Jailer 6/3 7 0      Seeker 7/2 7 0       Assassin 10/1 6 0
    Commander 8/1 4 1    Tamer 6/3 4 1       Hunter 8/2 6 0       Ship Master 6/3 5 1
    Trader 10/3 9 0      Peddler 8/1 9 0     Landlord 10/2 5 1    Slaver 8/1 5 1
    Shopkeeper 6/3 9 0   Shaman 6/3 5 1      Invoker 8/1 8 0      Apprentice 6/3 9 0
    Oracle 8/2 5 1       Alchemist 7/1 5 1   Illusionist 10/1 9 0 Master of Magic 10/3 6 1
    Opportunist 6/3 5 1  Corruptor 10/1 6 0  Traitor 12/3 6 0     Diplomat 8/1 5 1
    Treasurer 10/2 5 1   Schemer 8/3 6 0     Keeper 6/3 6 1       Reaper 7/2 6 1
    Shepherd 8/1 6 1     Miller 8/2 10 0     Aquaculturalist 9/3 11 0   Landowner 10/1 12 0
    Sage 10/5 4 0        Hermit 10/5 5 0     Elder 10/5 3 0
"""

from __future__ import annotations

import dataclasses

import pytest
from abyss_helpers import (
    Race,
    Scripted,
    give_allies,
    give_location,
    give_lord,
    give_tokens,
    location_id,
    lord_id,
    new_game,
    put_in_court,
    set_keys,
    set_pearls,
    stack_deck,
    tables,
)

from games.abyss.engine.audit import audit
from games.abyss.engine.cards.constants import MONSTER, Power
from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.rules.base import DECLINE, FINISH, Action
from games.abyss.engine.rules.base import Decision as D
from games.abyss.engine.rules.game import Game
from games.abyss.engine.rules.recruit import payment_feasible, payment_options

J, C, S, SH, Q = Race.JELLYFISH, Race.CRAB, Race.SEAHORSE, Race.SHELLFISH, Race.SQUID


# ------------------------------------------------------------------------------- helpers
def pay_everything(g: Game, seat: int, options: list[int]) -> int:
    """PAY_ALLY: play every Ally that keeps the payment legal, then finish (Pearls pay the rest).

    Tests give a hand holding exactly the Allies meant for the payment.
    """
    allies = [o for o in options if o != FINISH]
    return allies[0] if allies else FINISH


def make_game(*scripts: dict, n: int = 3, seed: int = 0, t=None) -> tuple[Game, list[Scripted]]:
    """A game whose seat i answers from `scripts[i]` (default: first option; PAY_ALLY: every
    Ally)."""
    policies = []
    for i in range(n):
        answers = dict(scripts[i]) if i < len(scripts) else {}
        answers.setdefault(D.PAY_ALLY, pay_everything)
        policies.append(Scripted(answers))
    return new_game(n, seed, policies, t), policies


def set_court(g: Game, *names: str) -> list[int]:
    """The Court holds `names`, then Lords from the top of the deck up to six (full: no Plot)."""
    ids = put_in_court(g, *names, clear=True)
    while len(g.court) < g.t.court_size:
        g.court.append(g.lord_deck.pop())
    return ids


def lord_deck_top(g: Game, name: str) -> int:
    """Move a Lord (from the deck, Court or discard) to the top of the Lord deck."""
    lord = lord_id(g, name)
    for place in (g.lord_deck, g.court, g.lord_discard):
        if lord in place:
            place.remove(lord)
    g.lord_deck.append(lord)
    return lord


def location_deck_top(g: Game, *names: str) -> list[int]:
    """Move Locations to the top of the Location stack; the last name is drawn first."""
    ids = []
    for name in names:
        loc = location_id(g, name)
        for place in (g.location_deck, g.locations_available):
            if loc in place:
                place.remove(loc)
        g.location_deck.append(loc)
        ids.append(loc)
    return ids


def make_available(g: Game, name: str) -> int:
    """Turn a Location of the stack face up (available)."""
    loc = location_id(g, name)
    g.location_deck.remove(loc)
    g.locations_available.append(loc)
    return loc


def to_council(g: Game, race: int, *values: int) -> list[int]:
    """Move Allies of `race` from the Exploration deck onto that race's Council stack."""
    ids = []
    for value in values:
        card = next(c for c in g.exploration_deck if g.race(c) == race and g.value(c) == value)
        g.exploration_deck.remove(card)
        g.council[race].append(card)
        ids.append(card)
    return ids


def asked(policy: Scripted, decision: D) -> list[tuple[list[int], int]]:
    """(options, answer) of every time `decision` was asked of this policy."""
    return [(options, answer) for d, options, answer in policy.asked if d == decision]


def events(g: Game, kind: str, **match) -> list[dict]:
    return [
        e for e in g.events if e["event"] == kind and all(e.get(k) == v for k, v in match.items())
    ]


def pearl_gains(g: Game, why: str, who: int) -> int:
    return sum(e["n"] for e in events(g, "pearls", why=why, who=who))


def with_rules(**changes):
    t = tables()
    return dataclasses.replace(t, rules=dataclasses.replace(t.rules, **changes))


# =============================================================================== Military
# The seven Soldier (Crab) Lords. Each is also checked against the Shaman (#14): "You are
# protected against the Powers of Military Lords." components.md: "Shaman (14) protects its
# owner from every Soldier (Military) power: Recruiter, Jailer, Seeker, Assassin, Commander,
# Tamer, Hunter".


def test_recruiter_raises_opponents_costs_by_2():
    """The Recruiter (#1, semi-permanent): "All recruitment costs for your opponents are increased
    by 2." Its owner pays the printed cost; the Allies still have to be of the required races."""
    g, pols = make_game()
    p0, p1, p2 = g.players
    give_lord(g, 1, "Recruiter")
    (keeper,) = set_court(g, "Keeper")
    assert g.lord_cost(p0, keeper) == 6 + 2
    assert g.lord_cost(p2, keeper) == 6 + 2
    assert g.lord_cost(p1, keeper) == 6  # not its owner
    give_allies(g, 0, (S, 3), (J, 2), (C, 1))  # worth the printed 6
    set_pearls(g, 0, 1)
    assert keeper not in g.affordable_lords(p0)
    set_pearls(g, 0, 2)
    assert keeper in g.affordable_lords(p0)
    pols[0].answers[D.RECRUIT_LORD] = [keeper]
    g.recruit(p0)
    assert keeper in p0.lords and p0.pearls == 0
    (rec,) = events(g, "recruit", who=0)
    assert rec["cost"] == 8 and rec["pearls"] == 2
    assert audit(g) == []


def test_recruiter_stops_when_under_a_location_or_disabled():
    """The Recruiter (#1) is semi-permanent: "Powers without an arrow are semi-permanent until the
    Lord is used to control a Location"; a Lord disabled by the Assassin "counts only for
    points"."""
    g, _ = make_game()
    p0 = g.players[0]
    recruiter = give_lord(g, 1, "Recruiter")
    keeper = lord_id(g, "Keeper")
    g.players[1].disabled.add(recruiter)
    assert g.lord_cost(p0, keeper) == 6
    g.players[1].disabled.clear()
    give_location(g, 1, "Parliament", [recruiter])
    assert g.lord_cost(p0, keeper) == 6
    assert audit(g) == []


def test_recruiter_stacks_per_opponent_and_with_treasurer():
    """Recruiter (#1) "All recruitment costs for your opponents are increased by 2" and Treasurer
    (#25) "For you, the cost of recruiting Lords is reduced by 2". components.md: "Cost +2 for
    opponents / -2 for yourself, floored at 0. They stack." The base game has one Recruiter, so a
    second one is made by card-data override (the Reaper gets the Recruiter's power)."""
    t = load_cards(overrides={"lord.reaper.power": "recruiter"})
    g, _ = make_game(t=t)
    p0, p1, p2 = g.players
    give_lord(g, 1, "Recruiter")
    give_lord(g, 2, "Reaper")  # a second Recruiter
    keeper = lord_id(g, "Keeper")
    assert g.lord_cost(p0, keeper) == 6 + 2 + 2  # +2 per opponent's Recruiter
    assert g.lord_cost(p1, keeper) == 6 + 2  # only the other player's Recruiter
    assert g.lord_cost(p2, keeper) == 6 + 2
    give_lord(g, 0, "Treasurer")
    assert g.lord_cost(p0, keeper) == 6 + 2 + 2 - 2
    assert audit(g) == []


def test_treasurer_reduces_own_costs_by_2():
    """The Treasurer (#25, semi-permanent): "For you, the cost of recruiting Lords is reduced by
    2." Opponents are not affected."""
    g, pols = make_game()
    p0, p1, _ = g.players
    give_lord(g, 0, "Treasurer")
    (keeper,) = set_court(g, "Keeper")
    assert g.lord_cost(p0, keeper) == 4
    assert g.lord_cost(p1, keeper) == 6
    give_allies(g, 0, (S, 2), (J, 1), (C, 1))  # worth 4
    set_pearls(g, 0, 0)
    pols[0].answers[D.RECRUIT_LORD] = [keeper]
    assert keeper in g.affordable_lords(p0)
    g.recruit(p0)
    assert keeper in p0.lords and p0.pearls == 0
    assert events(g, "recruit", who=0)[0]["cost"] == 4
    assert audit(g) == []


def test_treasurer_cost_floored_at_zero_still_one_ally_per_race():
    """Treasurer (#25): "the cost of recruiting Lords is reduced by 2", "floored at 0"
    (components.md). The races are still required: "you must still play at least one Ally from each
    required Race". The Keeper's cost is set to 1 by override to reach the floor."""
    t = load_cards(overrides={"lord.keeper.cost": 1})
    g, pols = make_game(t=t)
    p0 = g.players[0]
    give_lord(g, 0, "Treasurer")
    (keeper,) = set_court(g, "Keeper")
    assert g.lord_cost(p0, keeper) == 0
    rule = g.payment_rule(p0, keeper)
    assert (rule.cost, rule.n_races, rule.required) == (0, 3, int(S))
    give_allies(g, 0, (S, 1), (J, 1))
    set_pearls(g, 0, 20)
    assert keeper not in g.affordable_lords(p0)  # two races only: Pearls cannot replace a race
    give_allies(g, 0, (C, 1))
    assert keeper in g.affordable_lords(p0)
    pols[0].answers[D.RECRUIT_LORD] = [keeper]
    g.recruit(p0)
    assert keeper in p0.lords and p0.pearls == 20
    assert audit(g) == []


def test_shaman_blocks_recruiter():
    """Shaman (#14): "You are protected against the Powers of Military Lords." The Recruiter's +2
    does not apply to the Shaman's owner; a Treasurer still reduces."""
    g, _ = make_game()
    p0, _, p2 = g.players
    give_lord(g, 1, "Recruiter")
    give_lord(g, 0, "Shaman")
    keeper = lord_id(g, "Keeper")
    assert g.lord_cost(p0, keeper) == 6
    assert g.lord_cost(p2, keeper) == 8
    give_lord(g, 0, "Treasurer")
    assert g.lord_cost(p0, keeper) == 4
    assert audit(g) == []


def test_jailer_each_opponent_discards_one_ally_of_their_choice():
    """The Jailer (#2, arrow): "Each of your opponents must discard 1 Ally from their hand."
    The owner of the hand chooses; an empty hand discards nothing; the Jailer's owner keeps all."""
    g, pols = make_game(n=4)
    j1, c5 = give_allies(g, 1, (J, 1), (C, 5))
    (q2,) = give_allies(g, 3, (Q, 2))
    mine = give_allies(g, 0, (S, 3))
    pols[1].answers[D.DISCARD_ALLY] = [c5]  # seat 1 chooses to discard its Crab 5
    jailer = give_lord(g, 0, "Jailer")
    g.apply_recruit_power(g.players[0], jailer)
    assert asked(pols[1], D.DISCARD_ALLY) == [([j1, c5], c5)]
    assert g.players[1].hand == [j1]
    assert g.players[2].hand == []
    assert g.players[3].hand == []  # a single Ally: discarded without a question
    assert {c5, q2} <= set(g.exploration_discard)
    assert g.players[0].hand == mine
    assert audit(g) == []


def test_shaman_blocks_jailer():
    """Shaman (#14) "protected against the Powers of Military Lords": the Jailer's "Each of your
    opponents must discard 1 Ally" skips the Shaman's owner."""
    g, _ = make_game()
    kept = give_allies(g, 1, (J, 1), (C, 5))
    give_allies(g, 2, (Q, 2))
    give_lord(g, 1, "Shaman")
    jailer = give_lord(g, 0, "Jailer")
    g.apply_recruit_power(g.players[0], jailer)
    assert g.players[1].hand == kept
    assert g.players[2].hand == []
    assert audit(g) == []


def test_seeker_opponents_return_2_pearls():
    """The Seeker (#3, arrow): "Each of your opponents must return 2 Pearls to the Treasury."
    components.md: "Each opponent loses min(2, own pearls)"."""
    g, _ = make_game(n=4)
    set_pearls(g, 0, 4)
    set_pearls(g, 1, 5)
    set_pearls(g, 2, 1)
    set_pearls(g, 3, 0)
    seeker = give_lord(g, 0, "Seeker")
    g.apply_recruit_power(g.players[0], seeker)
    assert [p.pearls for p in g.players] == [4, 3, 0, 0]
    assert audit(g) == []


def test_shaman_blocks_seeker():
    """Shaman (#14) protects against the Seeker's "must return 2 Pearls to the Treasury"."""
    g, _ = make_game()
    set_pearls(g, 1, 5)
    set_pearls(g, 2, 5)
    give_lord(g, 2, "Shaman")
    seeker = give_lord(g, 0, "Seeker")
    g.apply_recruit_power(g.players[0], seeker)
    assert [p.pearls for p in g.players[1:]] == [3, 5]
    assert audit(g) == []


def test_shaman_under_a_location_no_longer_protects():
    """Shaman (#14) is semi-permanent: "Any Lords used to control it are slid underneath, hiding
    their Powers" - an opponent whose Shaman is under a Location is hit by the Seeker."""
    g, _ = make_game()
    set_pearls(g, 1, 5)
    shaman = give_lord(g, 1, "Shaman")
    give_location(g, 1, "Hydrozoa Reserves", [shaman])
    seeker = give_lord(g, 0, "Seeker")
    g.apply_recruit_power(g.players[0], seeker)
    assert g.players[1].pearls == 3
    assert audit(g) == []


def test_assassin_disables_one_free_lord_per_opponent():
    """The Assassin (#4, arrow): "Disable 1 Lord from each opponent. That Lord counts only for
    points." The Assassin's owner picks among each opponent's free Lords (a Lord under a Location is
    no longer free and cannot be targeted). components.md: "A disabled ("turned") Lord counts only
    for IP: its power and Keys are dead. It stays free"."""
    g, pols = make_game()
    p0, p1, p2 = g.players
    treasurer = give_lord(g, 1, "Treasurer")
    keeper = give_lord(g, 1, "Keeper")
    reaper = give_lord(g, 1, "Reaper")
    give_location(g, 1, "Parliament", [reaper])
    shepherd = give_lord(g, 2, "Shepherd")
    pols[0].answers[D.ASSASSIN_TARGET] = [treasurer]
    assassin = give_lord(g, 0, "Assassin")
    miller = lord_id(g, "Miller")
    assert g.lord_cost(p1, miller) == 8 - 2
    score_before = g.score(p1).lords
    g.apply_recruit_power(p0, assassin)
    assert asked(pols[0], D.ASSASSIN_TARGET) == [([treasurer, keeper], treasurer)]
    assert p1.disabled == {treasurer}
    assert p2.disabled == {shepherd}  # the only free Lord: taken without a question
    assert p0.disabled == set()
    # Counts only for points: IP kept, power lost, still free.
    assert g.score(p1).lords == score_before == 5 + 6 + 6
    assert g.lord_cost(p1, miller) == 8
    assert not g.has_power(p1, Power.TREASURER)
    assert treasurer in p1.free_lords()
    assert audit(g) == []


def test_assassin_disabled_key_lord_key_does_not_count():
    """Assassin (#4): the disabled Lord "counts only for points"; components.md: "its power and
    Keys are dead". A disabled Keeper's Key does not count toward the 3 Keys of a Location."""
    g, _ = make_game()
    p1 = g.players[1]
    keeper = give_lord(g, 1, "Keeper")
    reaper = give_lord(g, 1, "Reaper")
    set_keys(g, 1, 1)
    assert g.n_keys(p1) == 3
    assassin = give_lord(g, 0, "Assassin")
    g.policies[0].answers[D.ASSASSIN_TARGET] = [keeper]
    g.apply_recruit_power(g.players[0], assassin)
    assert p1.disabled == {keeper}
    assert g.n_keys(p1) == 2
    assert g.key_lords(p1) == [reaper]
    g.control_locations(p1)
    assert p1.locations == [] and p1.under == set()
    assert audit(g) == []


@pytest.mark.parametrize("swapper", ["Traitor", "Schemer"])
def test_assassin_disabled_lord_stays_free_for_traitor_and_schemer(swapper):
    """Assassin (#4): components.md "It stays free, so the Traitor or Schemer can still swap it
    out". Traitor (#23): "You can discard one of your other free Lords and replace it with any Lord
    from the Court." Schemer (#26): "You may discard one of your other free Lords and replace it
    with the top one from the deck." """
    g, pols = make_game()
    p0, p1, _ = g.players
    keeper = give_lord(g, 1, "Keeper")
    assassin = give_lord(g, 0, "Assassin")
    g.apply_recruit_power(p0, assassin)
    assert p1.disabled == {keeper}
    (shepherd,) = set_court(g, "Shepherd")
    lord_deck_top(g, "Miller")
    pols[1].answers[D.OWN_LORD] = [keeper]
    pols[1].answers[D.COURT_LORD] = [shepherd]
    swap = give_lord(g, 1, swapper)
    g.apply_recruit_power(p1, swap)
    assert asked(pols[1], D.OWN_LORD) == [([DECLINE, keeper], keeper)]
    new = shepherd if swapper == "Traitor" else lord_id(g, "Miller")
    assert keeper in g.lord_discard and keeper not in p1.lords
    assert p1.lords == [swap, new]
    assert p1.disabled == set()
    assert audit(g) == []


def test_shaman_blocks_assassin():
    """Shaman (#14) protects against the Assassin's "Disable 1 Lord from each opponent"."""
    g, pols = make_game()
    p0, p1, p2 = g.players
    give_lord(g, 1, "Shaman")
    give_lord(g, 1, "Keeper")
    reaper = give_lord(g, 2, "Reaper")
    assassin = give_lord(g, 0, "Assassin")
    g.apply_recruit_power(p0, assassin)
    assert asked(pols[0], D.ASSASSIN_TARGET) == []
    assert p1.disabled == set()
    assert p2.disabled == {reaper}
    assert audit(g) == []


def _hand_of(g: Game, seat: int, n: int) -> list[int]:
    """Give `n` Allies of distinct (race, value) to a seat."""
    cards = [(r, v) for r in (J, C, S, SH, Q) for v in (5, 4, 3, 2, 1)][:n]
    return give_allies(g, seat, *cards)


def test_commander_opponents_discard_down_to_6_at_once():
    """The Commander (#5, semi-permanent): "Your opponents can no longer hold more than 6 Allies in
    hand. They must immediately discard any extras." Each opponent chooses what to discard; the
    Commander's owner is not limited."""
    g, pols = make_game()
    p0, p1, p2 = g.players
    _hand_of(g, 1, 8)
    give_allies(g, 2, (J, 1), (C, 1), (S, 1), (SH, 1), (Q, 1), (J, 2))  # exactly 6
    give_allies(g, 0, *[(r, v) for r in (S, SH) for v in (5, 4, 3, 2)], (Q, 5))  # 9
    commander = give_lord(g, 0, "Commander")
    g.apply_recruit_power(p0, commander)
    assert len(p1.hand) == 6
    assert len(asked(pols[1], D.DISCARD_ALLY)) == 2
    assert len(events(g, "discard_ally", why="commander")) == 2
    assert len(p2.hand) == 6 and asked(pols[2], D.DISCARD_ALLY) == []
    assert len(p0.hand) == 9
    assert audit(g) == []


def test_commander_limit_rechecked_at_end_of_each_opponent_turn():
    """Commander (#5): "Your opponents can no longer hold more than 6 Allies in hand."
    components.md: "They discard down on recruitment and re-check at the end of each of their
    turns". An opponent who takes a Council stack up to 8 Allies ends the turn with 6; the owner's
    own hand is not limited."""
    g, pols = make_game({D.ACTION: [Action.REQUEST_SUPPORT]}, {D.ACTION: [Action.REQUEST_SUPPORT]})
    p0, p1, _ = g.players
    give_lord(g, 0, "Commander")
    _hand_of(g, 1, 5)
    give_allies(g, 0, *[(r, v) for r in (S, SH) for v in (5, 4, 3, 2)])  # 8
    set_court(g)
    to_council(g, Q, 1, 1, 1)
    g.take_turn(1)
    assert events(g, "council", who=1)[0]["n"] == 3
    assert len(p1.hand) == 6
    assert len(events(g, "discard_ally", who=1, why="commander")) == 2
    to_council(g, J, 1, 1)
    g.take_turn(0)
    assert len(p0.hand) == 10  # the Commander's owner keeps everything
    assert audit(g) == []


def test_commander_power_stops_when_it_slides_under_a_location():
    """Commander (#5) is semi-permanent: "Powers without an arrow are semi-permanent until the Lord
    is used to control a Location." Once its Key has paid for a Location, opponents may hold more
    than 6 Allies."""
    g, pols = make_game({}, {D.ACTION: [Action.REQUEST_SUPPORT]})
    p0, p1, _ = g.players
    commander = give_lord(g, 0, "Commander")
    pols[0].answers[D.KEY_SOURCE] = [commander]  # then the two Key tokens
    set_keys(g, 0, 2)
    g.control_locations(p0)
    assert commander in p0.under and len(p0.locations) == 1
    assert not g.has_power(p0, Power.COMMANDER)
    _hand_of(g, 1, 5)
    set_court(g)
    to_council(g, Q, 1, 1, 1)
    g.take_turn(1)
    assert len(p1.hand) == 8
    assert events(g, "discard_ally", why="commander") == []
    assert audit(g) == []


def test_shaman_blocks_commander():
    """Shaman (#14) protects against the Commander: no discard on recruitment and no hand limit at
    the end of the Shaman owner's turns."""
    g, pols = make_game({}, {D.ACTION: [Action.REQUEST_SUPPORT]})
    p0, p1, _ = g.players
    give_lord(g, 1, "Shaman")
    _hand_of(g, 1, 8)
    commander = give_lord(g, 0, "Commander")
    g.apply_recruit_power(p0, commander)
    assert len(p1.hand) == 8
    set_court(g)
    to_council(g, Q, 1, 1, 1)
    g.take_turn(1)
    assert len(p1.hand) == 11
    assert events(g, "discard_ally", why="commander") == []
    assert audit(g) == []


def _fight(g: Game, seat: int, threat: int) -> tuple[int, int, int]:
    """Fight at Threat `threat` taking the first reward option; returns (pearls, tokens, keys)."""
    p = g.players[seat]
    before = (p.pearls, len(p.tokens), p.keys)
    g.threat = threat
    g.fight_monster(p, False)
    assert g.threat == 0
    return (p.pearls - before[0], len(p.tokens) - before[1], p.keys - before[2])


@pytest.mark.parametrize("threat", [0, 1, 2, 3, 4, 5])
def test_tamer_opponents_take_reward_of_previous_space(threat):
    """The Tamer (#6, semi-permanent): "When your opponents fight a Monster, they earn the reward
    from the previous Monster Track space." components.md 1.2: "the reward is taken from one space
    lower (space 0 stays space 0)"."""
    g, _ = make_game()
    give_lord(g, 1, "Tamer")
    expected = max(0, threat - 1)
    gained = _fight(g, 0, threat)
    assert gained == tuple(int(x) for x in g.t.threat_options[expected, 0])
    (fight,) = events(g, "fight_monster", who=0)
    assert fight["space"] == expected
    assert audit(g) == []


def test_tamer_does_not_affect_its_owner_nor_from_under_a_location():
    """Tamer (#6): "When your opponents fight a Monster" - not its owner; and it is semi-permanent,
    so a Tamer slid under a Location has no effect."""
    g, _ = make_game()
    tamer = give_lord(g, 0, "Tamer")
    assert _fight(g, 0, 2) == (0, 0, 1)  # space 2: one Key
    give_location(g, 0, "The Barracks", [tamer])
    assert _fight(g, 1, 2) == (0, 0, 1)
    assert [e["space"] for e in events(g, "fight_monster")] == [2, 2]
    assert audit(g) == []


def test_shaman_blocks_tamer():
    """Shaman (#14) protects against the Tamer: its owner takes the reward of the current space."""
    g, _ = make_game()
    give_lord(g, 1, "Tamer")
    give_lord(g, 0, "Shaman")
    assert _fight(g, 0, 2) == (0, 0, 1)
    assert events(g, "fight_monster", who=0)[0]["space"] == 2
    assert audit(g) == []


def test_hunter_steals_random_token_from_chosen_opponent():
    """The Hunter (#7, arrow): "Steal a random Monster token from the opponent of your choice."
    Only opponents holding tokens can be chosen."""
    g, pols = make_game(n=4)
    give_tokens(g, 1, 3)
    victim_tokens = give_tokens(g, 2, 2)
    pols[0].answers[D.TARGET_OPPONENT] = [2]
    hunter = give_lord(g, 0, "Hunter")
    g.apply_recruit_power(g.players[0], hunter)
    assert asked(pols[0], D.TARGET_OPPONENT) == [([1, 2], 2)]
    (stolen,) = g.players[0].tokens
    assert stolen in victim_tokens
    assert g.players[2].tokens == [x for x in victim_tokens if x != stolen]
    assert len(g.players[1].tokens) == 3
    assert audit(g) == []


def _hunt(seed: int) -> tuple[int, int]:
    """(stolen token, its index in the victim's tokens) for a fixed set-up under `seed`."""
    g, _ = make_game(seed=seed)
    tokens = give_tokens(g, 1, 4)
    hunter = give_lord(g, 0, "Hunter")
    g.apply_recruit_power(g.players[0], hunter)
    (stolen,) = g.players[0].tokens
    assert audit(g) == []
    return stolen, tokens.index(stolen)


def test_hunter_random_token_is_deterministic_by_seed():
    """Hunter (#7): "a random Monster token" - drawn from the seeded HUNTER stream: the same seed
    steals the same token, and over seeds different tokens are stolen."""
    results = [_hunt(seed) for seed in range(12)]
    assert results == [_hunt(seed) for seed in range(12)]
    assert len({index for _, index in results}) > 1


def test_hunter_without_victims_does_nothing():
    """Hunter (#7): no opponent holds a Monster token, so nothing is stolen and nothing asked."""
    g, pols = make_game()
    hunter = give_lord(g, 0, "Hunter")
    g.apply_recruit_power(g.players[0], hunter)
    assert g.players[0].tokens == [] and asked(pols[0], D.TARGET_OPPONENT) == []
    assert events(g, "hunt") == []
    assert audit(g) == []


def test_shaman_blocks_hunter():
    """Shaman (#14) protects against the Hunter: the Shaman's owner cannot be targeted."""
    g, pols = make_game()
    shaman_tokens = give_tokens(g, 1, 2)
    give_lord(g, 1, "Shaman")
    hunter = give_lord(g, 0, "Hunter")
    g.apply_recruit_power(g.players[0], hunter)
    assert g.players[0].tokens == [] and g.players[1].tokens == shaman_tokens
    other = give_tokens(g, 2, 1)
    g.apply_recruit_power(g.players[0], hunter)  # only seat 2 is a legal target
    assert g.players[0].tokens == other and g.players[1].tokens == shaman_tokens
    assert all(options == [2] for options, _ in asked(pols[0], D.TARGET_OPPONENT))
    assert audit(g) == []


# =============================================================================== Merchants
def _explore_ship_master(g: Game, pols: list[Scripted], owner: int) -> int:
    """Seat 0 explores: Crab 1, Crab 2, Squid 1 left on the track, Jellyfish 3 taken. Returns the
    Ship Master Pearls of `owner`."""
    stack_deck(g, (C, 1), (C, 2), (Q, 1), (J, 3))
    pols[0].answers[D.TAKE_ALLY] = [0, 0, 0, 1]
    g.explore(g.players[0])
    assert g.value(g.players[0].hand[-1]) == 3
    assert len(g.council[C]) == 2 and len(g.council[Q]) == 1 and g.council[J] == []
    return pearl_gains(g, "ship_master", owner)


def test_ship_master_pearl_per_distinct_race_sent_to_council():
    """The Ship Master (#8, semi-permanent): "Gain 1 Pearl for each different Race that you send to
    the Council." components.md: "When the owner ends their own exploration (by taking an Ally or
    fighting a Monster), +1 pearl per distinct race among the other Allies left on the track"
    - two Crabs and a Squid give 2 Pearls, the Jellyfish taken gives none."""
    g, pols = make_game()
    give_lord(g, 0, "Ship Master")
    set_pearls(g, 0, 0)
    assert _explore_ship_master(g, pols, 0) == 2
    assert g.players[0].pearls == 2
    assert audit(g) == []


def test_ship_master_only_for_its_owner_exploration():
    """Ship Master (#8): "that you send to the Council" - another player's exploration gives its
    owner nothing."""
    g, pols = make_game()
    give_lord(g, 1, "Ship Master")
    assert _explore_ship_master(g, pols, 1) == 0
    assert g.players[1].pearls == 1
    assert audit(g) == []


def test_ship_master_does_not_count_allies_bought_by_opponents():
    """Ship Master (#8): only the Races "that you send to the Council" count - an Ally bought by an
    opponent leaves the track. Crab 1, Crab 2 and the Squid 1 (bought by seat 1) revealed, then the
    Jellyfish 3 taken: only the Crabs reach the Council, 1 Pearl."""
    g, pols = make_game({}, {D.BUY: [0, 0, 1]})
    give_lord(g, 0, "Ship Master")
    set_pearls(g, 0, 0)
    _, _, squid, _ = stack_deck(g, (C, 1), (C, 2), (Q, 1), (J, 3))
    pols[0].answers[D.TAKE_ALLY] = [0, 0, 1]
    g.explore(g.players[0])
    assert squid in g.players[1].hand and g.council[Q] == []
    assert pearl_gains(g, "ship_master", 0) == 1
    assert g.players[0].pearls == 1 + 1  # the purchase price, then the Ship Master
    assert audit(g) == []


def test_ship_master_ignores_monsters_after_a_fight():
    """Ship Master (#8): a Monster is not a Race ("Monsters are placed in the Exploration discard
    pile"). Crab 1 and Jellyfish 2 left on the track, then a Monster fought: 2 Pearls, plus the
    Monster's own reward (space 0, first option: 1 Pearl)."""
    g, pols = make_game()
    give_lord(g, 0, "Ship Master")
    set_pearls(g, 0, 0)
    _, _, monster = stack_deck(g, (C, 1), (J, 2), (None, 0))
    assert g.race(monster) == MONSTER
    pols[0].answers[D.TAKE_ALLY] = [0, 0]
    pols[0].answers[D.FIGHT_MONSTER] = [1]
    g.explore(g.players[0])
    assert pearl_gains(g, "ship_master", 0) == 2
    assert pearl_gains(g, "monster", 0) == 1
    assert monster in g.exploration_discard
    assert g.players[0].pearls == 3
    assert audit(g) == []


# Hands that pay each Lord exactly (total value = cost, exact races, guild race included).
PAY = {
    "Trader": [(SH, 4), (J, 3), (C, 3)],
    "Peddler": [(SH, 5), (SH, 3)],
    "Shopkeeper": [(SH, 2), (J, 2), (C, 2)],
    "Landlord": [(SH, 5), (Q, 5)],
    "Keeper": [(S, 2), (J, 2), (C, 2)],
    "Reaper": [(S, 4), (J, 3)],
    "Shepherd": [(S, 5), (S, 3)],
    "Miller": [(S, 5), (J, 3)],
    "Aquaculturalist": [(S, 5), (J, 2), (C, 2)],
    "Landowner": [(S, 5), (S, 4), (S, 1)],
    "Sage": [(J, 2), (C, 2), (S, 2), (SH, 2), (Q, 2)],
    "Hermit": [(J, 2), (C, 2), (S, 2), (SH, 2), (Q, 2)],
    "Elder": [(J, 2), (C, 2), (S, 2), (SH, 2), (Q, 2)],
    "Invoker": [(J, 5), (J, 3)],
    "Master of Magic": [(J, 5), (C, 4), (Q, 1)],
    "Corruptor": [(Q, 5), (Q, 4), (Q, 1)],
    "Traitor": [(Q, 5), (J, 4), (C, 3)],
}


def recruit_exactly(g: Game, pols: list[Scripted], seat: int, name: str, pearls: int = 0) -> int:
    """Seat recruits `name` from a full Court, paying with exactly the Allies of PAY[name]."""
    (lord,) = set_court(g, name)
    give_allies(g, seat, *PAY[name])
    set_pearls(g, seat, pearls)
    pols[seat].answers[D.RECRUIT_LORD] = [lord]
    g.recruit(g.players[seat])
    assert lord in g.players[seat].lords
    (rec,) = events(g, "recruit", who=seat, lord=lord)
    assert rec["pearls"] == 0 and len(rec["allies"]) == len(PAY[name])
    return lord


@pytest.mark.parametrize("name, gain", [("Trader", 3), ("Peddler", 2), ("Shopkeeper", 1)])
def test_merchant_pearls_on_recruitment(name, gain):
    """Arrow powers: the Trader (#9) "Gain 3 Pearls.", the Peddler (#10) "Gain 2 Pearls.", the
    Shopkeeper (#13) "Gain 1 Pearl." - once, on recruitment, and never again."""
    g, pols = make_game({D.ACTION: [Action.REQUEST_SUPPORT]})
    recruit_exactly(g, pols, 0, name)
    assert g.players[0].pearls == gain
    assert pearl_gains(g, name.lower(), 0) == gain
    to_council(g, Q, 1)
    g.take_turn(0)  # a later turn gives nothing more
    assert g.players[0].pearls == gain
    assert audit(g) == []


@pytest.mark.parametrize("immediate", [True, False])
def test_landlord_pearl_now(immediate):
    """The Landlord (#11): "Gain 1 Pearl now and at the start of each of your turns."
    rules.toml `landlord_immediate_pearl`: true (default, the card text) = 1 Pearl on recruitment;
    false = none now (components.md: "BGA does not grant an immediate pearl")."""
    t = tables() if immediate else with_rules(landlord_immediate_pearl=False)
    assert t.rules.landlord_immediate_pearl is immediate
    g, pols = make_game(t=t)
    recruit_exactly(g, pols, 0, "Landlord")
    assert g.players[0].pearls == (1 if immediate else 0)
    assert audit(g) == []


@pytest.mark.parametrize("immediate", [True, False])
def test_landlord_pearl_at_start_of_each_own_turn(immediate):
    """Landlord (#11): "... and at the start of each of your turns" (components.md: "+1 pearl at the
    start of each of the owner's turns"), whatever `landlord_immediate_pearl` says; not at the
    start of an opponent's turn."""
    t = tables() if immediate else with_rules(landlord_immediate_pearl=False)
    g, pols = make_game(
        {D.ACTION: [Action.REQUEST_SUPPORT] * 2}, {D.ACTION: [Action.REQUEST_SUPPORT]}, t=t
    )
    p0 = g.players[0]
    give_lord(g, 0, "Landlord")
    set_court(g)
    set_pearls(g, 0, 0)
    to_council(g, Q, 1)
    to_council(g, J, 1)
    to_council(g, C, 1)
    g.take_turn(0)
    assert p0.pearls == 1
    kinds = [e["event"] for e in g.events if e["turn"] == 1]
    assert kinds[:2] == ["turn_start", "pearls"]  # before anything else of the turn
    assert events(g, "pearls", turn=1)[0]["why"] == "landlord"
    g.take_turn(1)
    assert p0.pearls == 1
    g.take_turn(0)
    assert p0.pearls == 2
    assert audit(g) == []


@pytest.mark.parametrize("how", ["disabled", "under"])
def test_landlord_disabled_or_under_location_gives_nothing(how):
    """Landlord (#11) is semi-permanent: no Pearl once disabled by the Assassin ("counts only for
    points") or slid under a Location."""
    g, _ = make_game({D.ACTION: [Action.REQUEST_SUPPORT]})
    landlord = give_lord(g, 0, "Landlord")
    if how == "disabled":
        g.players[0].disabled.add(landlord)
    else:
        give_location(g, 0, "The Dockworks", [landlord])
    set_court(g)
    to_council(g, Q, 1)
    g.take_turn(0)
    assert g.players[0].pearls == 1
    assert pearl_gains(g, "landlord", 0) == 0
    assert audit(g) == []


def _power_turn_setup(g: Game, *names: str) -> None:
    for name in names:
        give_lord(g, 0, name)
    set_court(g)
    to_council(g, C, 1, 2)
    to_council(g, Q, 3)


def test_slaver_used_before_action_not_offered_again():
    """The Slaver (#12, once per turn): "During your turn, you can discard 1 Ally from your hand to
    gain 2 Pearls." Offered through the POWER decision before the action; once used it is not
    offered again after the action."""
    g, pols = make_game({D.POWER: [int(Power.SLAVER)], D.ACTION: [Action.REQUEST_SUPPORT]})
    p0 = g.players[0]
    j5, j1 = give_allies(g, 0, (J, 5), (J, 1))
    pols[0].answers[D.DISCARD_ALLY] = [j1]
    _power_turn_setup(g, "Slaver")
    set_pearls(g, 0, 0)
    g.take_turn(0)
    decisions = [d for d, _, _ in pols[0].asked]
    assert decisions.count(D.POWER) == 1
    assert decisions.index(D.POWER) < decisions.index(D.ACTION)
    assert asked(pols[0], D.POWER) == [([0, int(Power.SLAVER)], int(Power.SLAVER))]
    assert p0.pearls == 2 and j1 in g.exploration_discard and j5 in p0.hand
    assert audit(g) == []


def test_slaver_declined_before_action_offered_after():
    """Slaver (#12) "During your turn": declined before the action, offered again after it."""
    g, pols = make_game({D.POWER: [0, int(Power.SLAVER)], D.ACTION: [Action.REQUEST_SUPPORT]})
    p0 = g.players[0]
    give_allies(g, 0, (J, 5))
    _power_turn_setup(g, "Slaver")
    set_pearls(g, 0, 0)
    g.take_turn(0)
    decisions = [d for d, _, _ in pols[0].asked]
    power_at = [i for i, d in enumerate(decisions) if d == D.POWER]
    assert len(power_at) == 2
    assert power_at[0] < decisions.index(D.ACTION) < power_at[1]
    assert p0.pearls == 2 and len(events(g, "discard_ally", why="slaver")) == 1
    assert audit(g) == []


def test_oracle_discards_a_council_stack():
    """The Oracle (#17, once per turn): "During your turn, you may discard 1 stack of cards from the
    council." The stack goes to the Exploration discard pile."""
    g, pols = make_game(
        {
            D.POWER: [int(Power.ORACLE)],
            D.COUNCIL_DISCARD: [int(Q)],
            D.ACTION: [Action.REQUEST_SUPPORT],
        }
    )
    p0 = g.players[0]
    _power_turn_setup(g, "Oracle")
    squid = list(g.council[Q])
    g.take_turn(0)
    assert set(squid) <= set(g.exploration_discard)
    assert g.council[Q] == []
    assert len(p0.hand) == 2  # the remaining Crab stack was requested
    assert len(asked(pols[0], D.POWER)) == 1
    assert audit(g) == []


def test_opportunist_replaces_a_court_lord_with_top_of_deck():
    """The Opportunist (#21, once per turn): "During your turn, you may discard a Lord from the
    Court and replace it with the top one from the deck." The new Lord takes the same Court
    space (decision COURT_DISCARD)."""
    g, pols = make_game({D.POWER: [int(Power.OPPORTUNIST)], D.ACTION: [Action.REQUEST_SUPPORT]})
    _power_turn_setup(g, "Opportunist")
    target = g.court[2]
    pols[0].answers[D.COURT_DISCARD] = [target]
    top = lord_deck_top(g, "Miller")
    court_before = list(g.court)
    g.take_turn(0)
    assert g.court == court_before[:2] + [top] + court_before[3:]
    assert target in g.lord_discard
    assert len(asked(pols[0], D.POWER)) == 1
    assert audit(g) == []


def test_once_per_turn_powers_each_once_per_turn_and_again_next_turn():
    """Slaver (#12) "During your turn, you can discard 1 Ally from your hand to gain 2 Pearls." and
    Oracle (#17) "During your turn, you may discard 1 stack of cards from the council.": each at
    most once per turn (offered before and after the action through the POWER decision), and
    available again on the next own turn. (Two of them only: the three together carry 3 Keys and
    would slide under a Location at the end of the turn.)"""
    slaver, oracle = int(Power.SLAVER), int(Power.ORACLE)
    g, pols = make_game(
        {
            D.POWER: [slaver, oracle, 0],
            D.COUNCIL_DISCARD: [int(Q)],
            D.ACTION: [Action.REQUEST_SUPPORT, Action.REQUEST_SUPPORT],
        }
    )
    give_allies(g, 0, (J, 5), (J, 1))
    _power_turn_setup(g, "Slaver", "Oracle")
    to_council(g, S, 1)
    g.take_turn(0)
    offered = [options for options, _ in asked(pols[0], D.POWER)]
    assert offered == [[0, slaver, oracle], [0, oracle]]  # nothing left to offer after the action
    assert g.players[0].used_powers == {slaver, oracle}
    assert g.players[0].locations == []
    g.take_turn(1)
    g.take_turn(0)  # next own turn: both are offered again (declined here, and after the action)
    offered = [options for options, _ in asked(pols[0], D.POWER)]
    assert offered[2:] == [[0, slaver, oracle], [0, slaver, oracle]]
    assert audit(g) == []


# ================================================================================== Mages
def test_invoker_takes_an_extra_turn_right_after():
    """The Invoker (#15, arrow): "Take an extra turn after this one." Seat 0 recruits it on the
    first turn and plays the second turn too; seat 1 follows (turn_limit 3 stops the game)."""
    t = with_rules(turn_limit=3)
    g, pols = make_game({D.ACTION: [Action.RECRUIT]}, t=t)
    invoker = lord_id(g, "Invoker")
    pols[0].answers[D.RECRUIT_LORD] = [invoker]
    set_court(g, "Invoker")
    give_allies(g, 0, *PAY["Invoker"])
    g.play()
    assert invoker in g.players[0].lords
    assert [e["who"] for e in events(g, "turn_start")] == [0, 0, 1]
    assert [e["who"] for e in events(g, "extra_turn")] == [0]
    assert not g.extra_turn
    assert audit(g) == []


SIX_LORDS = ("Miller", "Aquaculturalist", "Landowner", "Peddler", "Trader", "Shopkeeper")


@pytest.mark.parametrize("option", [False, True])
def test_invoker_as_seventh_lord_gives_no_turn_beyond_the_last_round(option):
    """End of Game: "The active player finishes their turn, and every other player takes one
    last turn." With the Invoker recruited as the 7th Lord, its "Take an extra turn after this
    one" would give a further turn: by the seed text it is not taken (default); the rules option
    last_round_extra_turn = true takes it first."""
    t = with_rules(last_round_extra_turn=True) if option else tables()
    assert t.rules.last_round_extra_turn is option
    g, pols = make_game({D.ACTION: [Action.RECRUIT]}, t=t)
    for name in SIX_LORDS:
        give_lord(g, 0, name)
    invoker = lord_id(g, "Invoker")
    pols[0].answers[D.RECRUIT_LORD] = [invoker]
    set_court(g, "Invoker")
    give_allies(g, 0, *PAY["Invoker"])
    g.play()
    assert g.end_reason == "seventh_lord" and invoker in g.players[0].lords
    seats = [e["who"] for e in events(g, "turn_start")]
    assert seats == ([0, 0, 1, 2] if option else [0, 1, 2])
    assert len(events(g, "extra_turn_not_taken")) == (0 if option else 1)
    assert audit(g) == []


def test_invoker_recruited_in_a_last_turn_gives_no_extra_turn():
    """End of Game: "every other player takes one last turn": an opponent recruiting the Invoker
    in its last turn plays no further turn (default reading)."""
    g, pols = make_game({D.ACTION: [Action.RECRUIT]}, {D.ACTION: [Action.RECRUIT]})
    for name in SIX_LORDS:
        give_lord(g, 0, name)
    set_court(g, "Shepherd", "Invoker")
    pols[0].answers[D.RECRUIT_LORD] = [lord_id(g, "Shepherd")]
    pols[1].answers[D.RECRUIT_LORD] = [lord_id(g, "Invoker")]
    give_allies(g, 0, (S, 5), (S, 3))
    give_allies(g, 1, *PAY["Invoker"])
    g.play()
    assert g.end_reason == "seventh_lord"
    assert lord_id(g, "Invoker") in g.players[1].lords
    assert [e["who"] for e in events(g, "turn_start")] == [0, 1, 2]
    assert [e["who"] for e in events(g, "extra_turn_not_taken")] == [1]
    assert audit(g) == []


def test_apprentice_takes_a_council_stack():
    """The Apprentice (#16, arrow): "Add 1 stack of cards from the Council to your hand." """
    g, pols = make_game({D.COUNCIL_STACK: [int(C)]})
    crabs = to_council(g, C, 1, 2)
    squids = to_council(g, Q, 3)
    apprentice = give_lord(g, 0, "Apprentice")
    g.apply_recruit_power(g.players[0], apprentice)
    assert asked(pols[0], D.COUNCIL_STACK) == [([int(C), int(Q)], int(C))]
    assert g.players[0].hand == crabs
    assert g.council[C] == [] and g.council[Q] == squids
    assert audit(g) == []


def test_apprentice_with_empty_council_does_nothing():
    """Apprentice (#16): nothing to take from an empty Council."""
    g, _ = make_game()
    apprentice = give_lord(g, 0, "Apprentice")
    g.apply_recruit_power(g.players[0], apprentice)
    assert g.players[0].hand == []
    assert audit(g) == []


def test_alchemist_request_support_takes_two_stacks():
    """The Alchemist (#18, semi-permanent): "When you request support from the Council, add 2
    stacks to your hand instead of 1." """
    g, pols = make_game({D.COUNCIL_STACK: [int(Q), int(J)]})
    give_lord(g, 0, "Alchemist")
    jelly = to_council(g, J, 1)
    crabs = to_council(g, C, 1, 2)
    squid = to_council(g, Q, 3)
    g.request_support(g.players[0])
    assert sorted(g.players[0].hand) == sorted(jelly + squid)
    assert g.council[C] == crabs
    assert [options for options, _ in asked(pols[0], D.COUNCIL_STACK)] == [
        [int(J), int(C), int(Q)],
        [int(J), int(C)],
    ]
    assert audit(g) == []


@pytest.mark.parametrize("alchemist", ["none", "under", "single stack"])
def test_alchemist_one_stack_otherwise(alchemist):
    """Without a working Alchemist (#18) request support takes one stack ("Take all cards from one
    stack in the Council"); with it but only one stack in the Council, it takes that one."""
    g, _ = make_game()
    p0 = g.players[0]
    if alchemist != "none":
        lord = give_lord(g, 0, "Alchemist")
        if alchemist == "under":
            give_location(g, 0, "The Sanctuary", [lord])
    crabs = to_council(g, C, 1, 2)
    if alchemist != "single stack":
        to_council(g, Q, 3)
    g.request_support(p0)
    assert p0.hand == crabs
    assert len(events(g, "council", who=0)) == 1
    assert audit(g) == []


def test_illusionist_exchanges_a_location_lords_move_with_it():
    """The Illusionist (#19, arrow): "You can exchange one of your Locations for a different
    available one." components.md: "swap one of your Locations for an available face-up one". The
    Lords under the old Location stay under the new one."""
    g, pols = make_game()
    p0 = g.players[0]
    keeper = give_lord(g, 0, "Keeper")
    mine = give_location(g, 0, "The Jail", [keeper])
    other = make_available(g, "Parliament")
    pols[0].answers[D.ILLUSIONIST_GIVE] = [mine]
    pols[0].answers[D.ILLUSIONIST_TAKE] = [other]
    illusionist = give_lord(g, 0, "Illusionist")
    g.apply_recruit_power(p0, illusionist)
    assert p0.locations == [other]
    assert p0.location_lords == {other: [keeper]}
    assert keeper in p0.under and illusionist not in p0.under
    assert mine in g.locations_available and other not in g.locations_available
    assert audit(g) == []


def test_illusionist_may_decline_and_needs_a_location():
    """Illusionist (#19): "You can exchange" - optional; without a Location nothing is asked."""
    g, pols = make_game()
    p0 = g.players[0]
    illusionist = give_lord(g, 0, "Illusionist")
    g.apply_recruit_power(p0, illusionist)
    assert asked(pols[0], D.ILLUSIONIST_GIVE) == []
    mine = give_location(g, 0, "The Jail")
    available = list(g.locations_available)
    pols[0].answers[D.ILLUSIONIST_GIVE] = [DECLINE]
    g.apply_recruit_power(p0, illusionist)
    assert asked(pols[0], D.ILLUSIONIST_GIVE) == [([DECLINE, mine], DECLINE)]
    assert p0.locations == [mine] and g.locations_available == available
    assert audit(g) == []


def test_master_of_magic_affiliates_any_ally_used_later():
    """The Master of Magic (#20, semi-permanent): "When you recruit other Lords, affiliate the Ally
    of your choice from among those used (instead of the lowest value)." """
    g, pols = make_game()
    p0 = g.players[0]
    give_lord(g, 0, "Master of Magic")
    (keeper,) = set_court(g, "Keeper")
    s5, j1, c1 = give_allies(g, 0, (S, 5), (J, 1), (C, 1))
    set_pearls(g, 0, 0)
    pols[0].answers[D.RECRUIT_LORD] = [keeper]
    pols[0].answers[D.AFFILIATE] = [s5]
    g.recruit(p0)
    assert asked(pols[0], D.AFFILIATE) == [([j1, c1, s5], s5)]
    assert p0.affiliated == [s5]
    assert {j1, c1} <= set(g.exploration_discard)
    assert audit(g) == []


def test_without_master_of_magic_lowest_ally_is_affiliated():
    """Rulebook: "All Allies used to recruit are discarded except for the one with the lowest value
    ... If there is a tie for the lowest value, you choose which one to keep." """
    g, pols = make_game()
    p0 = g.players[0]
    (keeper,) = set_court(g, "Keeper")
    s5, j1, c1 = give_allies(g, 0, (S, 5), (J, 1), (C, 1))
    set_pearls(g, 0, 0)
    pols[0].answers[D.RECRUIT_LORD] = [keeper]
    pols[0].answers[D.AFFILIATE] = [c1]
    g.recruit(p0)
    assert asked(pols[0], D.AFFILIATE) == [([j1, c1], c1)]
    assert p0.affiliated == [c1]
    assert audit(g) == []


@pytest.mark.parametrize("how", ["under", "disabled"])
def test_master_of_magic_stops_under_a_location_or_disabled(how):
    """Master of Magic (#20) is semi-permanent: slid under a Location, or disabled by the Assassin
    ("counts only for points"), it no longer lets its owner choose: the lowest Ally is
    affiliated."""
    g, pols = make_game()
    p0 = g.players[0]
    mom = give_lord(g, 0, "Master of Magic")
    if how == "under":
        give_location(g, 0, "Hydrozoa Reserves", [mom])
    else:
        p0.disabled.add(mom)
    (keeper,) = set_court(g, "Keeper")
    s5, j1, c2 = give_allies(g, 0, (S, 5), (J, 1), (C, 2))
    set_pearls(g, 0, 0)
    pols[0].answers[D.RECRUIT_LORD] = [keeper]
    g.recruit(p0)
    assert asked(pols[0], D.AFFILIATE) == []
    assert p0.affiliated == [j1]
    assert audit(g) == []


def test_master_of_magic_not_for_its_own_recruitment():
    """Master of Magic (#20): "When you recruit other Lords" - its own recruitment affiliates the
    lowest Ally ("This Power therefore only has an effect on future recruitments")."""
    g, pols = make_game()
    p0 = g.players[0]
    recruit_exactly(g, pols, 0, "Master of Magic")
    q1 = next(a for a in used_allies(g, 0) if g.race(a) == Q)
    assert p0.affiliated == [q1]
    assert asked(pols[0], D.AFFILIATE) == []
    assert audit(g) == []


def used_allies(g: Game, seat: int) -> list[int]:
    """The Allies used in the seat's last recruitment."""
    return events(g, "recruit", who=seat)[-1]["allies"]


# ============================================================================= Politicians
def test_corruptor_recruits_a_second_lord_for_exactly_5_pearls():
    """The Corruptor (#22, arrow): "You can recruit a second Lord from the Court by paying 5 Pearls
    instead of its normal cost." No Allies are used or affiliated, and the second Lord's own arrow
    power applies (the Trader: "Gain 3 Pearls."). The price is 5 Pearls "instead of its normal
    cost", so an opponent's Recruiter does not change it."""
    g, pols = make_game()
    p0 = g.players[0]
    give_lord(g, 1, "Recruiter")
    corruptor, trader = set_court(g, "Corruptor", "Trader")
    pols[0].answers[D.COURT_LORD] = [trader]
    give_allies(g, 0, *PAY["Corruptor"])
    set_pearls(g, 0, 8)  # 2 of them pay the Recruiter's +2 on the Corruptor itself
    pols[0].answers[D.RECRUIT_LORD] = [corruptor]
    g.recruit(p0)
    assert p0.lords == [corruptor, trader]
    (options, answer) = asked(pols[0], D.COURT_LORD)[0]
    assert options[0] == DECLINE and trader in options and corruptor not in options
    (second,) = events(g, "recruit", who=0, lord=trader)
    assert second["allies"] == [] and second["pearls"] == 5
    assert events(g, "recruit", who=0, lord=corruptor)[0]["pearls"] == 2
    assert p0.pearls == 8 - 2 - 5 + 3
    assert len(p0.affiliated) == 1 and p0.hand == []
    assert audit(g) == []


def test_corruptor_may_decline():
    """Corruptor (#22): "You can recruit a second Lord" - optional."""
    g, pols = make_game({D.COURT_LORD: [DECLINE]})
    p0 = g.players[0]
    recruit_exactly(g, pols, 0, "Corruptor", pearls=6)
    assert len(asked(pols[0], D.COURT_LORD)) == 1
    assert p0.lords == [lord_id(g, "Corruptor")] and p0.pearls == 6
    assert len(g.court) == 5
    assert audit(g) == []


def test_corruptor_not_offered_with_less_than_5_pearls():
    """Corruptor (#22): "by paying 5 Pearls" - with 4 Pearls the offer is not made."""
    g, pols = make_game()
    p0 = g.players[0]
    recruit_exactly(g, pols, 0, "Corruptor", pearls=4)
    assert asked(pols[0], D.COURT_LORD) == []
    assert p0.lords == [lord_id(g, "Corruptor")] and p0.pearls == 4
    assert audit(g) == []


def test_traitor_swaps_a_free_lord_for_any_court_lord_whose_power_applies():
    """The Traitor (#23, arrow): "You can discard one of your other free Lords and replace it with
    any Lord from the Court." Publisher clarification (FAQ): "The player can
    immediately use the Power of the new Lord which has come into play as a replacement." Lords
    under a Location and the Traitor itself are not offered; the Trader taken gives 3 Pearls."""
    g, pols = make_game()
    p0 = g.players[0]
    keeper = give_lord(g, 0, "Keeper")
    reaper = give_lord(g, 0, "Reaper")
    give_location(g, 0, "Sargasso Silos", [reaper])
    traitor, trader = set_court(g, "Traitor", "Trader")
    pols[0].answers[D.OWN_LORD] = [keeper]
    pols[0].answers[D.COURT_LORD] = [trader]
    give_allies(g, 0, *PAY["Traitor"])
    set_pearls(g, 0, 0)
    pols[0].answers[D.RECRUIT_LORD] = [traitor]
    g.recruit(p0)
    assert asked(pols[0], D.OWN_LORD) == [([DECLINE, keeper], keeper)]
    assert sorted(p0.lords) == sorted([reaper, traitor, trader])
    assert keeper in g.lord_discard and trader not in g.court
    assert p0.pearls == 3
    assert len(g.court) == 4
    assert audit(g) == []


def test_traitor_may_decline():
    """Traitor (#23): "You can discard" - optional."""
    g, pols = make_game({D.OWN_LORD: [DECLINE]})
    p0 = g.players[0]
    keeper = give_lord(g, 0, "Keeper")
    traitor = recruit_exactly(g, pols, 0, "Traitor")
    assert p0.lords == [keeper, traitor] and len(g.court) == 5
    assert asked(pols[0], D.COURT_LORD) == []
    assert audit(g) == []


def test_diplomat_any_races_but_exact_number():
    """The Diplomat (#24, semi-permanent): "When you recruit, you may use any Races of your choice
    (you must still respect the number of Races required)." The Trader (Merchant, 10, 3 races) is
    paid without any Shellfish; a fourth race cannot be added."""
    g, pols = make_game()
    p0, p1, _ = g.players
    give_lord(g, 0, "Diplomat")
    (trader,) = set_court(g, "Trader")
    cards = [(J, 4), (C, 3), (Q, 3), (S, 2)]
    j4, c3, q3, s2 = give_allies(g, 0, *cards)
    give_allies(g, 1, *cards)
    set_pearls(g, 0, 0)
    set_pearls(g, 1, 0)
    assert trader not in g.affordable_lords(p1)  # no Diplomat: a Shellfish is required
    rule = g.payment_rule(p0, trader)
    assert rule.required == -1 and rule.n_races == 3
    assert trader in g.affordable_lords(p0)
    options = payment_options(g.t, p0.hand, [j4, c3, q3], p0.pearls, rule)
    assert FINISH in options and s2 not in options  # exactly three races
    pols[0].answers[D.RECRUIT_LORD] = [trader]
    pols[0].answers[D.PAY_ALLY] = [j4, c3, q3, FINISH]
    g.recruit(p0)
    assert trader in p0.lords and p0.hand == [s2]
    assert audit(g) == []


def test_diplomat_number_of_races_still_exact():
    """Diplomat (#24): "you must still respect the number of Races required" - two races cannot pay
    a 3-race Lord, and a 1-race Lord (Peddler) takes a single race, of any kind."""
    g, _ = make_game()
    p0 = g.players[0]
    give_lord(g, 0, "Diplomat")
    trader, peddler = set_court(g, "Trader", "Peddler")
    give_allies(g, 0, (J, 5), (C, 5))
    set_pearls(g, 0, 20)
    assert trader not in g.affordable_lords(p0)
    assert peddler in g.affordable_lords(p0)  # Crab 5 (or Jellyfish 5) + 3 Pearls
    rule = g.payment_rule(p0, peddler)
    j5, c5 = p0.hand
    assert not payment_feasible(g.t, p0.hand, [j5, c5], 0, rule)
    assert audit(g) == []


def test_schemer_swaps_a_free_lord_for_top_of_deck_whose_power_applies():
    """The Schemer (#26, arrow): "You may discard one of your other free Lords and replace it with
    the top one from the deck." The new Lord's arrow power applies (Peddler: "Gain 2 Pearls.")."""
    g, pols = make_game()
    p0 = g.players[0]
    keeper = give_lord(g, 0, "Keeper")
    reaper = give_lord(g, 0, "Reaper")
    give_location(g, 0, "Sargasso Silos", [reaper])
    peddler = lord_deck_top(g, "Peddler")
    pols[0].answers[D.OWN_LORD] = [keeper]
    schemer = give_lord(g, 0, "Schemer")
    set_pearls(g, 0, 0)
    g.apply_recruit_power(p0, schemer)
    assert asked(pols[0], D.OWN_LORD) == [([DECLINE, keeper], keeper)]
    assert sorted(p0.lords) == sorted([reaper, schemer, peddler])
    assert keeper in g.lord_discard and peddler not in g.lord_deck
    assert p0.pearls == 2
    assert audit(g) == []


def test_schemer_may_decline_and_needs_another_free_lord():
    """Schemer (#26): "You may discard" - optional, and only "other free Lords" qualify."""
    g, pols = make_game({D.OWN_LORD: [DECLINE]})
    p0 = g.players[0]
    schemer = give_lord(g, 0, "Schemer")
    g.apply_recruit_power(p0, schemer)
    assert asked(pols[0], D.OWN_LORD) == []
    keeper = give_lord(g, 0, "Keeper")
    deck = list(g.lord_deck)
    g.apply_recruit_power(p0, schemer)
    assert asked(pols[0], D.OWN_LORD) == [([DECLINE, keeper], DECLINE)]
    assert p0.lords == [schemer, keeper] and g.lord_deck == deck
    assert audit(g) == []


# ================================================================================= Farmers
@pytest.mark.parametrize(
    "name", ["Keeper", "Reaper", "Shepherd", "Miller", "Aquaculturalist", "Landowner"]
)
def test_farmer_has_no_power(name):
    """Farmers (#27-#32) print no power: recruiting one changes nothing but its IP and Keys (the
    Allies paid and the affiliation aside)."""
    g, pols = make_game()
    p0, p1, p2 = g.players
    give_allies(g, 1, (J, 3), (C, 2))
    give_tokens(g, 2, 1)
    set_pearls(g, 1, 3)
    to_council(g, Q, 1, 2)
    before = {
        "ip": g.score(p0).lords,
        "keys": g.n_keys(p0),
        "others": [(p.pearls, list(p.hand), list(p.lords), list(p.tokens)) for p in (p1, p2)],
        "council": [list(s) for s in g.council],
        "locations": (list(g.location_deck), list(g.locations_available)),
    }
    lord = recruit_exactly(g, pols, 0, name)
    after_recruit = [e["event"] for e in g.events[g.events.index(events(g, "recruit")[0]) :]]
    assert after_recruit == ["recruit", "affiliate", "gain_lord"]
    assert g.score(p0).lords == before["ip"] + int(g.t.lord_ip[lord])
    assert g.n_keys(p0) == before["keys"] + int(g.t.lord_keys[lord])
    assert p0.pearls == 0 and p0.locations == [] and not g.extra_turn
    assert before["others"] == [
        (p.pearls, list(p.hand), list(p.lords), list(p.tokens)) for p in (p1, p2)
    ]
    assert before["council"] == [list(s) for s in g.council]
    assert before["locations"] == (list(g.location_deck), list(g.locations_available))
    assert audit(g) == []


# ============================================================================= Ambassadors
@pytest.mark.parametrize("name, n", [("Hermit", 1), ("Sage", 2), ("Elder", 3)])
def test_ambassador_draws_locations_and_controls_one(name, n):
    """Ambassadors (ambassador_mode = "draw", the default): the Sage (#33) "Draw 2 Locations, place
    one under your control and make the other one available.", the Hermit (#34) "Draw 1 Location
    and place it under your control.", the Elder (#35) "Draw 3 Locations, place one under your
    control and make the other two available." components.md: "Take control of one (the Ambassador
    slides under it); the others become available"."""
    assert tables().rules.ambassador_mode == "draw"
    g, pols = make_game()
    p0 = g.players[0]
    tops = location_deck_top(g, "The Chasm", "Parliament", "The Jail")  # The Jail drawn first
    keep = tops[-1]
    pols[0].answers[D.LOCATION_KEEP] = [keep]
    available = list(g.locations_available)
    lord = recruit_exactly(g, pols, 0, name)
    drawn = tops[::-1][:n]
    if n > 1:
        ((options, _),) = asked(pols[0], D.LOCATION_KEEP)
        assert sorted(options) == sorted(drawn)
    assert p0.locations == [keep]
    assert p0.location_lords == {keep: [lord]}
    assert lord in p0.under and lord not in p0.free_lords()
    assert sorted(g.locations_available) == sorted(available + drawn[1:])
    assert g.score(p0).lords == int(g.t.lord_ip[lord])
    assert audit(g) == []


@pytest.mark.parametrize("name", ["Hermit", "Sage", "Elder"])
def test_ambassador_keys_mode_three_keys_claim_a_location_alone(name):
    """ambassador_mode = "keys" (components.md, PARTLY [UTIL]): "Ambassadors carry 3 Keys and can
    claim one alone": no Location is drawn on recruitment; at the end of the action ("If you gain a
    third Key, you must immediately take control of a Location") the Ambassador alone pays for the
    face-up Location and slides under it."""
    t = with_rules(ambassador_mode="keys")
    g, pols = make_game({D.ACTION: [Action.RECRUIT]}, t=t)
    p0 = g.players[0]
    lord = lord_id(g, name)
    assert g.lord_keys(lord) == 3
    assert make_game()[0].lord_keys(lord) == 0  # "draw" mode: no Keys
    set_court(g, name)
    give_allies(g, 0, *PAY[name])
    set_pearls(g, 0, 0)
    pols[0].answers[D.RECRUIT_LORD] = [lord]
    (face_up,) = g.locations_available
    deck = list(g.location_deck)
    keys_pile = g.key_pile
    g.take_turn(0)
    assert events(g, "ambassador") == []
    assert p0.locations == [face_up] and p0.location_lords == {face_up: [lord]}
    assert g.location_deck == deck and g.key_pile == keys_pile and p0.keys == 0
    assert audit(g) == []
