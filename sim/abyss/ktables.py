"""The card tables packed into int32 for the kernels (passed as an argument, never a global, so a
run with edited card data compiles nothing new).

`pack(tables)` copies every number the rules need from `CardTables`; the offsets are module
constants. Rules options become flags. Capacities are those of `sim.abyss.state`.
"""

from __future__ import annotations

import numpy as np

from sim.abyss.state import (
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


# Offsets are absolute: the tables follow the state in the kernel's workspace (sim.abyss.workspace).
_b = Layout()
_b.size = STATE_SIZE
N_ALLIES = _b.scalar()
N_LORDS = _b.scalar()
N_LOCATIONS = _b.scalar()
N_MONSTER_TOKENS = _b.scalar()
N_LEVIATHANS = _b.scalar()
N_LEV_TOKENS = _b.scalar()
N_ZONES = _b.scalar()
N_KEYS = _b.scalar()
COURT_SIZE = _b.scalar()
TRACK_LENGTH = _b.scalar()
STARTING_PEARLS = _b.scalar()
HAND_LIMIT = _b.scalar()
N_THREAT_SPACES = _b.scalar()
TURN_LIMIT = _b.scalar()
# rules options and switches (0/1)
LANDLORD_PEARL = _b.scalar()
AMBASSADOR_DRAW = _b.scalar()  # ambassador_mode == "draw"
COURT_END_BGA = _b.scalar()  # court_end == "bga"
LEV_END_TRIGGER = _b.scalar()
LAST_ROUND_EXTRA_TURN = _b.scalar()
POWERS_AFTER_KILL = _b.scalar()
LEVIATHAN_ON = _b.scalar()
# per card
ALLY_RACE = _b.block(MAX_ALLIES)
ALLY_VALUE = _b.block(MAX_ALLIES)
ALLY_EFFECT = _b.block(MAX_ALLIES)
ALLY_EXPANSION = _b.block(MAX_ALLIES)
LORD_COST = _b.block(MAX_LORDS)
LORD_RACES = _b.block(MAX_LORDS)
LORD_IP = _b.block(MAX_LORDS)
LORD_KEYS = _b.block(MAX_LORDS)  # Keys as the rules count them (`lord_key_count`)
LORD_GUILD = _b.block(MAX_LORDS)
LORD_POWER = _b.block(MAX_LORDS)
LOC_RULE = _b.block(MAX_LOCATIONS)
LOC_BASE = _b.block(MAX_LOCATIONS)
LOC_MULT = _b.block(MAX_LOCATIONS)
LOC_ARG = _b.block(MAX_LOCATIONS)
THREAT_N_OPTIONS = _b.block(MAX_THREAT_SPACES)
THREAT_OPTIONS = _b.block(MAX_THREAT_SPACES * MAX_THREAT_OPTIONS * 3)  # [space, option, kind]
MONSTER_TOKEN_IP = _b.block(MAX_TOKENS)
LEV_RACE = _b.block(MAX_LEVIATHANS)
LEV_N_SPACES = _b.block(MAX_LEVIATHANS)
LEV_RESISTANCE = _b.block(MAX_LEVIATHANS * MAX_SPACES)  # [leviathan, space]
LEV_REWARD = _b.block(MAX_LEVIATHANS * MAX_SPACES)  # Monster tokens per Life space
LEV_PENALTY = _b.block(MAX_LEVIATHANS)
LEV_PENALTY_N = _b.block(MAX_LEVIATHANS)
ZONE_OF_SUM = _b.block(13)
LEV_TOKEN_KIND = _b.block(MAX_LEV_TOKENS)
LEV_TOKEN_AMOUNT = _b.block(MAX_LEV_TOKENS)
TABLE_END = _b.size
del _b


def pack(t) -> np.ndarray:
    """The int32 table vector of `CardTables` `t`."""
    from sim.abyss.rules_base import lord_key_count

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
    v[ALLY_RACE : ALLY_RACE + n] = t.ally_race
    v[ALLY_VALUE : ALLY_VALUE + n] = t.ally_value
    v[ALLY_EFFECT : ALLY_EFFECT + n] = t.ally_effect
    v[ALLY_EXPANSION : ALLY_EXPANSION + n] = t.ally_expansion
    n = t.n_lords
    v[LORD_COST : LORD_COST + n] = t.lord_cost
    v[LORD_RACES : LORD_RACES + n] = t.lord_races
    v[LORD_IP : LORD_IP + n] = t.lord_ip
    v[LORD_KEYS : LORD_KEYS + n] = [lord_key_count(t, lord) for lord in range(n)]
    v[LORD_GUILD : LORD_GUILD + n] = t.lord_guild
    v[LORD_POWER : LORD_POWER + n] = t.lord_power
    n = t.n_locations
    v[LOC_RULE : LOC_RULE + n] = t.location_rule
    v[LOC_BASE : LOC_BASE + n] = t.location_base
    v[LOC_MULT : LOC_MULT + n] = t.location_mult
    v[LOC_ARG : LOC_ARG + n] = t.location_arg
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
        v[LEV_RACE : LEV_RACE + n_lev] = t.leviathan_race
        v[LEV_N_SPACES : LEV_N_SPACES + n_lev] = t.leviathan_n_spaces
        for i in range(n_lev):
            for sp in range(width):
                v[LEV_RESISTANCE + i * MAX_SPACES + sp] = t.leviathan_resistance[i, sp]
                v[LEV_REWARD + i * MAX_SPACES + sp] = t.leviathan_tokens[i, sp]
        v[LEV_PENALTY : LEV_PENALTY + n_lev] = t.leviathan_penalty
        v[LEV_PENALTY_N : LEV_PENALTY_N + n_lev] = t.leviathan_penalty_n
        v[ZONE_OF_SUM : ZONE_OF_SUM + 13] = t.border_zone_of_sum
        n_tok = len(t.leviathan_token_kind)
        v[LEV_TOKEN_KIND : LEV_TOKEN_KIND + n_tok] = t.leviathan_token_kind
        v[LEV_TOKEN_AMOUNT : LEV_TOKEN_AMOUNT + n_tok] = t.leviathan_token_amount
    return v
