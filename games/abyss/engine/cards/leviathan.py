"""The Leviathan expansion's card file (`expansions/leviathan.toml`), checked on its own and, when
the expansion is played, against the base game's Lords."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from sim.core.carddata import Checker, _show, _type_name, entry_label, slugify

from .constants import LeviathanToken, Penalty, Race
from .tables import (
    DICE_SUMS,
    EFFECT_BY_NAME,
    LEVIATHAN_TOKEN_BY_NAME,
    MAX_SPACES,
    NO_RACE,
    PENALTY_BY_NAME,
    RACE_BY_NAME,
    CardTables,
)
from .validate import MAX_ALLIES_PER_RACE, MAX_LORDS, MAX_NUMBER, RACE_NAMES, lord_entries

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
MAX_LEVIATHANS = 60
RESISTANCE_RANGE = (1, 30)
SPACE_TOKENS_RANGE = (0, 6)
PENALTY_N_RANGE = (0, 10)
MAX_BORDER_ZONES = len(DICE_SUMS)


def validate_leviathan(c: Checker, doc: dict[str, Any]) -> dict[str, Any]:
    """expansions/leviathan.toml on its own (the checks against the base data come later)."""
    c.keys(doc, "(top level)", LEVIATHAN_TOP_KEYS)
    remove = c.int_list(doc, "remove_lords", "(top level)", (0, MAX_LORDS), 1, MAX_NUMBER)
    if len(set(remove)) != len(remove):
        dup = next(n for n in remove if remove.count(n) > 1)
        c.fail("(top level)", f"remove_lords: duplicate number {dup}", doc, "remove_lords")
    lords = lord_entries(c, c.entries(doc, "lord", (0, MAX_LORDS)))
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
        label = entry_label("leviathan", i, tbl)
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
            ranges = {"resistance": RESISTANCE_RANGE, "tokens": SPACE_TOKENS_RANGE}
            pairs.append(
                [
                    c.bounded(item, f"spaces[{k}] {what}", label, *ranges[what], tbl, "spaces")
                    for what, item in zip(ranges, space, strict=True)
                ]
            )
        card = {
            "number": number,
            "race": race,
            "spaces": pairs,
            "penalty": c.choice(tbl, "penalty", label, PENALTY_BY_NAME, "penalty"),
            "penalty_n": c.integer(tbl, "penalty_n", label, *PENALTY_N_RANGE),
        }
        c.unique(label, numbers, number, f"number {number}")
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


def check_leviathan_against_base(
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
        label = entry_label("lord", i, lo)
        c.card_names(label, lo, (numbers, names, slugs), lo["number"], lo["name"], "lord")


# ---- describe


def _token_text(kind: int, amount: int) -> str:
    noun = {
        LeviathanToken.PEARLS: ("Pearl", "Pearls"),
        LeviathanToken.KEY: ("Key", "Keys"),
        LeviathanToken.COUNCIL: ("Council stack", "Council stacks"),
    }[LeviathanToken(kind)]
    return f"{amount} {noun[amount != 1]}"


def describe_leviathan(t: CardTables) -> list[str]:
    """The Leviathan cards, the Border, the tokens and the expansion's game values, as text."""
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
