"""The game state as one fixed-shape int32 vector: the fast path's memory and the bridge between
the two engines.

Every list of the reference engine (`games.abyss.engine.rules.game.Game`) is stored as a *stack
segment*:
``s[off]`` holds its length and ``s[off + 1 : off + 1 + length]`` its items in the same order as the
Python list. Keeping the order matters: the order of a discard pile decides the next reshuffle, so
mirroring the lists exactly is what makes the two engines play bit-identical games. Sets of the
reference engine (Lords under a Location, disabled Lords) become per-Lord flags.

The offsets are module constants (numba compiles them in). Capacities are fixed maxima checked
against the card tables by `check_capacity`.

`encode(game)` turns a reference `Game` into (state, rng counters);
`games.abyss.engine.rules.decode.decode`
rebuilds a `Game` that plays on identically. Both are plain Python; the kernel
(`games.abyss.engine.kernel.game`) works on the vector.
"""

from __future__ import annotations

import numpy as np

from sim.core.errors import UserError
from sim.core.stack import Layout

MAX_PLAYERS = 5
MAX_ALLIES = 128
MAX_LORDS = 64
MAX_LOCATIONS = 32
MAX_TOKENS = 48  # base-game Monster tokens
MAX_LEVIATHANS = 32
MAX_LEV_TOKENS = 48
MAX_ZONES = 12
MAX_TRACK = 16
MAX_UNDER = 6  # Lords slid under one Location (3 Keys, or one Ambassador)

#: End reasons, as stored in the state and in the results schema.
END_REASONS = (
    "none",
    "seventh_lord",
    "court_empty",
    "leviathan_deck_empty",
    "monster_tokens_empty",
    "turn_limit",
)
END_NONE, END_SEVENTH_LORD, END_COURT, END_LEVIATHAN_DECK, END_TOKENS, END_TURN_LIMIT = range(6)

#: Result fields of a finished game written by the kernel: out_seats[seat, R_*] ...
R_SCORE, R_LORDS, R_LOCATIONS, R_ALLIES, R_MONSTERS, R_WOUNDS_IP, R_SCOURGE = range(7)
R_PEARLS, R_KEYS, R_N_LORDS, R_N_LOCATIONS, R_N_AFFILIATED, R_N_TOKENS = range(7, 13)
R_KILLED, R_WOUNDS, R_RANK = 13, 14, 15
# The Lords a seat recruited during the game and the Locations it holds at the end, as bit sets
# of card indices (int32 words: Lords 0-31 and 32-63, Locations 0-31).
R_LORDS_LO, R_LORDS_HI, R_LOCATION_SET = 16, 17, 18
N_SEAT_FIELDS = 19
#: ... and out_game[RG_*]
RG_TURNS, RG_END, RG_FIGHTS, RG_CONTINUES, RG_LEV_ATTACKS, RG_KILLS, RG_TRIGGER = range(7)
N_GAME_FIELDS = 7
#: The results' per-seat columns (docs/results-schema.md) read from out_seats[seat, R_*] ...
SEAT_FIELDS = {
    "score": R_SCORE,
    "score_lords": R_LORDS,
    "score_locations": R_LOCATIONS,
    "score_allies": R_ALLIES,
    "score_monsters": R_MONSTERS,
    "score_wounds": R_WOUNDS_IP,
    "score_scourge": R_SCOURGE,
    "pearls": R_PEARLS,
    "keys": R_KEYS,
    "n_lords": R_N_LORDS,
    "n_locations": R_N_LOCATIONS,
    "n_affiliated": R_N_AFFILIATED,
    "n_monster_tokens": R_N_TOKENS,
    "leviathans_killed": R_KILLED,
    "wounds": R_WOUNDS,
    "rank": R_RANK,
}
#: ... and the per-game counts read from out_game[RG_*]
GAME_FIELDS = {
    "turns": RG_TURNS,
    "n_fights": RG_FIGHTS,
    "n_continues": RG_CONTINUES,
    "n_leviathan_attacks": RG_LEV_ATTACKS,
    "n_kills": RG_KILLS,
}


_b = Layout()
# --- game scalars: the turn, the seat playing it, the end's reason, over, an extra turn due
TURN, ACTIVE, END_REASON, OVER, EXTRA_TURN = _b.scalars(5)
THREAT, KEY_PILE, N_PLAYERS = _b.scalars(3)
LEVIATHAN = _b.scalar()  # 1 when the expansion is on
PEARLS_FROM, PEARLS_TO = _b.scalars(2)  # Treasury ledger
N_FIGHTS, N_CONTINUES, N_LEV_ATTACKS, N_KILLS = _b.scalars(4)
NEXT_SEAT = _b.scalar()  # seat of the next turn (play loop)
FINAL_ROUND = _b.scalar()  # 1 once the last round's seats are known
SCOURGE = _b.scalar()  # seat holding the Scourge, -1
# observations kept for policies
PENDING_REWARD_SPACE, PENDING_COST, PENDING_ZONE, PENDING_POWER, FIGHT_ZONE = _b.scalars(5)
# --- game stacks
FINAL_TURNS = _b.stack(MAX_PLAYERS)
EXP_DECK, EXP_DISCARD = _b.stacks(2, MAX_ALLIES)
TRACK = _b.stack(MAX_TRACK)
COUNCIL_STRIDE = 1 + MAX_ALLIES
COUNCIL = _b.block(5 * COUNCIL_STRIDE)  # stack of race r at COUNCIL + r * COUNCIL_STRIDE
LORD_DECK, COURT, LORD_DISCARD = _b.stacks(3, MAX_LORDS)
LOC_DECK, LOC_AVAILABLE = _b.stacks(2, MAX_LOCATIONS)
MONSTER_TOKENS = _b.stack(MAX_TOKENS)
PENDING_USED = _b.stack(MAX_ALLIES)  # Allies paid so far in the current recruitment
LEV_DECK, LEV_DISCARD = _b.stacks(2, MAX_LEVIATHANS)
LEV_TOKENS, LEV_TOKEN_DISCARD = _b.stacks(2, MAX_LEV_TOKENS)
# per zone: the Leviathan there (-1 free) and its Life token's space
BORDER, LIFE = _b.blocks(2, MAX_ZONES)
# --- per Lord (1 if slid under a Location; 1 if disabled by the Assassin) / per Location
LORD_UNDER, LORD_DISABLED = _b.blocks(2, MAX_LORDS)
LOC_LORDS_STRIDE = 1 + MAX_UNDER
LOC_LORDS = _b.block(MAX_LOCATIONS * LOC_LORDS_STRIDE)  # Lords under Location l, as a stack
# --- players: fields at PLAYERS + seat * P_STRIDE + field
_p = Layout()
P_PEARLS, P_KEYS, P_WOUNDS = _p.scalars(3)
P_BOUGHT = _p.scalar()  # bought an Ally this turn
P_USED_POWERS = _p.scalar()  # bit k: once-per-turn power k used this turn
P_HAND, P_AFFILIATED = _p.stacks(2, MAX_ALLIES)
P_LORDS = _p.stack(MAX_LORDS)
P_LOCATIONS = _p.stack(MAX_LOCATIONS)
P_TOKENS = _p.stack(MAX_TOKENS)
P_KILLED = _p.stack(MAX_LEVIATHANS)
P_HELD = _p.stack(MAX_LEV_TOKENS)
P_RECRUITED = _p.stack(MAX_LORDS)  # every Lord the seat ever gained, in order (for the results)
P_STRIDE = _p.size
PLAYERS = _b.block(MAX_PLAYERS * P_STRIDE)
STATE_SIZE = _b.size
del _b, _p


def check_capacity(t) -> None:
    """The card tables must fit the state's fixed capacities (a clear error otherwise)."""
    limits = [
        ("Exploration cards", t.n_allies, MAX_ALLIES),
        ("Lords", t.n_lords, MAX_LORDS),
        ("Locations", t.n_locations, MAX_LOCATIONS),
        ("Monster tokens", len(t.monster_token_ip), MAX_TOKENS),
        ("Leviathans", len(t.leviathan_number), MAX_LEVIATHANS),
        ("Leviathan tokens", len(t.leviathan_token_kind), MAX_LEV_TOKENS),
        ("Border zones", t.n_border_zones, MAX_ZONES),
        ("Exploration Track spaces", t.track_length, MAX_TRACK),
        ("players", t.max_players, MAX_PLAYERS),
    ]
    for what, n, cap in limits:
        if n > cap:
            raise UserError(f"the fast path holds at most {cap} {what}; the card data has {n}")


# ------------------------------------------------------------------------- encode / decode
def _put(s: np.ndarray, off: int, items, cap: int, what: str) -> None:
    n = len(items)
    if n > cap:
        raise ValueError(f"{what}: {n} items exceed the capacity {cap}")
    s[off] = n
    if n:  # (a quarter of encode's time went to empty stacks)
        s[off + 1 : off + 1 + n] = items


def stack_items(s: np.ndarray, off: int) -> list[int]:
    """The items of the stack segment at `off`, as a list."""
    return [int(x) for x in s[off + 1 : off + 1 + int(s[off])]]


def encode(g) -> tuple[np.ndarray, np.ndarray]:
    """The state vector and the RNG counters of a reference `Game` (between two decisions)."""
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    s[TURN], s[ACTIVE] = g.turn, g.active
    s[END_REASON] = END_REASONS.index(g.end_reason or "none")
    s[OVER], s[EXTRA_TURN], s[THREAT] = int(g.over), int(g.extra_turn), g.threat
    s[KEY_PILE], s[N_PLAYERS], s[LEVIATHAN] = g.key_pile, g.n_players, int(g.leviathan)
    s[PEARLS_FROM], s[PEARLS_TO] = g.pearls_from_treasury, g.pearls_to_treasury
    s[N_FIGHTS], s[N_CONTINUES] = g.n_fights, g.n_continues
    s[N_LEV_ATTACKS], s[N_KILLS] = g.n_leviathan_attacks, g.n_kills
    s[NEXT_SEAT] = g.next_seat
    s[FINAL_ROUND] = int(g.final_turns is not None)
    _put(s, FINAL_TURNS, g.final_turns or [], MAX_PLAYERS, "final turns")
    s[PENDING_REWARD_SPACE] = g.pending_reward_space
    s[PENDING_COST] = g.pending_payment[0]
    _put(s, PENDING_USED, g.pending_payment[1], MAX_ALLIES, "payment")
    s[PENDING_ZONE], s[PENDING_POWER] = g.pending_attack
    s[FIGHT_ZONE] = g.fight_zone
    _put(s, EXP_DECK, g.exploration_deck, MAX_ALLIES, "Exploration deck")
    _put(s, EXP_DISCARD, g.exploration_discard, MAX_ALLIES, "Exploration discard")
    _put(s, TRACK, g.track, MAX_TRACK, "Exploration Track")
    for r, stack in enumerate(g.council):
        _put(s, COUNCIL + r * COUNCIL_STRIDE, stack, MAX_ALLIES, "Council")
    _put(s, LORD_DECK, g.lord_deck, MAX_LORDS, "Lord deck")
    _put(s, COURT, g.court, MAX_LORDS, "Court")
    _put(s, LORD_DISCARD, g.lord_discard, MAX_LORDS, "Lord discard")
    _put(s, LOC_DECK, g.location_deck, MAX_LOCATIONS, "Location deck")
    _put(s, LOC_AVAILABLE, g.locations_available, MAX_LOCATIONS, "Locations")
    _put(s, MONSTER_TOKENS, g.monster_tokens, MAX_TOKENS, "Monster tokens")
    s[BORDER : BORDER + MAX_ZONES] = -1
    s[SCOURGE] = -1
    if g.leviathan:
        s[SCOURGE] = g.scourge
        _put(s, LEV_DECK, g.leviathan_deck, MAX_LEVIATHANS, "Leviathan deck")
        _put(s, LEV_DISCARD, g.leviathan_discard, MAX_LEVIATHANS, "Leviathan discard")
        _put(s, LEV_TOKENS, g.leviathan_tokens, MAX_LEV_TOKENS, "Leviathan tokens")
        _put(s, LEV_TOKEN_DISCARD, g.leviathan_token_discard, MAX_LEV_TOKENS, "token discard")
        s[BORDER : BORDER + len(g.border)] = g.border
        s[LIFE : LIFE + len(g.life)] = g.life
    for p in g.players:
        base = PLAYERS + p.seat * P_STRIDE
        s[base + P_PEARLS], s[base + P_KEYS] = p.pearls, p.keys
        s[base + P_WOUNDS], s[base + P_BOUGHT] = p.wounds, int(p.bought_this_turn)
        s[base + P_USED_POWERS] = _power_bits(p.used_powers)
        _put(s, base + P_HAND, p.hand, MAX_ALLIES, "hand")
        _put(s, base + P_AFFILIATED, p.affiliated, MAX_ALLIES, "affiliated")
        _put(s, base + P_LORDS, p.lords, MAX_LORDS, "Lords")
        _put(s, base + P_LOCATIONS, p.locations, MAX_LOCATIONS, "Locations")
        _put(s, base + P_TOKENS, p.tokens, MAX_TOKENS, "tokens")
        _put(s, base + P_KILLED, p.killed, MAX_LEVIATHANS, "killed")
        _put(s, base + P_HELD, p.held_tokens, MAX_LEV_TOKENS, "held tokens")
        _put(s, base + P_RECRUITED, p.recruited, MAX_LORDS, "recruited Lords")
        for lord in p.under:
            s[LORD_UNDER + lord] = 1
        for lord in p.disabled:
            s[LORD_DISABLED + lord] = 1
        for loc, lords in p.location_lords.items():
            _put(s, LOC_LORDS + loc * LOC_LORDS_STRIDE, lords, MAX_UNDER, "Lords under")
    return s, g.rng.counters.copy()


def _power_bits(powers) -> int:
    from games.abyss.engine.rules.base import ONCE_PER_TURN

    return sum(1 << k for k, power in enumerate(ONCE_PER_TURN) if power in powers)
