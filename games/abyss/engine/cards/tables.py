"""The validated card data as the arrays the engines read (`CardTables`), and how they are built
from the canonical data of `games.abyss.engine.cards.loader.load_cards`.

Only numpy and the standard library are imported (plus the integer codes of `constants`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.core.carddata import count_of, slugify
from sim.core.carddata import int_array as _arr

from .constants import (
    LOCATION_RULE_BY_NAME,
    MONSTER,
    POWER_BY_NAME,
    AllyEffect,
    Guild,
    LeviathanToken,
    LocationRule,
    Penalty,
    Race,
)

LEVIATHAN = "leviathan"
EXPANSION_CODE = {LEVIATHAN: 1}  # ally_expansion / lord_expansion; 0 = base game
BASE_MAX_PLAYERS = 4  # base game: 2-4 players
GUILD_BY_NAME = {g.name.lower(): g for g in Guild}
RACE_BY_NAME = {r.name.lower(): r for r in Race}
EFFECT_BY_NAME = {e.name.lower(): e for e in AllyEffect}
PENALTY_BY_NAME = {p.name.lower(): p for p in Penalty}
# Token names in leviathan.toml -> (kind, amount)
LEVIATHAN_TOKEN_BY_NAME = {
    "pearls2": (LeviathanToken.PEARLS, 2),
    "pearls3": (LeviathanToken.PEARLS, 3),
    "key": (LeviathanToken.KEY, 1),
    "council": (LeviathanToken.COUNCIL, 1),
}

RULES_WITH_GUILD_ARG = (LocationRule.GUILD_LORDS,)
NO_RACE = "none"  # a Leviathan without a printed race (only Crabs can attack it)
MAX_SPACES = 3  # Life spaces per Leviathan; leviathan_resistance / _tokens have this many columns
DICE_SUMS = tuple(range(2, 13))  # 2d6


@dataclass(frozen=True)
class RulesOptions:
    """Rules options of rules.toml (see the comments there for each reading and its source)."""

    landlord_immediate_pearl: bool
    ambassador_mode: str
    court_end: str
    turn_limit: int
    last_round_extra_turn: bool = False  # the Invoker's extra turn also after the end's trigger
    # a balance experiment (never a default): extra starting Pearls for seat 1, 2, ... 5
    first_player_pearls: int = 0
    seat_2_pearls: int = 0
    seat_3_pearls: int = 0
    seat_4_pearls: int = 0
    seat_5_pearls: int = 0
    # Leviathan expansion (optional in rules.toml; read whether or not the expansion is loaded)
    leviathan_20th_token: bool = True  # add the PLACEHOLDER 20th Leviathan Monster token
    leviathan_end_trigger: bool = True  # seed text's end trigger (false: BGA, no trigger)
    powers_after_kill: bool = False  # once-per-turn powers still offered after a kill

    def extra_pearls(self) -> tuple[int, int, int, int, int]:
        """The extra starting Pearls of seats 1 to 5 (all 0 in the rules as printed)."""
        return (self.first_player_pearls, self.seat_2_pearls, self.seat_3_pearls,
                self.seat_4_pearls, self.seat_5_pearls)  # fmt: skip


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

    #: Exploration cards (Allies and Monsters); card ids are 0..n_allies-1.
    n_allies = count_of("ally_race")
    n_lords = count_of("lord_number")
    n_locations = count_of("location_number")
    n_threat_spaces = count_of("threat_n_options")
    n_leviathans = count_of("leviathan_number")
    n_leviathan_tokens = count_of("leviathan_token_kind")

    def lord_slug(self, i: int) -> str:
        """The `--set lord.<slug>.<field>` name of lord id `i`."""
        return slugify(self.lord_name[i])

    def location_slug(self, i: int) -> str:
        """The `--set location.<slug>.<field>` name of location id `i`."""
        return slugify(self.location_name[i])


def build_tables(
    data: dict[str, Any], rules: dict[str, Any], digest: str, source: str
) -> CardTables:
    """`CardTables` of the canonical data `data` (rules: every rules option)."""
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
