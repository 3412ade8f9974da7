"""The loaded card data as text (`abyss-mc cards`)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from .constants import MONSTER, N_RACES, POWER_BY_NAME, AllyEffect, Guild, LocationRule, Race
from .leviathan import describe_leviathan
from .tables import EXPANSION_CODE, LEVIATHAN, CardTables
from .validate import BASE_RULES_KEYS, LEVIATHAN_RULES_KEYS


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
        lines += describe_leviathan(t)

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


def _power_name(value: int) -> str:
    for name, power in POWER_BY_NAME.items():
        if int(power) == value:
            return name
    return str(value)
