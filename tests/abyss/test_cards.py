"""Tests of the card data (games/abyss/engine/data/*.toml) and its loader
(games/abyss/engine/cards/loader.py).

Expected values come from /work/shared/reference/components.md, section 1 (quoted in the
docstrings) and the base rules text /work/shared/seeds/001_bc4781964399e738.txt.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from abyss_helpers import broken, copy_data

from games.abyss.engine.cards.constants import MONSTER, AllyEffect, Guild, LocationRule, Power, Race
from games.abyss.engine.cards.loader import default_data_dir, describe, load_cards
from games.abyss.engine.cards.tables import CardTables, RulesOptions
from sim.core.carddata import CardDataError, parse_set_options, slugify


@pytest.fixture(scope="module")
def cards() -> CardTables:
    return load_cards()


def lord(cards: CardTables, name: str) -> int:
    return cards.lord_name.index(name)


def location(cards: CardTables, name: str) -> int:
    return cards.location_name.index(name)


# ------------------------------------------------------------------------------------------
# The default data
# ------------------------------------------------------------------------------------------


def test_default_data_dir_holds_the_five_files():
    names = sorted(p.name for p in default_data_dir().glob("*.toml"))
    assert names == sorted(
        ["game.toml", "exploration.toml", "lords.toml", "locations.toml", "rules.toml"]
    )


def test_arrays_are_c_contiguous_with_the_stated_dtypes(cards):
    expected = {
        "ally_race": np.int8,
        "ally_value": np.int8,
        "ally_effect": np.int8,
        "lord_number": np.int16,
        "lord_guild": np.int8,
        "lord_cost": np.int8,
        "lord_races": np.int8,
        "lord_ip": np.int8,
        "lord_keys": np.int8,
        "lord_power": np.int16,
        "location_number": np.int16,
        "location_rule": np.int8,
        "location_base": np.int8,
        "location_mult": np.int8,
        "location_arg": np.int8,
        "threat_options": np.int8,
        "threat_n_options": np.int8,
        "monster_token_ip": np.int8,
    }
    for name, dtype in expected.items():
        arr = getattr(cards, name)
        assert isinstance(arr, np.ndarray), name
        assert arr.dtype == dtype, name
        assert arr.flags.c_contiguous, name
    assert isinstance(cards.n_keys, int) and isinstance(cards.court_size, int)
    assert isinstance(cards.rules, RulesOptions)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cards.n_keys = 3  # type: ignore[misc]


def test_exploration_deck_composition(cards):
    """components.md 1.1: "Exploration cards | 71 = 65 Allies + 6 Monsters" and
    "Allies per race | 13: one 5, two 4s, three 3s, three 2s, four 1s"."""
    assert cards.n_allies == 71
    assert int(np.count_nonzero(cards.ally_race == MONSTER)) == 6
    for race in Race:
        values = cards.ally_value[cards.ally_race == int(race)]
        assert values.tolist() == [5, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1], race.name
    assert cards.ally_value[cards.ally_race == MONSTER].tolist() == [0] * 6
    assert (cards.ally_effect == int(AllyEffect.NONE)).all()


def test_exploration_card_ids_are_race_major_then_monsters(cards):
    """Card ids: race-major in Race order, values in file order, then the Monsters."""
    expected_race = [int(r) for r in Race for _ in range(13)] + [MONSTER] * 6
    assert cards.ally_race.tolist() == expected_race
    assert cards.ally_value[0] == 5 and cards.ally_value[12] == 1
    assert cards.ally_value[13] == 5  # first Crab


def test_lord_counts_guilds_and_keys(cards):
    """components.md 1.4: "Guild totals: Soldier 7, Merchant 6, Mage 7, Politician 6,
    Farmer 6, Ambassador 3 = 35. 16 of the 35 Lords carry a Key (1 each ...)"."""
    assert cards.n_lords == 35
    totals = Counter(Guild(int(g)) for g in cards.lord_guild)
    assert totals == {
        Guild.SOLDIER: 7,
        Guild.MERCHANT: 6,
        Guild.MAGE: 7,
        Guild.POLITICIAN: 6,
        Guild.FARMER: 6,
        Guild.AMBASSADOR: 3,
    }
    assert int(np.count_nonzero(cards.lord_keys)) == 16
    assert set(cards.lord_keys.tolist()) == {0, 1}
    assert cards.lord_number.tolist() == list(range(1, 36))
    assert len(set(cards.lord_name)) == 35


def test_farmers_have_no_power_and_the_others_match_their_number(cards):
    """constants.py: "Lord powers. Values are the printed Lord numbers"; components.md 1.4:
    the six Farmers' power type is "none"."""
    for i in range(cards.n_lords):
        if cards.lord_guild[i] == Guild.FARMER:
            assert cards.lord_power[i] == Power.NONE
            assert cards.lord_text[i] == ""
        else:
            assert cards.lord_power[i] == cards.lord_number[i]


@pytest.mark.parametrize(
    "name, number, guild, cost, races, ip, keys, power",
    [
        # | 1 | The Recruiter | Soldier (Crab, red) | 10 | 2 | 4 | 1 | semi-permanent |
        ("The Recruiter", 1, Guild.SOLDIER, 10, 2, 4, 1, Power.RECRUITER),
        # | 4 | The Assassin | Soldier (Crab, red) | 10 | 1 | 6 | 0 | once (on recruit) |
        ("The Assassin", 4, Guild.SOLDIER, 10, 1, 6, 0, Power.ASSASSIN),
        # | 8 | The Ship Master | Merchant (Shellfish, green) | 6 | 3 | 5 | 1 | semi-permanent |
        ("The Ship Master", 8, Guild.MERCHANT, 6, 3, 5, 1, Power.SHIP_MASTER),
        # | 11 | The Landlord | Merchant (Shellfish, green) | 10 | 2 | 5 | 1 | semi-permanent |
        ("The Landlord", 11, Guild.MERCHANT, 10, 2, 5, 1, Power.LANDLORD),
        # | 20 | The Master of Magic | Mage (Jellyfish, purple) | 10 | 3 | 6 | 1 |
        ("The Master of Magic", 20, Guild.MAGE, 10, 3, 6, 1, Power.MASTER_OF_MAGIC),
        # | 23 | The Traitor | Politician (Squid, blue) | 12 | 3 | 6 | 0 | once (on recruit) |
        ("The Traitor", 23, Guild.POLITICIAN, 12, 3, 6, 0, Power.TRAITOR),
        # | 31 | The Aquaculturalist | Farmer (Seahorse, yellow) | 9 | 3 | 11 | 0 | none |
        ("The Aquaculturalist", 31, Guild.FARMER, 9, 3, 11, 0, Power.NONE),
        # | 32 | The Landowner | Farmer (Seahorse, yellow) | 10 | 1 | 12 | 0 | none |
        ("The Landowner", 32, Guild.FARMER, 10, 1, 12, 0, Power.NONE),
        # | 33 | The Sage | Ambassador (no required race) | 10 | 5 | 4 | 0 | once (on recruit) |
        ("The Sage", 33, Guild.AMBASSADOR, 10, 5, 4, 0, Power.SAGE),
        # | 35 | The Elder | Ambassador (no required race) | 10 | 5 | 3 | 0 | once (on recruit) |
        ("The Elder", 35, Guild.AMBASSADOR, 10, 5, 3, 0, Power.ELDER),
    ],
)
def test_lord_spot_checks(cards, name, number, guild, cost, races, ip, keys, power):
    """components.md table 1.4 rows (quoted next to each case)."""
    i = lord(cards, name)
    assert i == number - 1  # lord id = file order
    got = (
        int(cards.lord_number[i]),
        Guild(int(cards.lord_guild[i])),
        int(cards.lord_cost[i]),
        int(cards.lord_races[i]),
        int(cards.lord_ip[i]),
        int(cards.lord_keys[i]),
        Power(int(cards.lord_power[i])),
    )
    assert got == (number, guild, cost, races, ip, keys, power)


def test_lord_texts(cards):
    """components.md 1.4: "| 11 | The Landlord | ... | Gain 1 Pearl now and at the start of
    each of your turns. |"."""
    assert cards.lord_text[lord(cards, "The Landlord")] == (
        "Gain 1 Pearl now and at the start of each of your turns."
    )
    assert cards.lord_text[lord(cards, "The Hermit")] == (
        "Draw 1 Location and place it under your control."
    )


@pytest.mark.parametrize(
    "name, number, rule, base, mult, arg",
    [
        # | 1 | Sargasso Silos | 5 + 2 x (your Farmer Lords) |
        ("Sargasso Silos", 1, LocationRule.GUILD_LORDS, 5, 2, Guild.FARMER),
        # | 2 | Hydrozoa Reserves | 6 + 2 x (your Mage Lords) |
        ("Hydrozoa Reserves", 2, LocationRule.GUILD_LORDS, 6, 2, Guild.MAGE),
        # | 3 | The Sanctuary | 4 + 3 x (your affiliated Jellyfish) |
        ("The Sanctuary", 3, LocationRule.AFFILIATED_RACE, 4, 3, Race.JELLYFISH),
        # | 5 | The Barracks | 7 + 2 x (your Soldier Lords) |
        ("The Barracks", 5, LocationRule.GUILD_LORDS, 7, 2, Guild.SOLDIER),
        # | 7 | The Sargasso Fields | 3 + 3 x (your affiliated Seahorses) |
        ("The Sargasso Fields", 7, LocationRule.AFFILIATED_RACE, 3, 3, Race.SEAHORSE),
        # | 8 | The Abyss | 2 x (number of distinct guilds among your Lords; ...) |
        ("The Abyss", 8, LocationRule.DISTINCT_GUILDS, 0, 2, -1),
        # | 9 | City of Mirrors | at game end, copies the best-scoring opponent Location ... |
        ("City of Mirrors", 9, LocationRule.CITY_OF_MIRRORS, 0, 0, -1),
        # | 10 | Black Smokers | 0 IP. On acquisition you may immediately swap it ... |
        ("Black Smokers", 10, LocationRule.BLACK_SMOKERS, 0, 0, -1),
        # | 11 | Oceanic Senate Assembly | 4 + 3 x (your affiliated Squids) |
        ("Oceanic Senate Assembly", 11, LocationRule.AFFILIATED_RACE, 4, 3, Race.SQUID),
        # | 12 | The Depths | 2 x (IP of your weakest Lord) |
        ("The Depths", 12, LocationRule.WEAKEST_LORD, 0, 2, -1),
        # | 13 | The Throne Room | IP of your strongest Lord |
        ("The Throne Room", 13, LocationRule.STRONGEST_LORD, 0, 1, -1),
        # | 14 | The Jail | 15 - (number of your Lords) |
        ("The Jail", 14, LocationRule.MINUS_LORDS, 15, 1, -1),
        # | 15 | The Chasm | 5 + 3 x (your affiliated Crabs) |
        ("The Chasm", 15, LocationRule.AFFILIATED_RACE, 5, 3, Race.CRAB),
        # | 16 | The Closed Tower | 3 x (your Lords with >=1 Key) |
        ("The Closed Tower", 16, LocationRule.LORDS_WITH_KEY, 0, 3, -1),
        # | 17 | The Lost Tower | 3 x (your Lords with no Key) |
        ("The Lost Tower", 17, LocationRule.LORDS_WITHOUT_KEY, 0, 3, -1),
        # | 18 | The Chamber of Allies | 3 + sum over races of your weakest affiliated Ally |
        ("The Chamber of Allies", 18, LocationRule.WEAKEST_AFFILIATED_SUM, 3, 1, -1),
        # | 19 | Nest of Giant Clams | 3 + 3 x (your affiliated Shellfish) |
        ("Nest of Giant Clams", 19, LocationRule.AFFILIATED_RACE, 3, 3, Race.SHELLFISH),
        # | 20 | The Coral Barrier | 20 - (number of your affiliated Allies) |
        ("The Coral Barrier", 20, LocationRule.MINUS_AFFILIATED, 20, 1, -1),
    ],
)
def test_location_spot_checks(cards, name, number, rule, base, mult, arg):
    """components.md table 1.5 rows (quoted next to each case)."""
    i = location(cards, name)
    assert i == number - 1
    got = (
        int(cards.location_number[i]),
        LocationRule(int(cards.location_rule[i])),
        int(cards.location_base[i]),
        int(cards.location_mult[i]),
        int(cards.location_arg[i]),
    )
    assert got == (number, rule, base, mult, int(arg))


def test_location_counts(cards):
    """components.md 1.1: "Locations | 20 tiles (table 1.5)"."""
    assert cards.n_locations == 20
    assert cards.location_number.tolist() == list(range(1, 21))
    # Parliament and The Dockworks complete the six guild Locations.
    assert int(cards.location_arg[location(cards, "Parliament")]) == Guild.POLITICIAN
    assert int(cards.location_arg[location(cards, "The Dockworks")]) == Guild.MERCHANT


def test_monster_tokens(cards):
    """components.md 1.1: "Monster tokens | 20: 2 worth 4 IP, 9 worth 3 IP, 9 worth 2 IP"."""
    assert len(cards.monster_token_ip) == 20
    assert Counter(cards.monster_token_ip.tolist()) == {4: 2, 3: 9, 2: 9}


def test_game_values(cards):
    """components.md 1.1: "Key tokens | 10", "Court = 6 face-up slots", "Exploration track |
    5 slots", "Pearls | each player starts with 1"."""
    assert (cards.n_keys, cards.court_size, cards.track_length, cards.starting_pearls) == (
        10,
        6,
        5,
        1,
    )


def test_threat_track(cards):
    """components.md 1.2: "1st (0) | P, or M", "2nd (1) | PP, or PM, or MM", "3rd (2) | K",
    "4th (3) | KP, or KM", "5th (4) | KPP, or KPM, or KMM", "6th (5) | KK"."""
    expected = [
        ["P", "M"],
        ["PP", "PM", "MM"],
        ["K"],
        ["KP", "KM"],
        ["KPP", "KPM", "KMM"],
        ["KK"],
    ]
    assert cards.threat_options.shape == (6, 3, 3)
    assert cards.threat_n_options.tolist() == [len(e) for e in expected]
    for space, options in enumerate(expected):
        for k, option in enumerate(options):
            want = [option.count("P"), option.count("M"), option.count("K")]
            assert cards.threat_options[space, k].tolist() == want, (space, option)
        assert not cards.threat_options[space, len(options) :].any()


def test_default_rules_options(cards):
    """Seed text: "The game ends when any player recruits their 7th Lord, or when a Lord is
    recruited and the Court cannot be completely refilled from the deck" (court_end = refill);
    Landlord card: "Gain 1 Pearl now and at the start of each of your turns"."""
    assert cards.rules == RulesOptions(
        landlord_immediate_pearl=True, ambassador_mode="draw", court_end="refill", turn_limit=400
    )


def test_slugs(cards):
    assert slugify("The Ship Master") == "ship_master"
    assert slugify("The Master of Magic") == "master_of_magic"
    assert slugify("  City of Mirrors ") == "city_of_mirrors"
    assert slugify("Theatre") == "theatre"
    assert cards.lord_slug(lord(cards, "The Recruiter")) == "recruiter"
    assert cards.location_slug(location(cards, "The Jail")) == "jail"
    assert len({cards.lord_slug(i) for i in range(cards.n_lords)}) == cards.n_lords
    assert len({cards.location_slug(i) for i in range(cards.n_locations)}) == cards.n_locations


def test_digest_is_stable_and_independent_of_location_and_comments(cards, tmp_path):
    copy = copy_data(tmp_path)
    path = copy / "lords.toml"
    path.write_text("# an extra comment\n" + path.read_text())
    other = load_cards(copy)
    assert other.digest == cards.digest == load_cards().digest
    assert re.fullmatch(r"[0-9a-f]{64}", cards.digest)
    assert other.source == str(copy.resolve())


# ------------------------------------------------------------------------------------------
# Broken copies
# ------------------------------------------------------------------------------------------


def assert_error(data_dir: Path, *fragments: str, overrides=None) -> str:
    with pytest.raises(CardDataError) as info:
        load_cards(data_dir, overrides)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return message


RECRUITER = 'name = "The Recruiter"\nguild = "soldier"\ncost = 10\nraces = 2\nip = 4\nkeys = 1'
JAILER = 'number = 2\nname = "The Jailer"'
JAIL = 'name = "The Jail"\nrule = "minus_lords"\nbase = 15\nmult = 1'
SILOS = 'rule = "guild_lords"\nbase = 5\nmult = 2\narg = "farmer"'
SANCTUARY = 'rule = "affiliated_race"\nbase = 4\nmult = 3\narg = "jellyfish"'
ABYSS = 'rule = "distinct_guilds"\nbase = 0\nmult = 2'
THREAT0 = 'options = ["P", "M"]'
TOKENS = "ip = [\n    4, 4,\n    " + "3, " * 8 + "3,\n    " + "2, " * 8 + "2,\n]"


@pytest.mark.parametrize(
    "file, old, new, fragments",
    [
        # malformed TOML and structure
        ("game.toml", "n_keys = 10", "n_keys = = 10", ["(file)", "invalid TOML"]),
        ("lords.toml", "[[lord]]\nnumber = 5", "[lord]\nnumber = 5", ["invalid TOML"]),
        ("game.toml", "[monster_tokens]", "[monster_tokenz]", ["(top level)", "monster_tokenz"]),
        ("rules.toml", "[rules]", "rules = 3\n[x]", ["(top level)", "unknown key 'x'"]),
        # missing / unknown keys
        ("game.toml", "court_size = 6\n", "", ["[game]", "missing key 'court_size'"]),
        ("game.toml", "n_keys = 10", "n_keys = 10\ncolour = 1", ["[game]", "unknown key"]),
        ("lords.toml", "keys = 1\n", "", ["lord #1 The Recruiter", "missing key 'keys'"]),
        ("lords.toml", RECRUITER, RECRUITER + "\nflavour = 1", ["lord #1", "'flavour'"]),
        ("locations.toml", JAIL, JAIL + '\ncolour = "x"', ["location #14 The Jail", "colour"]),
        ("rules.toml", "turn_limit = 400", "", ["[rules]", "missing key 'turn_limit'"]),
        ("exploration.toml", "[squid]", "[octopus]", ["(top level)", "unknown key 'octopus'"]),
        ("exploration.toml", "[squid]", "[x.y]", ["(top level)", "unknown key 'x'"]),
        ("exploration.toml", "monsters = 6", "monsters = 6\nkraken = 7", ["unknown key"]),
        # wrong types
        ("lords.toml", "cost = 10", 'cost = "10"', ["lord #1 The Recruiter", "cost: expected"]),
        ("lords.toml", "ip = 4", "ip = true", ["lord #1 The Recruiter", "ip: expected an int"]),
        ("lords.toml", "ip = 4", "ip = 4.5", ["lord #1", "got float"]),
        ("lords.toml", 'name = "The Recruiter"', "name = 1", ["lord #1", "name: expected a str"]),
        ("lords.toml", 'name = "The Recruiter"', 'name = " "', ["lord #1", "must not be empty"]),
        ("lords.toml", 'name = "The Recruiter"', 'name = "!!"', ["lord #1", "letter or digit"]),
        ("game.toml", "n_keys = 10", 'n_keys = "ten"', ["[game]", "n_keys: expected an int"]),
        ("game.toml", "[game]", "[[game]]", ["[game]", "expected a table, got array"]),
        ("rules.toml", "= true", '= "yes"', ["[rules]", "landlord_immediate_pearl: expected"]),
        ("exploration.toml", "monsters = 6", "monsters = [6]", ["(top level)", "monsters:"]),
        (
            "exploration.toml",
            "[crab]\n# red; matches the Soldier guild\nvalues = [5",
            '[crab]\nvalues = ["5"',
            ["[crab]", "values[0]: expected an integer"],
        ),
        ("game.toml", TOKENS, "ip = 3", ["[monster_tokens]", "ip: expected an array"]),
        ("game.toml", THREAT0, 'options = "P"', ["[[threat_track]] space 0", "options"]),
        ("game.toml", THREAT0, 'options = ["P", 1]', ["space 0", "options[1]"]),
        # unknown names
        ("lords.toml", 'guild = "soldier"', 'guild = "warrior"', ["lord #1", "unknown guild"]),
        ("lords.toml", 'power = "recruiter"', 'power = "necromancer"', ["unknown power"]),
        ("locations.toml", 'rule = "minus_lords"', 'rule = "best"', ["The Jail", "unknown rule"]),
        (
            "locations.toml",
            'arg = "jellyfish"',
            'arg = "octopus"',
            ["location #3 The Sanctuary", "needs a race", "octopus"],
        ),
        (
            "rules.toml",
            'ambassador_mode = "draw"',
            'ambassador_mode = "both"',
            ["[rules]", "ambassador_mode", "both"],
        ),
        ("rules.toml", 'court_end = "refill"', 'court_end = "never"', ["[rules]", "court_end"]),
        # duplicates
        (
            "lords.toml",
            JAILER,
            'number = 1\nname = "The Jailer"',
            ["lord #1 The Jailer", "duplicate number 1", "The Recruiter"],
        ),
        (
            "lords.toml",
            JAILER,
            'number = 2\nname = "The Recruiter"',
            ["lord #2 The Recruiter", "duplicate name"],
        ),
        ("lords.toml", JAILER, 'number = 2\nname = "Recruiter"', ["lord #2", "duplicate --set"]),
        ("locations.toml", "number = 14", "number = 13", ["location #13 The Jail", "duplicate"]),
        ("locations.toml", 'name = "The Jail"', 'name = "The Depths"', ["duplicate name"]),
        # out of range
        ("lords.toml", "cost = 10", "cost = 41", ["lord #1", "cost: must be in 0..40, got 41"]),
        ("lords.toml", "cost = 10", "cost = -1", ["lord #1", "cost: must be in 0..40"]),
        ("lords.toml", "races = 2", "races = 0", ["lord #1", "races: must be in 1..5, got 0"]),
        ("lords.toml", "races = 2", "races = 6", ["lord #1", "races: must be in 1..5"]),
        ("lords.toml", "ip = 4", "ip = 31", ["lord #1", "ip: must be in 0..30"]),
        ("lords.toml", "keys = 1", "keys = 4", ["lord #1", "keys: must be in 0..3"]),
        ("lords.toml", "number = 1\n", "number = 0\n", ["lord #0", "number: must be in"]),
        ("locations.toml", "base = 15", "base = 51", ["The Jail", "base: must be in -50..50"]),
        ("locations.toml", JAIL, JAIL[:-1] + "-51", ["The Jail", "mult: must be in -50..50"]),
        ("game.toml", "court_size = 6", "court_size = 2", ["[game]", "3..12, got 2"]),
        ("game.toml", "court_size = 6", "court_size = 13", ["[game]", "court_size"]),
        ("game.toml", "track_length = 5", "track_length = 0", ["[game]", "1..10"]),
        ("game.toml", "track_length = 5", "track_length = 11", ["[game]", "track_length"]),
        ("game.toml", "n_keys = 10", "n_keys = 2", ["[game]", "n_keys: must be in 3..30"]),
        ("game.toml", "n_keys = 10", "n_keys = 31", ["[game]", "n_keys"]),
        ("game.toml", "starting_pearls = 1", "starting_pearls = 21", ["[game]", "0..20"]),
        ("game.toml", "starting_pearls = 1", "starting_pearls = -1", ["[game]", "starting_pe"]),
        (
            "game.toml",
            "ip = [\n    4, 4,",
            "ip = [\n    11, 4,",
            ["[monster_tokens]", "ip[0]: must be in 0..10, got 11"],
        ),
        ("game.toml", TOKENS, "ip = []", ["[monster_tokens]", "1..40 entries, got 0"]),
        ("game.toml", "ip = [", "ip = [" + "2, " * 30, ["[monster_tokens]", "got 50"]),
        ("game.toml", THREAT0, 'options = ["P", "X"]', ["space 0", "options[1]", "'X'"]),
        ("game.toml", THREAT0, 'options = ["P", ""]', ["space 0", "options[1]"]),
        ("game.toml", THREAT0, 'options = ["P", "p"]', ["space 0", "options[1]"]),
        ("game.toml", THREAT0, 'options = ["KKKPPPM"]', ["space 0", "options[0]"]),
        ("game.toml", THREAT0, "options = []", ["space 0", "1..6 strings"]),
        (
            "game.toml",
            THREAT0,
            'options = ["P", "M", "K", "PP", "MM", "KK", "PM"]',
            ["space 0", "1..6 strings"],
        ),
        ("game.toml", THREAT0, 'options = ["PM", "MP"]', ["space 0", "duplicate option 'MP'"]),
        (
            "game.toml",
            "\n[[threat_track]]\n# space 0",
            "\n[threat_track]\n# space 0",
            ["invalid TOML"],
        ),
        ("exploration.toml", "values = [5", "values = [0", ["[jellyfish]", "values[0]", "1..9"]),
        ("exploration.toml", "values = [5", "values = [10", ["[jellyfish]", "1..9, got 10"]),
        (
            "exploration.toml",
            "values = [5, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1]",
            "values = []",
            ["[jellyfish]", "values: must have 1..60 entries, got 0"],
        ),
        ("exploration.toml", "monsters = 6", "monsters = 21", ["(top level)", "0..20"]),
        ("exploration.toml", "monsters = 6", "monsters = -1", ["(top level)", "monsters"]),
        ("rules.toml", "turn_limit = 400", "turn_limit = 9", ["[rules]", "10..10000"]),
        ("rules.toml", "turn_limit = 400", "turn_limit = 10001", ["[rules]", "turn_limit"]),
        # rule arguments
        (
            "locations.toml",
            SILOS,
            SILOS.replace('\narg = "farmer"', ""),
            ["location #1 Sargasso Silos", "needs a guild"],
        ),
        (
            "locations.toml",
            SILOS,
            SILOS.replace('"farmer"', '"ambassador"'),
            ["location #1 Sargasso Silos", "needs a guild", "ambassador"],
        ),
        (
            "locations.toml",
            SILOS,
            SILOS.replace('"farmer"', '"crab"'),
            ["Sargasso Silos", "needs a guild", "crab"],
        ),
        (
            "locations.toml",
            SANCTUARY,
            SANCTUARY.replace('"jellyfish"', '"mage"'),
            ["location #3 The Sanctuary", "needs a race", "mage"],
        ),
        (
            "locations.toml",
            SANCTUARY,
            SANCTUARY.replace('\narg = "jellyfish"', ""),
            ["location #3 The Sanctuary", "needs a race"],
        ),
        (
            "locations.toml",
            SANCTUARY,
            SANCTUARY.replace('"jellyfish"', "3"),
            ["The Sanctuary", "arg: expected a string"],
        ),
        (
            "locations.toml",
            ABYSS,
            ABYSS + '\narg = "mage"',
            ["location #8 The Abyss", "takes no arg"],
        ),
    ],
)
def test_broken_data_names_file_and_entry(tmp_path, file, old, new, fragments):
    """Every validation error is a CardDataError "<file>: <entry>: <what is wrong>"."""
    message = assert_error(broken(tmp_path, file, old, new), file, *fragments)
    assert message.split(": ")[0].endswith(file)


def test_missing_file(tmp_path):
    dest = copy_data(tmp_path)
    (dest / "rules.toml").unlink()
    assert_error(dest, "rules.toml", "(directory)", "lacks rules.toml")


def test_missing_directory(tmp_path):
    with pytest.raises(CardDataError, match="not a directory"):
        load_cards(tmp_path / "nowhere")


def test_not_utf8(tmp_path):
    dest = copy_data(tmp_path)
    (dest / "locations.toml").write_bytes(b'x = "\xff"\n')
    assert_error(dest, "locations.toml", "(file)", "UTF-8")


def test_too_many_threat_spaces(tmp_path):
    """Validation: "threat track 1..10 spaces"."""
    dest = copy_data(tmp_path)
    path = dest / "game.toml"
    path.write_text(path.read_text() + '\n[[threat_track]]\noptions = ["KK"]\n' * 5)
    assert_error(dest, "game.toml", "[[threat_track]]", "1..10 entries, got 11")


def test_empty_threat_track(tmp_path):
    dest = copy_data(tmp_path)
    path = dest / "game.toml"
    text = path.read_text()
    text = text[: text.index("\n[[threat_track]]")]
    path.write_text("threat_track = []\n" + text)
    assert_error(dest, "game.toml", "[[threat_track]]", "got 0")


def test_fewer_lords_than_court_slots(tmp_path):
    """Seed text, Setup 4: "Turn over the top six cards and place them in the Court"."""
    dest = copy_data(tmp_path)
    path = dest / "lords.toml"
    parts = path.read_text().split("\n[[lord]]\n")
    path.write_text("\n[[lord]]\n".join(parts[:6]))  # header + 5 Lords
    assert_error(dest, "lords.toml", "[[lord]]", "only 5 Lords", "court_size = 6")


def test_ambassador_races_may_change_but_not_exceed_five(tmp_path):
    """components.md 1.4, Ambassadors: "Probable printed cost: 10 value, 5 different races ...
    UNVERIFIED against the physical card" - so designers may change `races`."""
    sage = 'name = "The Sage"\nguild = "ambassador"\ncost = 10\nraces = 5'
    tables = load_cards(broken(tmp_path, "lords.toml", sage, sage[:-1] + "3"))
    assert tables.lord_races[lord(tables, "The Sage")] == 3
    assert_error(
        broken(tmp_path / "b", "lords.toml", sage, sage[:-1] + "6"), "lord #33 The Sage", "1..5"
    )


def test_location_arg_none_is_the_same_as_omitting_it(tmp_path):
    tables = load_cards(broken(tmp_path, "locations.toml", ABYSS, ABYSS + '\narg = "none"'))
    assert tables.digest == load_cards().digest


def test_names_are_case_insensitive(tmp_path):
    tables = load_cards(broken(tmp_path, "lords.toml", 'guild = "soldier"', 'guild = "Soldier"'))
    assert tables.digest == load_cards().digest


# ------------------------------------------------------------------------------------------
# Overrides (--set)
# ------------------------------------------------------------------------------------------


def test_override_lord_cost_changes_table_and_digest(cards):
    tables = load_cards(overrides=parse_set_options(["lord.recruiter.cost=12"]))
    i = lord(tables, "The Recruiter")
    assert tables.lord_cost[i] == 12
    assert cards.lord_cost[i] == 10
    assert tables.digest != cards.digest
    # The shipped data is untouched.
    assert load_cards().digest == cards.digest


def test_overrides_of_each_kind(cards):
    tables = load_cards(
        overrides=parse_set_options(
            [
                "lord.ship_master.ip=6",
                "lord.sage.races=3",
                "lord.keeper.power=tamer",
                "location.jail.base=12",
                "location.city_of_mirrors.rule=guild_lords",
                "location.city_of_mirrors.arg=ambassador",
                "location.city_of_mirrors.arg=mage",
                "location.sanctuary.arg=crab",
                "game.court_size=8",
                "game.n_keys=12",
                "rules.court_end=bga",
                "rules.ambassador_mode=keys",
                "rules.landlord_immediate_pearl=false",
                "rules.turn_limit=1000",
                "exploration.monsters=0",
            ]
        )
    )
    assert tables.lord_ip[lord(tables, "The Ship Master")] == 6
    assert tables.lord_races[lord(tables, "The Sage")] == 3
    assert tables.lord_power[lord(tables, "The Keeper")] == Power.TAMER
    assert tables.location_base[location(tables, "The Jail")] == 12
    mirrors = location(tables, "City of Mirrors")
    assert tables.location_rule[mirrors] == LocationRule.GUILD_LORDS
    assert tables.location_arg[mirrors] == Guild.MAGE
    assert tables.location_arg[location(tables, "The Sanctuary")] == Race.CRAB
    assert (tables.court_size, tables.n_keys) == (8, 12)
    assert tables.rules == RulesOptions(False, "keys", "bga", 1000)
    assert tables.n_allies == 65


def test_override_rule_to_one_without_arg_needs_arg_none():
    """A rule without an argument rejects a leftover `arg`; `arg=none` removes it."""
    base = ["location.sargasso_silos.rule=minus_lords"]
    with pytest.raises(CardDataError, match="takes no arg"):
        load_cards(overrides=parse_set_options(base))
    tables = load_cards(overrides=parse_set_options(base + ["location.sargasso_silos.arg=none"]))
    i = location(tables, "Sargasso Silos")
    assert tables.location_rule[i] == LocationRule.MINUS_LORDS
    assert tables.location_arg[i] == -1


def test_override_renames_a_card():
    tables = load_cards(overrides={"lord.recruiter.name": "The Boss"})
    assert tables.lord_name[0] == "The Boss"
    assert tables.lord_slug(0) == "boss"


@pytest.mark.parametrize(
    "key, suggestion",
    [
        ("location.the_jail.base", "'location.jail.base'"),
        ("lord.recruter.cost", "'lord.recruiter.cost'"),
        ("lord.recruiter.price", "'lord.recruiter.race"),
        ("game.court", "'game.court_size'"),
        ("rules.court_ends", "'rules.court_end'"),
        ("lord.Recruiter.cost", "'lord.recruiter.cost'"),
    ],
)
def test_unknown_override_key_suggests_close_matches(key, suggestion):
    with pytest.raises(CardDataError) as info:
        load_cards(overrides={key: 1})
    message = str(info.value)
    assert message.startswith(f"--set: '{key}': unknown key")
    assert "did you mean" in message and suggestion in message


def test_unknown_override_key_without_close_match_explains_the_key_forms():
    with pytest.raises(CardDataError, match=r"unknown key; keys are game\.<key>"):
        load_cards(overrides={"zzzzzz.qqqq": 1})


@pytest.mark.parametrize(
    "item, fragments",
    [
        (
            "lord.recruiter.cost=abc",
            [
                "lords.toml",
                "lord #1 The Recruiter",
                "cost: expected an integer, got string 'abc'",
                "(set by --set lord.recruiter.cost)",
            ],
        ),
        ("lord.recruiter.cost=1.5", ["lords.toml", "lord #1", "got float 1.5"]),
        ("lord.recruiter.cost=true", ["lords.toml", "lord #1", "got boolean True"]),
        ("lord.recruiter.cost=99", ["lords.toml", "lord #1", "must be in 0..40, got 99"]),
        ("lord.recruiter.guild=knight", ["lords.toml", "lord #1", "unknown guild 'knight'"]),
        ("lord.recruiter.number=2", ["lords.toml", "lord #2 The Jailer", "duplicate number 2"]),
        ("game.court_size=20", ["game.toml", "[game]", "court_size", "--set game.court_size"]),
        ("rules.court_end=sometimes", ["rules.toml", "[rules]", "court_end"]),
        ("rules.landlord_immediate_pearl=1", ["rules.toml", "expected true or false"]),
        ("rules.turn_limit=5", ["rules.toml", "10..10000"]),
        ("location.jail.base=x", ["locations.toml", "location #14 The Jail", "base"]),
        ("location.sanctuary.arg=farmer", ["locations.toml", "The Sanctuary", "needs a race"]),
        ("exploration.monsters=-3", ["exploration.toml", "monsters"]),
    ],
)
def test_bad_override_values_are_validated_like_file_values(item, fragments):
    """Overrides are applied to the raw TOML data before validation."""
    with pytest.raises(CardDataError) as info:
        load_cards(overrides=parse_set_options([item]))
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_override_reports_broken_file_rather_than_unknown_key(tmp_path):
    dest = broken(tmp_path, "game.toml", "[game]", "[[game]]")
    assert_error(dest, "game.toml", "[game]", overrides={"game.n_keys": 5})


# ------------------------------------------------------------------------------------------
# parse_set_options
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "item, key, value",
    [
        ("a.b=1", "a.b", 1),
        ("a.b=-3", "a.b", -3),
        ("a.b=1_000", "a.b", 1000),
        ("a.b=1.5", "a.b", 1.5),
        ("a.b=true", "a.b", True),
        ("a.b=false", "a.b", False),
        ('a.b="12"', "a.b", "12"),
        ("a.b='x y'", "a.b", "x y"),
        ("a.b=bga", "a.b", "bga"),
        ("a.b=The Boss", "a.b", "The Boss"),
        ("a.b=", "a.b", ""),
        (" a.b = 3 ", "a.b", 3),
        ("a.b=x=y", "a.b", "x=y"),
        ("a.b=[1, 2]", "a.b", "[1, 2]"),
        ("a.b=2024-01-01", "a.b", "2024-01-01"),
        ("a.b=1\nc = 2", "a.b", "1\nc = 2"),
        ("lord.ship_master.ip=6", "lord.ship_master.ip", 6),
        ("a.b.c.d=x", "a.b.c.d", "x"),
    ],
)
def test_parse_set_options_values(item, key, value):
    parsed = parse_set_options([item])
    assert parsed == {key: value}
    assert type(parsed[key]) is type(value)


def test_parse_set_options_empty_and_last_wins():
    assert parse_set_options([]) == {}
    assert parse_set_options(["a.b=1", "c.d=x", "a.b=2"]) == {"a.b": 2, "c.d": "x"}


@pytest.mark.parametrize("item", ["noequals", "=5", "nodot=5", "a..b=1", "a.b c=1", ".a=1", "a.=1"])
def test_parse_set_options_malformed(item):
    with pytest.raises(CardDataError) as info:
        parse_set_options([item])
    assert str(info.value) == f"--set: {item!r}: expected key=value"


# ------------------------------------------------------------------------------------------
# describe()
# ------------------------------------------------------------------------------------------


def test_describe_lists_everything(cards):
    text = describe(cards)
    for name in cards.lord_name + cards.location_name:
        assert name in text, name
    for heading in (
        "Exploration deck: 71 cards (65 Allies + 6 Monsters)",
        "Lords: 35",
        "Locations: 20",
        "Threat Track: 6 spaces",
        "Monster tokens: 20",
        "Rules options",
        "court_end = refill",
        cards.digest,
    ):
        assert heading in text, heading
    assert "space 4: KPP or KPM or KMM" in text
    assert "15 - (your Lords)" in text  # The Jail
    assert "5 + 2 x (your farmer Lords)" in text  # Sargasso Silos


def test_override_accepts_numpy_scalars():
    tables = load_cards(overrides={"lord.recruiter.cost": np.int64(12)})
    assert tables.lord_cost[0] == 12
