"""The card tables packed into int32 for the kernels (passed as an argument, never a global, so a
run with edited card data compiles nothing new).

`pack(tables)` copies every number the rules need from `CardTables`; the offsets are module
constants. Rules options become flags. Capacities are those of `games.abyss.engine.state`.
"""

from __future__ import annotations

import numpy as np

from games.abyss.engine.state import (
    MAX_ALLIES,
    MAX_LEV_TOKENS,
    MAX_LEVIATHANS,
    MAX_LOCATIONS,
    MAX_LORDS,
    MAX_TOKENS,
    STATE_SIZE,
    check_capacity,
)
from sim.core.errors import UserError
from sim.core.stack import Layout

MAX_THREAT_SPACES = 16
MAX_THREAT_OPTIONS = 4
MAX_SPACES = 4  # Life spaces of one Leviathan


# Offsets are absolute: the tables follow the state in the kernel's workspace
# (games.abyss.engine.kernel.workspace).
_b = Layout(start=STATE_SIZE)
N_ALLIES, N_LORDS, N_LOCATIONS, N_MONSTER_TOKENS, N_LEVIATHANS, N_LEV_TOKENS = _b.scalars(6)
N_ZONES, N_KEYS, COURT_SIZE, TRACK_LENGTH, STARTING_PEARLS, HAND_LIMIT = _b.scalars(6)
N_THREAT_SPACES, TURN_LIMIT = _b.scalars(2)
EXTRA_PEARLS = _b.block(5)  # a balance experiment: extra starting Pearls by seat (rules.toml)
# rules options and switches (0/1): landlord_immediate_pearl, ambassador_mode == "draw",
# court_end == "bga", leviathan_end_trigger, last_round_extra_turn, powers_after_kill, expansion
LANDLORD_PEARL, AMBASSADOR_DRAW, COURT_END_BGA, LEV_END_TRIGGER = _b.scalars(4)
LAST_ROUND_EXTRA_TURN, POWERS_AFTER_KILL, LEVIATHAN_ON = _b.scalars(3)
# per card
ALLY_RACE, ALLY_VALUE, ALLY_EFFECT, ALLY_EXPANSION = _b.columns(
    MAX_ALLIES, "n_allies", "ally_race", "ally_value", "ally_effect", "ally_expansion"
)
LORD_COST, LORD_RACES, LORD_IP = _b.columns(
    MAX_LORDS, "n_lords", "lord_cost", "lord_races", "lord_ip"
)
LORD_KEYS = _b.block(MAX_LORDS)  # Keys as the rules count them (`lord_key_count`)
LORD_GUILD, LORD_POWER = _b.columns(MAX_LORDS, "n_lords", "lord_guild", "lord_power")
LOC_RULE, LOC_BASE, LOC_MULT, LOC_ARG = _b.columns(
    MAX_LOCATIONS, "n_locations", "location_rule", "location_base", "location_mult",
    "location_arg",
)  # fmt: skip
THREAT_N_OPTIONS = _b.block(MAX_THREAT_SPACES)
THREAT_OPTIONS = _b.block(MAX_THREAT_SPACES * MAX_THREAT_OPTIONS * 3)  # [space, option, kind]
MONSTER_TOKEN_IP = _b.block(MAX_TOKENS)
LEV_RACE, LEV_N_SPACES = _b.columns(
    MAX_LEVIATHANS, "n_leviathans", "leviathan_race", "leviathan_n_spaces"
)
LEV_RESISTANCE = _b.block(MAX_LEVIATHANS * MAX_SPACES)  # [leviathan, space]
LEV_REWARD = _b.block(MAX_LEVIATHANS * MAX_SPACES)  # Monster tokens per Life space
LEV_PENALTY, LEV_PENALTY_N = _b.columns(
    MAX_LEVIATHANS, "n_leviathans", "leviathan_penalty", "leviathan_penalty_n"
)
ZONE_OF_SUM = _b.block(13)
LEV_TOKEN_KIND, LEV_TOKEN_AMOUNT = _b.columns(
    MAX_LEV_TOKENS, "n_leviathan_tokens", "leviathan_token_kind", "leviathan_token_amount"
)
TABLE_END = _b.size


def pack(t) -> np.ndarray:
    """The int32 table vector of `CardTables` `t`."""
    from games.abyss.engine.rules.base import lord_key_count

    check_capacity(t)
    spaces, options, _ = t.threat_options.shape
    if spaces > MAX_THREAT_SPACES or options > MAX_THREAT_OPTIONS:
        raise UserError(
            f"the fast path holds at most {MAX_THREAT_SPACES} Threat spaces of "
            f"{MAX_THREAT_OPTIONS} options; the card data has {spaces} of {options}"
        )
    v = np.zeros(TABLE_END, dtype=np.int32)  # [0, STATE_SIZE) stays zero: the state's place
    lev = "leviathan" in t.expansions
    n_lev = len(t.leviathan_number) if lev else 0
    v[N_ALLIES], v[N_LORDS], v[N_LOCATIONS] = t.n_allies, t.n_lords, t.n_locations
    v[N_MONSTER_TOKENS] = len(t.monster_token_ip)
    v[N_LEVIATHANS] = n_lev
    v[N_LEV_TOKENS] = len(t.leviathan_token_kind) if lev else 0
    v[N_ZONES] = t.n_border_zones if lev else 0
    v[N_KEYS], v[COURT_SIZE], v[TRACK_LENGTH] = t.n_keys, t.court_size, t.track_length
    v[STARTING_PEARLS], v[HAND_LIMIT] = t.starting_pearls, t.hand_limit
    v[N_THREAT_SPACES], v[TURN_LIMIT] = spaces, t.rules.turn_limit
    v[EXTRA_PEARLS:EXTRA_PEARLS + 5] = t.rules.extra_pearls()
    v[LANDLORD_PEARL] = int(t.rules.landlord_immediate_pearl)
    v[AMBASSADOR_DRAW] = int(t.rules.ambassador_mode == "draw")
    v[COURT_END_BGA] = int(t.rules.court_end == "bga")
    v[LEV_END_TRIGGER] = int(t.rules.leviathan_end_trigger)
    v[LAST_ROUND_EXTRA_TURN] = int(t.rules.last_round_extra_turn)
    v[POWERS_AFTER_KILL] = int(t.rules.powers_after_kill)
    v[LEVIATHAN_ON] = int(lev)
    n = t.n_allies
    if n and (int(t.ally_value.max()) > 15 or int(t.ally_value.min()) < 0):
        raise UserError("the fast path holds Ally values 0-15; the card data has others")
    _b.fill(v, t)
    v[LORD_KEYS : LORD_KEYS + t.n_lords] = [lord_key_count(t, lord) for lord in range(t.n_lords)]
    v[THREAT_N_OPTIONS : THREAT_N_OPTIONS + spaces] = t.threat_n_options
    for space in range(spaces):
        for k in range(options):
            for kind in range(3):
                v[THREAT_OPTIONS + (space * MAX_THREAT_OPTIONS + k) * 3 + kind] = t.threat_options[
                    space, k, kind
                ]
    v[MONSTER_TOKEN_IP : MONSTER_TOKEN_IP + len(t.monster_token_ip)] = t.monster_token_ip
    if lev:
        width = t.leviathan_resistance.shape[1]
        if width > MAX_SPACES:
            raise UserError(f"the fast path holds Leviathans of at most {MAX_SPACES} Life spaces")
        for i in range(n_lev):
            for sp in range(width):
                v[LEV_RESISTANCE + i * MAX_SPACES + sp] = t.leviathan_resistance[i, sp]
                v[LEV_REWARD + i * MAX_SPACES + sp] = t.leviathan_tokens[i, sp]
        v[ZONE_OF_SUM : ZONE_OF_SUM + 13] = t.border_zone_of_sum
    return v
