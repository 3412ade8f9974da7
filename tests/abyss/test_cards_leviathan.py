"""Tests of the Leviathan card data (games/abyss/engine/data/expansions/leviathan.toml) and its
loading.

Expected values come from /work/shared/reference/components.md, section 2 and Appendix B, and
from the Leviathan rules text /work/shared/seeds/000_e41d5a114fc236c8.txt (the specification);
the docstrings quote the sentences each test checks.
"""

from __future__ import annotations

import shutil
from collections import Counter

import numpy as np
import pytest
from abyss_helpers import broken, copy_data

from games.abyss.engine.cards.constants import (
    MONSTER,
    AllyEffect,
    Guild,
    LeviathanToken,
    Penalty,
    Power,
    Race,
)
from games.abyss.engine.cards.loader import KNOWN_EXPANSIONS, default_data_dir, describe, load_cards
from games.abyss.engine.cards.tables import CardTables, RulesOptions
from sim.core.carddata import CardDataError, parse_set_options

LEV = ("leviathan",)
LEV_FILE = "expansions/leviathan.toml"
# The digest of the base data (it last changed with the base rules option last_round_extra_turn,
# a change of the base game's default): the expansion's data and its rules options must not
# change any base-game result's comparability.
BASE_DIGEST = "02ba2bdf5c55cc843fca7a08b3645404023adae4c9a4c51077dfba04982b014f"


@pytest.fixture(scope="module")
def base() -> CardTables:
    return load_cards()


@pytest.fixture(scope="module")
def lev() -> CardTables:
    return load_cards(expansions=LEV)


def lord(t: CardTables, name: str) -> int:
    return t.lord_name.index(name)


def leviathan(t: CardTables, number: int) -> int:
    return t.leviathan_number.tolist().index(number)


def assert_error(data_dir, *fragments, overrides=None, expansions=LEV) -> str:
    with pytest.raises(CardDataError) as info:
        load_cards(data_dir, overrides, expansions=expansions)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return message


# ------------------------------------------------------------------------------------------
# Selecting the expansion
# ------------------------------------------------------------------------------------------


def test_the_expansion_file_ships_with_the_data():
    assert (default_data_dir() / LEV_FILE).is_file()
    assert KNOWN_EXPANSIONS == ("leviathan",)


@pytest.mark.parametrize("expansions", [("Leviathan",), (" leviathan ",), "leviathan", LEV * 2])
def test_expansion_names_are_normalised(lev, expansions):
    t = load_cards(expansions=expansions)
    assert t.expansions == LEV
    assert t.digest == lev.digest


@pytest.mark.parametrize("expansions", [("kraken",), ("leviathan", "conspiracy"), ("",), (None,)])
def test_unknown_expansion_is_an_error(expansions):
    with pytest.raises(CardDataError, match=r"^expansions: .*unknown expansion .*leviathan"):
        load_cards(expansions=expansions)


# ------------------------------------------------------------------------------------------
# Base load unchanged
# ------------------------------------------------------------------------------------------


def test_base_load_is_unchanged(base):
    """Without the expansion nothing changes: the base digest whatever the expansion's options,
    no Leviathan data, no hand limit, 2-4 players."""
    assert base.digest == BASE_DIGEST
    assert base.expansions == ()
    assert (base.n_allies, base.n_lords, base.n_locations) == (71, 35, 20)
    assert (base.ally_expansion == 0).all() and base.ally_expansion.shape == (71,)
    assert (base.lord_expansion == 0).all() and base.lord_expansion.shape == (35,)
    assert (base.ally_effect == int(AllyEffect.NONE)).all()
    assert Power.TAMER in base.lord_power.tolist()
    assert base.n_leviathans == 0 and base.n_leviathan_tokens == 0
    assert base.leviathan_resistance.shape == (0, 3)
    assert base.leviathan_tokens.shape == (0, 3)
    assert base.border_zone_of_sum.shape == (0,)
    assert (base.n_border_zones, base.hand_limit, base.max_players, base.n_wounds) == (0, 0, 4, 0)


def test_base_rules_defaults_include_the_leviathan_options(base):
    """rules.toml: both Leviathan options default to true (the seed text's reading)."""
    assert base.rules == RulesOptions(
        landlord_immediate_pearl=True,
        ambassador_mode="draw",
        court_end="refill",
        turn_limit=400,
        leviathan_20th_token=True,
        leviathan_end_trigger=True,
    )


def test_digest_differs_between_base_and_leviathan(base, lev):
    assert lev.digest != base.digest
    assert lev.digest == load_cards(expansions=LEV).digest


@pytest.mark.parametrize(
    "item",
    [
        "leviathan.3.penalty_n=4",
        "leviathan_game.hand_limit=10",
        "lord.intrepid.cost=7",
        "rules.leviathan_20th_token=false",
        "rules.leviathan_end_trigger=false",
        "border.zone_of_sum.12=8",
        "leviathan_exploration.monsters=0",
    ],
)
def test_leviathan_overrides_are_accepted_but_inert_without_the_expansion(base, lev, item):
    """Overrides of the Leviathan data apply only when the expansion is loaded."""
    overrides = parse_set_options([item])
    assert load_cards(overrides=overrides).digest == base.digest
    assert load_cards(overrides=overrides, expansions=LEV).digest != lev.digest


def test_a_base_only_copy_still_loads(tmp_path, base):
    """A data directory without expansions/ (made before the expansion existed) loads for the
    base game; asking for the expansion names the missing file."""
    dest = copy_data(tmp_path)
    shutil.rmtree(dest / "expansions")
    assert load_cards(dest).digest == base.digest
    assert_error(dest, LEV_FILE, "(file)", "cannot read")
    with pytest.raises(CardDataError, match="unknown key"):
        load_cards(dest, {"leviathan.3.penalty_n": 4})


def test_rules_toml_without_the_leviathan_keys_uses_the_defaults(tmp_path, lev):
    dest = copy_data(tmp_path)
    path = dest / "rules.toml"
    text = path.read_text()
    text = text.replace("leviathan_20th_token = true\n", "").replace(
        "leviathan_end_trigger = true\n", ""
    )
    path.write_text(text)
    t = load_cards(dest, expansions=LEV)
    assert t.rules.leviathan_20th_token and t.rules.leviathan_end_trigger
    assert t.digest == lev.digest


def test_a_broken_leviathan_file_is_reported_even_without_the_expansion(tmp_path):
    """The expansion file is always validated, so a bad `--set` of it is never silent."""
    dest = broken(tmp_path, LEV_FILE, "penalty_n = 4", "penalty_n = 11")
    assert_error(dest, LEV_FILE, "leviathan #17", "penalty_n: must be in 0..10", expansions=())


# ------------------------------------------------------------------------------------------
# Arrays
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["base", "lev"])
def test_new_arrays_have_the_stated_dtypes(request, which):
    t = request.getfixturevalue(which)
    expected = {
        "ally_expansion": np.int8,
        "lord_expansion": np.int8,
        "leviathan_number": np.int16,
        "leviathan_race": np.int8,
        "leviathan_n_spaces": np.int8,
        "leviathan_resistance": np.int8,
        "leviathan_tokens": np.int8,
        "leviathan_penalty": np.int8,
        "leviathan_penalty_n": np.int8,
        "border_zone_of_sum": np.int8,
        "leviathan_token_kind": np.int8,
        "leviathan_token_amount": np.int8,
        "ally_effect": np.int8,
    }
    for name, dtype in expected.items():
        arr = getattr(t, name)
        assert isinstance(arr, np.ndarray), name
        assert arr.dtype == dtype, name
        assert arr.flags.c_contiguous, name
    for name in ("n_border_zones", "hand_limit", "max_players", "n_wounds"):
        assert type(getattr(t, name)) is int, name
    assert isinstance(t.expansions, tuple)
    n = t.n_leviathans
    assert t.leviathan_resistance.shape == t.leviathan_tokens.shape == (n, 3)
    assert t.leviathan_token_amount.shape == (t.n_leviathan_tokens,)


# ------------------------------------------------------------------------------------------
# Exploration cards
# ------------------------------------------------------------------------------------------


def test_exploration_deck_counts(lev):
    """components.md 2.2: "deck = 65 + 21 = 86 Allies + 9 Monsters = 95 cards"; 2.1:
    "Exploration cards | 24 = 3 Monsters + 21 Allies"."""
    assert lev.n_allies == 95
    assert int(np.count_nonzero(lev.ally_race == MONSTER)) == 9
    assert int(np.count_nonzero(lev.ally_race != MONSTER)) == 86
    assert int(np.count_nonzero(lev.ally_expansion == 1)) == 24
    assert lev.ally_value[lev.ally_race == MONSTER].tolist() == [0] * 9


def test_base_card_ids_are_unchanged(base, lev):
    """The base cards keep their ids; the 24 new ones follow the base Monsters."""
    for name in ("ally_race", "ally_value", "ally_effect"):
        assert getattr(lev, name)[:71].tolist() == getattr(base, name).tolist(), name
    assert lev.ally_expansion.tolist() == [0] * 71 + [1] * 24


def test_new_exploration_card_order_and_effects(lev):
    """components.md 2.6: "each of the 5 races | 1, 2 | 'After rolling the die, you can spend as
    many Pearls as you want ...'", "each of the 5 races | 3, 4 | 'To calculate your Attack power,
    roll BOTH dice ...'", "Crab | 1 (no effect) | spare starting Crab", "Monster | x3".
    Ids: race-major in Race order, values 1, 2, 3, 4, then the plain Crab 1, then the Monsters."""
    pearls, dice, none = int(AllyEffect.ADD_PEARLS), int(AllyEffect.TWO_DICE), 0
    expected = []
    for race in Race:
        expected += [(int(race), 1, pearls), (int(race), 2, pearls)]
        expected += [(int(race), 3, dice), (int(race), 4, dice)]
    expected += [(int(Race.CRAB), 1, none)] + [(MONSTER, 0, none)] * 3
    got = list(
        zip(
            lev.ally_race[71:].tolist(),
            lev.ally_value[71:].tolist(),
            lev.ally_effect[71:].tolist(),
            strict=True,
        )
    )
    assert got == expected


def test_per_race_counts(lev):
    """Seed text, Setup 3: "Deal one value 1 crab Ally from the base game to each player" - with
    the spare Crab 1 there are five Crab 1s without an effect, one per player of a 5-player game."""
    for race in Race:
        mask = lev.ally_race == int(race)
        assert int(mask.sum()) == (18 if race == Race.CRAB else 17), race.name
        new = mask & (lev.ally_expansion == 1)
        assert sorted(lev.ally_value[new].tolist()) == (
            [1, 1, 2, 3, 4] if race == Race.CRAB else [1, 2, 3, 4]
        )
    plain_crab_1 = (lev.ally_race == Race.CRAB) & (lev.ally_value == 1) & (lev.ally_effect == 0)
    assert int(plain_crab_1.sum()) == 5


# ------------------------------------------------------------------------------------------
# Lords
# ------------------------------------------------------------------------------------------


def test_lords_tamer_removed_ten_added(base, lev):
    """Seed text, Setup 4: "Take the Tamer from the base game's Lords and return her to the box.
    Carefully shuffle the new Lords with those you already have." components.md 2.2: "Shuffle
    the 10 new Lords into the Lord deck and remove the Tamer: 44 Lords"."""
    assert lev.n_lords == 44
    assert "The Tamer" not in lev.lord_name
    assert Power.TAMER not in lev.lord_power.tolist()
    numbers = lev.lord_number.tolist()
    assert numbers == [n for n in range(1, 36) if n != 6] + list(range(201, 211))
    assert lev.lord_expansion.tolist() == [0] * 34 + [1] * 10
    # ids are consecutive in file order: base Lords after the Tamer move down by one
    assert lord(lev, "The Hunter") == lord(base, "The Hunter") - 1 == 5
    assert lord(lev, "The Intrepid") == 34 and lord(lev, "The Breeder") == 43
    assert len(set(lev.lord_name)) == 44


def test_new_lords_by_guild(lev):
    """components.md 2.7: "Each Guild has selected two recruits" (seed text: "Each Guild
    assigns two recruits"); five of the ten carry a Key."""
    new = lev.lord_expansion == 1
    guilds = Counter(Guild(int(g)) for g in lev.lord_guild[new])
    assert guilds == {g: 2 for g in Guild if g != Guild.AMBASSADOR}
    assert int(lev.lord_keys[new].sum()) == 5
    assert (lev.lord_power[new] == lev.lord_number[new]).all()


@pytest.mark.parametrize(
    "name, number, guild, cost, races, ip, keys, power",
    [
        # | 201 | The Intrepid | Soldier (Crab, red) | 6 | 1 | 4 | 1 | semi-permanent |
        ("The Intrepid", 201, Guild.SOLDIER, 6, 1, 4, 1, Power.INTREPID),
        # | 202 | The Border Guard | Soldier (Crab, red) | 8 | 2 | 6 | 0 | once (on recruit) |
        ("The Border Guard", 202, Guild.SOLDIER, 8, 2, 6, 0, Power.BORDER_GUARD),
        # | 203 | The Taxidermist | Merchant (Shellfish, green) | 6 | 1 | 5 | 1 |
        ("The Taxidermist", 203, Guild.MERCHANT, 6, 1, 5, 1, Power.TAXIDERMIST),
        # | 204 | The Arms Dealer | Merchant (Shellfish, green) | 8 | 2 | 7 | 0 |
        ("The Arms Dealer", 204, Guild.MERCHANT, 8, 2, 7, 0, Power.ARMS_DEALER),
        # | 205 | The Metamorph | Mage (Jellyfish, purple) | 6 | 1 | 5 | 1 | semi-permanent |
        ("The Metamorph", 205, Guild.MAGE, 6, 1, 5, 1, Power.METAMORPH),
        # | 206 | The Sorcerer | Mage (Jellyfish, purple) | 8 | 2 | 7 | 0 | once (on recruit) |
        ("The Sorcerer", 206, Guild.MAGE, 8, 2, 7, 0, Power.SORCERER),
        # | 207 | The Altruist | Politician (Squid, blue) | 6 | 1 | 5 | 1 | semi-permanent |
        ("The Altruist", 207, Guild.POLITICIAN, 6, 1, 5, 1, Power.ALTRUIST),
        # | 208 | The Rebel | Politician (Squid, blue) | 8 | 2 | 7 | 0 | once (on recruit) |
        ("The Rebel", 208, Guild.POLITICIAN, 8, 2, 7, 0, Power.REBEL),
        # | 209 | The Coward | Farmer (Seahorse, yellow) | 8 | 1 | 8 | 1 | semi-permanent |
        ("The Coward", 209, Guild.FARMER, 8, 1, 8, 1, Power.COWARD),
        # | 210 | The Breeder | Farmer (Seahorse, yellow) | 10 | 2 | 10 | 0 | once (on recruit) |
        ("The Breeder", 210, Guild.FARMER, 10, 2, 10, 0, Power.BREEDER),
    ],
)
def test_new_lord_rows(lev, name, number, guild, cost, races, ip, keys, power):
    """components.md table 2.7 rows (quoted next to each case)."""
    i = lord(lev, name)
    got = (
        int(lev.lord_number[i]),
        Guild(int(lev.lord_guild[i])),
        int(lev.lord_cost[i]),
        int(lev.lord_races[i]),
        int(lev.lord_ip[i]),
        int(lev.lord_keys[i]),
        Power(int(lev.lord_power[i])),
    )
    assert got == (number, guild, cost, races, ip, keys, power)
    assert lev.lord_expansion[i] == 1


def test_new_lord_texts(lev):
    """components.md 2.7: "| 208 | The Rebel | ... | Remove 1 Health point from a Leviathan at
    the Border, as if you had succeeded with an attack. |"."""
    assert lev.lord_text[lord(lev, "The Rebel")] == (
        "Remove 1 Health point from a Leviathan at the Border, as if you had succeeded with an "
        "attack."
    )
    assert lev.lord_text[lord(lev, "The Intrepid")] == (
        "If you slay a Leviathan, you can fight a second one."
    )
    assert lev.lord_slug(lord(lev, "The Border Guard")) == "border_guard"


# ------------------------------------------------------------------------------------------
# Leviathan cards
# ------------------------------------------------------------------------------------------

J, H, S, Q = Race.JELLYFISH, Race.SEAHORSE, Race.SHELLFISH, Race.SQUID
W, P, A, L = Penalty.WOUNDS, Penalty.PEARLS, Penalty.ALLIES, Penalty.LORD
LEVIATHANS = [
    # number, race, [(resistance, tokens)...], penalty, n        components.md table 2.4
    (1, J, [(3, 1), (7, 2), (5, 1)], A, 3),  # | 1 | Jellyfish | 3 | R3/1 → R7/2 → R5/1 | 3 Allies
    (2, J, [(6, 2), (4, 1)], A, 3),  # | 2 | Jellyfish | 2 | R6/2 tok → R4/1 tok | 3 discard Allies
    (3, J, [(9, 3)], W, 3),  # | 3 | Jellyfish (purple) | 1 | R9/3 tok | 3 Wound tokens |
    (4, J, [(6, 1)], W, 2),  # | 4 | Jellyfish (purple) | 1 | R6/1 tok | 2 Wound tokens |
    (5, S, [(4, 1), (6, 2), (5, 1)], P, 3),  # | 5 | Shellfish | R4/1 → R6/2 → R5/1 | 3 Pearls
    (6, S, [(6, 2), (4, 1)], P, 3),  # | 6 | Shellfish (green) | 2 | R6/2 → R4/1 | 3 Pearls
    (7, S, [(8, 3)], W, 3),  # | 7 | Shellfish (green) | 1 | R8/3 tok | 3 Wound tokens |
    (8, S, [(6, 1)], W, 2),  # | 8 | Shellfish (green) | 1 | R6/1 tok | 2 Wound tokens |
    (9, Q, [(3, 1), (7, 2), (5, 1)], L, 1),  # | 9 | Squid | R3/1 → R7/2 → R5/1 | 1 free Lord
    (10, Q, [(6, 2), (4, 1)], L, 1),  # | 10 | Squid (blue) | 2 | R6/2 → R4/1 | 1 free Lord
    (11, Q, [(7, 2)], W, 3),  # | 11 | Squid (blue) | 1 | R7/2 tok | 3 Wound tokens |
    (12, Q, [(5, 1)], W, 2),  # | 12 | Squid (blue) | 1 | R5/1 tok | 2 Wound tokens |
    (13, H, [(3, 1), (7, 1), (5, 2)], W, 3),  # | 13 | Seahorse | R3/1 → R7/1 → R5/2 | 3 Wounds
    (14, H, [(6, 2), (4, 2)], W, 2),  # | 14 | Seahorse (yellow) | 2 | R6/2 → R4/2 | 2 Wounds
    (15, H, [(7, 4)], W, 3),  # | 15 | Seahorse (yellow) | 1 | R7/4 tok | 3 Wound tokens |
    (16, H, [(5, 2)], W, 2),  # | 16 | Seahorse (yellow) | 1 | R5/2 tok | 2 Wound tokens |
    (17, None, [(4, 1), (7, 1), (6, 1)], W, 4),  # | 17 | — (Crab only) | R4/1 → R7/1 → R6/1 | 4
    (18, None, [(7, 1), (5, 1)], W, 3),  # | 18 | — (Crab only) | 2 | R7/1 → R5/1 | 3 Wounds
    (19, None, [(9, 2)], W, 3),  # | 19 | — (Crab only) | 1 | R9/2 tok | 3 Wound tokens |
    (20, None, [(7, 1)], W, 2),  # | 20 | — (Crab only) | 1 | R7/1 tok | 2 Wound tokens |
]


def test_leviathan_totals(lev):
    """components.md 2.4: "Totals: 35 health spaces and 54 Monster tokens across the 20
    cards"; 2.1: "Leviathan cards | 20"."""
    assert lev.n_leviathans == 20
    assert lev.leviathan_number.tolist() == list(range(1, 21))
    assert int(lev.leviathan_n_spaces.sum()) == 35
    assert int(lev.leviathan_tokens.sum()) == 54
    # each race has one card of 3, one of 2 and two of 1 Life spaces
    for race in [*Race, None]:
        if race == Race.CRAB:
            continue
        mask = lev.leviathan_race == (-1 if race is None else int(race))
        assert sorted(lev.leviathan_n_spaces[mask].tolist()) == [1, 1, 2, 3], race


@pytest.mark.parametrize("number, race, spaces, penalty, n", LEVIATHANS)
def test_leviathan_rows(lev, number, race, spaces, penalty, n):
    """components.md table 2.4 rows (quoted next to each case). Cards 17-20: "Cards 17–20
    have no race printed, so only Crabs can attack them" (race -1)."""
    i = leviathan(lev, number)
    assert i == number - 1  # leviathan id = file order
    assert int(lev.leviathan_race[i]) == (-1 if race is None else int(race))
    k = len(spaces)
    assert int(lev.leviathan_n_spaces[i]) == k
    assert lev.leviathan_resistance[i, :k].tolist() == [r for r, _ in spaces]
    assert lev.leviathan_tokens[i, :k].tolist() == [t for _, t in spaces]
    assert not lev.leviathan_resistance[i, k:].any() and not lev.leviathan_tokens[i, k:].any()
    assert Penalty(int(lev.leviathan_penalty[i])) == penalty
    assert int(lev.leviathan_penalty_n[i]) == n


def test_penalty_codes():
    """The penalty codes of the brief: 0 = wounds, 1 = pearls, 2 = allies, 3 = lord."""
    assert [int(p) for p in (W, P, A, L)] == [0, 1, 2, 3]
    assert [int(k) for k in LeviathanToken] == [0, 1, 2]


# ------------------------------------------------------------------------------------------
# Border
# ------------------------------------------------------------------------------------------


def test_border_zone_of_every_sum(lev):
    """components.md 2.3: "9 zones. The sum of the 2d6 selects the zone": zone 1 = 2 or 3,
    zone 2 = 4, 3 = 5, 4 = 6, 5 = 7, 6 = 8, 7 = 9, 8 = 10, zone 9 = 11 or 12 (0-based here)."""
    assert lev.n_border_zones == 9
    assert lev.border_zone_of_sum.shape == (13,)
    assert lev.border_zone_of_sum.tolist() == [-1, -1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8]


def test_border_zone_probabilities(lev):
    """components.md 2.3, probability column: 3/36, 3/36, 4/36, 5/36, 6/36, 5/36, 4/36, 3/36,
    3/36. Seed text: "Roll two dice ... place it face up in the Border zone corresponding to
    the dice total"."""
    ways = [0] * lev.n_border_zones
    for a in range(1, 7):
        for b in range(1, 7):
            ways[int(lev.border_zone_of_sum[a + b])] += 1
    assert ways == [3, 3, 4, 5, 6, 5, 4, 3, 3]
    assert sum(ways) == 36


# ------------------------------------------------------------------------------------------
# Leviathan Monster tokens
# ------------------------------------------------------------------------------------------


def token_counts(t: CardTables) -> Counter:
    return Counter(
        zip(
            (LeviathanToken(k) for k in t.leviathan_token_kind.tolist()),
            t.leviathan_token_amount.tolist(),
            strict=True,
        )
    )


def test_leviathan_tokens_with_the_placeholder(lev):
    """components.md 2.1: "box says 20, but BGA creates 19: 7 x 'gain 2 Pearls', 4 x 'gain 3
    Pearls', 4 x 'gain 1 Key', 4 x 'take 1 Council stack' ... PLACEHOLDER for the 20th: an 8th
    '2 Pearls' token". Seed text: "gain 2 to 3 Pearls, a Key, or a Council stack"."""
    assert lev.n_leviathan_tokens == 20
    assert token_counts(lev) == {
        (LeviathanToken.PEARLS, 2): 8,
        (LeviathanToken.PEARLS, 3): 4,
        (LeviathanToken.KEY, 1): 4,
        (LeviathanToken.COUNCIL, 1): 4,
    }
    # the placeholder is the last entry, so the 19 confirmed tokens keep their positions
    assert (int(lev.leviathan_token_kind[-1]), int(lev.leviathan_token_amount[-1])) == (0, 2)


def test_leviathan_tokens_without_the_placeholder(lev):
    """rules.toml leviathan_20th_token = false: "the 19 tokens of [BGA-A]"."""
    t = load_cards(overrides={"rules.leviathan_20th_token": False}, expansions=LEV)
    assert t.n_leviathan_tokens == 19
    assert token_counts(t)[(LeviathanToken.PEARLS, 2)] == 7
    assert t.leviathan_token_kind.tolist() == lev.leviathan_token_kind[:19].tolist()
    assert not t.rules.leviathan_20th_token
    assert t.digest != lev.digest


def test_base_monster_tokens_are_unchanged(base, lev):
    """Seed text, Setup 5: "Make a second deck with the new Monster tokens ... Do not mix the
    two decks of Monster tokens"."""
    assert lev.monster_token_ip.tolist() == base.monster_token_ip.tolist()
    assert len(lev.monster_token_ip) == 20


# ------------------------------------------------------------------------------------------
# Game values and rules options
# ------------------------------------------------------------------------------------------


def test_leviathan_game_values(lev):
    """Seed text: "If you wish to keep more than 12 Allies in hand at the end of your turn, you
    must pay one Pearl for each extra Ally"; "The game can be played by two to five players".
    components.md 2.1: "Wound ('Injuries') tokens | 25"."""
    assert (lev.hand_limit, lev.max_players, lev.n_wounds) == (12, 5, 25)
    assert lev.expansions == LEV


def test_end_trigger_option(lev):
    """Seed text: "At the end of a player's turn, if the Leviathan deck OR any of the Monster
    token decks are empty, each opponent has one last turn" (true, default); false = BGA."""
    assert lev.rules.leviathan_end_trigger is True
    t = load_cards(overrides={"rules.leviathan_end_trigger": False}, expansions=LEV)
    assert t.rules.leviathan_end_trigger is False
    assert t.digest != lev.digest
    assert t.n_leviathan_tokens == 20


# ------------------------------------------------------------------------------------------
# Overrides
# ------------------------------------------------------------------------------------------


def test_overrides_of_the_leviathan_data(lev):
    tables = load_cards(
        overrides=parse_set_options(
            [
                "leviathan.3.penalty_n=4",
                "leviathan.3.penalty=pearls",
                "leviathan.17.race=crab",
                "leviathan.20.number=21",
                "leviathan_game.hand_limit=10",
                "leviathan_game.max_players=6",
                "lord.intrepid.cost=7",
                "lord.breeder.power=none",
                "border.zone_of_sum.12=8",
                "leviathan_exploration.monsters=5",
            ]
        ),
        expansions=LEV,
    )
    i = leviathan(tables, 3)
    assert (int(tables.leviathan_penalty_n[i]), int(tables.leviathan_penalty[i])) == (4, P)
    assert tables.leviathan_race[leviathan(tables, 17)] == Race.CRAB
    assert tables.leviathan_number[-1] == 21
    assert (tables.hand_limit, tables.max_players) == (10, 6)
    assert tables.lord_cost[lord(tables, "The Intrepid")] == 7
    assert tables.lord_power[lord(tables, "The Breeder")] == Power.NONE
    assert tables.border_zone_of_sum[12] == 7
    assert tables.n_allies == 97
    assert tables.digest != lev.digest
    assert load_cards(expansions=LEV).digest == lev.digest  # the shipped data is untouched


def test_spaces_can_be_set_as_an_array_from_python():
    """`spaces` cannot be given on the command line (arrays are strings there) but Python
    callers may pass a list."""
    t = load_cards(overrides={"leviathan.4.spaces": [[2, 1], [2, 1]]}, expansions=LEV)
    i = leviathan(t, 4)
    assert t.leviathan_n_spaces[i] == 2
    assert t.leviathan_resistance[i].tolist() == [2, 2, 0]
    message = assert_error(
        None, "leviathan #4", "spaces", overrides=parse_set_options(["leviathan.4.spaces=[[2, 1]]"])
    )
    assert "(set by --set leviathan.4.spaces)" in message


def test_base_tamer_override_is_harmless_when_removed():
    t = load_cards(overrides={"lord.tamer.cost": 7}, expansions=LEV)
    assert "The Tamer" not in t.lord_name


@pytest.mark.parametrize(
    "item, fragments",
    [
        ("leviathan.3.penalty_n=11", ["leviathan #3", "penalty_n: must be in 0..10, got 11"]),
        ("leviathan.3.penalty_n=x", ["leviathan #3", "penalty_n: expected an integer"]),
        ("leviathan.3.penalty=fire", ["leviathan #3", "unknown penalty 'fire'"]),
        ("leviathan.3.race=octopus", ["leviathan #3", "unknown race 'octopus'"]),
        ("leviathan.3.number=4", ["leviathan #4", "duplicate number 4"]),
        ("leviathan_game.hand_limit=-1", ["[leviathan_game]", "hand_limit: must be in 0..60"]),
        ("leviathan_game.n_wounds=-1", ["[leviathan_game]", "n_wounds: must be in 0..999"]),
        ("leviathan_game.max_players=9", ["[leviathan_game]", "max_players"]),
        ("border.zones=8", ["[border]", "zone_of_sum.11: must be a zone in 1..8", "got 9"]),
        ("border.zone_of_sum.7=0", ["[border]", "zone_of_sum.7: must be a zone in 1..9, got 0"]),
        ("lord.coward.guild=knight", ["lord #209 The Coward", "unknown guild 'knight'"]),
        ("rules.leviathan_20th_token=1", ["rules.toml", "expected true or false"]),
        ("leviathan_exploration.monsters=21", ["[exploration]", "monsters: must be in 0..20"]),
    ],
)
@pytest.mark.parametrize("expansions", [LEV, ()])
def test_bad_leviathan_override_values_are_validated(item, fragments, expansions):
    """Overrides are validated like file values, with or without the expansion loaded."""
    message = assert_error(
        None, *fragments, overrides=parse_set_options([item]), expansions=expansions
    )
    if "number" not in item and "zones" not in item:  # duplicates / zones name no single key
        assert f"(set by --set {item.split('=')[0]})" in message


@pytest.mark.parametrize(
    "key, suggestion",
    [
        ("leviathan.3.penalty_m", "'leviathan.3.penalty_n'"),
        ("leviathan.21.penalty", "'leviathan.2.penalty'"),
        ("leviathan_game.hand_limits", "'leviathan_game.hand_limit'"),
        ("lord.intrepit.cost", "'lord.intrepid.cost'"),
        ("rules.leviathan_20th_tokens", "'rules.leviathan_20th_token'"),
    ],
)
def test_unknown_leviathan_override_key_suggests_close_matches(key, suggestion):
    with pytest.raises(CardDataError) as info:
        load_cards(overrides={key: 1}, expansions=LEV)
    message = str(info.value)
    assert message.startswith(f"--set: '{key}': unknown key")
    assert suggestion in message


# ------------------------------------------------------------------------------------------
# Broken copies of leviathan.toml
# ------------------------------------------------------------------------------------------

LEV1 = 'number = 1\nrace = "jellyfish"\nspaces = [[3, 1], [7, 2], [5, 1]]'
ZONES = "zone_of_sum = { 2 = 1, 3 = 1,"
TOKENS = 'tokens = [\n    "pearls2",'
INTREPID = 'number = 201\nname = "The Intrepid"'


@pytest.mark.parametrize(
    "old, new, fragments",
    [
        # structure
        ("remove_lords = [6]", "remove_lords = [6]\nkraken = 1", ["(top level)", "'kraken'"]),
        ("[leviathan_game]", "[leviathan_gam]", ["(top level)", "unknown key 'leviathan_gam'"]),
        ("hand_limit = 12\n", "", ["[leviathan_game]", "missing key 'hand_limit'"]),
        ("penalty_n = 2\n", "", ["leviathan #4", "missing key 'penalty_n'"]),
        (LEV1, LEV1 + '\nname = "X"', ["leviathan #1", "unknown key 'name'"]),
        ("[[leviathan]]\nnumber = 1", "[leviathan]\nnumber = 1", ["invalid TOML"]),
        # Resistance 1..30, tokens 0..6, 1..3 spaces
        (LEV1, LEV1.replace("[3, 1]", "[0, 1]"), ["leviathan #1", "spaces[0] resistance", "1..30"]),
        (LEV1, LEV1.replace("[3, 1]", "[31, 1]"), ["leviathan #1", "got 31"]),
        (LEV1, LEV1.replace("[7, 2]", "[7, 7]"), ["leviathan #1", "spaces[1] tokens", "0..6"]),
        (LEV1, LEV1.replace("[7, 2]", "[7, -1]"), ["leviathan #1", "spaces[1] tokens"]),
        (LEV1, LEV1.replace("[5, 1]", "[5, true]"), ["spaces[2] tokens: expected an integer"]),
        (LEV1, LEV1.replace("[5, 1]", "[5]"), ["leviathan #1", "spaces[2]: expected [res"]),
        (LEV1, LEV1.replace("[5, 1]", "[5, 1, 1]"), ["leviathan #1", "spaces[2]"]),
        (LEV1, LEV1.replace("[5, 1]]", "[5, 1], [5, 1]]"), ["leviathan #1", "1..3 [resist"]),
        (LEV1, LEV1.replace("[[3, 1], [7, 2], [5, 1]]", "[]"), ["leviathan #1", "spaces"]),
        (LEV1, LEV1.replace("[[3, 1], [7, 2], [5, 1]]", "3"), ["leviathan #1", "spaces"]),
        # penalties
        ('penalty = "allies"', 'penalty = "ally"', ["leviathan #1", "unknown penalty 'ally'"]),
        ("penalty_n = 3", "penalty_n = 11", ["leviathan #1", "penalty_n: must be in 0..10"]),
        ("penalty_n = 3", "penalty_n = -1", ["leviathan #1", "penalty_n"]),
        # races
        (LEV1, LEV1.replace("jellyfish", "kraken"), ["leviathan #1", "unknown race 'kraken'"]),
        # duplicates
        ("number = 2\n", "number = 1\n", ["leviathan #1", "duplicate number 1"]),
        ("remove_lords = [6]", "remove_lords = [6, 6]", ["remove_lords: duplicate number 6"]),
        (INTREPID, 'number = 202\nname = "The Intrepid"', ["lord #202", "duplicate number"]),
        # Border
        (ZONES, "zone_of_sum = { 2 = 1,", ["[border]", "zone_of_sum: missing sum 3"]),
        (ZONES, ZONES + " 13 = 9,", ["[border]", "unknown key '13'"]),
        (ZONES, ZONES + " 1 = 1,", ["[border]", "unknown key '1'"]),
        (
            ZONES,
            "zone_of_sum = { 2 = 0, 3 = 1,",
            ["[border]", "zone_of_sum.2: must be a zone in 1..9, got 0"],
        ),
        (ZONES, "zone_of_sum = { 2 = 10, 3 = 1,", ["[border]", "zone_of_sum.2", "got 10"]),
        ("zones = 9", "zones = 12", ["[border]", "zones: must be in 1..11"]),
        ("zones = 9", "zones = 0", ["[border]", "zones: must be in 1..11"]),
        (ZONES, "zone_of_sum = [1, 1, 2]\nx = { 2 = 1, 3 = 1,", ["unknown key 'x'"]),
        # tokens
        (TOKENS, 'tokens = [\n    "pearls4",', ["[leviathan_tokens]", "unknown token 'pearls4'"]),
        (TOKENS, "tokens = [\n    2,", ["[leviathan_tokens]", "tokens[0]: expected a string"]),
        ('placeholder_tokens = ["pearls2"]', 'placeholder_tokens = ["gold"]', ["unknown token"]),
        ('placeholder_tokens = ["pearls2"]', 'placeholder_tokens = "x"', ["placeholder_tokens"]),
        # exploration
        ("monsters = 3", "monsters = 21", ["[exploration]", "monsters: must be in 0..20"]),
        (
            'effects = ["add_pearls", "add_pearls", "two_dice", "two_dice"]',
            'effects = ["add_pearls", "add_pearls", "two_dice"]',
            ["[exploration.jellyfish]", "effects: expected an array of 4 effect names"],
        ),
        (
            'effects = ["add_pearls", "add_pearls", "two_dice", "two_dice"]',
            'effects = ["add_pearls", "add_pearls", "two_dice", "three_dice"]',
            ["[exploration.jellyfish]", "effects[3]: unknown effect 'three_dice'"],
        ),
        ("values = [1, 2, 3, 4]", "values = [0, 2, 3, 4]", ["[exploration.jellyfish]", "1..9"]),
        ('race = "crab"\nvalue = 1', 'race = "lobster"\nvalue = 1', ["extra]] entry 1", "race"]),
        ('value = 1\neffect = "none"', 'value = 10\neffect = "none"', ["extra]] entry 1", "1..9"]),
        ('effect = "none"', 'effect = "magic"', ["[[exploration.extra]] entry 1", "effect"]),
        # game values
        (
            "max_players = 5",
            "max_players = 1",
            ["[leviathan_game]", "max_players: must be in 2..8"],
        ),
        ("n_wounds = 25", "n_wounds = -1", ["[leviathan_game]", "n_wounds"]),
    ],
)
def test_broken_leviathan_file_names_file_and_entry(tmp_path, old, new, fragments):
    """Every validation error is a CardDataError "<file>: <entry>: <what is wrong>"."""
    message = assert_error(broken(tmp_path, LEV_FILE, old, new), *fragments)
    assert message.split(": ")[0].endswith(LEV_FILE)


def test_removed_lord_must_exist(tmp_path):
    """remove_lords names base Lords by number; one that does not exist is an error (checked
    when the expansion is loaded, so a base-only edit of lords.toml is not blocked)."""
    dest = broken(tmp_path, LEV_FILE, "remove_lords = [6]", "remove_lords = [6, 99]")
    assert_error(dest, LEV_FILE, "(top level)", "remove_lords: no Lord number 99 in lords.toml")
    assert load_cards(dest).n_lords == 35


def test_new_lords_must_not_clash_with_the_base_lords(tmp_path):
    dest = broken(tmp_path, LEV_FILE, INTREPID, 'number = 7\nname = "The Intrepid"')
    assert_error(
        dest, "lord #7 The Intrepid", "duplicate number 7", "lords.toml lord #7 The Hunter"
    )
    dest = broken(tmp_path / "b", LEV_FILE, INTREPID, 'number = 201\nname = "The Hunter"')
    assert_error(dest, "lord #201 The Hunter", "duplicate name 'The Hunter'")
    # clashing with the removed Tamer is fine: she is back in the box
    dest = broken(tmp_path / "c", LEV_FILE, INTREPID, 'number = 6\nname = "The Tamer"')
    t = load_cards(dest, expansions=LEV)
    assert t.lord_number[lord(t, "The Tamer")] == 6
    assert t.lord_expansion[lord(t, "The Tamer")] == 1


def test_no_removed_lords(tmp_path):
    t = load_cards(
        broken(tmp_path, LEV_FILE, "remove_lords = [6]", "remove_lords = []"), expansions=LEV
    )
    assert t.n_lords == 45 and Power.TAMER in t.lord_power.tolist()


def test_zone_of_sum_overrides_may_leave_a_zone_unused():
    t = load_cards(overrides={"border.zone_of_sum.4": 1}, expansions=LEV)
    ways = Counter(int(t.border_zone_of_sum[a + b]) for a in range(1, 7) for b in range(1, 7))
    assert ways[0] == 6 and ways[1] == 0


# ------------------------------------------------------------------------------------------
# describe()
# ------------------------------------------------------------------------------------------


def test_describe_lists_the_leviathan_data(lev):
    text = describe(lev)
    for fragment in (
        "Expansions: leviathan",
        "Exploration deck: 95 cards (86 Allies + 9 Monsters)",
        "crab          18     43  5 4 4 3 3 3 2 2 2 1 1 1 1 | 1p 2p 3d 4d 1",
        "Lords: 44",
        "The Breeder",
        "[leviathan]",
        "Leviathans: 20 (35 Life spaces, 54 Monster tokens",
        "R3/1 -> R7/2 -> R5/1",
        "crab only",
        "Border: 9 zones",
        "zone 1: sum 2 or 3  (3/36)",
        "zone 5: sum 7  (6/36)",
        "Leviathan Monster tokens: 20 (8 x 2 Pearls, 4 x 3 Pearls, 4 x 1 Key, 4 x 1 Council stack",
        "hand limit 12",
        "leviathan_20th_token = true",
        "leviathan_end_trigger = true",
        lev.digest,
    ):
        assert fragment in text, fragment
    assert "The Tamer" not in text


def test_describe_of_the_base_game_has_no_leviathan_section(base):
    text = describe(base)
    for fragment in ("Leviathan", "Border", "Expansions", "[leviathan]", " | "):
        assert fragment not in text, fragment
