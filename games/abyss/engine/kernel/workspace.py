"""The kernel's workspace: one int32 vector holding everything a game touches.

    [ state (games.abyss.engine.state) | card tables (games.abyss.engine.kernel.tables) | scratch
    rows |
    strategies |
      random streams | decision trace ]

Every compiled function takes this one array. numba passes arrays between functions with an
atomic reference-count increment and decrement per array argument; with one array per call instead
of eight, the fast path spends its time on the rules (see docs/decisions.md).
"""

from __future__ import annotations

import numpy as np

from games.abyss.engine.kernel.tables import TABLE_END, pack
from games.abyss.engine.policy_params import N_FEATURES, N_PARAMS, N_STATE
from games.abyss.engine.state import MAX_LOCATIONS, MAX_LORDS, MAX_PLAYERS, N_SEAT_FIELDS  # noqa: F401
from sim.core.driver import MAX_REC_OPTIONS, record_blocks, search_blocks  # noqa: F401
from sim.core.linear import scratch_block
from sim.core.rng import N_STREAMS
from sim.core.samples import NOT_PLAYED  # noqa: F401  (the kernel reads W.NOT_PLAYED)
from sim.core.stack import Layout
from sim.core.workspace import PerTables

ROW_WIDTH = 512  # longest option list (Pearls added to an attack included)

_w = Layout()
_w.size = TABLE_END
OPT = _w.block(ROW_WIDTH)  # the options of the decision being asked
ROW1 = _w.block(ROW_WIDTH)  # lists that live across a decision: Allies, Locations drawn
ROW2 = _w.block(ROW_WIDTH)  # Lords spending their Keys
ROW3 = _w.block(ROW_WIDTH)  # opponents hit by a Military power
ROW4 = _w.block(ROW_WIDTH)  # gain_lord's explicit stack
POLICY_KIND = _w.block(MAX_PLAYERS)  # strategy kind of each seat
POLICY_PARAMS = _w.block(MAX_PLAYERS * N_PARAMS)  # parameter vector of each seat
RNG_KEYS = _w.block(2 * N_STREAMS)  # uint64 key of each stream, as (low, high) int32 halves
RNG_COUNTERS = _w.block(2 * N_STREAMS)  # int64 counter of each stream, as (low, high) halves
N_ALLY_KINDS = 5 * 16 * 3  # (race, value < 16, effect) of an Exploration card
KIND_STAMP = _w.block(1)  # stamp of the current `distinct_allies` call
KIND_SEEN = _w.block(N_ALLY_KINDS)  # stamp of the last call that met each kind of Ally
N_CACHED = 11  # per seat: working Lords of 10 often-checked powers, and their Keys (kernel.core)
SEAT_POWERS = _w.block(MAX_PLAYERS * N_CACHED)  # kept by kernel.core.refresh_powers
MAX_ROUNDS = 40  # rounds of the per-round record (trajectories)
TRAJ_ON = _w.block(1)  # 1: record each seat's IP, Pearls and Keys after each of its turns
TRAJ = _w.block(MAX_ROUNDS * MAX_PLAYERS * 3)  # [round, seat, (IP, Pearls, Keys)]
SCORE_ROW = _w.block(N_SEAT_FIELDS)  # scratch row for the running score
POLICY_ROW = _w.block(ROW_WIDTH)  # scratch of the compiled policies (never live across a turn)
# A forked rollout (games.abyss.engine.fork): at the FORK_AT-th Monster revealed with a fightable
# Leviathan (1-based; 0: never), record the situation in FORK_INFO, optionally re-key every stream
# from FORK_KEYS and reshuffle the hidden decks (FORK_REKEY = 1), and play FORK_CHOICE - 1 (0: the
# seat's own strategy decides).
FORK_AT = _w.block(1)
FORK_CHOICE = _w.block(1)
FORK_REKEY = _w.block(1)
FORK_COUNT = _w.block(1)  # such Monsters met so far in this game
# ... or, with FORK_N_SET > 0, switch the seat's strategy parameters at the fork point (FORK_SET:
# (slot, value) pairs) and let the switched strategy decide from there on: a rule rollout.
MAX_FORK_SET = 2
FORK_N_SET = _w.block(1)
FORK_SET = _w.block(2 * MAX_FORK_SET)
FORK_KEYS = _w.block(2 * N_STREAMS)
N_FORK_INFO = 16
FORK_INFO = _w.block(N_FORK_INFO)  # games.abyss.engine.fork.INFO_COLUMNS
# A probing seat's marks (policies.probe, restricted play): 1 for each Lord, then each
# Location, then "no fights" whose forbid would have changed one of its decisions' options
N_PROBE_MARKS = MAX_LORDS + MAX_LOCATIONS + 1
PROBE_MARKS = _w.block(N_PROBE_MARKS)
# The learned player's records (kernel.learn; written by policies.option_features at the probe)
REC_ON, REC_ROW, REC_FEATURES = record_blocks(_w, N_FEATURES)
SCORE_SCRATCH = scratch_block(_w, N_STATE, N_FEATURES)  # the learned player's (sim.core.linear)
# The search player's driver (`sim.core.driver`): a turn with a search seat is replayed from its
# start; SCRIPT holds the search decisions taken so far in the turn (in order, any seat), and the
# first decision past them is recorded (probe) or forked (rollout: re-keyed from FORK_KEYS, the
# hidden cards redealt, SEARCH_FORCE played, every seat on the searching seat's rollout policy).
(SEARCH_BEGIN, SEARCH_MODE, SEARCH_COUNT, SCRIPT, SEARCH_FORCE, SEARCH_FOUND, SEARCH_DEFAULT,
 SEARCH_SEAT, SEARCH_DECISION, SEARCH_N, SEARCH_OPTS, TRACE) = SEARCH_BLOCKS = search_blocks(
    _w, ROW_WIDTH)
WORKSPACE_BASE = _w.size
del _w


def template(tables) -> np.ndarray:
    """A workspace with the card tables filled in and everything else zero (no trace room)."""
    w = np.zeros(WORKSPACE_BASE, dtype=np.int32)
    w[:TABLE_END] = pack(tables)
    return w


#: `template(tables)`, built once per tables object. Do not write to it: copy it.
cached_template = PerTables(template)


def put_rng(w: np.ndarray, keys: np.ndarray, counters: np.ndarray) -> None:
    """Store a game's stream keys (uint64) and counters (int64) as int32 halves."""
    w[RNG_KEYS : RNG_KEYS + 2 * N_STREAMS] = keys.astype(np.uint64).view(np.int32)
    w[RNG_COUNTERS : RNG_COUNTERS + 2 * N_STREAMS] = counters.astype(np.int64).view(np.int32)


def get_counters(w: np.ndarray) -> np.ndarray:
    """The stream counters (int64) stored in a workspace."""
    return w[RNG_COUNTERS : RNG_COUNTERS + 2 * N_STREAMS].copy().view(np.int64)
