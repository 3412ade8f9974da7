"""Card data loader: the only place where card names live.

The data ships as five TOML files in `sim/abyss/data/` (game, exploration, lords, locations,
rules) that game designers may edit. `load_cards` reads a directory of them, applies `--set`
overrides to the raw data, validates everything and returns a `CardTables` of C-contiguous
numpy arrays ready for the numba kernels. Every problem raises `CardDataError` with a one-line
message "<file>: <entry>: <what is wrong>".

Only numpy and the standard library are imported (plus the integer codes of `constants`).
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

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
    "CardDataError",
    "CardTables",
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


class CardDataError(ValueError):
    """Invalid card data or override; the message is one line: "<file>: <entry>: <problem>"."""


@dataclass(frozen=True)
class RulesOptions:
    """Rules options of rules.toml (see the comments there for each reading and its source)."""

    landlord_immediate_pearl: bool
    ambassador_mode: str
    court_end: str
    turn_limit: int


@dataclass(frozen=True, eq=False)
class CardTables:
    """The validated card data as flat numpy arrays (all C-contiguous)."""

    # Exploration cards; index = card id: Allies race-major in Race order, values in file order,
    # then the Monsters.
    ally_race: np.ndarray  # int8, Race value or MONSTER (-1)
    ally_value: np.ndarray  # int8, 0 for Monsters
    ally_effect: np.ndarray  # int8, AllyEffect
    # Lords; index = lord id (file order)
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

    def lord_slug(self, i: int) -> str:
        """The `--set lord.<slug>.<field>` name of lord id `i`."""
        return slugify(self.lord_name[i])

    def location_slug(self, i: int) -> str:
        """The `--set location.<slug>.<field>` name of location id `i`."""
        return slugify(self.location_name[i])


def slugify(name: str) -> str:
    """Card name -> override slug: lower-case, a leading "the " removed, other runs -> "_"."""
    s = name.strip().lower()
    if s.startswith("the "):
        s = s[4:]
    return re.sub(r"[^a-z0-9]+", "_", s).strip("_")


def default_data_dir() -> Path:
    """The directory of the shipped base-game card data."""
    return Path(__file__).resolve().parent / "data"


# --------------------------------------------------------------------------------------------
# --set KEY=VALUE
# --------------------------------------------------------------------------------------------

_SET_KEY_RE = re.compile(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+")


def parse_set_options(items: list[str]) -> dict[str, object]:
    """Parse `--set key=value` items into {key: value}.

    The value is read as a TOML scalar (integer, float, boolean or quoted string); anything else
    (a bare word, an array, a date) is kept as the literal string. An empty value is "". Later
    items override earlier ones with the same key.
    """
    out: dict[str, object] = {}
    for item in items:
        key, sep, text = str(item).partition("=")
        key = key.strip()
        if not sep or not _SET_KEY_RE.fullmatch(key):
            raise CardDataError(f"--set: {_one_line(repr(str(item)))}: expected key=value")
        out[key] = _parse_scalar(text.strip())
    return out


def _parse_scalar(text: str) -> object:
    if text == "":
        return ""
    try:
        doc = tomllib.loads(f"v = {text}")
    except tomllib.TOMLDecodeError:
        return text
    if set(doc) != {"v"}:
        return text
    value = doc["v"]
    if isinstance(value, (bool, int, float, str)):
        return value
    return text


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


def load_cards(
    data_dir: str | Path | None = None, overrides: dict[str, object] | None = None
) -> CardTables:
    """Load, override and validate the card data of `data_dir` (default: the shipped data)."""
    directory = Path(data_dir) if data_dir is not None else default_data_dir()
    if not directory.is_dir():
        raise CardDataError(f"{directory}: (directory): not a directory")
    paths = {name: directory / name for name in DATA_FILES}
    raw = {name: _read_toml(path) for name, path in paths.items()}
    overridden = _apply_overrides(raw, overrides or {})

    game = _Checker(paths[GAME_FILE], overridden)
    game_values, tokens, threat = _validate_game(game, raw[GAME_FILE])
    explo = _validate_exploration(
        _Checker(paths[EXPLORATION_FILE], overridden), raw[EXPLORATION_FILE]
    )
    lords_check = _Checker(paths[LORDS_FILE], overridden)
    lords = _validate_lords(lords_check, raw[LORDS_FILE])
    if len(lords) < game_values["court_size"]:
        lords_check.fail(
            "[[lord]]",
            f"only {len(lords)} Lords, fewer than game.court_size = {game_values['court_size']}",
        )
    locations = _validate_locations(
        _Checker(paths[LOCATIONS_FILE], overridden), raw[LOCATIONS_FILE]
    )
    rules = _validate_rules(_Checker(paths[RULES_FILE], overridden), raw[RULES_FILE])

    canonical = {
        "format": 1,
        "game": game_values,
        "monster_tokens": tokens,
        "threat_track": threat,
        "exploration": explo,
        "lords": lords,
        "locations": locations,
        "rules": rules,
    }
    blob = json.dumps(canonical, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    digest = hashlib.sha256(blob.encode("ascii")).hexdigest()
    return _build_tables(canonical, digest, str(directory.resolve()))


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


def _one_line(text: str) -> str:
    return " ".join(text.split())


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
    for key in RULES_KEYS:
        targets[f"rules.{key}"] = (rules, key)
    explo = raw[EXPLORATION_FILE] if isinstance(raw[EXPLORATION_FILE], dict) else None
    targets["exploration.monsters"] = (explo, "monsters")
    for prefix, file, list_key, fields in (
        ("lord", LORDS_FILE, "lord", LORD_FIELDS),
        ("location", LOCATIONS_FILE, "location", LOCATION_FIELDS),
    ):
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
    import difflib

    close = difflib.get_close_matches(key, candidates, n=3, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in candidates}
        close = [lowered[c] for c in difflib.get_close_matches(key.lower(), list(lowered), n=3)]
    if close:
        return "did you mean " + ", ".join(repr(c) for c in close) + "?"
    return (
        "keys are game.<key>, rules.<key>, exploration.monsters, lord.<slug>.<field>, "
        "location.<slug>.<field> (run `abyss-mc cards` for the names)"
    )


# --------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------


def _type_name(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return type(value).__name__


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class _Checker:
    """Raises CardDataError naming the file, the entry and the problem."""

    def __init__(self, path: Path, overridden: dict[tuple[int, str], str]):
        self.path = path
        self.overridden = overridden

    def fail(self, entry: str, what: str, tbl: Any = None, key: str | None = None) -> None:
        note = ""
        if key is not None and (id(tbl), key) in self.overridden:
            note = f" (set by --set {self.overridden[(id(tbl), key)]})"
        raise CardDataError(_one_line(f"{self.path}: {entry}: {what}{note}"))

    def table(self, value: Any, entry: str, what: str = "expected a table") -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(entry, f"{what}, got {_type_name(value)}")
        return value

    def keys(self, tbl: dict[str, Any], entry: str, required: tuple[str, ...], optional=()) -> None:
        allowed = set(required) | set(optional)
        for key in tbl:
            if key not in allowed:
                expected = ", ".join(list(required) + list(optional))
                self.fail(entry, f"unknown key {key!r} (expected: {expected})", tbl, key)
        for key in required:
            if key not in tbl:
                self.fail(entry, f"missing key {key!r}")

    def integer(self, tbl: dict[str, Any], key: str, entry: str, lo: int, hi: int) -> int:
        value = tbl[key]
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(
                entry,
                f"{key}: expected an integer, got {_type_name(value)} {_show(value)}",
                tbl,
                key,
            )
        if not lo <= value <= hi:
            self.fail(entry, f"{key}: must be in {lo}..{hi}, got {value}", tbl, key)
        return value

    def boolean(self, tbl: dict[str, Any], key: str, entry: str) -> bool:
        value = tbl[key]
        if not isinstance(value, bool):
            self.fail(
                entry,
                f"{key}: expected true or false, got {_type_name(value)} {_show(value)}",
                tbl,
                key,
            )
        return value

    def string(self, tbl: dict[str, Any], key: str, entry: str, nonempty: bool = False) -> str:
        value = tbl[key]
        if not isinstance(value, str):
            self.fail(
                entry, f"{key}: expected a string, got {_type_name(value)} {_show(value)}", tbl, key
            )
        if nonempty and not value.strip():
            self.fail(entry, f"{key}: must not be empty", tbl, key)
        return value

    def choice(self, tbl: dict[str, Any], key: str, entry: str, names: Any, kind: str) -> str:
        """A name from `names` (case-insensitive); returns the lower-case name."""
        value = self.string(tbl, key, entry).strip().lower()
        if value not in names:
            self.fail(
                entry,
                f"{key}: unknown {kind} {tbl[key]!r} (expected one of: {', '.join(names)})",
                tbl,
                key,
            )
        return value

    def int_list(
        self, tbl: dict[str, Any], key: str, entry: str, n: tuple[int, int], lo: int, hi: int
    ) -> list[int]:
        value = tbl[key]
        if not isinstance(value, list):
            self.fail(
                entry,
                f"{key}: expected an array of integers, got {_type_name(value)} {_show(value)}",
                tbl,
                key,
            )
        if not n[0] <= len(value) <= n[1]:
            self.fail(entry, f"{key}: must have {n[0]}..{n[1]} entries, got {len(value)}", tbl, key)
        for i, item in enumerate(value):
            if isinstance(item, bool) or not isinstance(item, int):
                self.fail(
                    entry,
                    f"{key}[{i}]: expected an integer, got {_type_name(item)} {_show(item)}",
                    tbl,
                    key,
                )
            if not lo <= item <= hi:
                self.fail(entry, f"{key}[{i}]: must be in {lo}..{hi}, got {item}", tbl, key)
        return list(value)

    def entries(self, doc: dict[str, Any], key: str, n: tuple[int, int]) -> list[dict]:
        """An array of tables `[[key]]` with n[0]..n[1] entries."""
        value = doc[key]
        entry = f"[[{key}]]"
        if not isinstance(value, list):
            self.fail(entry, f"expected an array of tables, got {_type_name(value)}")
        if not n[0] <= len(value) <= n[1]:
            self.fail(entry, f"must have {n[0]}..{n[1]} entries, got {len(value)}")
        for i, item in enumerate(value):
            self.table(item, f"{entry} entry {i + 1}")
        return value


# --------------------------------------------------------------------------------------------
# Per-file validation: each returns plain canonical data (used for the digest and the arrays)
# --------------------------------------------------------------------------------------------


def _validate_game(c: _Checker, doc: dict[str, Any]):
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


def _validate_exploration(c: _Checker, doc: dict[str, Any]):
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


def _check_unique(c: _Checker, label: str, seen: dict, key: Any, what: str) -> None:
    if key in seen:
        c.fail(label, f"duplicate {what} (also used by {seen[key]})")
    seen[key] = label


def _validate_lords(c: _Checker, doc: dict[str, Any]) -> list[dict[str, Any]]:
    c.keys(doc, "(top level)", ("lord",))
    out = []
    numbers: dict = {}
    names: dict = {}
    slugs: dict = {}
    for i, tbl in enumerate(c.entries(doc, "lord", (1, MAX_LORDS))):
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


def _validate_locations(c: _Checker, doc: dict[str, Any]) -> list[dict[str, Any]]:
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


def _validate_rules(c: _Checker, doc: dict[str, Any]) -> dict[str, Any]:
    c.keys(doc, "(top level)", ("rules",))
    tbl = c.table(doc["rules"], "[rules]")
    c.keys(tbl, "[rules]", RULES_KEYS)
    return {
        "landlord_immediate_pearl": c.boolean(tbl, "landlord_immediate_pearl", "[rules]"),
        "ambassador_mode": c.choice(
            tbl, "ambassador_mode", "[rules]", AMBASSADOR_MODES, "ambassador_mode"
        ),
        "court_end": c.choice(tbl, "court_end", "[rules]", COURT_ENDS, "court_end"),
        "turn_limit": c.integer(tbl, "turn_limit", "[rules]", 10, 10000),
    }


# --------------------------------------------------------------------------------------------
# Arrays
# --------------------------------------------------------------------------------------------


def _arr(values: list[int], dtype: Any) -> np.ndarray:
    return np.ascontiguousarray(np.array(values, dtype=dtype))


def _build_tables(data: dict[str, Any], digest: str, source: str) -> CardTables:
    explo = data["exploration"]
    ally_race: list[int] = []
    ally_value: list[int] = []
    for race in Race:
        values = explo["allies"][race.name.lower()]
        ally_race += [int(race)] * len(values)
        ally_value += values
    ally_race += [MONSTER] * explo["monsters"]
    ally_value += [0] * explo["monsters"]

    lords = data["lords"]
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
        ally_effect=_arr([int(AllyEffect.NONE)] * len(ally_race), np.int8),
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
        rules=RulesOptions(**data["rules"]),
        digest=digest,
        source=source,
    )


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
    lines: list[str] = [f"Card data: {t.source}", f"Digest:    {t.digest}", ""]

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
    lines.append(f"  {'race':<10} {'cards':>5}  {'total':>5}  values")
    for race in Race:
        mask = t.ally_race == int(race)
        values = t.ally_value[mask]
        lines.append(
            f"  {race.name.lower():<10} {int(mask.sum()):>5}  {int(values.sum()):>5}  "
            + " ".join(str(int(v)) for v in values)
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

    lines.append("Rules options")
    for key in RULES_KEYS:
        value = getattr(t.rules, key)
        shown = str(value).lower() if isinstance(value, bool) else value
        lines.append(f"  {key} = {shown}")
    return "\n".join(lines) + "\n"


def _power_name(value: int) -> str:
    for name, power in POWER_BY_NAME.items():
        if int(power) == value:
            return name
    return str(value)
