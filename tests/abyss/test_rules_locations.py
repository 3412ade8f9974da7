"""The 20 base Locations: their final-IP formulas (components.md 1.5) on hand-built players.

Each test builds a player with chosen Lords (some slid under Locations) and affiliated Allies,
gives them the Location and checks `Game.location_score` and `Game.score(...).locations`
against a value computed by hand from the formula quoted in the docstring. Lord data used below
(components.md 1.4, name: guild, IP, Keys):

    Recruiter: Soldier 4, 1 Key      Jailer: Soldier 7, 0      Hunter: Soldier 6, 0
    Trader: Merchant 9, 0            Ship Master: Merchant 5, 1
    Shaman: Mage 5, 1                Invoker: Mage 8, 0        Oracle: Mage 5, 1
    Diplomat: Politician 5, 1        Treasurer: Politician 5, 1
    Schemer: Politician 6, 0         Corruptor: Politician 6, 0
    Keeper: Farmer 6, 1              Reaper: Farmer 6, 1       Shepherd: Farmer 6, 1
    Miller: Farmer 10, 0             Aquaculturalist: Farmer 11, 0   Landowner: Farmer 12, 0
    Sage: Ambassador 4, 0            Hermit: Ambassador 5, 0   Elder: Ambassador 3, 0

"Your Lords" counts all your Lords, including those under Locations; "affiliated" counts the
Allies face up in front of you (not the hand, which is only affiliated at the final tally).
"""

from __future__ import annotations

import pytest
from abyss_helpers import (
    Race,
    Scripted,
    give_allies,
    give_location,
    give_lord,
    location_id,
    new_game,
)

from games.abyss.engine.audit import audit
from games.abyss.engine.cards.constants import N_RACES, Guild, LocationRule
from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.rules.base import Decision
from games.abyss.engine.rules.game import Game
from games.abyss.engine.rules.locations import location_formula
from games.abyss.strategies import REGISTRY


def lords(g: Game, seat: int, *names: str) -> list[int]:
    return [give_lord(g, seat, name) for name in names]


def loc_score(g: Game, seat: int, name: str) -> int:
    """The score of Location `name` held by `seat`, checked three ways for consistency."""
    p = g.players[seat]
    loc = location_id(g, name)
    assert loc in p.locations
    value = g.location_score(p, loc)
    if g.t.location_rule[loc] != LocationRule.CITY_OF_MIRRORS:
        assert location_formula(g.t, p, loc) == value
    assert g.score(p).locations == sum(g.location_score(p, x) for x in p.locations)
    return value


def only_location_score(g: Game, seat: int, name: str) -> int:
    """Score of the player's only Location, read through `Game.score`."""
    p = g.players[seat]
    assert p.locations == [location_id(g, name)]
    total = g.score(p).locations
    assert total == loc_score(g, seat, name)
    assert not audit(g)
    return total


# ------------------------------------------------------------------ Lords of a guild


def test_sargasso_silos():
    """Sargasso Silos: 5 + 2 × (your Farmer Lords)."""
    g = new_game()
    miller, keeper = lords(g, 0, "Miller", "Keeper")
    lords(g, 0, "Recruiter", "Sage")
    give_allies(g, 0, (Race.SEAHORSE, 5), affiliated=True)  # a Seahorse Ally is not a Lord
    give_location(g, 0, "Sargasso Silos", [keeper])  # the Keeper under it still counts
    assert only_location_score(g, 0, "Sargasso Silos") == 5 + 2 * 2
    # Another player's Farmers do not count.
    lords(g, 1, "Shepherd")
    assert only_location_score(g, 0, "Sargasso Silos") == 9
    assert miller in g.players[0].lords


def test_sargasso_silos_without_farmers():
    """Sargasso Silos: 5 + 2 × (your Farmer Lords) = 5 with none."""
    g = new_game()
    lords(g, 0, "Jailer")
    give_location(g, 0, "Sargasso Silos")
    assert only_location_score(g, 0, "Sargasso Silos") == 5


def test_hydrozoa_reserves():
    """Hydrozoa Reserves: 6 + 2 × (your Mage Lords)."""
    g = new_game()
    shaman, _, oracle = lords(g, 0, "Shaman", "Invoker", "Oracle")
    lords(g, 0, "Miller", "Hermit")
    give_allies(g, 0, (Race.JELLYFISH, 4), affiliated=True)
    give_location(g, 0, "Hydrozoa Reserves", [shaman, oracle])
    assert only_location_score(g, 0, "Hydrozoa Reserves") == 6 + 2 * 3


def test_parliament():
    """Parliament: 6 + 2 × (your Politician Lords)."""
    g = new_game()
    diplomat, treasurer = lords(g, 0, "Diplomat", "Treasurer")
    lords(g, 0, "Schemer", "Corruptor", "Sage")
    give_location(g, 0, "Parliament", [diplomat, treasurer])
    assert only_location_score(g, 0, "Parliament") == 6 + 2 * 4


def test_barracks():
    """The Barracks: 7 + 2 × (your Soldier Lords)."""
    g = new_game()
    recruiter = give_lord(g, 0, "Recruiter")
    lords(g, 0, "Jailer", "Hunter", "Trader")
    give_allies(g, 0, (Race.CRAB, 5), (Race.CRAB, 1), affiliated=True)
    give_location(g, 0, "Barracks", [recruiter])
    assert only_location_score(g, 0, "Barracks") == 7 + 2 * 3


def test_dockworks():
    """The Dockworks: 5 + 2 × (your Merchant Lords)."""
    g = new_game()
    ship_master = give_lord(g, 0, "Ship Master")
    lords(g, 0, "Trader", "Diplomat")
    give_allies(g, 0, (Race.SHELLFISH, 4), affiliated=True)
    give_location(g, 0, "Dockworks", [ship_master])
    assert only_location_score(g, 0, "Dockworks") == 5 + 2 * 2


# --------------------------------------------------------- affiliated Allies of a race


def test_sanctuary():
    """The Sanctuary: 4 + 3 × (your affiliated Jellyfish)."""
    g = new_game()
    lords(g, 0, "Shaman")  # a Mage Lord is not a Jellyfish Ally
    give_allies(g, 0, (Race.JELLYFISH, 1), (Race.JELLYFISH, 4), (Race.CRAB, 5), affiliated=True)
    give_allies(g, 0, (Race.JELLYFISH, 5))  # in hand: not affiliated, does not count
    give_allies(g, 1, (Race.JELLYFISH, 3), affiliated=True)  # an opponent's
    give_location(g, 0, "Sanctuary")
    assert only_location_score(g, 0, "Sanctuary") == 4 + 3 * 2


def test_sargasso_fields():
    """The Sargasso Fields: 3 + 3 × (your affiliated Seahorses)."""
    g = new_game()
    lords(g, 0, "Miller")
    give_allies(
        g,
        0,
        (Race.SEAHORSE, 1),
        (Race.SEAHORSE, 1),
        (Race.SEAHORSE, 3),
        (Race.SQUID, 2),
        affiliated=True,
    )
    give_allies(g, 0, (Race.SEAHORSE, 4))  # in hand
    give_location(g, 0, "Sargasso Fields")
    assert only_location_score(g, 0, "Sargasso Fields") == 3 + 3 * 3


def test_oceanic_senate_assembly():
    """Oceanic Senate Assembly: 4 + 3 × (your affiliated Squids)."""
    g = new_game()
    lords(g, 0, "Diplomat", "Treasurer")  # Politician Lords are not Squid Allies
    give_allies(g, 0, (Race.SQUID, 5), (Race.SHELLFISH, 2), affiliated=True)
    give_location(g, 0, "Oceanic Senate Assembly")
    assert only_location_score(g, 0, "Oceanic Senate Assembly") == 4 + 3 * 1


def test_chasm():
    """The Chasm: 5 + 3 × (your affiliated Crabs)."""
    g = new_game()
    give_allies(
        g,
        0,
        (Race.CRAB, 2),
        (Race.CRAB, 3),
        (Race.CRAB, 3),
        (Race.CRAB, 5),
        (Race.JELLYFISH, 5),
        affiliated=True,
    )
    give_location(g, 0, "Chasm")
    assert only_location_score(g, 0, "Chasm") == 5 + 3 * 4


def test_nest_of_giant_clams():
    """Nest of Giant Clams: 3 + 3 × (your affiliated Shellfish)."""
    g = new_game()
    lords(g, 0, "Trader")
    give_allies(g, 0, (Race.SHELLFISH, 1), (Race.SHELLFISH, 2), affiliated=True)
    give_allies(g, 2, (Race.SHELLFISH, 5), affiliated=True)  # an opponent's
    give_location(g, 0, "Nest of Giant Clams")
    assert only_location_score(g, 0, "Nest of Giant Clams") == 3 + 3 * 2


def test_nest_of_giant_clams_without_shellfish():
    """Nest of Giant Clams: 3 + 3 × (your affiliated Shellfish) = 3 with none."""
    g = new_game()
    give_allies(g, 0, (Race.SHELLFISH, 5))  # in hand only
    give_location(g, 0, "Nest of Giant Clams")
    assert only_location_score(g, 0, "Nest of Giant Clams") == 3


# ------------------------------------------------------------------ the other formulas


def test_the_abyss():
    """The Abyss: 2 × (number of distinct guilds among your Lords; Ambassadors count as one
    guild)."""
    g = new_game()
    miller, sage = lords(g, 0, "Miller", "Sage")
    lords(g, 0, "Keeper", "Hermit", "Elder", "Jailer")
    give_allies(g, 0, (Race.SQUID, 5), (Race.SHELLFISH, 5), affiliated=True)  # Allies: no guild
    give_location(g, 0, "Abyss", [sage])
    # Farmer (Miller, Keeper), Ambassador (Sage, Hermit, Elder: one guild), Soldier (Jailer).
    assert only_location_score(g, 0, "Abyss") == 2 * 3
    # One Lord of each of the other three guilds: all six guilds.
    lords(g, 0, "Shaman", "Trader", "Diplomat")
    assert only_location_score(g, 0, "Abyss") == 2 * 6
    assert miller in g.players[0].lords


def test_the_abyss_without_lords():
    """The Abyss: 2 × (number of distinct guilds among your Lords) = 0 with no Lord."""
    g = new_game()
    give_location(g, 0, "Abyss")
    assert only_location_score(g, 0, "Abyss") == 0


def test_the_depths():
    """The Depths: 2 × (IP of your weakest Lord)."""
    g = new_game()
    landowner, elder = lords(g, 0, "Landowner", "Elder")
    lords(g, 0, "Miller", "Recruiter")
    give_location(g, 0, "Depths", [elder, landowner])  # the weakest Lord is under the Location
    assert only_location_score(g, 0, "Depths") == 2 * 3


def test_the_depths_without_lords():
    """The Depths: 2 × (IP of your weakest Lord) = 0 with no Lord."""
    g = new_game()
    lords(g, 1, "Elder")  # an opponent's Lord
    give_location(g, 0, "Depths")
    assert only_location_score(g, 0, "Depths") == 0


def test_the_throne_room():
    """The Throne Room: IP of your strongest Lord."""
    g = new_game()
    landowner, recruiter = lords(g, 0, "Landowner", "Recruiter")
    lords(g, 0, "Miller", "Sage")
    lords(g, 1, "Aquaculturalist")
    give_location(g, 0, "Throne Room", [landowner, recruiter])  # the strongest is under it
    assert only_location_score(g, 0, "Throne Room") == 12


def test_the_throne_room_without_lords():
    """The Throne Room: IP of your strongest Lord = 0 with no Lord."""
    g = new_game()
    give_location(g, 0, "Throne Room")
    assert only_location_score(g, 0, "Throne Room") == 0


def test_the_jail():
    """The Jail: 15 − (number of your Lords), Lords under Locations included."""
    g = new_game()
    keeper, recruiter, shaman = lords(g, 0, "Keeper", "Recruiter", "Shaman")
    lords(g, 0, "Miller", "Sage")
    lords(g, 1, "Jailer", "Hunter")  # an opponent's Lords
    give_location(g, 0, "Jail", [keeper, recruiter])
    give_location(g, 0, "Sargasso Silos", [shaman])
    assert loc_score(g, 0, "Jail") == 15 - 5
    assert g.score(g.players[0]).locations == (15 - 5) + (5 + 2 * 2)
    assert not audit(g)


def test_the_jail_without_lords():
    """The Jail: 15 − (number of your Lords) = 15 with no Lord."""
    g = new_game()
    give_location(g, 0, "Jail")
    assert only_location_score(g, 0, "Jail") == 15


def test_the_jail_with_seven_lords():
    """The Jail: 15 − (number of your Lords); disabled Lords are still Lords."""
    g = new_game()
    owned = lords(g, 0, "Keeper", "Reaper", "Shepherd", "Miller", "Sage", "Hermit", "Elder")
    g.players[0].disabled.add(owned[3])  # turned by an Assassin: counts only for points
    give_location(g, 0, "Jail", owned[:3])
    assert only_location_score(g, 0, "Jail") == 15 - 7


def test_the_closed_tower():
    """The Closed Tower: 3 × (your Lords with ≥1 Key), Lords under Locations included."""
    g = new_game()
    keeper, reaper, recruiter = lords(g, 0, "Keeper", "Reaper", "Recruiter")
    lords(g, 0, "Shaman", "Miller", "Sage", "Jailer")
    give_location(g, 0, "Closed Tower", [keeper, reaper, recruiter])  # all three Keys used
    # Keys: Keeper, Reaper, Recruiter (under the Location), Shaman (free). No Key: the other 3.
    assert only_location_score(g, 0, "Closed Tower") == 3 * 4


def test_the_closed_tower_without_key_lords():
    """The Closed Tower: 3 × (your Lords with ≥1 Key) = 0 when none has a Key."""
    g = new_game()
    lords(g, 0, "Miller", "Landowner")
    give_location(g, 0, "Closed Tower")
    assert only_location_score(g, 0, "Closed Tower") == 0


def test_the_lost_tower():
    """The Lost Tower: 3 × (your Lords with no Key), Lords under Locations included."""
    g = new_game()
    hermit = give_lord(g, 0, "Hermit")  # slid under a Location by its own power (draw mode)
    lords(g, 0, "Keeper", "Recruiter", "Miller", "Jailer")
    give_location(g, 0, "Lost Tower", [hermit])
    # No Key: Hermit (under the Location), Miller, Jailer. With a Key: Keeper, Recruiter.
    assert only_location_score(g, 0, "Lost Tower") == 3 * 3


def test_the_lost_tower_without_lords():
    """The Lost Tower: 3 × (your Lords with no Key) = 0 with no Lord."""
    g = new_game()
    give_location(g, 0, "Lost Tower")
    assert only_location_score(g, 0, "Lost Tower") == 0


def test_towers_count_ambassador_keys_in_keys_mode():
    """The Closed Tower: 3 × (your Lords with ≥1 Key); The Lost Tower: 3 × (your Lords with no
    Key). Under `rules.ambassador_mode = "keys"` each Ambassador carries 3 Keys ([UTIL]), so it is
    a Lord with a Key for both Towers."""
    t = load_cards(overrides={"rules.ambassador_mode": "keys"})
    g = new_game(t=t)
    sage = give_lord(g, 0, "Sage")
    lords(g, 0, "Miller", "Keeper")
    assert g.n_keys(g.players[0]) == 3 + 1  # the engine's own Key count agrees
    give_location(g, 0, "Closed Tower", [sage])
    give_location(g, 0, "Lost Tower")
    # Lords with a Key: Sage (3), Keeper (1). Without: Miller.
    assert loc_score(g, 0, "Closed Tower") == 3 * 2
    assert loc_score(g, 0, "Lost Tower") == 3 * 1


def test_chamber_of_allies():
    """The Chamber of Allies: 3 + Σ over races of your **weakest** affiliated Ally of that race."""
    g = new_game()
    give_allies(
        g,
        0,
        (Race.JELLYFISH, 5),
        (Race.JELLYFISH, 2),
        (Race.CRAB, 4),
        (Race.SQUID, 1),
        (Race.SQUID, 3),
        affiliated=True,
    )
    give_allies(g, 0, (Race.SEAHORSE, 5))  # in hand: not affiliated
    give_location(g, 0, "Chamber of Allies")
    # Weakest per race: Jellyfish 2, Crab 4, Squid 1; no Seahorse or Shellfish affiliated.
    assert only_location_score(g, 0, "Chamber of Allies") == 3 + 2 + 4 + 1
    # The Allies' own score takes the strongest per race instead: 5 + 4 + 3.
    assert g.score(g.players[0]).allies == 5 + 4 + 3


def test_chamber_of_allies_without_allies():
    """The Chamber of Allies: 3 + (empty sum) = 3 with no affiliated Ally."""
    g = new_game()
    give_location(g, 0, "Chamber of Allies")
    assert only_location_score(g, 0, "Chamber of Allies") == 3


def test_coral_barrier():
    """The Coral Barrier: 20 − (number of your affiliated Allies)."""
    g = new_game()
    give_allies(
        g,
        0,
        (Race.JELLYFISH, 5),
        (Race.JELLYFISH, 2),
        (Race.CRAB, 4),
        (Race.SQUID, 1),
        affiliated=True,
    )
    give_allies(g, 0, (Race.SEAHORSE, 5), (Race.SEAHORSE, 1))  # in hand
    give_location(g, 0, "Coral Barrier")
    assert only_location_score(g, 0, "Coral Barrier") == 20 - 4


def test_coral_barrier_without_allies():
    """The Coral Barrier: 20 − (number of your affiliated Allies) = 20 with none."""
    g = new_game()
    give_location(g, 0, "Coral Barrier")
    assert only_location_score(g, 0, "Coral Barrier") == 20


# ------------------------------------------------------------------------ City of Mirrors


def test_city_of_mirrors_copies_best_opponent_location_with_owner_cards():
    """City of Mirrors: at game end, copies the best-scoring opponent Location, scored with
    **your** cards (BGA takes the maximum over all opponent Locations)."""
    g = new_game(n_players=3)
    lords(g, 0, "Keeper", "Reaper", "Shepherd", "Miller", "Aquaculturalist", "Landowner")
    give_location(g, 0, "City of Mirrors")
    give_location(g, 1, "Sargasso Silos")  # seat 1 has no Farmer: 5 for them
    give_location(g, 2, "Jail")  # seat 2 has no Lord: 15 for them
    give_location(g, 2, "Barracks")
    # With seat 0's cards: Silos 5 + 2 x 6 = 17, Jail 15 - 6 = 9, Barracks 7 + 0 = 7.
    assert loc_score(g, 0, "City of Mirrors") == 17
    assert loc_score(g, 1, "Sargasso Silos") == 5
    assert loc_score(g, 2, "Jail") == 15


def test_city_of_mirrors_best_location_of_another_opponent():
    """City of Mirrors: copies the best-scoring opponent Location, scored with your cards; the
    maximum is over every opponent's Locations."""
    g = new_game(n_players=4)
    lords(g, 0, "Elder")
    give_allies(g, 0, (Race.CRAB, 1), (Race.CRAB, 2), affiliated=True)
    give_location(g, 0, "City of Mirrors")
    give_location(g, 1, "Sargasso Silos")  # 5 + 0
    give_location(g, 2, "Barracks")  # 7 + 0
    give_location(g, 3, "Jail")  # 15 - 1 = 14
    give_location(g, 3, "Chasm")  # 5 + 3 x 2 = 11
    assert loc_score(g, 0, "City of Mirrors") == 14
    # Losing the Elder turns the Jail into 15 (still the best).
    g.players[0].lords.clear()
    assert loc_score(g, 0, "City of Mirrors") == 15


def test_city_of_mirrors_without_opponent_locations():
    """City of Mirrors: copies the best-scoring opponent Location; 0 when no opponent has one.
    It never copies its owner's own Locations nor itself."""
    g = new_game(n_players=3)
    lords(g, 0, "Landowner")
    give_location(g, 0, "City of Mirrors")
    give_location(g, 0, "Jail")  # the owner's own Location (14 for them) is not copied
    assert loc_score(g, 0, "City of Mirrors") == 0
    assert g.score(g.players[0]).locations == 0 + (15 - 1)


def test_city_of_mirrors_never_copies_itself_or_black_smokers():
    """City of Mirrors: copies the best-scoring opponent Location. An opponent's Black Smokers
    (0 IP) copies as 0; the owner's own Locations (and the City itself) are never candidates."""
    g = new_game(n_players=2)
    lords(g, 0, "Landowner", "Miller")
    give_location(g, 0, "City of Mirrors")
    give_location(g, 0, "Throne Room")  # 12 for the owner; not a candidate
    give_location(g, 1, "Black Smokers")
    assert loc_score(g, 0, "City of Mirrors") == 0
    give_location(g, 1, "Depths")  # with seat 0's cards: 2 x 10 = 20
    assert loc_score(g, 0, "City of Mirrors") == 20
    assert g.score(g.players[0]).locations == 20 + 12


def test_city_of_mirrors_in_a_two_player_game():
    """City of Mirrors: copies the best-scoring opponent Location, scored with **your** cards; the
    copied Location still scores normally for its own holder."""
    g = new_game(n_players=2)
    lords(g, 0, "Miller")
    lords(g, 1, "Landowner")
    give_location(g, 0, "Jail")
    give_location(g, 1, "City of Mirrors")
    # Seat 1 copies seat 0's Jail with seat 1's cards: 15 - 1.
    assert loc_score(g, 1, "City of Mirrors") == 14
    assert loc_score(g, 0, "Jail") == 14


# ------------------------------------------------------------------------ Black Smokers


def test_black_smokers_scores_zero():
    """Black Smokers: 0 IP."""
    g = new_game()
    owned = lords(g, 0, "Keeper", "Reaper", "Recruiter", "Landowner")
    give_allies(g, 0, (Race.CRAB, 5), affiliated=True)
    give_location(g, 0, "Black Smokers", owned[:3])
    assert only_location_score(g, 0, "Black Smokers") == 0


def keep_it(g, seat, options):
    """BLACK_SMOKERS: keep Black Smokers (the option that is Black Smokers itself)."""
    return location_id(g, "Black Smokers")


def _acquire_black_smokers(answer):
    """Seat 0 acquires Black Smokers with three Key Lords; `answer` scripts BLACK_SMOKERS."""
    policy = Scripted({Decision.BLACK_SMOKERS: [answer]})
    g = new_game(policies=[policy, Scripted(), Scripted()])
    keyed = lords(g, 0, "Keeper", "Reaper", "Recruiter")
    lords(g, 0, "Miller")
    bs = location_id(g, "Black Smokers")
    for place in (g.location_deck, g.locations_available):
        if bs in place:
            place.remove(bs)
    return g, policy, keyed, bs


def test_black_smokers_swap_for_a_location_from_the_stack():
    """Black Smokers: 0 IP. On acquisition you may immediately swap it for a Location of your
    choice from the deck."""
    jail_answer = lambda g, seat, options: location_id(g, "Jail")  # noqa: E731
    g, policy, keyed, bs = _acquire_black_smokers(jail_answer)
    jail = location_id(g, "Jail")
    if jail not in g.location_deck:  # make sure the Jail is in the stack
        g.locations_available.remove(jail)
        g.location_deck.insert(0, jail)
    stack_before = sorted(g.location_deck)
    available_before = list(g.locations_available)
    p = g.players[0]
    g.place_location(p, bs, keyed)
    asked = [(opts, ans) for d, opts, ans in policy.asked if d == Decision.BLACK_SMOKERS]
    assert asked == [([bs, *stack_before], jail)]  # the first option keeps Black Smokers
    assert p.locations == [jail]
    assert p.location_lords == {jail: keyed}  # the Lords stay under the new Location
    assert p.under == set(keyed)
    assert bs in g.location_deck and jail not in g.location_deck  # Black Smokers back in the stack
    assert sorted(g.location_deck) == sorted([*(set(stack_before) - {jail}), bs])
    assert g.locations_available == available_before
    assert not audit(g)
    assert g.score(p).locations == 15 - 4


def test_black_smokers_decline_keeps_it():
    """Black Smokers: the swap is optional ("you may"); declining keeps Black Smokers (0 IP)."""
    g, policy, keyed, bs = _acquire_black_smokers(keep_it)
    stack_before = list(g.location_deck)
    p = g.players[0]
    g.place_location(p, bs, keyed)
    assert [d for d, _, _ in policy.asked] == [Decision.BLACK_SMOKERS]
    assert p.locations == [bs]
    assert p.location_lords == {bs: keyed}
    assert g.location_deck == stack_before  # untouched, not even reshuffled
    assert not audit(g)
    assert g.score(p).locations == 0


def test_black_smokers_any_location_of_the_stack_can_be_taken():
    """Black Smokers: a Location of your choice from the deck: every one in the stack is offered."""
    for i in range(4):
        pick = lambda g, seat, options, i=i: options[1 + i]  # noqa: E731
        g, policy, keyed, bs = _acquire_black_smokers(pick)
        options = [bs, *sorted(g.location_deck)]
        g.place_location(g.players[0], bs, keyed)
        assert g.players[0].locations == [options[1 + i]]
        assert not audit(g)


def test_black_smokers_taken_through_take_location():
    """Black Smokers taken face up during Control Locations: the swap is offered there too."""
    want = {}
    policy = Scripted(
        {
            Decision.LOCATION_SOURCE: [lambda g, seat, options: location_id(g, "Black Smokers")],
            Decision.BLACK_SMOKERS: [lambda g, seat, options: want["loc"]],
        }
    )
    g = new_game(policies=[policy, Scripted(), Scripted()])
    keyed = lords(g, 0, "Keeper", "Reaper", "Recruiter")
    bs = location_id(g, "Black Smokers")
    if bs in g.location_deck:
        g.location_deck.remove(bs)
        g.locations_available.append(bs)
    want["loc"] = g.location_deck[0]
    p = g.players[0]
    g.control_locations(p)
    assert p.locations == [want["loc"]]
    assert sorted(p.location_lords[want["loc"]]) == sorted(keyed)
    assert bs in g.location_deck and bs not in g.locations_available
    assert not audit(g)


def test_black_smokers_with_an_empty_stack_is_kept():
    """Black Smokers: with no Location left in the stack there is nothing to swap for."""
    g, policy, keyed, bs = _acquire_black_smokers(keep_it)
    g.locations_available.extend(g.location_deck)
    g.location_deck.clear()
    g.place_location(g.players[0], bs, keyed)
    assert not [d for d, _, _ in policy.asked if d == Decision.BLACK_SMOKERS]
    assert g.players[0].locations == [bs]
    assert not audit(g)


# ------------------------------------------------------------ finished games: the score


def expected_location(g: Game, seat: int, loc: int) -> int:
    """components.md 1.5, written out by Location name (independent of the data's rule fields)."""
    t, p = g.t, g.players[seat]
    name = t.location_name[loc]
    guilds = [int(t.lord_guild[lord]) for lord in p.lords]
    ips = [int(t.lord_ip[lord]) for lord in p.lords]
    keys = [int(t.lord_keys[lord]) for lord in p.lords]
    aff = [(int(t.ally_race[a]), int(t.ally_value[a])) for a in p.affiliated]

    def n_race(race: Race) -> int:
        return sum(1 for r, _ in aff if r == race)

    formulas = {
        "Sargasso Silos": lambda: 5 + 2 * guilds.count(Guild.FARMER),
        "Hydrozoa Reserves": lambda: 6 + 2 * guilds.count(Guild.MAGE),
        "The Sanctuary": lambda: 4 + 3 * n_race(Race.JELLYFISH),
        "Parliament": lambda: 6 + 2 * guilds.count(Guild.POLITICIAN),
        "The Barracks": lambda: 7 + 2 * guilds.count(Guild.SOLDIER),
        "The Dockworks": lambda: 5 + 2 * guilds.count(Guild.MERCHANT),
        "The Sargasso Fields": lambda: 3 + 3 * n_race(Race.SEAHORSE),
        "The Abyss": lambda: 2 * len(set(guilds)),
        "Black Smokers": lambda: 0,
        "Oceanic Senate Assembly": lambda: 4 + 3 * n_race(Race.SQUID),
        "The Depths": lambda: 2 * min(ips, default=0),
        "The Throne Room": lambda: max(ips, default=0),
        "The Jail": lambda: 15 - len(p.lords),
        "The Chasm": lambda: 5 + 3 * n_race(Race.CRAB),
        "The Closed Tower": lambda: 3 * sum(1 for k in keys if k >= 1),
        "The Lost Tower": lambda: 3 * sum(1 for k in keys if k == 0),
        "The Chamber of Allies": lambda: (
            3 + sum(min(v for r, v in aff if r == race) for race in {r for r, _ in aff})
        ),
        "Nest of Giant Clams": lambda: 3 + 3 * n_race(Race.SHELLFISH),
        "The Coral Barrier": lambda: 20 - len(aff),
    }
    if name == "City of Mirrors":
        theirs = [
            other
            for s in range(g.n_players)
            if s != seat
            for other in g.players[s].locations
            if t.location_name[other] != "City of Mirrors"
        ]
        return max((expected_location(g, seat, other) for other in theirs), default=0)
    return formulas[name]()


def test_every_location_has_an_expected_formula():
    g = new_game()
    assert len(g.t.location_name) == 20
    lords(g, 0, "Keeper", "Miller", "Sage", "Jailer")
    give_allies(g, 0, (Race.SQUID, 4), (Race.SQUID, 2), (Race.CRAB, 3), affiliated=True)
    for loc in range(g.t.n_locations):
        give_location(g, 0, g.t.location_name[loc])
    for loc in range(g.t.n_locations):
        assert g.location_score(g.players[0], loc) == expected_location(g, 0, loc)


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_finished_game_score_is_the_sum_of_its_parts(n_players):
    """Final score = Lords' IP + Locations + strongest affiliated Ally per race + Monster tokens."""
    t = load_cards()
    seen_locations: set[int] = set()
    for game in range(40):
        g = Game(
            t, REGISTRY.make_policies(["random", "greedy"], n_players), seed=7, game=game
        ).play()
        assert g.over and len(g.scores) == n_players
        for p, s in zip(g.players, g.scores, strict=True):
            assert p.hand == []  # the final tally affiliates or discards the whole hand
            best = [0] * N_RACES
            for a in p.affiliated:
                r = int(t.ally_race[a])
                best[r] = max(best[r], int(t.ally_value[a]))
            per_location = [g.location_score(p, loc) for loc in p.locations]
            for loc, value in zip(p.locations, per_location, strict=True):
                assert value == expected_location(g, p.seat, loc), t.location_name[loc]
            seen_locations.update(p.locations)
            assert s.lords == sum(int(t.lord_ip[lord]) for lord in p.lords)
            assert s.locations == sum(per_location)
            assert s.allies == sum(best)
            assert s.monsters == sum(int(t.monster_token_ip[tok]) for tok in p.tokens)
            assert s.total == s.lords + s.locations + s.allies + s.monsters
            assert s == g.score(p)  # scoring again gives the same result
        events = [e for e in g.events if e["event"] == "score"]
        assert [e["total"] for e in events] == [s.total for s in g.scores]
    assert len(seen_locations) >= 15  # most Locations were scored at least once
