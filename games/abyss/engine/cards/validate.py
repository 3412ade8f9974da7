"""The base game's card files, checked: each function takes a `Checker` (one-line errors naming the
file, the entry and the problem) and returns plain canonical data (for the digest and the arrays).
"""

from __future__ import annotations

from typing import Any

from sim.core.carddata import Checker, _show, entry_label

from .constants import LOCATION_RULE_BY_NAME, N_RACES, POWER_BY_NAME, Guild, LocationRule, Race
from .tables import GUILD_BY_NAME, RACE_BY_NAME, RULES_WITH_GUILD_ARG

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
#: a balance experiment, never a default: extra starting Pearls by seat (seat 1, then 2 to 5)
SEAT_PEARLS_KEYS = ("first_player_pearls", *(f"seat_{n}_pearls" for n in range(2, 6)))
BASE_OPTIONAL_RULES_DEFAULTS = {"last_round_extra_turn": False,
                                **dict.fromkeys(SEAT_PEARLS_KEYS, 0)}
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
RULES_WITH_RACE_ARG = (LocationRule.AFFILIATED_RACE,)


def validate_game(c: Checker, doc: dict[str, Any]):
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


def validate_exploration(c: Checker, doc: dict[str, Any]):
    c.keys(doc, "(top level)", ("monsters",) + RACE_NAMES)
    monsters = c.integer(doc, "monsters", "(top level)", 0, 20)
    allies = {}
    for race in RACE_NAMES:
        entry = f"[{race}]"
        tbl = c.table(doc[race], entry)
        c.keys(tbl, entry, ("values",))
        allies[race] = c.int_list(tbl, "values", entry, (1, MAX_ALLIES_PER_RACE), 1, 9)
    return {"monsters": monsters, "allies": allies}


def validate_lords(c: Checker, doc: dict[str, Any]) -> list[dict[str, Any]]:
    c.keys(doc, "(top level)", ("lord",))
    return lord_entries(c, c.entries(doc, "lord", (1, MAX_LORDS)))


def lord_entries(c: Checker, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    seen: tuple[dict, dict, dict] = ({}, {}, {})
    for i, tbl in enumerate(entries):
        label = entry_label("lord", i, tbl)
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
        c.card_names(label, tbl, seen, lord["number"], lord["name"], "lord")
        out.append(lord)
    return out


def validate_locations(c: Checker, doc: dict[str, Any]) -> list[dict[str, Any]]:
    c.keys(doc, "(top level)", ("location",))
    out = []
    seen: tuple[dict, dict, dict] = ({}, {}, {})
    required = tuple(f for f in LOCATION_FIELDS if f != "arg")
    for i, tbl in enumerate(c.entries(doc, "location", (1, MAX_LOCATIONS))):
        label = entry_label("location", i, tbl)
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
        c.card_names(label, tbl, seen, loc["number"], loc["name"], "location")
        out.append(loc)
    return out


def validate_rules(c: Checker, doc: dict[str, Any]) -> dict[str, Any]:
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
        if key not in tbl:
            out[key] = default
        elif isinstance(default, bool):
            out[key] = c.boolean(tbl, key, "[rules]")
        else:  # extra starting Pearls by seat, a balance experiment
            out[key] = c.integer(tbl, key, "[rules]", 0, 20)
    return out
