"""Counter-based random streams: randomness is data.

Draw number `c` of stream `s` in game `g` of a run with seed `seed` is a pure function
`mix64(key(seed, g, s) + c * GOLDEN)`. Nothing is shared between games or threads, so results do not
depend on thread count or chunking, and every line-up of game `g` sees the same decks (common random
numbers). The functions are written once with integer operations only and compiled with numba;
the reference engine calls the very same compiled functions, so both engines draw identical numbers.
Under NUMBA_DISABLE_JIT=1 they run as plain Python on numpy uint64 scalars (wraparound intended).

The mixer is SplitMix64's finaliser (Steele, Lea & Flood 2014), which passes BigCrush as a
counter-based generator.
"""

from __future__ import annotations

import numpy as np

from sim.core.jit import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
N_STREAMS = 16


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64 finaliser: a bijective avalanche of a uint64."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def stream_keys(seed, game, keys):
    """Fill `keys[s]` with the key of stream s of game `game` (seed, game: non-negative int64)."""
    base = mix64(np.uint64(seed) * GOLDEN + _M2)
    base = mix64(base ^ (np.uint64(game) * _M1 + GOLDEN))
    for s in range(keys.shape[0]):
        keys[s] = mix64(base + np.uint64(s + 1) * GOLDEN)


@njit(cache=True)
def rand_below(keys, counters, stream, n):
    """The next integer in [0, n) from `stream`; advances that stream's counter by one.

    Lemire's multiply-shift on the top 32 bits: exact integer arithmetic, bias below 2**-25 for
    the small n of a board game.
    """
    c = counters[stream]
    counters[stream] = c + 1
    x = mix64(keys[stream] + np.uint64(c) * GOLDEN)
    return np.int64(((x >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True)
def shuffle(arr, n, keys, counters, stream):
    """Fisher-Yates shuffle of arr[:n] in place, drawing from `stream`."""
    for i in range(n - 1, 0, -1):
        j = rand_below(keys, counters, stream, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


class GameRng:
    """The random streams of one game, for the reference engine (Python lists, same numbers)."""

    def __init__(self, seed: int, game: int):
        if not (0 <= seed < 2**63 and 0 <= game < 2**63):
            raise ValueError("seed and game must be in [0, 2**63)")
        self.keys = np.zeros(N_STREAMS, dtype=np.uint64)
        self.counters = np.zeros(N_STREAMS, dtype=np.int64)
        stream_keys(np.int64(seed), np.int64(game), self.keys)

    def below(self, stream: int, n: int) -> int:
        """A uniform integer in [0, n) from `stream`."""
        return int(rand_below(self.keys, self.counters, np.int64(stream), np.int64(n)))

    def shuffle(self, items: list, stream: int) -> None:
        """Shuffle a list in place exactly as `shuffle` shuffles an array."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(stream, i + 1)
            items[i], items[j] = items[j], items[i]



# --- the same streams stored inside an int32 workspace (the fast path's single array) ---------
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = 4294967296
_TWO31 = 2147483648


@njit(cache=True, inline="always")
def _u64_at(w, i):
    """The uint64 stored as (low, high) int32 halves at w[i], w[i + 1]."""
    lo = np.uint64(np.int64(w[i])) & _MASK32
    hi = np.uint64(np.int64(w[i + 1])) & _MASK32
    return lo | (hi << _S32)


@njit(cache=True, inline="always")
def _put_u64(w, i, x):
    lo = np.int64(x & _MASK32)
    hi = np.int64(x >> _S32)
    w[i] = lo - _TWO32 if lo >= _TWO31 else lo
    w[i + 1] = hi - _TWO32 if hi >= _TWO31 else hi


@njit(cache=True)
def stream_keys_in(w, keys_off, seed, game, n_streams):
    """`stream_keys` written as int32 halves at w[keys_off:]."""
    base = mix64(np.uint64(seed) * GOLDEN + _M2)
    base = mix64(base ^ (np.uint64(game) * _M1 + GOLDEN))
    for s in range(n_streams):
        _put_u64(w, keys_off + 2 * s, mix64(base + np.uint64(s + 1) * GOLDEN))


@njit(cache=True)
def rand_below_in(w, keys_off, counters_off, stream, n):
    """`rand_below` on keys and counters stored as int32 halves in w: the same numbers."""
    c = _u64_at(w, counters_off + 2 * stream)
    _put_u64(w, counters_off + 2 * stream, c + np.uint64(1))
    x = mix64(_u64_at(w, keys_off + 2 * stream) + c * GOLDEN)
    return np.int64(((x >> _S32) * np.uint64(n)) >> _S32)
