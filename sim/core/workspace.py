"""What every game's fast path shares about its workspace, the one int32 vector a game lives in
(state, card tables, scratch rows, the seats' strategies, random streams, the decision trace).

The compiled helpers take the offsets of the game's own layout as arguments and are inlined into
its kernel, where the offsets are constants; the Python helpers build and read workspaces.
"""

from __future__ import annotations

import numpy as np

from sim.core.jit import njit
from sim.core.rng import N_STREAMS, rand_below_in, stream_keys_in

LANES = 64  # independent game slots per chunk (a multiple of any thread count we meet)


@njit(cache=True, inline="always")
def traced(s, trace, seat, decision, option, n):
    """`option`, the answer to a decision asked, recorded (seat, decision, option, number of
    options) after those at s[trace:]; the count grows past the room left (`trace_of` says)."""
    k = s[trace]
    at = trace + 1 + 4 * k
    if at + 4 <= s.shape[0]:
        s[at] = seat
        s[at + 1] = decision
        s[at + 2] = option
        s[at + 3] = n
    s[trace] = k + 1
    return option


def trace_of(s: np.ndarray, trace: int) -> list[tuple[int, int, int, int]]:
    """The decisions recorded at s[trace:]: (seat, decision, option, number of options)."""
    n = int(s[trace])
    room = (len(s) - trace - 1) // 4
    if n > room:
        raise ValueError(f"{n} decisions, room for {room}")
    return [tuple(int(x) for x in s[trace + 1 + 4 * i : trace + 5 + 4 * i]) for i in range(n)]


@njit(cache=True, inline="always")
def best_or_draw(s, opt, n, worth_at, draw_from, worth_min):
    """A policy's choice between face-up cards and draws (options >= draw_from, the last one
    drawing the most): the best face-up option (option i is worth s[worth_at + i]) when it is
    worth `worth_min` or more or nothing can be drawn, else the largest draw."""
    best, best_worth, last_draw = -1, -(1 << 30), -1
    for i in range(n):
        o = s[opt + i]
        if o >= draw_from:
            last_draw = o
        elif best < 0 or s[worth_at + i] > best_worth:
            best, best_worth = o, s[worth_at + i]
    if best >= 0 and (last_draw < 0 or best_worth >= worth_min):
        return best
    return last_draw


@njit(cache=True, inline="always")
def shuffle_in(s, off, keys, counters, stream):
    """Fisher-Yates shuffle of the stack at s[off:], as `sim.core.rng.shuffle` does to an array,
    drawing from the stream keyed at s[keys:] (counters at s[counters:])."""
    n = s[off]
    for i in range(n - 1, 0, -1):
        j = rand_below_in(s, keys, counters, np.int64(stream), np.int64(i + 1))
        t = s[off + 1 + i]
        s[off + 1 + i] = s[off + 1 + j]
        s[off + 1 + j] = t


@njit(cache=True, inline="always")
def reset_game(s, state_size, keys, counters, trace, seed, game):
    """A zeroed state, the streams of game `game` of `seed` from their start, an empty trace."""
    s[:state_size] = 0
    s[counters : counters + 2 * N_STREAMS] = 0
    s[trace] = 0
    stream_keys_in(s, keys, seed, game, N_STREAMS)


@njit(cache=True)
def seat_lineup(s, kind_at, params_at, n_params, seating, lineup_kinds, lineup_params):
    """Seat `seat` plays line-up entry seating[seat]: its strategy kind and parameters into s."""
    for seat in range(seating.shape[0]):
        j = seating[seat]
        s[kind_at + seat] = lineup_kinds[j]
        for k in range(n_params):
            s[params_at + seat * n_params + k] = lineup_params[j, k]


def with_trace(base: np.ndarray, size: int, trace_cap: int) -> np.ndarray:
    """A copy of the first `size` entries of workspace `base`, with room after them to record
    `trace_cap` decisions."""
    w = np.zeros(size + 4 * trace_cap, dtype=np.int32)
    w[:size] = base[:size]
    return w


class PerTables:
    """`build(tables)`, built once per tables object and kept (`tables` are frozen): the
    workspace templates and the reference engine's workspaces. Do not write to what it returns:
    copy it."""

    def __init__(self, build) -> None:
        self.build = build
        self.built: dict[int, tuple[object, np.ndarray]] = {}

    def __call__(self, tables) -> np.ndarray:
        hit = self.built.get(id(tables))
        if hit is None or hit[0] is not tables:
            hit = (tables, self.build(tables))
            self.built[id(tables)] = hit
        return hit[1]
