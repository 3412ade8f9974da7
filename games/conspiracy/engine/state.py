"""Conspiracy's game state, card tables and kernel workspace as one int32 vector.

    [ state | card tables | option row | strategies | random streams | decision trace ]

As in Abyss (`games.abyss.engine.state`, `games.abyss.engine.kernel.workspace`): every list of the
reference engine
(`games.conspiracy.engine.rules.game.Game`) is a *stack* (``s[off]`` its length, then its items in
the
same
order), so both engines shuffle and draw identically; the offsets are module constants; the card
tables are data in the vector (edited cards compile nothing new). `encode(game)` turns a reference
`Game` into (state, rng counters), for the compiled policies the reference engine calls.
"""

from __future__ import annotations

import numpy as np

from sim.core.driver import MAX_REC_OPTIONS, record_blocks, search_blocks  # noqa: F401
from sim.core.errors import UserError
from sim.core.linear import scratch_block
from sim.core.rng import N_STREAMS
from sim.core.stack import Layout
from sim.core.workspace import PerTables

MAX_PLAYERS = 4
MAX_LORDS = 64
MAX_LOCATIONS = 32
MAX_COLOURS = 5
MAX_SPOTS = 15
MAX_KEYS = 8  # keys since the last Location (a Location is due at 3 at the latest)
MAX_ADJ = 6
TURN_LIMIT = 400  # a safety stop; 60 Lords fill four Chambers in 60 turns
END_REASONS = ("none", "chamber_complete", "turn_limit")
END_NONE, END_CHAMBER, END_TURN_LIMIT = range(3)

_b = Layout()
# --- game scalars
TURN, N_PLAYERS = _b.scalars(2)
PEARL_MASTER = _b.scalar()  # seat, -1
RESTRICTION = _b.scalar()  # LocationPower in force "until your next turn", 0 none
RESTRICTION_OWNER = _b.scalar()
END_TRIGGER = _b.scalar()  # seat that completed its Chamber, -1
END_REASON = _b.scalar()
# the turn boundary, so a game resumes from any turn's start (the search replays turns): the seat
# to play next, and the last turns still to play once a Chamber is complete ("Each opponent then
# gets to play one last turn")
NEXT_SEAT, FINAL_TURNS = _b.scalars(2)
# --- game stacks
LORD_DECK = _b.stack(MAX_LORDS)  # top = last item
PILE_STRIDE = 1 + MAX_LORDS
PILES = _b.block(MAX_COLOURS * PILE_STRIDE)  # pile of colour c at PILES + c * PILE_STRIDE
LOC_DECK, LOC_AVAILABLE = _b.stacks(2, MAX_LOCATIONS)
# --- players: block of seat p at PLAYERS + p * PLAYER_STRIDE, offsets P_* inside it
_p = Layout()
P_CHAMBER = _p.stack(MAX_SPOTS)
P_LOCATIONS, P_LOC_SPOTS = _p.stacks(2, MAX_LOCATIONS)
P_KEYS = _p.stack(MAX_KEYS)
# Pearls; the Location powers "2 keys of any type", "the whole deck"
P_PEARLS, P_ANY_TWO, P_WHOLE_DECK = _p.scalars(3)
# counters for the report: deck recruitments, pile takes, Lords from piles
P_DRAWS, P_PILE_TAKES, P_PILE_LORDS = _p.scalars(3)
PLAYER_STRIDE = _p.size
PLAYERS = _b.block(MAX_PLAYERS * PLAYER_STRIDE)
STATE_SIZE = _b.size

# --- card tables (absolute offsets: they follow the state)
T_N_LORDS, T_N_LOCATIONS, T_N_COLOURS, T_N_SPOTS, T_DRAW_MAX, T_LOC_DRAW_MAX = _b.scalars(6)
T_COALITION_IP, T_PEARL_MASTER_IP, T_KEY_RULE_BGA, T_ZERO_SWAP_KEYLESS = _b.scalars(4)
T_LORD_COLOUR, T_LORD_IP, T_LORD_KEY, T_LORD_PEARLS, T_LORD_POWER = _b.columns(
    MAX_LORDS, "n_lords", "lord_colour", "lord_ip", "lord_key", "lord_pearls", "lord_power"
)
T_LOC_IP, T_LOC_PEARLS, T_LOC_SCORE, T_LOC_PER, T_LOC_COLOUR, T_LOC_POWER = _b.columns(
    MAX_LOCATIONS, "n_locations", "location_ip", "location_pearls", "location_score",
    "location_per", "location_colour", "location_power",
)  # fmt: skip
T_LOC_IN_DECK = _b.block(MAX_LOCATIONS)  # 1: in the game (bonus Locations only with the option)
T_ADJ = _b.block(MAX_SPOTS * MAX_ADJ)  # neighbours of each spot, -1 padded
TABLE_END = _b.size

# --- kernel workspace
ROW_WIDTH = 128  # longest option list (the 0's swaps: at most 105 pairs + decline)
# A strategy's parameters (games.conspiracy.engine.policies): the heuristic's slots, below
# L_WEIGHTS; for the learned player (policies.learned) then one row of N_FEATURES fixed-point
# weights (LEARNED_SCALE per unit) for each of the N_LEARNED decisions, the features of an option
# being N_OWN of its own and the seat's N_STATE state features for each of N_CATEGORIES categories.
L_WEIGHTS = 16
N_LEARNED, N_OWN, N_STATE, N_CATEGORIES = 6, 21, 8, 2
N_FEATURES = N_OWN + N_CATEGORIES * N_STATE
LEARNED_SCALE = 1 << 12
N_SLOTS = L_WEIGHTS + N_LEARNED * N_FEATURES
# A seat's vector: its strategy's N_SLOTS, then, for the search player, its rollout policy's kind
# and N_SLOTS (every seat plays that policy in the search's rollouts).
N_PARAMS = 2 * N_SLOTS + 1
OPT = _b.block(ROW_WIDTH)  # the options of the decision being asked
ROW1 = _b.block(ROW_WIDTH)  # Lords recruited this turn, still to place
ROW2 = _b.block(ROW_WIDTH)  # Lords or Locations drawn
ROW3 = _b.block(ROW_WIDTH)  # scratch of the scoring (group search)
POLICY_KIND = _b.block(MAX_PLAYERS)
POLICY_PARAMS = _b.block(MAX_PLAYERS * N_PARAMS)
RNG_KEYS = _b.block(2 * N_STREAMS)
RNG_COUNTERS = _b.block(2 * N_STREAMS)
# The search player (`games.conspiracy.engine.kernel.search`): a turn with a search seat is
# replayed from its start; SCRIPT holds the search decisions taken so far in the turn, and the
# first decision past them is recorded (probe) or forked (rollout: re-keyed from FORK_KEYS, the
# face-down decks redealt, SEARCH_FORCE played, every seat on the searching seat's rollout policy).
FORK_KEYS = _b.block(2 * N_STREAMS)
# The learned player's records (`sim.core.learn`; written by policies.option_features at the probe)
REC_ON, REC_ROW, REC_FEATURES = record_blocks(_b, N_FEATURES)
SCORE_SCRATCH = scratch_block(_b, N_STATE, N_FEATURES)  # the learned player's (sim.core.linear)
(SEARCH_BEGIN, SEARCH_MODE, SEARCH_COUNT, SCRIPT, SEARCH_FORCE, SEARCH_FOUND, SEARCH_DEFAULT,
 SEARCH_SEAT, SEARCH_DECISION, SEARCH_N, SEARCH_OPTS, TRACE) = SEARCH_BLOCKS = search_blocks(
    _b, ROW_WIDTH)
WORKSPACE_BASE = _b.size


def stacks() -> list[tuple[int, int]]:
    """(offset, capacity) of every stack of the state."""
    out = [(LORD_DECK, MAX_LORDS), (LOC_DECK, MAX_LOCATIONS), (LOC_AVAILABLE, MAX_LOCATIONS)]
    out += [(PILES + c * PILE_STRIDE, MAX_LORDS) for c in range(MAX_COLOURS)]
    for seat in range(MAX_PLAYERS):
        b = pbase(seat)
        out += [(b + P_CHAMBER, MAX_SPOTS), (b + P_LOCATIONS, MAX_LOCATIONS)]
        out += [(b + P_LOC_SPOTS, MAX_LOCATIONS), (b + P_KEYS, MAX_KEYS)]
    return out


def canonical(state: np.ndarray) -> np.ndarray:
    """A copy of a state with the slots past each stack's length zeroed (the kernel leaves old
    items there; `encode` writes zeros), for comparing two states."""
    out = np.array(state[:STATE_SIZE], dtype=np.int32)
    for off, cap in stacks():
        out[off + 1 + out[off] : off + 1 + cap] = 0
    return out


def pbase(seat: int) -> int:
    return PLAYERS + seat * PLAYER_STRIDE


def check_capacity(t) -> None:
    for what, n, cap in (
        ("Lords", t.n_lords, MAX_LORDS),
        ("Locations", len(t.location_number), MAX_LOCATIONS),
        ("colours", t.n_colours, MAX_COLOURS),
        ("Chamber spots", t.n_spots, MAX_SPOTS),
        ("players", t.max_players, MAX_PLAYERS),
    ):
        if n > cap:
            raise UserError(f"the fast path holds at most {cap} {what}; the card data has {n}")


def pack(t) -> np.ndarray:
    """The card tables as the int32 block w[STATE_SIZE:TABLE_END]."""
    check_capacity(t)
    w = np.zeros(TABLE_END, dtype=np.int32)
    n_lords, n_locations = t.n_lords, len(t.location_number)
    w[T_N_LORDS], w[T_N_LOCATIONS] = n_lords, n_locations
    w[T_N_COLOURS], w[T_N_SPOTS] = t.n_colours, t.n_spots
    w[T_DRAW_MAX], w[T_LOC_DRAW_MAX] = t.draw_max, t.location_draw_max
    w[T_COALITION_IP], w[T_PEARL_MASTER_IP] = t.coalition_ip, t.pearl_master_ip
    w[T_KEY_RULE_BGA] = int(t.key_rule)
    w[T_ZERO_SWAP_KEYLESS] = int(t.zero_swap)
    _b.fill(w, t)
    for c in range(n_locations):
        w[T_LOC_IN_DECK + c] = int(bool(t.bonus_locations) or not bool(t.location_bonus[c]))
    adj = np.full((MAX_SPOTS, MAX_ADJ), -1, dtype=np.int32)
    adj[: t.n_spots, : t.adjacency.shape[1]] = t.adjacency
    w[T_ADJ : T_ADJ + MAX_SPOTS * MAX_ADJ] = adj.ravel()
    return w[STATE_SIZE:]


def template(t) -> np.ndarray:
    """A workspace with the card tables filled in and everything else zero (no trace room)."""
    w = np.zeros(WORKSPACE_BASE, dtype=np.int32)
    w[STATE_SIZE:TABLE_END] = pack(t)
    return w


#: `template(tables)`, built once per tables object. Do not write to it: copy it.
cached_template = PerTables(template)


def _put_stack(s: np.ndarray, off: int, items) -> None:
    items = list(items)
    s[off] = len(items)
    s[off + 1 : off + 1 + len(items)] = items


def encode(g) -> tuple[np.ndarray, np.ndarray]:
    """The state vector and the RNG counters of a reference `Game` (between two decisions)."""
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    s[TURN], s[N_PLAYERS] = g.turn, g.n_players
    s[PEARL_MASTER] = g.pearl_master
    s[RESTRICTION], s[RESTRICTION_OWNER] = g.restriction, g.restriction_owner
    s[END_TRIGGER] = g.end_trigger
    s[END_REASON] = END_REASONS.index(g.end_reason)
    s[NEXT_SEAT], s[FINAL_TURNS] = g.next_seat, g.final_turns
    _put_stack(s, LORD_DECK, g.lord_deck)
    for c, pile in enumerate(g.piles):
        _put_stack(s, PILES + c * PILE_STRIDE, pile)
    _put_stack(s, LOC_DECK, g.location_deck)
    _put_stack(s, LOC_AVAILABLE, g.locations_available)
    for p in g.players:
        b = pbase(p.seat)
        _put_stack(s, b + P_CHAMBER, p.chamber)
        _put_stack(s, b + P_LOCATIONS, p.locations)
        _put_stack(s, b + P_LOC_SPOTS, p.location_spots)
        _put_stack(s, b + P_KEYS, p.keys)
        s[b + P_PEARLS] = p.pearls
        s[b + P_ANY_TWO] = int(p.any_two_keys)
        s[b + P_WHOLE_DECK] = int(p.whole_deck)
        s[b + P_DRAWS], s[b + P_PILE_TAKES] = p.draws, p.pile_takes
        s[b + P_PILE_LORDS] = p.pile_lords
    return s, g.rng.counters.copy()
