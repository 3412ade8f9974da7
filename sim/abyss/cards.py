"""Card data loader: the only place where card names live.

The data ships as five TOML files in `sim/abyss/data/` (game, exploration, lords, locations,
rules) that game designers may edit, plus one file per expansion in `data/expansions/`
(`leviathan.toml`). `load_cards` reads a directory of them, applies `--set` overrides to the raw
data, validates everything and returns a `CardTables` of C-contiguous numpy arrays ready for the
numba kernels. Every problem raises `CardDataError` with a one-line message
"<file>: <entry>: <what is wrong>".

An expansion file is validated whenever it is present (so its `--set` keys are always accepted),
but its cards enter the tables only when the expansion is requested (`expansions=("leviathan",)`).

Only numpy and the standard library are imported (plus the integer codes of `constants`).
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections import Counter
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any

import numpy as np

from sim.core.carddata import (  # noqa: F401  (parse_set_options, slugify: this module's API)
    CardDataError,
    Checker,
    _one_line,
    _show,
    _type_name,
    parse_set_options,
    slugify,
    suggest,
)

from .constants import (
    LOCATION_RULE_BY_NAME,
    MONSTER,
    N_RACES,
    POWER_BY_NAME,
    AllyEffect,
    Guild,
    LocationRule,
    Race,
)

__all__ = [
    "KNOWN_EXPANSIONS",
    "CardDataError",
    "CardTables",
    "LeviathanToken",
    "Penalty",
    "RulesOptions",
    "default_data_dir",
    "describe",
    "load_cards",
    "parse_set_options",
    "slugify",
]

GAME_FILE = "game.toml"
EXPLORATION_FILE = "exploration.toml"
LORDS_FILE = "lords.toml"
LOCATIONS_FILE = "locations.toml"
RULES_FILE = "rules.toml"
DATA_FILES = (GAME_FILE, EXPLORATION_FILE, LORDS_FILE, LOCATIONS_FILE, RULES_FILE)
EXPANSIONS_DIR = "expansions"  # subdirectory of the data directory holding expansion files
LEVIATHAN = "leviathan"
LEVIATHAN_FILE = f"{EXPANSIONS_DIR}/leviathan.toml"  # relative to the data directory
KNOWN_EXPANSIONS = (LEVIATHAN,)
EXPANSION_CODE = {LEVIATHAN: 1}  # ally_expansion / lord_expansion; 0 = base game
BASE_MAX_PLAYERS = 4  # base game: 2-4 players

GUILD_BY_NAME = {g.name.lower(): g for g in Guild}
RACE_BY_NAME = {r.name.lower(): r for r in Race}
RACE_NAMES = tuple(r.name.lower() for r in Race)  # exploration.toml tables, in id order

GAME_KEYS = ("n_keys", "court_size", "track_length", "starting_pearls")
GAME_RANGES = {
    "n_keys": (3, 30),
    "court_size": (3, 12),
    "track_length": (1, 10),
    "starting_pearls": (0, 20),
}
LORD_FIELDS = ("number", "name", "guild", "cost", "races", "ip", "keys", "power", "text")
LOCATION_FIELDS = ("number", "name", "rule", "base", "mult", "arg", "text")
RULES_KEYS = ("landlord_immediate_pearl", "ambassador_mode", "court_end", "turn_limit")
# Optional base-game rules.toml keys (added later; a copy of older card data may lack them) and
# their defaults (the seed text).
BASE_OPTIONAL_RULES_DEFAULTS = {"last_round_extra_turn": False}
# Optional rules.toml keys of the Leviathan expansion and their defaults (the seed text).
LEVIATHAN_RULES_DEFAULTS = {
    "leviathan_20th_token": True,
    "leviathan_end_trigger": True,
    "powers_after_kill": False,
}
LEVIATHAN_RULES_KEYS = tuple(LEVIATHAN_RULES_DEFAULTS)
OPTIONAL_RULES_DEFAULTS = {**BASE_OPTIONAL_RULES_DEFAULTS, **LEVIATHAN_RULES_DEFAULTS}
BASE_RULES_KEYS = RULES_KEYS + tuple(BASE_OPTIONAL_RULES_DEFAULTS)
AMBASSADOR_MODES = ("draw", "keys")
COURT_ENDS = ("refill", "bga")

MAX_NUMBER = 999  # printed card numbers: base 1-35, Kraken 101-118, Leviathan 201-210
MAX_LORDS = 200
MAX_LOCATIONS = 100
MAX_ALLIES_PER_RACE = 60
THREAT_LETTERS = {"P": 0, "M": 1, "K": 2}  # index in threat_options[..., :]
MAX_OPTION_LETTERS = 6
NO_ARG = "none"  # explicit "no argument" for a Location rule (same as omitting `arg`)

RULES_WITH_GUILD_ARG = (LocationRule.GUILD_LORDS,)
RULES_WITH_RACE_ARG = (LocationRule.AFFILIATED_RACE,)

# Leviathan expansion file
LEVIATHAN_TOP_KEYS = (
    "remove_lords",
    "exploration",
    "lord",
    "leviathan",
    "border",
    "leviathan_tokens",
    "leviathan_game",
)
LEVIATHAN_FIELDS = ("number", "race", "spaces", "penalty", "penalty_n")
LEVIATHAN_GAME_KEYS = ("hand_limit", "n_wounds", "max_players")
LEVIATHAN_GAME_RANGES = {"hand_limit": (0, 60), "n_wounds": (0, 999), "max_players": (2, 8)}
NO_RACE = "none"  # a Leviathan without a printed race (only Crabs can attack it)
MAX_LEVIATHANS = 60
MAX_SPACES = 3  # Life spaces per Leviathan; leviathan_resistance / _tokens have this many columns
RESISTANCE_RANGE = (1, 30)
SPACE_TOKENS_RANGE = (0, 6)
PENALTY_N_RANGE = (0, 10)
DICE_SUMS = tuple(range(2, 13))  # 2d6
MAX_BORDER_ZONES = len(DICE_SUMS)
EFFECT_BY_NAME = {e.name.lower(): e for e in AllyEffect}


class Penalty(IntEnum):
    """What a Leviathan inflicts when a new Leviathan lands on its Border zone (penalty_n of it)."""

    WOUNDS = 0  # gain n Wound tokens (-1 IP each at game end)
    PEARLS = 1  # discard n Pearls (all if fewer)
    ALLIES = 2  # discard n Allies from hand, the victim's choice (all if fewer)
    LORD = 3  # discard n free Lords, the victim's choice (all if fewer)


PENALTY_BY_NAME = {p.name.lower(): p for p in Penalty}


class LeviathanToken(IntEnum):
    """Kind of a Leviathan-expansion Monster token (amount in leviathan_token_amount)."""

    PEARLS = 0  # gain `amount` Pearls (2 or 3)
    KEY = 1  # gain `amount` Keys (1)
    COUNCIL = 2  # take `amount` Council stacks (1)


# Token names in leviathan.toml -> (kind, amount)
LEVIATHAN_TOKEN_BY_NAME = {
    "pearls2": (LeviathanToken.PEARLS, 2),
    "pearls3": (LeviathanToken.PEARLS, 3),
    "key": (LeviathanToken.KEY, 1),
    "council": (LeviathanToken.COUNCIL, 1),
}


@dataclass(frozen=True)
class RulesOptions:
    """Rules options of rules.toml (see the comments there for each reading and its source)."""

    landlord_immediate_pearl: bool
    ambassador_mode: str
    court_end: str
    turn_limit: int
    last_round_extra_turn: bool = False  # the Invoker's extra turn also after the end's trigger
    # Leviathan expansion (optional in rules.toml; read whether or not the expansion is loaded)
    leviathan_20th_token: bool = True  # add the PLACEHOLDER 20th Leviathan Monster token
    leviathan_end_trigger: bool = True  # seed text's end trigger (false: BGA, no trigger)
    powers_after_kill: bool = False  # once-per-turn powers still offered after a kill


@dataclass(frozen=True, eq=False)
class CardTables:
    """The validated card data as flat numpy arrays (all C-contiguous)."""

    # Exploration cards; index = card id: the base Allies race-major in Race order, values in
    # file order, then the base Monsters. With Leviathan, then the new Allies race-major, the
    # `extra` Allies, the new Monsters (base ids are unchanged).
    ally_race: np.ndarray  # int8, Race value or MONSTER (-1)
    ally_value: np.ndarray  # int8, 0 for Monsters
    ally_effect: np.ndarray  # int8, AllyEffect
    # Lords; index = lord id (file order: base Lords minus removed ones, then expansion Lords)
    lord_number: np.ndarray  # int16
    lord_name: tuple[str, ...]
    lord_guild: np.ndarray  # int8 Guild
    lord_cost: np.ndarray  # int8
    lord_races: np.ndarray  # int8
    lord_ip: np.ndarray  # int8
    lord_keys: np.ndarray  # int8
    lord_power: np.ndarray  # int16 Power
    lord_text: tuple[str, ...]
    # Locations; index = location id (file order)
    location_number: np.ndarray  # int16
    location_name: tuple[str, ...]
    location_rule: np.ndarray  # int8 LocationRule
    location_base: np.ndarray  # int8
    location_mult: np.ndarray  # int8
    location_arg: np.ndarray  # int8, Guild or Race value, -1 if none
    location_text: tuple[str, ...]
    # Threat Track: threat_options[space, k] = (pearls, monsters, keys), k < threat_n_options[space]
    threat_options: np.ndarray  # int8 (n_spaces, max_options, 3), unused options are zero
    threat_n_options: np.ndarray  # int8 (n_spaces,)
    monster_token_ip: np.ndarray  # int8, one entry per Monster token
    n_keys: int
    court_size: int
    track_length: int
    starting_pearls: int
    rules: RulesOptions
    digest: str  # sha256 hex of the canonical (post-override) data
    source: str  # the directory loaded
    # ---- Expansions (always present: empty arrays / zero when the expansion is off) ----
    expansions: tuple[str, ...]  # loaded expansions, in KNOWN_EXPANSIONS order
    ally_expansion: np.ndarray  # int8 per Exploration card: 0 base, 1 leviathan
    lord_expansion: np.ndarray  # int8 per Lord: 0 base, 1 leviathan
    # Leviathan cards; index = leviathan id (file order)
    leviathan_number: np.ndarray  # int16 (n,)
    leviathan_race: np.ndarray  # int8 (n,), Race value, -1 = no race (Crabs only)
    leviathan_n_spaces: np.ndarray  # int8 (n,), 1..MAX_SPACES Life spaces
    leviathan_resistance: np.ndarray  # int8 (n, MAX_SPACES), top space first; unused 0
    leviathan_tokens: np.ndarray  # int8 (n, MAX_SPACES), Monster tokens per space; unused 0
    leviathan_penalty: np.ndarray  # int8 (n,), Penalty
    leviathan_penalty_n: np.ndarray  # int8 (n,)
    # Border: border_zone_of_sum[s] = 0-based zone of the 2d6 sum s (shape (13,), entries 0 and
    # 1 are -1); shape (0,) without Leviathan
    border_zone_of_sum: np.ndarray  # int8
    n_border_zones: int
    # Leviathan Monster token deck (a second deck, never mixed with monster_token_ip)
    leviathan_token_kind: np.ndarray  # int8 (k,), LeviathanToken
    leviathan_token_amount: np.ndarray  # int8 (k,), Pearls 2/3, Keys 1, Council stacks 1
    hand_limit: int  # Martial Law: Allies kept free at the end of a turn; 0 = no limit
    max_players: int  # 4 base, 5 with Leviathan
    n_wounds: int  # Wound tokens in the box (informational; the supply is unlimited); 0 if off

    @property
    def n_allies(self) -> int:
        """Number of Exploration cards (Allies and Monsters); card ids are 0..n_allies-1."""
        return int(self.ally_race.shape[0])

    @property
    def n_lords(self) -> int:
        return int(self.lord_number.shape[0])

    @property
    def n_locations(self) -> int:
        return int(self.location_number.shape[0])

    @property
    def n_threat_spaces(self) -> int:
        return int(self.threat_n_options.shape[0])

    @property
    def n_leviathans(self) -> int:
        return int(self.leviathan_number.shape[0])

    @property
    def n_leviathan_tokens(self) -> int:
        return int(self.leviathan_token_kind.shape[0])

    def lord_slug(self, i: int) -> str:
        """The `--set lord.<slug>.<field>` name of lord id `i`."""
        return slugify(self.lord_name[i])

    def location_slug(self, i: int) -> str:
        """The `--set location.<slug>.<field>` name of location id `i`."""
        return slugify(self.location_name[i])


def default_data_dir() -> Path:
    """The directory of the shipped base-game card data."""
    return Path(__file__).resolve().parent / "data"


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


def load_cards(
    data_dir: str | Path | None = None,
    overrides: dict[str, object] | None = None,
    expansions: tuple[str, ...] = (),
) -> CardTables:
    """Load, override and validate the card data of `data_dir` (default: the shipped data).

    `expansions` names the expansions to play with (KNOWN_EXPANSIONS; case-insensitive,
    duplicates ignored). An expansion file found in the directory is validated even when its
    expansion is not requested; a requested expansion whose file is missing is an error.
    """
    wanted = _check_expansions(expansions)
    directory = Path(data_dir) if data_dir is not None else default_data_dir()
    if not directory.is_dir():
        raise CardDataError(f"{directory}: (directory): not a directory")
    paths = {name: directory / name for name in DATA_FILES}
    raw = {name: _read_toml(path) for name, path in paths.items()}
    lev_path = directory / LEVIATHAN_FILE
    if LEVIATHAN in wanted or lev_path.exists():
        paths[LEVIATHAN_FILE] = lev_path
        raw[LEVIATHAN_FILE] = _read_toml(lev_path)
    overridden = _apply_overrides(raw, overrides or {})

    game = Checker(paths[GAME_FILE], overridden)
    game_values, tokens, threat = _validate_game(game, raw[GAME_FILE])
    explo = _validate_exploration(
        Checker(paths[EXPLORATION_FILE], overridden), raw[EXPLORATION_FILE]
    )
    lords_check = Checker(paths[LORDS_FILE], overridden)
    lords = _validate_lords(lords_check, raw[LORDS_FILE])
    locations = _validate_locations(Checker(paths[LOCATIONS_FILE], overridden), raw[LOCATIONS_FILE])
    rules_all = _validate_rules(Checker(paths[RULES_FILE], overridden), raw[RULES_FILE])
    rules = {key: rules_all[key] for key in BASE_RULES_KEYS}

    leviathan = None
    if LEVIATHAN_FILE in raw:
        lev_check = Checker(paths[LEVIATHAN_FILE], overridden)
        leviathan = _validate_leviathan(lev_check, raw[LEVIATHAN_FILE])
        if LEVIATHAN in wanted:
            _check_leviathan_against_base(lev_check, leviathan, lords, lords_check.path)
            leviathan["rules"] = {key: rules_all[key] for key in LEVIATHAN_RULES_KEYS}
            extra = leviathan.pop("placeholder_tokens")
            if rules_all["leviathan_20th_token"]:
                leviathan["tokens"] = leviathan["tokens"] + extra

    n_lords = len(lords)
    if LEVIATHAN in wanted:
        n_lords += len(leviathan["lords"]) - len(leviathan["remove_lords"])
    if n_lords < game_values["court_size"]:
        lords_check.fail(
            "[[lord]]",
            f"only {n_lords} Lords, fewer than game.court_size = {game_values['court_size']}",
        )

    # The base canonical data is exactly that of the base game alone, so base digests do not
    # change when expansions are added to the loader.
    canonical: dict[str, Any] = {
        "format": 1,
        "game": game_values,
        "monster_tokens": tokens,
        "threat_track": threat,
        "exploration": explo,
        "lords": lords,
        "locations": locations,
        "rules": rules,
    }
    if wanted:
        canonical["expansions"] = list(wanted)
    if LEVIATHAN in wanted:
        canonical[LEVIATHAN] = leviathan
    blob = json.dumps(canonical, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    digest = hashlib.sha256(blob.encode("ascii")).hexdigest()
    return _build_tables(canonical, rules_all, digest, str(directory.resolve()))


def _check_expansions(expansions: Any) -> tuple[str, ...]:
    """Normalise the requested expansions to a tuple in KNOWN_EXPANSIONS order."""
    if isinstance(expansions, str):
        expansions = (expansions,)
    names = []
    for name in expansions or ():
        key = name.strip().lower() if isinstance(name, str) else name
        if key not in KNOWN_EXPANSIONS:
            raise CardDataError(
                f"expansions: {name!r}: unknown expansion "
                f"(expected one of: {', '.join(KNOWN_EXPANSIONS)})"
            )
        names.append(key)
    return tuple(e for e in KNOWN_EXPANSIONS if e in names)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CardDataError(f"{path}: (file): cannot read: {_one_line(str(exc))}") from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise CardDataError(f"{path}: (file): not UTF-8 text: {_one_line(str(exc))}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CardDataError(f"{path}: (file): invalid TOML: {_one_line(str(exc))}") from None


# --------------------------------------------------------------------------------------------
# Overrides
# --------------------------------------------------------------------------------------------


def _override_targets(raw: dict[str, dict[str, Any]]) -> dict[str, tuple[dict | None, str]]:
    """Every valid override key -> (raw table to modify or None if the file is broken, field)."""
    targets: dict[str, tuple[dict | None, str]] = {}

    def table(doc: Any, name: str) -> dict | None:
        value = doc.get(name) if isinstance(doc, dict) else None
        return value if isinstance(value, dict) else None

    game = table(raw[GAME_FILE], "game")
    for key in GAME_KEYS:
        targets[f"game.{key}"] = (game, key)
    rules = table(raw[RULES_FILE], "rules")
    for key in BASE_RULES_KEYS + LEVIATHAN_RULES_KEYS:
        targets[f"rules.{key}"] = (rules, key)
    explo = raw[EXPLORATION_FILE] if isinstance(raw[EXPLORATION_FILE], dict) else None
    targets["exploration.monsters"] = (explo, "monsters")
    lists = [
        ("lord", LORDS_FILE, "lord", LORD_FIELDS),
        ("location", LOCATIONS_FILE, "location", LOCATION_FIELDS),
    ]
    lev = raw.get(LEVIATHAN_FILE)
    if lev is not None:
        # Expansion Lords share the lord.<slug>.<field> keys (a base Lord wins a slug clash,
        # which validation reports when the expansion is loaded).
        lists.append(("lord", LEVIATHAN_FILE, "lord", LORD_FIELDS))
        targets["leviathan_exploration.monsters"] = (table(lev, "exploration"), "monsters")
        border = table(lev, "border")
        targets["border.zones"] = (border, "zones")
        zone_of_sum = table(border, "zone_of_sum")
        for total in DICE_SUMS:
            targets[f"border.zone_of_sum.{total}"] = (zone_of_sum, str(total))
        lev_game = table(lev, "leviathan_game")
        for key in LEVIATHAN_GAME_KEYS:
            targets[f"leviathan_game.{key}"] = (lev_game, key)
        entries = lev.get("leviathan")
        for entry in entries if isinstance(entries, list) else ():
            number = entry.get("number") if isinstance(entry, dict) else None
            if isinstance(number, int) and not isinstance(number, bool):
                for field in LEVIATHAN_FIELDS:
                    targets.setdefault(f"leviathan.{number}.{field}", (entry, field))
    for prefix, file, list_key, fields in lists:
        entries = raw[file].get(list_key)
        if not isinstance(entries, list):
            continue
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                continue
            slug = slugify(entry["name"])
            for field in fields:
                targets.setdefault(f"{prefix}.{slug}.{field}", (entry, field))
    return targets


def _apply_overrides(
    raw: dict[str, dict[str, Any]], overrides: dict[str, object]
) -> dict[tuple[int, str], str]:
    """Apply overrides in place; returns {(id(raw table), field): override key} for messages."""
    if not overrides:
        return {}
    targets = _override_targets(raw)
    applied: dict[tuple[int, str], str] = {}
    for key, value in overrides.items():
        if key not in targets:
            raise CardDataError(f"--set: {key!r}: unknown key; {_suggest(key, list(targets))}")
        tbl, field = targets[key]
        if isinstance(value, np.generic):  # numpy scalars from Python callers
            value = value.item()
        if tbl is None:  # the file itself is broken: validation reports it
            continue
        tbl[field] = value
        applied[(id(tbl), field)] = key
    return applied


def _suggest(key: str, candidates: list[str]) -> str:
    return suggest(
        key,
        candidates,
        "keys are game.<key>, rules.<key>, exploration.monsters, lord.<slug>.<field>, "
        "location.<slug>.<field>, leviathan.<number>.<field>, leviathan_game.<key>, "
        "leviathan_exploration.monsters, border.zones, border.zone_of_sum.<sum> "
        "(run `abyss-mc cards` for the names)",
    )


# --------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Per-file validation: each returns plain canonical data (used for the digest and the arrays)
# --------------------------------------------------------------------------------------------


def _validate_game(c: Checker, doc: dict[str, Any]):
    c.keys(doc, "(top level)", ("game", "monster_tokens", "threat_track"))
    game = c.table(doc["game"], "[game]")
    c.keys(game, "[game]", GAME_KEYS)
    values = {key: c.integer(game, key, "[game]", *GAME_RANGES[key]) for key in GAME_KEYS}

    tokens_tbl = c.table(doc["monster_tokens"], "[monster_tokens]")
    c.keys(tokens_tbl, "[monster_tokens]", ("ip",))
    tokens = c.int_list(tokens_tbl, "ip", "[monster_tokens]", (1, 40), 0, 10)

    threat: list[list[list[int]]] = []
    for space, tbl in enumerate(c.entries(doc, "threat_track", (1, 10))):
        entry = f"[[threat_track]] space {space}"
        c.keys(tbl, entry, ("options",))
        options = tbl["options"]
        if not isinstance(options, list) or not 1 <= len(options) <= 6:
            c.fail(entry, f"options: expected an array of 1..6 strings, got {_show(options)}")
        seen: list[list[int]] = []
        for k, option in enumerate(options):
            if (
                not isinstance(option, str)
                or not 1 <= len(option) <= MAX_OPTION_LETTERS
                or any(ch not in THREAT_LETTERS for ch in option)
            ):
                c.fail(
                    entry,
                    f"options[{k}]: expected 1..{MAX_OPTION_LETTERS} letters P "
                    f"(Pearl), M (Monster token) or K (Key), got {_show(option)}",
                )
            counts = [0, 0, 0]
            for ch in option:
                counts[THREAT_LETTERS[ch]] += 1
            if counts in seen:
                c.fail(entry, f"options[{k}]: duplicate option {option!r}")
            seen.append(counts)
        threat.append(seen)
    return values, tokens, threat


def _validate_exploration(c: Checker, doc: dict[str, Any]):
    c.keys(doc, "(top level)", ("monsters",) + RACE_NAMES)
    monsters = c.integer(doc, "monsters", "(top level)", 0, 20)
    allies = {}
    for race in RACE_NAMES:
        entry = f"[{race}]"
        tbl = c.table(doc[race], entry)
        c.keys(tbl, entry, ("values",))
        allies[race] = c.int_list(tbl, "values", entry, (1, MAX_ALLIES_PER_RACE), 1, 9)
    return {"monsters": monsters, "allies": allies}


def _entry_label(kind: str, index: int, tbl: dict[str, Any]) -> str:
    number, name = tbl.get("number"), tbl.get("name")
    label = f"{kind} entry {index + 1}"
    if isinstance(number, int) and not isinstance(number, bool):
        label = f"{kind} #{number}"
    if isinstance(name, str) and name.strip():
        label += f" {name.strip()}"
    return label


def _check_unique(c: Checker, label: str, seen: dict, key: Any, what: str) -> None:
    if key in seen:
        c.fail(label, f"duplicate {what} (also used by {seen[key]})")
    seen[key] = label


def _validate_lords(c: Checker, doc: dict[str, Any]) -> list[dict[str, Any]]:
    c.keys(doc, "(top level)", ("lord",))
    return _validate_lord_entries(c, c.entries(doc, "lord", (1, MAX_LORDS)))


def _validate_lord_entries(c: Checker, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    numbers: dict = {}
    names: dict = {}
    slugs: dict = {}
    for i, tbl in enumerate(entries):
        label = _entry_label("lord", i, tbl)
        c.keys(tbl, label, LORD_FIELDS)
        lord = {
            "number": c.integer(tbl, "number", label, 1, MAX_NUMBER),
            "name": c.string(tbl, "name", label, nonempty=True).strip(),
            "guild": c.choice(tbl, "guild", label, GUILD_BY_NAME, "guild"),
            "cost": c.integer(tbl, "cost", label, 0, 40),
            "races": c.integer(tbl, "races", label, 1, N_RACES),
            "ip": c.integer(tbl, "ip", label, 0, 30),
            "keys": c.integer(tbl, "keys", label, 0, 3),
            "power": c.choice(tbl, "power", label, POWER_BY_NAME, "power"),
            "text": c.string(tbl, "text", label),
        }
        slug = slugify(lord["name"])
        if not slug:
            c.fail(label, "name: must contain a letter or digit", tbl, "name")
        _check_unique(c, label, numbers, lord["number"], f"number {lord['number']}")
        _check_unique(c, label, names, lord["name"].lower(), f"name {lord['name']!r}")
        _check_unique(c, label, slugs, slug, f"--set name lord.{slug}")
        out.append(lord)
    return out


def _validate_locations(c: Checker, doc: dict[str, Any]) -> list[dict[str, Any]]:
    c.keys(doc, "(top level)", ("location",))
    out = []
    numbers: dict = {}
    names: dict = {}
    slugs: dict = {}
    required = tuple(f for f in LOCATION_FIELDS if f != "arg")
    for i, tbl in enumerate(c.entries(doc, "location", (1, MAX_LOCATIONS))):
        label = _entry_label("location", i, tbl)
        c.keys(tbl, label, required, ("arg",))
        loc = {
            "number": c.integer(tbl, "number", label, 1, MAX_NUMBER),
            "name": c.string(tbl, "name", label, nonempty=True).strip(),
            "rule": c.choice(tbl, "rule", label, LOCATION_RULE_BY_NAME, "rule"),
            "base": c.integer(tbl, "base", label, -50, 50),
            "mult": c.integer(tbl, "mult", label, -50, 50),
            "arg": None,
            "text": c.string(tbl, "text", label),
        }
        rule = LOCATION_RULE_BY_NAME[loc["rule"]]
        arg = None
        if "arg" in tbl:
            arg = c.string(tbl, "arg", label).strip().lower()
            if arg == NO_ARG:
                arg = None
        if rule in RULES_WITH_GUILD_ARG:
            guilds = [g.name.lower() for g in Guild if g != Guild.AMBASSADOR]
            if arg is None:
                c.fail(
                    label,
                    f"arg: rule {loc['rule']} needs a guild ({', '.join(guilds)})",
                    tbl,
                    "rule",
                )
            if arg not in guilds:
                c.fail(
                    label,
                    f"arg: rule {loc['rule']} needs a guild "
                    f"({', '.join(guilds)}), got {tbl['arg']!r}",
                    tbl,
                    "arg",
                )
        elif rule in RULES_WITH_RACE_ARG:
            if arg is None:
                c.fail(
                    label,
                    f"arg: rule {loc['rule']} needs a race ({', '.join(RACE_NAMES)})",
                    tbl,
                    "rule",
                )
            if arg not in RACE_BY_NAME:
                c.fail(
                    label,
                    f"arg: rule {loc['rule']} needs a race "
                    f"({', '.join(RACE_NAMES)}), got {tbl['arg']!r}",
                    tbl,
                    "arg",
                )
        elif arg is not None:
            c.fail(
                label,
                f"arg: rule {loc['rule']} takes no arg (omit it or write "
                f'"{NO_ARG}"), got {tbl["arg"]!r}',
                tbl,
                "arg",
            )
        loc["arg"] = arg
        slug = slugify(loc["name"])
        if not slug:
            c.fail(label, "name: must contain a letter or digit", tbl, "name")
        _check_unique(c, label, numbers, loc["number"], f"number {loc['number']}")
        _check_unique(c, label, names, loc["name"].lower(), f"name {loc['name']!r}")
        _check_unique(c, label, slugs, slug, f"--set name location.{slug}")
        out.append(loc)
    return out


def _validate_rules(c: Checker, doc: dict[str, Any]) -> dict[str, Any]:
    """All rules options: the base keys (required) and the expansion keys (optional)."""
    c.keys(doc, "(top level)", ("rules",))
    tbl = c.table(doc["rules"], "[rules]")
    c.keys(tbl, "[rules]", RULES_KEYS, tuple(OPTIONAL_RULES_DEFAULTS))
    out = {
        "landlord_immediate_pearl": c.boolean(tbl, "landlord_immediate_pearl", "[rules]"),
        "ambassador_mode": c.choice(
            tbl, "ambassador_mode", "[rules]", AMBASSADOR_MODES, "ambassador_mode"
        ),
        "court_end": c.choice(tbl, "court_end", "[rules]", COURT_ENDS, "court_end"),
        "turn_limit": c.integer(tbl, "turn_limit", "[rules]", 10, 10000),
    }
    for key, default in OPTIONAL_RULES_DEFAULTS.items():
        out[key] = c.boolean(tbl, key, "[rules]") if key in tbl else default
    return out


# ---- Leviathan expansion ---------------------------------------------------------------------


def _validate_leviathan(c: Checker, doc: dict[str, Any]) -> dict[str, Any]:
    """expansions/leviathan.toml on its own (the checks against the base data come later)."""
    c.keys(doc, "(top level)", LEVIATHAN_TOP_KEYS)
    remove = c.int_list(doc, "remove_lords", "(top level)", (0, MAX_LORDS), 1, MAX_NUMBER)
    if len(set(remove)) != len(remove):
        dup = next(n for n in remove if remove.count(n) > 1)
        c.fail("(top level)", f"remove_lords: duplicate number {dup}", doc, "remove_lords")
    lords = _validate_lord_entries(c, c.entries(doc, "lord", (0, MAX_LORDS)))
    return {
        "remove_lords": remove,
        "exploration": _validate_leviathan_exploration(c, doc["exploration"]),
        "lords": lords,
        "leviathans": _validate_leviathan_cards(c, doc),
        "border": _validate_border(c, doc["border"]),
        **_validate_leviathan_tokens(c, doc["leviathan_tokens"]),
        "game": _validate_leviathan_game(c, doc["leviathan_game"]),
    }


def _validate_leviathan_exploration(c: Checker, value: Any) -> dict[str, Any]:
    explo = c.table(value, "[exploration]")
    c.keys(explo, "[exploration]", ("monsters",) + RACE_NAMES, ("extra",))
    monsters = c.integer(explo, "monsters", "[exploration]", 0, 20)
    allies: dict[str, list[list[Any]]] = {}
    for race in RACE_NAMES:
        entry = f"[exploration.{race}]"
        tbl = c.table(explo[race], entry)
        c.keys(tbl, entry, ("values", "effects"))
        values = c.int_list(tbl, "values", entry, (0, MAX_ALLIES_PER_RACE), 1, 9)
        effects = tbl["effects"]
        if not isinstance(effects, list) or len(effects) != len(values):
            c.fail(
                entry,
                f"effects: expected an array of {len(values)} effect names (one per value), "
                f"got {_show(effects)}",
                tbl,
                "effects",
            )
        names = [
            c.choice({f"effects[{k}]": e}, f"effects[{k}]", entry, EFFECT_BY_NAME, "effect")
            for k, e in enumerate(effects)
        ]
        allies[race] = [[v, e] for v, e in zip(values, names, strict=True)]
    extra = []
    if "extra" in explo:
        entries = explo["extra"]
        if not isinstance(entries, list) or len(entries) > MAX_ALLIES_PER_RACE:
            c.fail(
                "[[exploration.extra]]",
                f"expected an array of at most {MAX_ALLIES_PER_RACE} tables, got {_show(entries)}",
            )
        for i, tbl in enumerate(entries):
            entry = f"[[exploration.extra]] entry {i + 1}"
            c.table(tbl, entry)
            c.keys(tbl, entry, ("race", "value", "effect"))
            extra.append(
                [
                    c.choice(tbl, "race", entry, RACE_BY_NAME, "race"),
                    c.integer(tbl, "value", entry, 1, 9),
                    c.choice(tbl, "effect", entry, EFFECT_BY_NAME, "effect"),
                ]
            )
    return {"monsters": monsters, "allies": allies, "extra": extra}


def _validate_leviathan_cards(c: Checker, doc: dict[str, Any]) -> list[dict[str, Any]]:
    races = {**RACE_BY_NAME, NO_RACE: None}
    out = []
    numbers: dict = {}
    for i, tbl in enumerate(c.entries(doc, "leviathan", (1, MAX_LEVIATHANS))):
        label = _entry_label("leviathan", i, tbl)
        c.keys(tbl, label, LEVIATHAN_FIELDS)
        number = c.integer(tbl, "number", label, 1, MAX_NUMBER)
        race = c.choice(tbl, "race", label, races, "race")
        spaces = tbl["spaces"]
        if not isinstance(spaces, list) or not 1 <= len(spaces) <= MAX_SPACES:
            c.fail(
                label,
                f"spaces: expected an array of 1..{MAX_SPACES} [resistance, tokens] pairs, "
                f"got {_show(spaces)}",
                tbl,
                "spaces",
            )
        pairs = []
        for k, space in enumerate(spaces):
            if not isinstance(space, list) or len(space) != 2:
                c.fail(
                    label,
                    f"spaces[{k}]: expected [resistance, tokens], got {_show(space)}",
                    tbl,
                    "spaces",
                )
            pair = []
            for what, item, (lo, hi) in zip(
                ("resistance", "tokens"), space, (RESISTANCE_RANGE, SPACE_TOKENS_RANGE), strict=True
            ):
                if isinstance(item, bool) or not isinstance(item, int):
                    c.fail(
                        label,
                        f"spaces[{k}] {what}: expected an integer, got "
                        f"{_type_name(item)} {_show(item)}",
                        tbl,
                        "spaces",
                    )
                if not lo <= item <= hi:
                    c.fail(
                        label,
                        f"spaces[{k}] {what}: must be in {lo}..{hi}, got {item}",
                        tbl,
                        "spaces",
                    )
                pair.append(item)
            pairs.append(pair)
        card = {
            "number": number,
            "race": race,
            "spaces": pairs,
            "penalty": c.choice(tbl, "penalty", label, PENALTY_BY_NAME, "penalty"),
            "penalty_n": c.integer(tbl, "penalty_n", label, *PENALTY_N_RANGE),
        }
        _check_unique(c, label, numbers, number, f"number {number}")
        out.append(card)
    return out


def _validate_border(c: Checker, value: Any) -> dict[str, Any]:
    tbl = c.table(value, "[border]")
    c.keys(tbl, "[border]", ("zones", "zone_of_sum"))
    zones = c.integer(tbl, "zones", "[border]", 1, MAX_BORDER_ZONES)
    mapping = tbl["zone_of_sum"]
    if not isinstance(mapping, dict):
        c.fail(
            "[border]",
            f"zone_of_sum: expected a table {{2 = zone, ..., 12 = zone}}, got "
            f"{_type_name(mapping)} {_show(mapping)}",
            tbl,
            "zone_of_sum",
        )
    sums = [str(total) for total in DICE_SUMS]
    for key in mapping:
        if key not in sums:
            c.fail(
                "[border]",
                f"zone_of_sum: unknown key {key!r} (expected the 2d6 sums 2..12)",
                mapping,
                key,
            )
    zone_of_sum = []
    for key in sums:
        if key not in mapping:
            c.fail("[border]", f"zone_of_sum: missing sum {key} (every sum 2..12 needs a zone)")
        zone = mapping[key]
        if isinstance(zone, bool) or not isinstance(zone, int):
            c.fail(
                "[border]",
                f"zone_of_sum.{key}: expected an integer, got {_type_name(zone)} {_show(zone)}",
                mapping,
                key,
            )
        if not 1 <= zone <= zones:
            c.fail(
                "[border]",
                f"zone_of_sum.{key}: must be a zone in 1..{zones}, got {zone}",
                mapping,
                key,
            )
        zone_of_sum.append(zone)
    return {"zones": zones, "zone_of_sum": zone_of_sum}


def _validate_leviathan_tokens(c: Checker, value: Any) -> dict[str, Any]:
    entry = "[leviathan_tokens]"
    tbl = c.table(value, entry)
    c.keys(tbl, entry, ("tokens", "placeholder_tokens"))
    out = {}
    for key, n in (("tokens", (1, 40)), ("placeholder_tokens", (0, 10))):
        items = tbl[key]
        if not isinstance(items, list) or not n[0] <= len(items) <= n[1]:
            c.fail(
                entry,
                f"{key}: expected an array of {n[0]}..{n[1]} token names, got {_show(items)}",
                tbl,
                key,
            )
        out[key] = [
            c.choice({f"{key}[{k}]": item}, f"{key}[{k}]", entry, LEVIATHAN_TOKEN_BY_NAME, "token")
            for k, item in enumerate(items)
        ]
    return out


def _validate_leviathan_game(c: Checker, value: Any) -> dict[str, int]:
    tbl = c.table(value, "[leviathan_game]")
    c.keys(tbl, "[leviathan_game]", LEVIATHAN_GAME_KEYS)
    return {
        key: c.integer(tbl, key, "[leviathan_game]", *LEVIATHAN_GAME_RANGES[key])
        for key in LEVIATHAN_GAME_KEYS
    }


def _check_leviathan_against_base(
    c: Checker, lev: dict[str, Any], base_lords: list[dict[str, Any]], base_path: Path
) -> None:
    """With the expansion loaded: removed Lords exist, and the final Lords stay unique."""
    base_numbers = {lo["number"] for lo in base_lords}
    for number in lev["remove_lords"]:
        if number not in base_numbers:
            c.fail(
                "(top level)",
                f"remove_lords: no Lord number {number} in {base_path.name}",
            )
    numbers: dict = {}
    names: dict = {}
    slugs: dict = {}
    for lo in base_lords:
        if lo["number"] in lev["remove_lords"]:
            continue
        label = f"{base_path.name} lord #{lo['number']} {lo['name']}"
        numbers[lo["number"]] = label
        names[lo["name"].lower()] = label
        slugs[slugify(lo["name"])] = label
    for i, lo in enumerate(lev["lords"]):
        label = _entry_label("lord", i, lo)
        _check_unique(c, label, numbers, lo["number"], f"number {lo['number']}")
        _check_unique(c, label, names, lo["name"].lower(), f"name {lo['name']!r}")
        slug = slugify(lo["name"])
        _check_unique(c, label, slugs, slug, f"--set name lord.{slug}")


# --------------------------------------------------------------------------------------------
# Arrays
# --------------------------------------------------------------------------------------------


def _arr(values: list[int], dtype: Any) -> np.ndarray:
    return np.ascontiguousarray(np.array(values, dtype=dtype))


def _build_tables(
    data: dict[str, Any], rules: dict[str, Any], digest: str, source: str
) -> CardTables:
    explo = data["exploration"]
    ally_race: list[int] = []
    ally_value: list[int] = []
    ally_effect: list[int] = []
    for race in Race:
        values = explo["allies"][race.name.lower()]
        ally_race += [int(race)] * len(values)
        ally_value += values
    ally_race += [MONSTER] * explo["monsters"]
    ally_value += [0] * explo["monsters"]
    ally_effect += [int(AllyEffect.NONE)] * len(ally_race)
    ally_expansion = [0] * len(ally_race)
    lords = list(data["lords"])
    lord_expansion = [0] * len(lords)

    lev = data.get(LEVIATHAN)
    if lev is not None:
        code = EXPANSION_CODE[LEVIATHAN]
        lev_explo = lev["exploration"]
        new = [
            (int(race), value, effect)
            for race in Race
            for value, effect in lev_explo["allies"][race.name.lower()]
        ]
        new += [(int(RACE_BY_NAME[r]), value, effect) for r, value, effect in lev_explo["extra"]]
        new += [(MONSTER, 0, "none")] * lev_explo["monsters"]
        ally_race += [r for r, _, _ in new]
        ally_value += [v for _, v, _ in new]
        ally_effect += [int(EFFECT_BY_NAME[e]) for _, _, e in new]
        ally_expansion += [code] * len(new)
        lords = [lo for lo in lords if lo["number"] not in lev["remove_lords"]]
        lord_expansion = [0] * len(lords) + [code] * len(lev["lords"])
        lords += lev["lords"]

    locs = data["locations"]

    def loc_arg(loc: dict[str, Any]) -> int:
        if loc["arg"] is None:
            return -1
        if LOCATION_RULE_BY_NAME[loc["rule"]] in RULES_WITH_GUILD_ARG:
            return int(GUILD_BY_NAME[loc["arg"]])
        return int(RACE_BY_NAME[loc["arg"]])

    threat = data["threat_track"]
    max_options = max(len(space) for space in threat)
    threat_options = np.zeros((len(threat), max_options, 3), dtype=np.int8)
    for s, space in enumerate(threat):
        for k, counts in enumerate(space):
            threat_options[s, k] = counts

    game = data["game"]
    return CardTables(
        ally_race=_arr(ally_race, np.int8),
        ally_value=_arr(ally_value, np.int8),
        ally_effect=_arr(ally_effect, np.int8),
        lord_number=_arr([lo["number"] for lo in lords], np.int16),
        lord_name=tuple(lo["name"] for lo in lords),
        lord_guild=_arr([int(GUILD_BY_NAME[lo["guild"]]) for lo in lords], np.int8),
        lord_cost=_arr([lo["cost"] for lo in lords], np.int8),
        lord_races=_arr([lo["races"] for lo in lords], np.int8),
        lord_ip=_arr([lo["ip"] for lo in lords], np.int8),
        lord_keys=_arr([lo["keys"] for lo in lords], np.int8),
        lord_power=_arr([int(POWER_BY_NAME[lo["power"]]) for lo in lords], np.int16),
        lord_text=tuple(lo["text"] for lo in lords),
        location_number=_arr([lo["number"] for lo in locs], np.int16),
        location_name=tuple(lo["name"] for lo in locs),
        location_rule=_arr([int(LOCATION_RULE_BY_NAME[lo["rule"]]) for lo in locs], np.int8),
        location_base=_arr([lo["base"] for lo in locs], np.int8),
        location_mult=_arr([lo["mult"] for lo in locs], np.int8),
        location_arg=_arr([loc_arg(lo) for lo in locs], np.int8),
        location_text=tuple(lo["text"] for lo in locs),
        threat_options=np.ascontiguousarray(threat_options),
        threat_n_options=_arr([len(space) for space in threat], np.int8),
        monster_token_ip=_arr(data["monster_tokens"], np.int8),
        n_keys=game["n_keys"],
        court_size=game["court_size"],
        track_length=game["track_length"],
        starting_pearls=game["starting_pearls"],
        rules=RulesOptions(**rules),
        digest=digest,
        source=source,
        expansions=tuple(data.get("expansions", ())),
        ally_expansion=_arr(ally_expansion, np.int8),
        lord_expansion=_arr(lord_expansion, np.int8),
        **_leviathan_arrays(lev),
    )


def _leviathan_arrays(lev: dict[str, Any] | None) -> dict[str, Any]:
    """The Leviathan fields of CardTables (empty / zero when `lev` is None)."""
    if lev is None:
        return {
            "leviathan_number": _arr([], np.int16),
            "leviathan_race": _arr([], np.int8),
            "leviathan_n_spaces": _arr([], np.int8),
            "leviathan_resistance": np.zeros((0, MAX_SPACES), dtype=np.int8),
            "leviathan_tokens": np.zeros((0, MAX_SPACES), dtype=np.int8),
            "leviathan_penalty": _arr([], np.int8),
            "leviathan_penalty_n": _arr([], np.int8),
            "border_zone_of_sum": _arr([], np.int8),
            "n_border_zones": 0,
            "leviathan_token_kind": _arr([], np.int8),
            "leviathan_token_amount": _arr([], np.int8),
            "hand_limit": 0,
            "max_players": BASE_MAX_PLAYERS,
            "n_wounds": 0,
        }
    cards = lev["leviathans"]
    resistance = np.zeros((len(cards), MAX_SPACES), dtype=np.int8)
    tokens = np.zeros((len(cards), MAX_SPACES), dtype=np.int8)
    for i, card in enumerate(cards):
        for k, (r, t) in enumerate(card["spaces"]):
            resistance[i, k] = r
            tokens[i, k] = t
    zone_of_sum = [-1] * DICE_SUMS[0] + [zone - 1 for zone in lev["border"]["zone_of_sum"]]
    kinds = [LEVIATHAN_TOKEN_BY_NAME[name] for name in lev["tokens"]]
    return {
        "leviathan_number": _arr([card["number"] for card in cards], np.int16),
        "leviathan_race": _arr(
            [-1 if card["race"] == NO_RACE else int(RACE_BY_NAME[card["race"]]) for card in cards],
            np.int8,
        ),
        "leviathan_n_spaces": _arr([len(card["spaces"]) for card in cards], np.int8),
        "leviathan_resistance": np.ascontiguousarray(resistance),
        "leviathan_tokens": np.ascontiguousarray(tokens),
        "leviathan_penalty": _arr(
            [int(PENALTY_BY_NAME[card["penalty"]]) for card in cards], np.int8
        ),
        "leviathan_penalty_n": _arr([card["penalty_n"] for card in cards], np.int8),
        "border_zone_of_sum": _arr(zone_of_sum, np.int8),
        "n_border_zones": lev["border"]["zones"],
        "leviathan_token_kind": _arr([int(kind) for kind, _ in kinds], np.int8),
        "leviathan_token_amount": _arr([amount for _, amount in kinds], np.int8),
        "hand_limit": lev["game"]["hand_limit"],
        "max_players": lev["game"]["max_players"],
        "n_wounds": lev["game"]["n_wounds"],
    }


# --------------------------------------------------------------------------------------------
# describe()
# --------------------------------------------------------------------------------------------


def _location_formula(rule: int, base: int, mult: int, arg: int) -> str:
    r = LocationRule(rule)
    if r == LocationRule.CITY_OF_MIRRORS:
        return "copies your best-scoring opponent Location, scored with your cards"
    if r == LocationRule.BLACK_SMOKERS:
        return f"{base} IP; on acquisition may be swapped for a Location from the stack"
    arg_name = "?"
    if r == LocationRule.GUILD_LORDS and 0 <= arg < len(Guild):
        arg_name = Guild(arg).name.lower()
    elif r == LocationRule.AFFILIATED_RACE and 0 <= arg < N_RACES:
        arg_name = Race(arg).name.lower()
    term = {
        LocationRule.GUILD_LORDS: f"your {arg_name} Lords",
        LocationRule.AFFILIATED_RACE: f"your affiliated {arg_name} Allies",
        LocationRule.DISTINCT_GUILDS: "distinct guilds among your Lords",
        LocationRule.WEAKEST_LORD: "IP of your weakest Lord",
        LocationRule.STRONGEST_LORD: "IP of your strongest Lord",
        LocationRule.MINUS_LORDS: "your Lords",
        LocationRule.LORDS_WITH_KEY: "your Lords with a Key",
        LocationRule.LORDS_WITHOUT_KEY: "your Lords without a Key",
        LocationRule.WEAKEST_AFFILIATED_SUM: "sum over races of your weakest affiliated Ally",
        LocationRule.MINUS_AFFILIATED: "your affiliated Allies",
    }[r]
    scaled = f"({term})" if mult == 1 else f"{mult} x ({term})"
    if r in (LocationRule.MINUS_LORDS, LocationRule.MINUS_AFFILIATED):
        return f"{base} - {scaled}"
    return f"{base} + {scaled}" if base else scaled


def _option_text(counts: np.ndarray) -> str:
    p, m, k = (int(x) for x in counts)
    return "K" * k + "P" * p + "M" * m


def describe(tables: CardTables) -> str:
    """A readable listing of the loaded card data (for the `abyss-mc cards` command)."""
    t = tables
    lines: list[str] = [f"Card data: {t.source}", f"Digest:    {t.digest}"]
    if t.expansions:
        lines.append(f"Expansions: {', '.join(t.expansions)}")
    lines.append("")

    lines += [
        "Game",
        f"  Key tokens: {t.n_keys}   Court slots: {t.court_size}   "
        f"Exploration Track slots: {t.track_length}   starting Pearls: {t.starting_pearls}",
        "",
    ]

    n_monsters = int(np.count_nonzero(t.ally_race == MONSTER))
    n_allies = t.n_allies - n_monsters
    lines.append(
        f"Exploration deck: {t.n_allies} cards ({n_allies} Allies + {n_monsters} Monsters)"
    )
    has_effects = bool(np.any(t.ally_effect != int(AllyEffect.NONE)))
    lines.append(
        f"  {'race':<10} {'cards':>5}  {'total':>5}  values"
        + (" (p = add_pearls, d = two_dice; expansion cards after |)" if has_effects else "")
    )
    for race in Race:
        mask = t.ally_race == int(race)
        values = t.ally_value[mask]
        cells = []
        previous = 0
        for a in np.flatnonzero(mask):
            if int(t.ally_expansion[a]) != previous:
                cells.append("|")
                previous = int(t.ally_expansion[a])
            cells.append(str(int(t.ally_value[a])) + _EFFECT_MARK[int(t.ally_effect[a])])
        lines.append(
            f"  {race.name.lower():<10} {int(mask.sum()):>5}  {int(values.sum()):>5}  "
            + " ".join(cells)
        )
    lines.append("")

    lines.append(f"Lords: {t.n_lords}")
    width = max([len(n) for n in t.lord_name] + [4])
    lines.append(
        f"  {'#':>3}  {'name':<{width}}  {'guild':<10} {'cost':>4} {'races':>5} {'IP':>3} "
        f"{'keys':>4}  power"
    )
    for i in range(t.n_lords):
        lines.append(
            f"  {int(t.lord_number[i]):>3}  {t.lord_name[i]:<{width}}  "
            f"{Guild(int(t.lord_guild[i])).name.lower():<10} {int(t.lord_cost[i]):>4} "
            f"{int(t.lord_races[i]):>5} {int(t.lord_ip[i]):>3} {int(t.lord_keys[i]):>4}  "
            f"{_power_name(int(t.lord_power[i]))}"
            + (f"  [{_expansion_name(int(t.lord_expansion[i]))}]" if t.lord_expansion[i] else "")
        )
    guild_counts = Counter(int(g) for g in t.lord_guild)
    lines.append(
        "  by guild: "
        + ", ".join(f"{g.name.lower()} {guild_counts.get(int(g), 0)}" for g in Guild)
        + f"; with a Key: {int(np.count_nonzero(t.lord_keys))}"
    )
    lines.append("")

    lines.append(f"Locations: {t.n_locations}")
    width = max([len(n) for n in t.location_name] + [4])
    lines.append(f"  {'#':>3}  {'name':<{width}}  {'rule':<22}  final IP")
    for i in range(t.n_locations):
        rule = int(t.location_rule[i])
        formula = _location_formula(
            rule, int(t.location_base[i]), int(t.location_mult[i]), int(t.location_arg[i])
        )
        lines.append(
            f"  {int(t.location_number[i]):>3}  {t.location_name[i]:<{width}}  "
            f"{LocationRule(rule).name.lower():<22}  {formula}"
        )
    lines.append("")

    lines.append(f"Threat Track: {t.n_threat_spaces} spaces (P Pearl, M Monster token, K Key)")
    for s in range(t.n_threat_spaces):
        options = [_option_text(t.threat_options[s, k]) for k in range(t.threat_n_options[s])]
        lines.append(f"  space {s}: " + " or ".join(options))
    lines.append("")

    token_counts = Counter(int(v) for v in t.monster_token_ip)
    lines.append(
        f"Monster tokens: {len(t.monster_token_ip)} ("
        + ", ".join(f"{n} x {ip} IP" for ip, n in sorted(token_counts.items(), reverse=True))
        + f"; total {int(t.monster_token_ip.sum())} IP)"
    )
    lines.append("")

    if t.n_leviathans:
        lines += _describe_leviathan(t)

    lines.append("Rules options")
    for key in BASE_RULES_KEYS + (LEVIATHAN_RULES_KEYS if LEVIATHAN in t.expansions else ()):
        value = getattr(t.rules, key)
        shown = str(value).lower() if isinstance(value, bool) else value
        lines.append(f"  {key} = {shown}")
    return "\n".join(lines) + "\n"


_EFFECT_MARK = {int(AllyEffect.NONE): "", int(AllyEffect.ADD_PEARLS): "p"}
_EFFECT_MARK[int(AllyEffect.TWO_DICE)] = "d"


def _expansion_name(code: int) -> str:
    for name, value in EXPANSION_CODE.items():
        if value == code:
            return name
    return str(code)


def _token_text(kind: int, amount: int) -> str:
    noun = {
        LeviathanToken.PEARLS: ("Pearl", "Pearls"),
        LeviathanToken.KEY: ("Key", "Keys"),
        LeviathanToken.COUNCIL: ("Council stack", "Council stacks"),
    }[LeviathanToken(kind)]
    return f"{amount} {noun[amount != 1]}"


def _describe_leviathan(t: CardTables) -> list[str]:
    lines = [
        f"Leviathans: {t.n_leviathans} ({int(t.leviathan_n_spaces.sum())} Life spaces, "
        f"{int(t.leviathan_tokens.sum())} Monster tokens; spaces as Resistance/tokens)",
        f"  {'#':>3}  {'race':<11} {'spaces':<24} penalty",
    ]
    for i in range(t.n_leviathans):
        race = int(t.leviathan_race[i])
        spaces = " -> ".join(
            f"R{int(t.leviathan_resistance[i, k])}/{int(t.leviathan_tokens[i, k])}"
            for k in range(int(t.leviathan_n_spaces[i]))
        )
        lines.append(
            f"  {int(t.leviathan_number[i]):>3}  "
            f"{(Race(race).name.lower() if race >= 0 else 'crab only'):<11} {spaces:<24} "
            f"{int(t.leviathan_penalty_n[i])} {Penalty(int(t.leviathan_penalty[i])).name.lower()}"
        )
    lines.append("")

    zones: dict[int, list[int]] = {}
    for total in DICE_SUMS:
        zones.setdefault(int(t.border_zone_of_sum[total]), []).append(total)
    lines.append(f"Border: {t.n_border_zones} zones (2d6 sum -> zone, probability)")
    for zone in range(t.n_border_zones):
        sums = zones.get(zone, [])
        ways = sum(6 - abs(total - 7) for total in sums)
        lines.append(
            f"  zone {zone + 1}: sum {' or '.join(str(x) for x in sums) or '-'}  ({ways}/36)"
        )
    lines.append("")

    counts = Counter(
        zip(t.leviathan_token_kind.tolist(), t.leviathan_token_amount.tolist(), strict=True)
    )
    lines.append(
        f"Leviathan Monster tokens: {t.n_leviathan_tokens} ("
        + ", ".join(
            f"{n} x {_token_text(kind, amount)}" for (kind, amount), n in sorted(counts.items())
        )
        + "; 0 IP each)"
    )
    lines.append("")
    lines.append(
        f"Leviathan game: Martial Law hand limit {t.hand_limit or 'none'}   "
        f"players up to {t.max_players}   Wound tokens {t.n_wounds} (supply unlimited in play)"
    )
    lines.append("")
    return lines


def _power_name(value: int) -> str:
    for name, power in POWER_BY_NAME.items():
        if int(power) == value:
            return name
    return str(value)
