"""Tests of the Abyss: Conspiracy card data (games/conspiracy/engine/data/*.toml) and its loader.

Expected values come from the seed rules text /work/shared/seeds/004_f62d138e7f50b9bc.txt
(quoted in the docstrings) and /work/shared/reference/components.md, section 3 (3.1 Lords,
3.3 Chamber adjacency, 3.5 Locations).
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from games.conspiracy.engine.cards.loader import (
    MAX_NEIGHBOURS,
    ConspiracyTables,
    KeyKind,
    KeyRule,
    LocationPower,
    LocationScore,
    LordPower,
    ZeroSwap,
    chamber_adjacency,
    default_data_dir,
    describe,
    load_cards,
)
from sim.core.carddata import CardDataError, parse_set_options

COMPONENTS_MD = Path("/work/shared/reference/components.md")
COLOURS = ("yellow", "red", "green", "blue", "purple")


@pytest.fixture(scope="module")
def cards() -> ConspiracyTables:
    return load_cards()


@pytest.fixture(scope="module")
def bonus_cards() -> ConspiracyTables:
    return load_cards(overrides={"rules.bonus_locations": True})


def copy_data(tmp_path: Path) -> Path:
    dest = tmp_path / "data"
    shutil.copytree(default_data_dir(), dest)
    return dest


def broken(tmp_path: Path, file: str, old: str, new: str) -> Path:
    """A copy of the data directory with the first `old` of `file` replaced by `new`."""
    dest = copy_data(tmp_path)
    path = dest / file
    text = path.read_text()
    assert old in text, (file, old)
    path.write_text(text.replace(old, new, 1))
    return dest


def assert_error(data_dir: Path | None, *fragments: str, overrides=None) -> str:
    with pytest.raises(CardDataError) as info:
        load_cards(data_dir, overrides)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return message


# ------------------------------------------------------------------------------------------
# The default data
# ------------------------------------------------------------------------------------------


def test_default_data_dir_holds_the_three_files():
    names = sorted(p.name for p in default_data_dir().glob("*.toml"))
    assert names == ["game.toml", "locations.toml", "lords.toml"]


def test_arrays_are_c_contiguous_with_the_stated_dtypes(cards):
    expected = {
        "lord_colour": np.int8,
        "lord_type": np.int8,
        "lord_ip": np.int8,
        "lord_key": np.int8,
        "lord_pearls": np.int8,
        "lord_power": np.int8,
        "location_number": np.int16,
        "location_ip": np.int8,
        "location_pearls": np.int8,
        "location_score": np.int8,
        "location_per": np.int8,
        "location_colour": np.int8,
        "location_power": np.int8,
        "location_bonus": np.bool_,
        "chamber_rows": np.int8,
        "adjacency": np.int8,
    }
    for name, dtype in expected.items():
        arr = getattr(cards, name)
        assert isinstance(arr, np.ndarray), name
        assert arr.dtype == dtype, name
        assert arr.flags.c_contiguous, name
    for name in ("lord_colour", "lord_ip", "lord_key", "lord_pearls", "lord_power"):
        assert getattr(cards, name).shape == (60,), name
    for name in ("location_number", "location_score", "location_colour", "location_bonus"):
        assert getattr(cards, name).shape == (24,), name


def test_enum_values_are_pinned():
    assert [int(k) for k in KeyKind] == [0, 1, 2]
    assert [k.name for k in KeyKind] == ["NONE", "SILVER", "GOLD"]
    assert [p.name for p in LordPower] == ["NONE", "SWAP", "REVEAL"]
    assert [int(p) for p in LordPower] == [0, 1, 2]
    assert {s.name: int(s) for s in LocationScore} == {
        "FIXED": 0,
        "SILVER_KEYS": 1,
        "GOLD_KEYS": 2,
        "PEARL_PAIRS": 3,
        "PER_LOCATION": 4,
        "COLOUR_TOP": 5,
        "COLOUR_COUNT": 6,
        "GROUP_1IP": 7,
        "GROUP_2IP": 8,
        "GROUP_3IP": 9,
        "GROUP_4IP": 10,
        "NO_KEY_NO_PEARL": 11,
    }
    assert {p.name: int(p) for p in LocationPower} == {
        "NONE": 0,
        "TOP_ONE_ONLY": 1,
        "TOP_TWO_KEEP_ONE": 2,
        "RESHUFFLE_LORDS": 3,
        "RESHUFFLE_LOCATIONS": 4,
        "ANY_TWO_KEYS": 5,
        "WHOLE_DECK": 6,
    }
    assert (int(KeyRule.SEED), int(KeyRule.BGA)) == (0, 1)


# ---- Lords ------------------------------------------------------------------------------


def test_sixty_lords_twelve_per_colour(cards):
    """components.md 3: "60 Lords (12 per colour x 5)"; seed text: "There are twelve Lords in
    each colour"."""
    assert cards.n_lords == 60
    assert Counter(cards.lord_colour.tolist()) == {k: 12 for k in range(5)}
    # colour-major ids
    assert cards.lord_colour.tolist() == [k for k in range(5) for _ in range(12)]


def test_colours_and_guilds(cards):
    """components.md 3.1: "1 yellow = Farmer, 2 red = Military, 3 green = Merchant, 4 blue =
    Politician, 5 purple = Mage"; seed text: "five different races of creatures live together;
    each associated with a color and affiliated to a guild of Lords"."""
    assert cards.colour_names == COLOURS
    assert cards.colour_guilds == ("farmer", "military", "merchant", "politician", "mage")


def lord_composition(t: ConspiracyTables, colour: int) -> Counter:
    mask = t.lord_colour == colour
    return Counter(
        zip(
            t.lord_ip[mask].tolist(),
            t.lord_key[mask].tolist(),
            t.lord_pearls[mask].tolist(),
            t.lord_power[mask].tolist(),
            strict=True,
        )
    )


@pytest.mark.parametrize("colour", range(5))
def test_each_colour_has_the_twelve_lords_of_the_rule_text(cards, colour):
    """Seed text: "There are twelve Lords in each colour: One zero (with the power to swap two
    Lords within your chamber), Four 1s (with a silver key), Two 2s (with a gold key), Two 3s
    (with two pearls), Two 4s (with a single pearl), One 6 (which forces the top card of the
    deck to be discarded)"."""
    assert lord_composition(cards, colour) == {
        (0, KeyKind.NONE, 0, LordPower.SWAP): 1,
        (1, KeyKind.SILVER, 0, LordPower.NONE): 4,
        (2, KeyKind.GOLD, 0, LordPower.NONE): 2,
        (3, KeyKind.NONE, 2, LordPower.NONE): 2,
        (4, KeyKind.NONE, 1, LordPower.NONE): 2,
        (6, KeyKind.NONE, 0, LordPower.REVEAL): 1,
    }


def test_keys_and_pearls_follow_the_ip(cards):
    """Seed text: "Lords with 1 and 2 Influence Points respectively give you a silver key or a
    gold key" and "Lords with 4 and 3 Influence Points respectively give you 1 and 2 Pearls"."""
    for ip, key, pearls in zip(
        cards.lord_ip.tolist(), cards.lord_key.tolist(), cards.lord_pearls.tolist(), strict=True
    ):
        assert key == {1: KeyKind.SILVER, 2: KeyKind.GOLD}.get(ip, KeyKind.NONE)
        assert pearls == {3: 2, 4: 1}.get(ip, 0)


def test_lord_types_are_in_file_order(cards):
    first = cards.lord_type[:12].tolist()
    assert first == [0] + [1] * 4 + [2] * 2 + [3] * 2 + [4] * 2 + [5]
    assert np.array_equal(cards.lord_type, np.tile(cards.lord_type[:12], 5))


# ---- Locations --------------------------------------------------------------------------


def test_twenty_four_base_locations(cards):
    """components.md 3: "24 Locations"; 3.5: ids 1-14 once each, 100 and 101 once per
    colour."""
    assert cards.n_locations == 24
    assert not cards.location_bonus.any()
    counts = Counter(cards.location_number.tolist())
    assert counts == {**{n: 1 for n in range(1, 15)}, 100: 5, 101: 5}
    for number in (100, 101):
        mask = cards.location_number == number
        assert sorted(cards.location_colour[mask].tolist()) == list(range(5))
    other = ~np.isin(cards.location_number, [100, 101])
    assert (cards.location_colour[other] == -1).all()
    assert len(set(cards.location_names)) == 24


def test_bonus_option_adds_the_five_bonus_locations(cards, bonus_cards):
    """components.md 3.5: "24 in the base set + 5 optional "bonus" Locations"."""
    assert bonus_cards.n_locations == 29
    assert bonus_cards.bonus_locations is True and cards.bonus_locations is False
    assert bonus_cards.location_number[:24].tolist() == cards.location_number.tolist()
    assert bonus_cards.location_number[24:].tolist() == [21, 22, 23, 24, 25]
    assert bonus_cards.location_bonus.tolist() == [False] * 24 + [True] * 5
    assert bonus_cards.digest != cards.digest


S = LocationScore
P = LocationPower


@pytest.mark.parametrize(
    "number, ip, pearls, score, per, power",
    [
        (1, 7, 0, S.FIXED, 0, P.NONE),  # "7"
        (2, 5, 1, S.FIXED, 0, P.NONE),  # "5; +1 Pearl now"
        (3, 4, 2, S.FIXED, 0, P.NONE),  # "4; +2 Pearls now"
        (4, 3, 3, S.FIXED, 0, P.NONE),  # "3; +3 Pearls now"
        (5, 0, 0, S.SILVER_KEYS, 1, P.NONE),  # "1 per silver key in your Chamber"
        (6, 0, 0, S.GOLD_KEYS, 2, P.NONE),  # "2 per gold key in your Chamber"
        (7, 0, 0, S.PEARL_PAIRS, 1, P.NONE),  # "1 per pair of Pearls you hold"
        (8, 0, 0, S.PER_LOCATION, 2, P.NONE),  # "2 per Location you control"
        (9, 3, 0, S.FIXED, 0, P.TOP_ONE_ONLY),  # "each opponent may only take the top 1"
        (10, 3, 0, S.FIXED, 0, P.TOP_TWO_KEEP_ONE),  # "take the top 2 ..., keep 1"
        (11, 3, 0, S.FIXED, 0, P.RESHUFFLE_LORDS),  # "shuffle all discarded Lords back"
        (12, 3, 0, S.FIXED, 0, P.RESHUFFLE_LOCATIONS),  # "shuffle all available Locations"
        (13, 3, 0, S.FIXED, 0, P.ANY_TWO_KEYS),  # "you need only 2 keys of any type"
        (14, 3, 0, S.FIXED, 0, P.WHOLE_DECK),  # "choose new Locations from the whole deck"
        (100, 0, 0, S.COLOUR_TOP, 1, P.NONE),  # "IP of your most influential Lord of that colour"
        (101, 1, 0, S.COLOUR_COUNT, 1, P.NONE),  # "1 + 1 per Lord of that colour"
        (21, 0, 0, S.GROUP_1IP, 1, P.NONE),  # "1 per Lord in your largest ... 1-IP Lords"
        (22, 0, 0, S.GROUP_2IP, 2, P.NONE),  # "2 per Lord ... of 2-IP Lords"
        (23, 0, 0, S.GROUP_3IP, 2, P.NONE),
        (24, 0, 0, S.GROUP_4IP, 2, P.NONE),
        (25, 1, 0, S.NO_KEY_NO_PEARL, 1, P.NONE),  # "1 + 1 per Lord giving neither pearl nor key"
    ],
)
def test_location_table_of_components_md(bonus_cards, number, ip, pearls, score, per, power):
    """components.md 3.5, one row per id (100 and 101: every colour's card)."""
    t = bonus_cards
    idx = np.flatnonzero(t.location_number == number)
    assert len(idx) == (5 if number in (100, 101) else 1)
    for i in idx:
        got = (
            int(t.location_ip[i]),
            int(t.location_pearls[i]),
            int(t.location_score[i]),
            int(t.location_per[i]),
            int(t.location_power[i]),
            bool(t.location_bonus[i]),
        )
        assert got == (ip, pearls, score, per, power, 21 <= number <= 25)


# ---- The Senate Chamber -----------------------------------------------------------------

# components.md 3.3, "spot | neighbours" (1-based spots)
ADJACENCY_TABLE = {
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


def test_chamber_is_the_inverted_pyramid_of_the_rule_text(cards):
    """Seed text: "from left to right and from top to bottom so creating an inverted pyramid":
    1-5, 6-9, 10-12, 13-14, 15."""
    assert cards.chamber_rows.tolist() == [5, 4, 3, 2, 1]
    assert cards.n_spots == 15
    assert cards.adjacency.shape == (15, MAX_NEIGHBOURS)


@pytest.mark.parametrize("spot", sorted(ADJACENCY_TABLE))
def test_adjacency_matches_components_md_spot_by_spot(cards, spot):
    row = cards.adjacency[spot - 1]
    neighbours = [int(x) + 1 for x in row if x >= 0]
    assert neighbours == ADJACENCY_TABLE[spot]
    # -1 padding only after the neighbours
    assert (row[len(neighbours) :] == -1).all()


def test_adjacency_matches_the_table_in_the_reference_file(cards):
    """The same check against the table as written in components.md 3.3 itself."""
    if not COMPONENTS_MD.exists():
        pytest.skip("components.md not available")
    text = COMPONENTS_MD.read_text()
    section = text[text.index("## 3.3") : text.index("## 3.4")]
    rows = re.findall(r"^\| (\d+) \| ([\d, ]+) \|$", section, flags=re.M)
    table = {int(s): [int(x) for x in n.split(",")] for s, n in rows}
    assert table == ADJACENCY_TABLE
    for spot, neighbours in table.items():
        assert [int(x) + 1 for x in cards.adjacency[spot - 1] if x >= 0] == neighbours


@pytest.mark.parametrize("rows", [[1], [2, 1], [3, 2, 1], [4, 3, 2, 1], [6, 5, 4, 3, 2, 1]])
def test_derived_adjacency_is_symmetric_for_any_pyramid(rows):
    adj = chamber_adjacency(rows)
    n = sum(rows)
    assert adj.shape == (n, MAX_NEIGHBOURS)
    pairs = {(a, int(b)) for a in range(n) for b in adj[a] if b >= 0}
    assert all((b, a) in pairs for a, b in pairs)
    assert all(a != b for a, b in pairs)


# ---- Game constants and rules options ---------------------------------------------------


def test_game_values(cards):
    """Seed text: "Draw 1, 2 or 3 cards" (Lords and Locations), "3 points are scored for each
    Lord within it", "a bonus of 5 Influence Points"; players 2..4 from the 20 Coat-of-Arms
    tokens (4 players x 5 colours, PARTLY)."""
    assert (cards.min_players, cards.max_players) == (2, 4)
    assert (cards.draw_max, cards.location_draw_max) == (3, 3)
    assert (cards.coalition_ip, cards.pearl_master_ip) == (3, 5)


def test_default_rules_are_the_seed_readings(cards):
    assert cards.key_rule == KeyRule.SEED
    assert cards.zero_swap == ZeroSwap.ANY
    assert cards.bonus_locations is False


def test_game_toml_documents_the_partly_player_count():
    text = (default_data_dir() / "game.toml").read_text()
    assert "PARTLY" in text and "Coat-of-Arms" in text
    assert 'key_rule = "seed"' in text and "bonus_locations = false" in text
    assert 'zero_swap = "any"' in text


def test_digest_is_stable_and_independent_of_location_and_comments(cards, tmp_path):
    copy = copy_data(tmp_path)
    path = copy / "lords.toml"
    path.write_text("# an extra comment\n" + path.read_text())
    other = load_cards(copy)
    assert other.digest == cards.digest == load_cards().digest
    assert re.fullmatch(r"[0-9a-f]{64}", cards.digest)
    assert other.source == str(copy.resolve())


# ------------------------------------------------------------------------------------------
# --set overrides
# ------------------------------------------------------------------------------------------


def test_override_key_rule_bga(cards):
    tables = load_cards(overrides=parse_set_options(['rules.key_rule="bga"']))
    assert tables.key_rule == KeyRule.BGA
    assert tables.digest != cards.digest
    assert load_cards().digest == cards.digest  # the shipped data is untouched


def test_override_zero_swap_keyless(cards):
    tables = load_cards(overrides=parse_set_options(["rules.zero_swap=keyless"]))
    assert tables.zero_swap == ZeroSwap.KEYLESS
    assert tables.digest != cards.digest


def test_override_coalition_ip(cards):
    tables = load_cards(overrides=parse_set_options(["game.coalition_ip=4"]))
    assert tables.coalition_ip == 4
    assert tables.digest != cards.digest


def test_overrides_of_each_kind():
    tables = load_cards(
        overrides=parse_set_options(
            [
                "game.pearl_master_ip=7",
                "game.draw_max=2",
                "game.chamber_rows=[4, 3, 2, 1]",
                "rules.bonus_locations=true",
                "rules.key_rule=BGA",
                "colour.purple.guild=mage",
                "lord.6.ip=5",
                "lord.2.copies=3",
                "lord.1.power=none",
                "location.seven.ip=8",
                "location.gold_keys.per=3",
                "location.yellow_top_lord.colour=red",
                "location.red_top_lord.colour=yellow",
                "location.neither_key_nor_pearl.bonus=false",
            ]
        )
    )
    assert (tables.pearl_master_ip, tables.draw_max) == (7, 2)
    assert tables.chamber_rows.tolist() == [4, 3, 2, 1] and tables.n_spots == 10
    assert tables.adjacency.shape == (10, MAX_NEIGHBOURS)
    assert tables.key_rule == KeyRule.BGA
    assert tables.n_lords == 5 * 11
    assert set(tables.lord_ip[tables.lord_power == LordPower.REVEAL].tolist()) == {5}
    assert not (tables.lord_power == LordPower.SWAP).any()
    names = tables.location_names
    assert tables.location_ip[names.index("Seven")] == 8
    assert tables.location_per[names.index("Gold Keys")] == 3
    assert tables.location_colour[names.index("Yellow Top Lord")] == 1
    # #25 is no longer a bonus card: in the base deck, so 25 base + 4 bonus
    assert tables.n_locations == 29
    assert int(np.count_nonzero(tables.location_bonus)) == 4


def test_override_accepts_numpy_scalars():
    tables = load_cards(overrides={"game.coalition_ip": np.int64(4)})
    assert tables.coalition_ip == 4


@pytest.mark.parametrize(
    "key, suggestion",
    [
        ("game.coalition", "game.coalition_ip"),
        ("rules.keyrule", "rules.key_rule"),
        ("location.seven.points", "location.seven.ip"),
    ],
)
def test_unknown_override_key_suggests_close_matches(key, suggestion):
    message = assert_error(None, "--set", key, "unknown key", suggestion, overrides={key: 1})
    assert message.startswith("--set: ")


def test_unknown_override_key_without_close_match_explains_the_key_forms():
    assert_error(None, "keys are game.<key>", overrides={"zzz.qqq": 1})


@pytest.mark.parametrize(
    "item, fragments",
    [
        ('rules.key_rule="three"', ["game.toml", "[rules]", "unknown key_rule", "bga"]),
        ("rules.bonus_locations=1", ["game.toml", "[rules]", "expected true or false"]),
        ("rules.zero_swap=some", ["game.toml", "[rules]", "unknown zero_swap", "keyless"]),
        ("game.coalition_ip=-1", ["game.toml", "[game]", "coalition_ip", "0..20"]),
        ("game.min_players=5", ["game.toml", "[game]", "must not exceed max_players"]),
        ("game.chamber_rows=[5,3,1]", ["game.toml", "chamber_rows", "inverted pyramid"]),
        ("game.chamber_rows=[3,2]", ["game.toml", "chamber_rows", "last row must hold 1"]),
        ("game.chamber_rows=5", ["game.toml", "chamber_rows", "expected a non-empty array"]),
        ("lord.2.key=bronze", ["lords.toml", "lord type #2", "unknown key", "silver"]),
        ("lord.3.copies=0", ["lords.toml", "lord type #3", "copies", "1..20"]),
        ("colour.purple.guild=farmer", ["lords.toml", "colour purple", "duplicate guild"]),
        ("location.seven.per=2", ["locations.toml", "location #1 Seven", "per", "0..0"]),
        ("location.seven.colour=red", ["locations.toml", "Seven", "takes no colour"]),
        ("location.red_top_lord.colour=pink", ["locations.toml", "unknown colour 'pink'"]),
        ("location.whole_location_deck.number=2", ["locations.toml", "duplicate number 2"]),
        ("location.whole_location_deck.name=Gold Keys", ["locations.toml", "duplicate name"]),
    ],
)
def test_bad_override_values_are_validated_like_file_values(item, fragments):
    message = assert_error(None, *fragments, overrides=parse_set_options([item]))
    assert f"(set by --set {item.split('=')[0]})" in message


def test_override_reports_broken_file_rather_than_unknown_key(tmp_path):
    dest = broken(tmp_path, "game.toml", "[game]", "[[game]]")
    assert_error(dest, "game.toml", "[game]", "expected a table", overrides={"game.draw_max": 2})


# ------------------------------------------------------------------------------------------
# Broken copies
# ------------------------------------------------------------------------------------------

SEVEN = 'number = 1\nname = "Seven"'
TYPE1 = "type = 1\nip = 0\ncopies = 1"
FIXED = 'score = "fixed"\nper = 0'


@pytest.mark.parametrize(
    "file, old, new, fragments",
    [
        ("game.toml", "draw_max = 3", "draw_max = 0", ["[game]", "draw_max", "1..10"]),
        ("game.toml", "draw_max = 3", 'draw_max = "3"', ["[game]", "expected an integer"]),
        ("game.toml", "draw_max = 3", "draw_max = 3\nextra = 1", ["unknown key 'extra'"]),
        ("game.toml", "location_draw_max = 3\n", "", ["[game]", "missing key"]),
        (
            "game.toml",
            "chamber_rows = [5, 4, 3, 2, 1]",
            "chamber_rows = [5, 4, 4, 2, 1]",
            ["chamber_rows", "strictly decreasing"],
        ),
        (
            "game.toml",
            "chamber_rows = [5, 4, 3, 2, 1]",
            "chamber_rows = [5, 4, 3, 2]",
            ["chamber_rows", "last row must hold 1 card"],
        ),
        (
            "game.toml",
            "chamber_rows = [5, 4, 3, 2, 1]",
            "chamber_rows = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]",
            ["chamber_rows[0]", "1..9"],
        ),
        ("game.toml", "chamber_rows = [5, 4, 3, 2, 1]", "chamber_rows = []", ["non-empty"]),
        ("game.toml", 'key_rule = "seed"', 'key_rule = "two"', ["[rules]", "unknown key_rule"]),
        ("game.toml", "[rules]", "[rulez]", ["(top level)", "unknown key 'rulez'"]),
        ("game.toml", "draw_max = 3", "draw_max = 3 3", ["(file)", "invalid TOML"]),
        ("lords.toml", 'guild = "farmer"', 'guild = "pirate"', ["colour yellow", "unknown guild"]),
        ("lords.toml", 'name = "red"', 'name = "yellow"', ["duplicate colour name 'yellow'"]),
        ("lords.toml", 'name = "red"', 'name = "none"', ["colour none", "name: must be"]),
        ("lords.toml", TYPE1, "type = 2\nip = 0\ncopies = 1", ["lord type #2", "duplicate type"]),
        ("lords.toml", TYPE1, "type = 1\nip = 21\ncopies = 1", ["lord type #1", "ip", "0..20"]),
        ("lords.toml", 'key = "silver"', 'key = "copper"', ["lord type #2", "unknown key"]),
        ("lords.toml", 'power = "swap"', 'power = "steal"', ["lord type #1", "unknown power"]),
        ("lords.toml", 'power = "swap"', 'power = "swap"\ntext = "x"', ["unknown key 'text'"]),
        ("lords.toml", "pearls = 2", "pearls = 11", ["lord type #4", "pearls", "0..10"]),
        ("locations.toml", SEVEN, 'number = 2\nname = "Seven"', ["location #2 Seven", "duplicate"]),
        ("locations.toml", SEVEN, 'number = 1\nname = "Gold Keys"', ["duplicate name"]),
        ("locations.toml", SEVEN, 'number = 1\nname = "!!"', ["must contain a letter"]),
        ("locations.toml", 'score = "fixed"', 'score = "fancy"', ["Seven", "unknown score"]),
        ("locations.toml", 'power = "whole_deck"', 'power = "x"', ["#14", "unknown power"]),
        ("locations.toml", FIXED, FIXED[:-1] + "1", ["location #1 Seven", "per", "0..0"]),
        ("locations.toml", "per = 2", "per = 0", ["location #6 Gold Keys", "per", "1..10"]),
        ("locations.toml", "ip = 7", "ip = 7\ncolour = 3", ["Seven", "colour: expected a string"]),
        ("locations.toml", 'colour = "yellow"\n', "", ["#100 Yellow Top Lord", "needs a colour"]),
        ("locations.toml", 'colour = "red"', 'colour = "yellow"', ["duplicate number 100"]),
        ("locations.toml", "bonus = true", 'bonus = "yes"', ["#21", "expected true or false"]),
        ("locations.toml", "ip = 7", "ip = 7\nrule = 1", ["Seven", "unknown key 'rule'"]),
    ],
)
def test_broken_data_names_file_and_entry(tmp_path, file, old, new, fragments):
    """Every validation error is a one-line CardDataError "<file>: <entry>: <what is wrong>"."""
    message = assert_error(broken(tmp_path, file, old, new), file, *fragments)
    assert message.split(": ")[0].endswith(file)


def test_fewer_lords_than_chamber_spots():
    items = ["game.chamber_rows=[9,8,7,6,5,4,3,2,1]", "lord.2.copies=1", "lord.3.copies=1"]
    assert_error(
        None,
        "lords.toml",
        "[[lord]]",
        "only 40 Lords (5 colours x 8), fewer than the 45 Chamber spots",
        overrides=parse_set_options(items),
    )
    # 45 Lords for 45 spots is enough
    tables = load_cards(overrides=parse_set_options(items[:2]))
    assert (tables.n_lords, tables.n_spots) == (45, 45)


def test_all_locations_bonus_is_an_error(tmp_path):
    dest = copy_data(tmp_path)
    path = dest / "locations.toml"
    text = re.sub(
        r'^(power = "\w+")\n(?!bonus)', r"\1\nbonus = true\n", path.read_text(), flags=re.M
    )
    path.write_text(text)
    assert_error(dest, "locations.toml", "[[location]]", "no base Location")


def test_missing_file(tmp_path):
    dest = copy_data(tmp_path)
    (dest / "locations.toml").unlink()
    assert_error(dest, "locations.toml", "(directory)", "lacks locations.toml")


def test_missing_directory(tmp_path):
    assert_error(tmp_path / "nowhere", "nowhere", "not a directory")


def test_not_utf8(tmp_path):
    dest = copy_data(tmp_path)
    (dest / "lords.toml").write_bytes(b"\xff\xfe bad")
    assert_error(dest, "lords.toml", "not UTF-8")


def test_colour_and_names_are_case_insensitive(tmp_path):
    dest = broken(tmp_path, "locations.toml", 'colour = "yellow"', 'colour = "Yellow"')
    lords = dest / "lords.toml"
    lords.write_text(lords.read_text().replace('key = "gold"', 'key = "GOLD"'))
    assert load_cards(dest).digest == load_cards().digest


def test_colour_none_is_the_same_as_omitting_it(tmp_path):
    dest = broken(tmp_path, "locations.toml", SEVEN, SEVEN + '\ncolour = "none"')
    assert load_cards(dest).digest == load_cards().digest


# ------------------------------------------------------------------------------------------
# describe()
# ------------------------------------------------------------------------------------------


def test_describe_lists_everything(cards):
    text = describe(cards)
    for name in cards.location_names:
        assert name in text, name
    for fragment in (
        "Abyss: Conspiracy",
        cards.digest,
        "players 2-4",
        "Senate Chamber: 15 spots in rows 5-4-3-2-1",
        "     7  2, 3, 6, 8, 10, 11",
        "Lords: 60",
        "yellow = farmer",
        "Locations: 24 (24 base + 0 bonus; bonus Locations off)",
        "2 x (gold keys on your Lords)",
        "1 + (your purple Lords)",
        "key_rule = seed",
        "zero_swap = any",
        "bonus_locations = false",
    ):
        assert fragment in text, fragment


def test_describe_with_the_options(bonus_cards):
    tables = load_cards(overrides={"rules.bonus_locations": True, "rules.key_rule": "bga"})
    text = describe(tables)
    assert "Locations: 29 (24 base + 5 bonus; bonus Locations on)" in text
    assert "2 x (your largest group of 3-IP Lords)" in text
    assert "key_rule = bga  (two identical keys only)" in text
    assert "[bonus]" in describe(bonus_cards)
