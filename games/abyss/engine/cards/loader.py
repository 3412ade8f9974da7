"""Card data loader: the only place where card names live.

The data ships as five TOML files in `games/abyss/engine/data/` (game, exploration, lords,
locations, rules) that game designers may edit, plus one file per expansion in `data/expansions/`
(`leviathan.toml`). `load_cards` reads a directory of them, applies `--set` overrides to the raw
data, validates everything and returns a `CardTables` of C-contiguous numpy arrays ready for the
numba kernels. Every problem raises `CardDataError` with a one-line message
"<file>: <entry>: <what is wrong>".

An expansion file is validated whenever it is present (so its `--set` keys are always accepted),
but its cards enter the tables only when the expansion is requested (`expansions=("leviathan",)`).

The files are checked by `cards.validate` and `cards.leviathan`, turned into arrays by
`cards.tables` and described by `cards.describe`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sim.core.carddata import (
    CardDataError,
    Checker,
    apply_overrides,
    digest,
    read_data_files,
    read_toml,
    slugify,
    subtable,
    value_of,
)

from .describe import describe  # `abyss-mc cards` (games.abyss.SPEC)
from .leviathan import (
    LEVIATHAN_FIELDS,
    LEVIATHAN_GAME_KEYS,
    check_leviathan_against_base,
    validate_leviathan,
)
from .tables import DICE_SUMS, LEVIATHAN, CardTables, build_tables
from .validate import (
    BASE_RULES_KEYS,
    GAME_KEYS,
    LEVIATHAN_RULES_KEYS,
    LOCATION_FIELDS,
    LORD_FIELDS,
    OPTIONAL_RULES_DEFAULTS,
    SEAT_PEARLS_KEYS,
    validate_exploration,
    validate_game,
    validate_locations,
    validate_lords,
    validate_rules,
)

__all__ = ["KNOWN_EXPANSIONS", "default_data_dir", "describe", "load_cards"]

GAME_FILE = "game.toml"
EXPLORATION_FILE = "exploration.toml"
LORDS_FILE = "lords.toml"
LOCATIONS_FILE = "locations.toml"
RULES_FILE = "rules.toml"
DATA_FILES = (GAME_FILE, EXPLORATION_FILE, LORDS_FILE, LOCATIONS_FILE, RULES_FILE)
EXPANSIONS_DIR = "expansions"  # subdirectory of the data directory holding expansion files
LEVIATHAN_FILE = f"{EXPANSIONS_DIR}/leviathan.toml"  # relative to the data directory
KNOWN_EXPANSIONS = (LEVIATHAN,)


def default_data_dir() -> Path:
    """The directory of the shipped base-game card data."""
    return Path(__file__).resolve().parents[1] / "data"


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


def set_value(data_dir: str | Path | None, overrides: dict[str, object] | None, key: str):
    """The value of the `--set` key `key` in the card data of `data_dir` after `overrides`
    (`abyss-mc design`: the value a search starts from)."""
    directory = Path(data_dir) if data_dir is not None else default_data_dir()
    _, raw = read_data_files(directory, DATA_FILES, (LEVIATHAN_FILE,))
    if (directory / LEVIATHAN_FILE).exists():
        raw[LEVIATHAN_FILE] = read_toml(directory / LEVIATHAN_FILE)
    apply_overrides(raw, overrides or {}, _override_targets, _KEYS_HINT)
    defaults = {f"rules.{k}": v for k, v in OPTIONAL_RULES_DEFAULTS.items()}
    return value_of(raw, key, _override_targets, _KEYS_HINT, defaults)


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
    paths, raw = read_data_files(directory, DATA_FILES, (LEVIATHAN_FILE,))
    lev_path = directory / LEVIATHAN_FILE
    if LEVIATHAN in wanted or lev_path.exists():
        paths[LEVIATHAN_FILE] = lev_path
        raw[LEVIATHAN_FILE] = read_toml(lev_path)
    overridden = apply_overrides(raw, overrides or {}, _override_targets, _KEYS_HINT)

    game = Checker(paths[GAME_FILE], overridden)
    game_values, tokens, threat = validate_game(game, raw[GAME_FILE])
    explo = validate_exploration(
        Checker(paths[EXPLORATION_FILE], overridden), raw[EXPLORATION_FILE]
    )
    lords_check = Checker(paths[LORDS_FILE], overridden)
    lords = validate_lords(lords_check, raw[LORDS_FILE])
    locations = validate_locations(Checker(paths[LOCATIONS_FILE], overridden), raw[LOCATIONS_FILE])
    rules_all = validate_rules(Checker(paths[RULES_FILE], overridden), raw[RULES_FILE])
    rules = {key: rules_all[key] for key in BASE_RULES_KEYS}
    for key in SEAT_PEARLS_KEYS:  # the rules as printed keep their digest
        if not rules[key]:
            del rules[key]

    leviathan = None
    if LEVIATHAN_FILE in raw:
        lev_check = Checker(paths[LEVIATHAN_FILE], overridden)
        leviathan = validate_leviathan(lev_check, raw[LEVIATHAN_FILE])
        if LEVIATHAN in wanted:
            check_leviathan_against_base(lev_check, leviathan, lords, lords_check.path)
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
    return build_tables(canonical, rules_all, digest(canonical), str(directory.resolve()))


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


# --------------------------------------------------------------------------------------------
# Overrides
# --------------------------------------------------------------------------------------------


def _override_targets(raw: dict[str, dict[str, Any]]) -> dict[str, tuple[dict | None, str]]:
    """Every valid override key -> (raw table to modify or None if the file is broken, field)."""
    targets: dict[str, tuple[dict | None, str]] = {}
    table = subtable
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


_KEYS_HINT = (
    "keys are game.<key>, rules.<key>, exploration.monsters, lord.<slug>.<field>, "
    "location.<slug>.<field>, leviathan.<number>.<field>, leviathan_game.<key>, "
    "leviathan_exploration.monsters, border.zones, border.zone_of_sum.<sum> "
    "(run `abyss-mc cards` for the names)"
)
