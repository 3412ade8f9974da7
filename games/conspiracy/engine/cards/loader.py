"""Card data loader of *Abyss: Conspiracy*: the only place where its card data is read.

The data ships as three TOML files in `games/conspiracy/engine/data/` (game, lords, locations) that
game
designers may edit. `load_cards` reads a directory of them, applies `--set` overrides to the raw
data, validates everything and returns a `ConspiracyTables` of C-contiguous numpy arrays ready
for the numba kernels. Every problem raises `CardDataError` (`sim.core.carddata`) with
a one-line message "<file>: <entry>: <what is wrong>".

Override keys (`--set key=value`, parsed by `parse_set_options`):
  game.<key>                 a [game] value of game.toml (`game.chamber_rows=[4,3,2,1]` too)
  rules.<key>                a [rules] value of game.toml (key_rule, zero_swap, bonus_locations)
  colour.<name>.<field>      a [[colour]] of lords.toml, by its name (name, guild)
  lord.<type>.<field>        a [[lord]] type of lords.toml, by its type number
  location.<slug>.<field>    a [[location]] of locations.toml, by its name's slug

Only numpy and the standard library are imported (plus the shared checks of sim.core.carddata).
"""

from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any

import numpy as np

from sim.core.carddata import (
    Checker,
    _show,
    _type_name,
    apply_overrides,
    count_of,
    digest,
    entry_label,
    read_data_files,
    slugify,
    subtable,
    value_of,
)
from sim.core.carddata import int_array as _arr

__all__ = [
    "ConspiracyTables",
    "KeyKind",
    "KeyRule",
    "LocationPower",
    "LocationScore",
    "LordPower",
    "MAX_NEIGHBOURS",
    "chamber_adjacency",
    "default_data_dir",
    "describe",
    "load_cards",
]

GAME_FILE = "game.toml"
LORDS_FILE = "lords.toml"
LOCATIONS_FILE = "locations.toml"
DATA_FILES = (GAME_FILE, LORDS_FILE, LOCATIONS_FILE)

GAME_KEYS = (
    "min_players",
    "max_players",
    "chamber_rows",
    "draw_max",
    "location_draw_max",
    "coalition_ip",
    "pearl_master_ip",
)
GAME_RANGES = {
    "min_players": (2, 8),
    "max_players": (2, 8),
    "draw_max": (1, 10),
    "location_draw_max": (1, 10),
    "coalition_ip": (0, 20),
    "pearl_master_ip": (0, 50),
}
RULES_KEYS = ("key_rule", "zero_swap", "bonus_locations")
COLOUR_FIELDS = ("name", "guild")
LORD_FIELDS = ("type", "ip", "copies", "key", "pearls", "power")
LOCATION_FIELDS = ("number", "name", "ip", "pearls", "score", "per", "power")
LOCATION_OPTIONAL = ("colour", "bonus")
GUILDS = ("farmer", "military", "merchant", "politician", "mage")
NO_COLOUR = "none"

MAX_ROWS = 9  # longest Chamber row (and number of rows): at most 45 spots
MAX_NEIGHBOURS = 6  # left, right, two above, two below
MAX_COLOURS = 8
MAX_LORD_TYPES = 30
MAX_COPIES = 20
MAX_LOCATIONS = 100
MAX_NUMBER = 999
IP_RANGE = (0, 20)
PEARLS_RANGE = (0, 10)
PER_RANGE = (1, 10)


class KeyKind(IntEnum):
    """The key printed on a Lord (lord_key)."""

    NONE = 0
    SILVER = 1
    GOLD = 2


class LordPower(IntEnum):
    """A Lord's effect when placed (lord_power)."""

    NONE = 0
    SWAP = 1  # two Lords of the Chamber may swap places
    REVEAL = 2  # the top Lord of the deck goes face up onto its colour's discard pile


class LocationScore(IntEnum):
    """How a Location scores at game end: ip + per x (the quantity named here)."""

    FIXED = 0  # nothing more
    SILVER_KEYS = 1  # silver keys on your Lords (used or not)
    GOLD_KEYS = 2  # gold keys on your Lords (used or not)
    PEARL_PAIRS = 3  # floor(your Pearls / 2)
    PER_LOCATION = 4  # Locations you control, this one included
    COLOUR_TOP = 5  # IP of your most influential Lord of location_colour (0 if none)
    COLOUR_COUNT = 6  # your Lords of location_colour
    GROUP_1IP = 7  # Lords in your largest connected group of 1-IP Lords (any colour)
    GROUP_2IP = 8  # ... of 2-IP Lords
    GROUP_3IP = 9  # ... of 3-IP Lords
    GROUP_4IP = 10  # ... of 4-IP Lords
    NO_KEY_NO_PEARL = 11  # your Lords giving neither a key nor a Pearl


class LocationPower(IntEnum):
    """A Location's effect when taken (location_power)."""

    NONE = 0
    TOP_ONE_ONLY = 1  # until your next turn, opponents may only take the top Lord of the deck
    TOP_TWO_KEEP_ONE = 2  # until your next turn, opponents take the top 2, keep 1, discard 1
    RESHUFFLE_LORDS = 3  # shuffle the discarded Lords back into the Lord deck now
    RESHUFFLE_LOCATIONS = 4  # shuffle the available Locations back into the Location deck now
    ANY_TWO_KEYS = 5  # for the rest of the game, any 2 keys take a Location
    WHOLE_DECK = 6  # for the rest of the game, choose new Locations from the whole deck


class KeyRule(IntEnum):
    """rules.key_rule: when keys take a Location."""

    SEED = 0  # two identical keys, or three keys of any kind (seed text; default)
    BGA = 1  # two identical keys only (Board Game Arena)


class ZeroSwap(IntEnum):
    """rules.zero_swap: which two Lords the 0 may swap."""

    ANY = 0  # any two Lords of the Chamber (seed text; default)
    KEYLESS = 1  # two Lords without a key (Board Game Arena)


def _by_name(enum: type[IntEnum]) -> dict[str, IntEnum]:
    return {member.name.lower(): member for member in enum}


KEY_BY_NAME = _by_name(KeyKind)
LORD_POWER_BY_NAME = _by_name(LordPower)
SCORE_BY_NAME = _by_name(LocationScore)
LOCATION_POWER_BY_NAME = _by_name(LocationPower)
KEY_RULE_BY_NAME = _by_name(KeyRule)
ZERO_SWAP_BY_NAME = _by_name(ZeroSwap)
COLOUR_SCORES = (LocationScore.COLOUR_TOP, LocationScore.COLOUR_COUNT)
GROUP_SCORES = {
    LocationScore.GROUP_1IP: 1,
    LocationScore.GROUP_2IP: 2,
    LocationScore.GROUP_3IP: 3,
    LocationScore.GROUP_4IP: 4,
}


@dataclass(frozen=True, eq=False)
class ConspiracyTables:
    """The validated Conspiracy card data as flat numpy arrays (all C-contiguous).

    Chamber spots are 0-based here: printed spot k (1..15) is index k - 1.
    """

    # Lords; index = lord id: colour-major (colour ids in lords.toml order), then the [[lord]]
    # types in file order, then the copies
    lord_colour: np.ndarray  # int8, colour id
    lord_type: np.ndarray  # int8, index of the [[lord]] type in lords.toml
    lord_ip: np.ndarray  # int8
    lord_key: np.ndarray  # int8, KeyKind
    lord_pearls: np.ndarray  # int8
    lord_power: np.ndarray  # int8, LordPower
    # Locations; index = location id: the Location deck (base cards in file order, then the bonus
    # cards when bonus_locations is on)
    location_number: np.ndarray  # int16, printed id (100 and 101 once per colour)
    location_ip: np.ndarray  # int8, constant IP term
    location_pearls: np.ndarray  # int8, Pearls gained immediately
    location_score: np.ndarray  # int8, LocationScore
    location_per: np.ndarray  # int8, multiplier of the score quantity (0 for FIXED)
    location_colour: np.ndarray  # int8, colour id of COLOUR_TOP / COLOUR_COUNT, else -1
    location_power: np.ndarray  # int8, LocationPower
    location_bonus: np.ndarray  # bool, a bonus Location (#21-#25)
    # The Senate Chamber
    chamber_rows: np.ndarray  # int8, cards per row, top row first (5, 4, 3, 2, 1)
    n_spots: int  # sum of chamber_rows (15)
    adjacency: np.ndarray  # int8 (n_spots, MAX_NEIGHBOURS): neighbour spots ascending, -1 padded
    # Game constants and rules options
    min_players: int
    max_players: int
    draw_max: int  # a player draws 1..draw_max Lords
    location_draw_max: int  # a player reveals 1..location_draw_max Locations
    coalition_ip: int  # IP per Lord of the largest same-colour group
    pearl_master_ip: int  # bonus of the Pearl Master token
    key_rule: int  # KeyRule
    zero_swap: int  # ZeroSwap
    bonus_locations: bool  # the bonus Locations are in the deck
    colour_names: tuple[str, ...]  # by colour id
    colour_guilds: tuple[str, ...]  # by colour id
    location_names: tuple[str, ...]  # by location id
    digest: str  # sha256 hex of the canonical (post-override) data
    source: str  # the directory loaded

    n_lords = count_of("lord_colour")
    n_locations = count_of("location_number")
    n_colours = count_of("colour_names")

    def location_slug(self, i: int) -> str:
        """The `--set location.<slug>.<field>` name of location id `i`."""
        return slugify(self.location_names[i])


def default_data_dir() -> Path:
    """The directory of the shipped Conspiracy card data."""
    return Path(__file__).resolve().parents[1] / "data"


def chamber_adjacency(rows: list[int] | tuple[int, ...]) -> np.ndarray:
    """Neighbours of every spot of an inverted-pyramid Chamber (0-based, ascending, -1 padded).

    Row i is one card shorter than row i - 1, so card j of row i sits below cards j and j + 1 of
    row i - 1 and above cards j - 1 and j of row i + 1; with its left and right neighbours in the
    row that is at most MAX_NEIGHBOURS spots.
    """
    starts = np.concatenate(([0], np.cumsum(rows))).astype(int)
    out = np.full((int(starts[-1]), MAX_NEIGHBOURS), -1, dtype=np.int8)
    for i, length in enumerate(rows):
        for j in range(length):
            found = [(i, j - 1), (i, j + 1), (i - 1, j), (i - 1, j + 1), (i + 1, j - 1), (i + 1, j)]
            spots = sorted(
                int(starts[r] + c) for r, c in found if 0 <= r < len(rows) and 0 <= c < rows[r]
            )
            out[starts[i] + j, : len(spots)] = spots
    return np.ascontiguousarray(out)


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


def set_value(data_dir: str | Path | None, overrides: dict[str, object] | None, key: str):
    """The value of the `--set` key `key` in the card data of `data_dir` after `overrides`
    (`abyss-mc design`: the value a search starts from)."""
    directory = Path(data_dir) if data_dir is not None else default_data_dir()
    _, raw = read_data_files(directory, DATA_FILES)
    apply_overrides(raw, overrides or {}, _override_targets, _KEYS_HINT, _convert)
    return value_of(raw, key, _override_targets, _KEYS_HINT, {})


def load_cards(
    data_dir: str | Path | None = None, overrides: dict[str, object] | None = None
) -> ConspiracyTables:
    """Load, override and validate the card data of `data_dir` (default: the shipped data)."""
    directory = Path(data_dir) if data_dir is not None else default_data_dir()
    paths, raw = read_data_files(directory, DATA_FILES)
    overridden = apply_overrides(raw, overrides or {}, _override_targets, _KEYS_HINT, _convert)

    game, rules = _validate_game(_Checker(paths[GAME_FILE], overridden), raw[GAME_FILE])
    lords_check = _Checker(paths[LORDS_FILE], overridden)
    colours, lords = _validate_lords(lords_check, raw[LORDS_FILE])
    locations_check = _Checker(paths[LOCATIONS_FILE], overridden)
    locations = _validate_locations(locations_check, raw[LOCATIONS_FILE], colours)

    n_spots = sum(game["chamber_rows"])
    n_lords = len(colours) * sum(lo["copies"] for lo in lords)
    if n_lords < n_spots:
        lords_check.fail(
            "[[lord]]",
            f"only {n_lords} Lords ({len(colours)} colours x "
            f"{sum(lo['copies'] for lo in lords)}), fewer than the {n_spots} Chamber spots",
        )
    if not any(not loc["bonus"] for loc in locations):
        locations_check.fail("[[location]]", "no base Location (every entry has bonus = true)")

    canonical: dict[str, Any] = {
        "format": 1,
        "game": game,
        "rules": rules,
        "colours": colours,
        "lords": lords,
        "locations": locations,
    }
    return _build_tables(canonical, digest(canonical), str(directory.resolve()))


# --------------------------------------------------------------------------------------------
# Overrides
# --------------------------------------------------------------------------------------------


def _override_targets(raw: dict[str, Any]) -> dict[str, tuple[dict | None, str]]:
    """Every valid override key -> (raw table to modify or None if the file is broken, field)."""
    targets: dict[str, tuple[dict | None, str]] = {}
    table = subtable

    def entries(doc: Any, name: str) -> list[dict]:
        value = doc.get(name) if isinstance(doc, dict) else None
        return [e for e in value if isinstance(e, dict)] if isinstance(value, list) else []

    game = table(raw[GAME_FILE], "game")
    for key in GAME_KEYS:
        targets[f"game.{key}"] = (game, key)
    rules = table(raw[GAME_FILE], "rules")
    for key in RULES_KEYS:
        targets[f"rules.{key}"] = (rules, key)
    for entry in entries(raw[LORDS_FILE], "colour"):
        name = entry.get("name")
        if isinstance(name, str) and slugify(name):
            for field in COLOUR_FIELDS:
                targets.setdefault(f"colour.{slugify(name)}.{field}", (entry, field))
    for entry in entries(raw[LORDS_FILE], "lord"):
        number = entry.get("type")
        if isinstance(number, int) and not isinstance(number, bool):
            for field in LORD_FIELDS:
                targets.setdefault(f"lord.{number}.{field}", (entry, field))
    for entry in entries(raw[LOCATIONS_FILE], "location"):
        name = entry.get("name")
        if isinstance(name, str) and slugify(name):
            for field in LOCATION_FIELDS + LOCATION_OPTIONAL:
                targets.setdefault(f"location.{slugify(name)}.{field}", (entry, field))
    return targets


def _convert(field: str, value: object) -> object:
    """`parse_set_options` keeps "[4, 3, 2, 1]" as a string: read it as a TOML array."""
    if field != "chamber_rows":
        return value
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str):
        try:
            doc = tomllib.loads(f"v = {value}")
        except tomllib.TOMLDecodeError:
            return value
        if isinstance(doc.get("v"), list):
            return doc["v"]
    return value


_KEYS_HINT = (
    "keys are game.<key>, rules.<key>, colour.<name>.<field>, lord.<type>.<field>, "
    "location.<slug>.<field> (run `abyss-mc cards --game conspiracy` for the names)"
)


# --------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Per-file validation: each returns plain canonical data (used for the digest and the arrays)
# --------------------------------------------------------------------------------------------


class _Checker(Checker):
    """`Checker`, with strings required non-empty and stripped."""

    def string(self, tbl: dict[str, Any], key: str, entry: str, nonempty: bool = True) -> str:
        return super().string(tbl, key, entry, nonempty=nonempty).strip()


def _validate_game(c: _Checker, doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    c.keys(doc, "(top level)", ("game", "rules"))
    tbl = c.table(doc["game"], "[game]")
    c.keys(tbl, "[game]", GAME_KEYS)
    game: dict[str, Any] = {}
    for key in GAME_KEYS:
        if key == "chamber_rows":
            game[key] = _validate_rows(c, tbl)
        else:
            game[key] = c.integer(tbl, key, "[game]", *GAME_RANGES[key])
    if game["min_players"] > game["max_players"]:
        c.fail(
            "[game]",
            f"min_players ({game['min_players']}) must not exceed max_players "
            f"({game['max_players']})",
            tbl,
            "min_players",
        )

    rules_tbl = c.table(doc["rules"], "[rules]")
    c.keys(rules_tbl, "[rules]", RULES_KEYS)
    rules = {
        "key_rule": c.choice(rules_tbl, "key_rule", "[rules]", KEY_RULE_BY_NAME, "key_rule"),
        "zero_swap": c.choice(rules_tbl, "zero_swap", "[rules]", ZERO_SWAP_BY_NAME, "zero_swap"),
        "bonus_locations": c.boolean(rules_tbl, "bonus_locations", "[rules]"),
    }
    return game, rules


def _validate_rows(c: _Checker, tbl: dict[str, Any]) -> list[int]:
    key, entry = "chamber_rows", "[game]"
    value = tbl[key]
    if not isinstance(value, list) or not value:
        c.fail(
            entry,
            f"{key}: expected a non-empty array of integers, got {_type_name(value)} "
            f"{_show(value)}",
            tbl,
            key,
        )
    for i, item in enumerate(value):
        c.bounded(item, f"{key}[{i}]", entry, 1, MAX_ROWS, tbl, key)
    for i in range(1, len(value)):
        if value[i] != value[i - 1] - 1:
            c.fail(
                entry,
                f"{key}: not an inverted pyramid: each row must be one card shorter than the row "
                f"above (strictly decreasing by 1), got {value}",
                tbl,
                key,
            )
    if value[-1] != 1:
        c.fail(entry, f"{key}: the last row must hold 1 card, got {value}", tbl, key)
    return list(value)


def _validate_lords(c: _Checker, doc: dict[str, Any]) -> tuple[list[dict], list[dict]]:
    c.keys(doc, "(top level)", ("colour", "lord"))
    colours: list[dict[str, str]] = []
    names: dict = {}
    guilds: dict = {}
    for i, tbl in enumerate(c.entries(doc, "colour", (1, MAX_COLOURS))):
        label = f"colour entry {i + 1}"
        if isinstance(tbl.get("name"), str) and tbl["name"].strip():
            label = f"colour {tbl['name'].strip()}"
        c.keys(tbl, label, COLOUR_FIELDS)
        name = c.string(tbl, "name", label).lower()
        if slugify(name) != name or name == NO_COLOUR:
            c.fail(
                label,
                f"name: must be lower-case letters, digits and '_' and not {NO_COLOUR!r}, "
                f"got {tbl['name']!r}",
                tbl,
                "name",
            )
        guild = c.choice(tbl, "guild", label, GUILDS, "guild")
        c.unique(label, names, name, f"colour name {name!r}", tbl, "name")
        c.unique(label, guilds, guild, f"guild {guild!r}", tbl, "guild")
        colours.append({"name": name, "guild": guild})

    lords: list[dict[str, Any]] = []
    types: dict = {}
    for i, tbl in enumerate(c.entries(doc, "lord", (1, MAX_LORD_TYPES))):
        label = entry_label("lord type", i, tbl, "type", "colour")
        c.keys(tbl, label, LORD_FIELDS)
        lord = {
            "type": c.integer(tbl, "type", label, 1, 99),
            "ip": c.integer(tbl, "ip", label, *IP_RANGE),
            "copies": c.integer(tbl, "copies", label, 1, MAX_COPIES),
            "key": c.choice(tbl, "key", label, KEY_BY_NAME, "key"),
            "pearls": c.integer(tbl, "pearls", label, *PEARLS_RANGE),
            "power": c.choice(tbl, "power", label, LORD_POWER_BY_NAME, "power"),
        }
        c.unique(label, types, lord["type"], f"type {lord['type']}", tbl, "type")
        lords.append(lord)
    return colours, lords


def _validate_locations(
    c: _Checker, doc: dict[str, Any], colours: list[dict[str, str]]
) -> list[dict[str, Any]]:
    c.keys(doc, "(top level)", ("location",))
    colour_names = [col["name"] for col in colours]
    out = []
    seen: tuple[dict, dict, dict] = ({}, {}, {})
    for i, tbl in enumerate(c.entries(doc, "location", (1, MAX_LOCATIONS))):
        label = entry_label("location", i, tbl, "number", "colour")
        c.keys(tbl, label, LOCATION_FIELDS, LOCATION_OPTIONAL)
        loc = {
            "number": c.integer(tbl, "number", label, 1, MAX_NUMBER),
            "name": c.string(tbl, "name", label),
            "colour": None,
            "ip": c.integer(tbl, "ip", label, *IP_RANGE),
            "pearls": c.integer(tbl, "pearls", label, *PEARLS_RANGE),
            "score": c.choice(tbl, "score", label, SCORE_BY_NAME, "score"),
            "per": None,
            "power": c.choice(tbl, "power", label, LOCATION_POWER_BY_NAME, "power"),
            "bonus": c.boolean(tbl, "bonus", label) if "bonus" in tbl else False,
        }
        score = SCORE_BY_NAME[loc["score"]]
        if score == LocationScore.FIXED:
            loc["per"] = c.integer(tbl, "per", label, 0, 0)
        else:
            loc["per"] = c.integer(tbl, "per", label, *PER_RANGE)
        colour = None
        if "colour" in tbl:
            colour = c.string(tbl, "colour", label).lower()
            if colour == NO_COLOUR:
                colour = None
        if score in COLOUR_SCORES:
            if colour is None:
                c.fail(
                    label,
                    f"colour: score {loc['score']} needs a colour ({', '.join(colour_names)})",
                    tbl,
                    "score",
                )
            if colour not in colour_names:
                c.fail(
                    label,
                    f"colour: unknown colour {tbl['colour']!r} (expected one of: "
                    f"{', '.join(colour_names)}, the [[colour]] names of {LORDS_FILE})",
                    tbl,
                    "colour",
                )
        elif colour is not None:
            c.fail(
                label,
                f"colour: score {loc['score']} takes no colour (omit it or write "
                f'"{NO_COLOUR}"), got {tbl["colour"]!r}',
                tbl,
                "colour",
            )
        loc["colour"] = colour
        what = f"number {loc['number']}" + (f" with colour {colour!r}" if colour else "")
        number = (loc["number"], colour)
        c.card_names(label, tbl, seen, number, loc["name"], "location", what, note=True)
        out.append(loc)
    return out


# --------------------------------------------------------------------------------------------
# Arrays
# --------------------------------------------------------------------------------------------


def _build_tables(data: dict[str, Any], digest: str, source: str) -> ConspiracyTables:
    colours = data["colours"]
    colour_id = {col["name"]: k for k, col in enumerate(colours)}
    lords = [
        (k, t, lo)
        for k in range(len(colours))
        for t, lo in enumerate(data["lords"])
        for _ in range(lo["copies"])
    ]
    rules = data["rules"]
    deck = [loc for loc in data["locations"] if not loc["bonus"]]
    if rules["bonus_locations"]:
        deck += [loc for loc in data["locations"] if loc["bonus"]]
    game = data["game"]
    rows = game["chamber_rows"]
    return ConspiracyTables(
        lord_colour=_arr([k for k, _, _ in lords], np.int8),
        lord_type=_arr([t for _, t, _ in lords], np.int8),
        lord_ip=_arr([lo["ip"] for _, _, lo in lords], np.int8),
        lord_key=_arr([int(KEY_BY_NAME[lo["key"]]) for _, _, lo in lords], np.int8),
        lord_pearls=_arr([lo["pearls"] for _, _, lo in lords], np.int8),
        lord_power=_arr([int(LORD_POWER_BY_NAME[lo["power"]]) for _, _, lo in lords], np.int8),
        location_number=_arr([loc["number"] for loc in deck], np.int16),
        location_ip=_arr([loc["ip"] for loc in deck], np.int8),
        location_pearls=_arr([loc["pearls"] for loc in deck], np.int8),
        location_score=_arr([int(SCORE_BY_NAME[loc["score"]]) for loc in deck], np.int8),
        location_per=_arr([loc["per"] for loc in deck], np.int8),
        location_colour=_arr(
            [colour_id[loc["colour"]] if loc["colour"] else -1 for loc in deck], np.int8
        ),
        location_power=_arr([int(LOCATION_POWER_BY_NAME[loc["power"]]) for loc in deck], np.int8),
        location_bonus=_arr([loc["bonus"] for loc in deck], np.bool_),
        chamber_rows=_arr(rows, np.int8),
        n_spots=sum(rows),
        adjacency=chamber_adjacency(rows),
        min_players=game["min_players"],
        max_players=game["max_players"],
        draw_max=game["draw_max"],
        location_draw_max=game["location_draw_max"],
        coalition_ip=game["coalition_ip"],
        pearl_master_ip=game["pearl_master_ip"],
        key_rule=int(KEY_RULE_BY_NAME[rules["key_rule"]]),
        zero_swap=int(ZERO_SWAP_BY_NAME[rules["zero_swap"]]),
        bonus_locations=rules["bonus_locations"],
        colour_names=tuple(col["name"] for col in colours),
        colour_guilds=tuple(col["guild"] for col in colours),
        location_names=tuple(loc["name"] for loc in deck),
        digest=digest,
        source=source,
    )


# --------------------------------------------------------------------------------------------
# describe()
# --------------------------------------------------------------------------------------------

_SCORE_TERM = {
    LocationScore.SILVER_KEYS: "silver keys on your Lords",
    LocationScore.GOLD_KEYS: "gold keys on your Lords",
    LocationScore.PEARL_PAIRS: "pairs of your Pearls",
    LocationScore.PER_LOCATION: "your Locations",
    LocationScore.COLOUR_TOP: "IP of your top {colour} Lord",
    LocationScore.COLOUR_COUNT: "your {colour} Lords",
    LocationScore.NO_KEY_NO_PEARL: "your Lords without key or Pearl",
}
for _score, _ip in GROUP_SCORES.items():
    _SCORE_TERM[_score] = f"your largest group of {_ip}-IP Lords"

_KEY_RULE_TEXT = {
    KeyRule.SEED: "two identical keys, or three keys of any kind",
    KeyRule.BGA: "two identical keys only",
}
_ZERO_SWAP_TEXT = {
    ZeroSwap.ANY: "the 0 swaps any two Lords of the Chamber",
    ZeroSwap.KEYLESS: "the 0 swaps two Lords without a key",
}


def _formula(t: ConspiracyTables, i: int) -> str:
    score = LocationScore(int(t.location_score[i]))
    ip, per = int(t.location_ip[i]), int(t.location_per[i])
    if score == LocationScore.FIXED:
        return str(ip)
    k = int(t.location_colour[i])
    colour = t.colour_names[k] if 0 <= k < t.n_colours else "?"
    term = _SCORE_TERM[score].format(colour=colour)
    scaled = f"({term})" if per == 1 else f"{per} x ({term})"
    return f"{ip} + {scaled}" if ip else scaled


def _chamber_picture(rows: list[int]) -> list[str]:
    lines, spot = [], 1
    for i, length in enumerate(rows):
        cells = [f"{spot + j:>2}" for j in range(length)]
        lines.append("    " + " " * (2 * i) + "  ".join(cells))
        spot += length
    return lines


def describe(tables: ConspiracyTables) -> str:
    """A readable listing of the loaded card data (for `abyss-mc cards --game conspiracy`)."""
    t = tables
    rows = [int(r) for r in t.chamber_rows]
    lines: list[str] = [
        "Abyss: Conspiracy",
        f"Card data: {t.source}",
        f"Digest:    {t.digest}",
        "",
        "Game",
        f"  players {t.min_players}-{t.max_players}   Lord draw 1-{t.draw_max}   "
        f"Location draw 1-{t.location_draw_max}   Coalition {t.coalition_ip} IP per Lord   "
        f"Pearl Master +{t.pearl_master_ip} IP",
        "",
        f"Senate Chamber: {t.n_spots} spots in rows {'-'.join(str(r) for r in rows)} "
        "(spots numbered from 1; spot k is index k - 1)",
        *_chamber_picture(rows),
        "  spot  neighbours",
    ]
    for s in range(t.n_spots):
        neighbours = [int(x) + 1 for x in t.adjacency[s] if x >= 0]
        lines.append(f"  {s + 1:>4}  {', '.join(str(x) for x in neighbours)}")
    lines.append("")

    lines.append(
        f"Colours: {t.n_colours} ("
        + ", ".join(f"{n} = {g}" for n, g in zip(t.colour_names, t.colour_guilds, strict=True))
        + ")"
    )
    per_colour = Counter(int(k) for k in t.lord_colour)
    lines.append(
        f"Lords: {t.n_lords} ("
        + ", ".join(f"{t.colour_names[k]} {per_colour.get(k, 0)}" for k in range(t.n_colours))
        + ")"
    )
    lines.append(f"  {'IP':>3}  {'copies':>6}  {'key':<6}  {'pearls':>6}  power")
    first = t.lord_colour == 0
    for ty in sorted(set(int(x) for x in t.lord_type[first])):
        idx = np.flatnonzero(first & (t.lord_type == ty))
        i = int(idx[0])
        lines.append(
            f"  {int(t.lord_ip[i]):>3}  {len(idx):>6}  "
            f"{KeyKind(int(t.lord_key[i])).name.lower():<6}  {int(t.lord_pearls[i]):>6}  "
            f"{LordPower(int(t.lord_power[i])).name.lower()}"
        )
    lines.append(
        f"  per colour: silver keys {int(np.count_nonzero(first & (t.lord_key == KeyKind.SILVER)))}"
        f", gold keys {int(np.count_nonzero(first & (t.lord_key == KeyKind.GOLD)))}, "
        f"Pearls {int(t.lord_pearls[first].sum())}, total IP {int(t.lord_ip[first].sum())}"
    )
    lines.append("")

    n_bonus = int(np.count_nonzero(t.location_bonus))
    lines.append(
        f"Locations: {t.n_locations} ({t.n_locations - n_bonus} base + {n_bonus} bonus; "
        f"bonus Locations {'on' if t.bonus_locations else 'off'})"
    )
    width = max([len(n) for n in t.location_names] + [4])
    lines.append(f"  {'#':>3}  {'name':<{width}}  {'pearls':>6}  {'power':<19}  final IP")
    for i in range(t.n_locations):
        power = LocationPower(int(t.location_power[i])).name.lower()
        lines.append(
            f"  {int(t.location_number[i]):>3}  {t.location_names[i]:<{width}}  "
            f"{int(t.location_pearls[i]):>6}  {power:<19}  {_formula(t, i)}"
            + ("  [bonus]" if t.location_bonus[i] else "")
        )
    lines.append("")

    lines.append("Rules options")
    key_rule = KeyRule(t.key_rule)
    lines.append(f"  key_rule = {key_rule.name.lower()}  ({_KEY_RULE_TEXT[key_rule]})")
    zero_swap = ZeroSwap(t.zero_swap)
    lines.append(f"  zero_swap = {zero_swap.name.lower()}  ({_ZERO_SWAP_TEXT[zero_swap]})")
    lines.append(f"  bonus_locations = {str(t.bonus_locations).lower()}")
    return "\n".join(lines) + "\n"
