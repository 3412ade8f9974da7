"""sim.core.rng: counter-based random streams (SplitMix64 finaliser), compiled and pure Python."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chisquare

from sim.core.rng import GOLDEN, N_STREAMS, GameRng, mix64, rand_below, shuffle, stream_keys

REPO = Path(__file__).resolve().parents[2]


def fresh(seed: int = 0, game: int = 0) -> tuple[np.ndarray, np.ndarray]:
    keys = np.zeros(N_STREAMS, dtype=np.uint64)
    stream_keys(np.int64(seed), np.int64(game), keys)
    return keys, np.zeros(N_STREAMS, dtype=np.int64)


def draws(keys, counters, stream: int, n: int, count: int) -> list[int]:
    return [int(rand_below(keys, counters, np.int64(stream), np.int64(n))) for _ in range(count)]


# ------------------------------------------------------------------------------ the mixer


def test_mix64_is_splitmix64():
    """SplitMix64 seeded with 0 outputs 0xE220A8397B1DCDAF first (Steele, Lea & Flood 2014)."""
    assert int(mix64(GOLDEN)) == 0xE220A8397B1DCDAF
    assert int(mix64(np.uint64(0))) == 0
    # The second output of SplitMix64(0): the state advanced by GOLDEN twice.
    with np.errstate(over="ignore"):
        assert int(mix64(GOLDEN + GOLDEN)) == 0x6E789E6AA1B965F4


# ---------------------------------------------------------------------------- rand_below


@pytest.mark.parametrize("n", [1, 2, 3, 6, 7, 20, 71, 1000, 2**31 - 1])
def test_rand_below_in_range(n):
    keys, counters = fresh(seed=11, game=3)
    values = draws(keys, counters, 0, n, 2000)
    assert all(0 <= v < n for v in values)
    assert counters[0] == 2000 and not counters[1:].any()
    if n == 1:
        assert set(values) == {0}
    elif n <= 20:
        assert set(values) == set(range(n))


@pytest.mark.parametrize("n", [6, 71])
def test_rand_below_is_roughly_uniform(n):
    keys, counters = fresh(seed=12345, game=7)
    values = np.array(draws(keys, counters, 2, n, 60_000))
    observed = np.bincount(values, minlength=n)
    result = chisquare(observed)  # expected: uniform
    assert result.pvalue > 1e-4, (observed, result)


def test_game_rng_below_is_rand_below():
    rng = GameRng(5, 9)
    keys, counters = fresh(5, 9)
    assert np.array_equal(rng.keys, keys)
    mine = [rng.below(s % 3, 10 + s) for s in range(60)]
    theirs = [draws(keys, counters, s % 3, 10 + s, 1)[0] for s in range(60)]
    assert mine == theirs
    assert np.array_equal(rng.counters, counters)


def test_draw_is_a_pure_function_of_key_and_counter():
    """Draw c of a stream does not depend on what was drawn before: only on its counter."""
    keys, counters = fresh(1, 2)
    sequence = draws(keys, counters, 4, 1000, 50)
    keys2, counters2 = fresh(1, 2)
    counters2[4] = 30
    assert draws(keys2, counters2, 4, 1000, 20) == sequence[30:]


# ------------------------------------------------------------------------------- streams


def test_streams_are_independent():
    """Drawing from stream 0 does not change stream 1's sequence."""
    alone = GameRng(77, 4)
    expected = [alone.below(1, 1000) for _ in range(200)]
    mixed = GameRng(77, 4)
    got = []
    for i in range(200):
        for _ in range(i % 4):
            mixed.below(0, 71)
        got.append(mixed.below(1, 1000))
        if i % 7 == 0:
            mixed.shuffle(list(range(30)), 2)
    assert got == expected
    assert mixed.counters[1] == 200 and alone.counters[0] == 0


def test_streams_differ_from_each_other():
    rng = GameRng(3, 3)
    sequences = {tuple(rng.below(s, 2**31) for _ in range(8)) for s in range(N_STREAMS)}
    assert len(sequences) == N_STREAMS


# ---------------------------------------------------------------------------------- keys


def test_keys_depend_on_seed_and_game():
    seen = {}
    for seed in (0, 1, 2, 2**62, 2**63 - 1):
        for game in (0, 1, 2, 1000, 2**63 - 1):
            keys, _ = fresh(seed, game)
            assert len(set(keys.tolist())) == N_STREAMS  # every stream has its own key
            seen[(seed, game)] = tuple(keys.tolist())
    assert len(set(seen.values())) == len(seen)
    all_keys = [k for ks in seen.values() for k in ks]
    assert len(set(all_keys)) == len(all_keys)
    # Seed and game are not interchangeable.
    assert seen[(1, 2)] != seen[(2, 1)]
    # The same inputs give the same keys.
    assert tuple(fresh(2, 1000)[0].tolist()) == seen[(2, 1000)]
    assert tuple(GameRng(2, 1000).keys.tolist()) == seen[(2, 1000)]


def test_game_rng_rejects_out_of_range_seeds():
    for seed, game in ((-1, 0), (0, -1), (2**63, 0), (0, 2**63)):
        with pytest.raises(ValueError):
            GameRng(seed, game)


# ------------------------------------------------------------------------------- shuffle


@pytest.mark.parametrize("length", [0, 1, 2, 5, 20, 35, 71])
def test_list_shuffle_equals_array_shuffle(length):
    """`GameRng.shuffle` on a list is bit-identical to the compiled `shuffle` on an array."""
    rng = GameRng(2024, 6)
    rng.below(3, 5)  # start from a non-zero counter
    keys, counters = rng.keys.copy(), rng.counters.copy()
    items = list(range(length))
    rng.shuffle(items, 3)
    arr = np.arange(length, dtype=np.int64)
    shuffle(arr, length, keys, counters, np.int64(3))
    assert items == arr.tolist()
    assert np.array_equal(counters, rng.counters)
    assert sorted(items) == list(range(length))
    assert counters[3] == 1 + max(length - 1, 0)


def test_array_shuffle_leaves_the_tail_alone():
    keys, counters = fresh(8, 8)
    arr = np.arange(30, dtype=np.int64)
    shuffle(arr, 20, keys, counters, np.int64(0))
    assert arr[20:].tolist() == list(range(20, 30))
    assert sorted(arr[:20].tolist()) == list(range(20))
    assert arr[:20].tolist() != list(range(20))


def test_shuffle_positions_are_roughly_uniform():
    """Fisher-Yates with an unbiased `rand_below`: each item lands in each place equally often."""
    rng = GameRng(31, 0)
    n, rounds = 6, 6000
    counts = np.zeros((n, n), dtype=np.int64)
    for _ in range(rounds):
        items = list(range(n))
        rng.shuffle(items, 0)
        for place, item in enumerate(items):
            counts[item, place] += 1
    assert chisquare(counts.ravel()).pvalue > 1e-4


# ------------------------------------------------------------------- NUMBA_DISABLE_JIT


_PROBE = textwrap.dedent(
    """
    import json
    import warnings

    import numpy as np


    def probe():
        from sim.core import rng as R

        out = {"jit": hasattr(R.rand_below, "py_func")}
        for seed, game in ((0, 0), (123, 45), (2**63 - 1, 2**63 - 1)):
            keys = np.zeros(R.N_STREAMS, dtype=np.uint64)
            counters = np.zeros(R.N_STREAMS, dtype=np.int64)
            R.stream_keys(np.int64(seed), np.int64(game), keys)
            d = [int(R.rand_below(keys, counters, np.int64(s % 4), np.int64(7 + s)))
                 for s in range(40)]
            arr = np.arange(30, dtype=np.int64)
            R.shuffle(arr, 30, keys, counters, np.int64(2))
            g = R.GameRng(seed, game)
            items = list(range(25))
            g.shuffle(items, 1)
            out[f"{seed},{game}"] = {
                "keys": [int(k) for k in keys],
                "draws": d,
                "shuffle": arr.tolist(),
                "counters": counters.tolist(),
                "game_rng": [g.below(5, 1000) for _ in range(10)] + items,
                "mix": int(R.mix64(np.uint64(seed) ^ np.uint64(game))),
            }
        return out


    if __name__ == "__main__":
        # Plain-Python uint64 arithmetic wraps around on purpose: silence numpy's warnings.
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(over="ignore"):
            print(json.dumps(probe()))
    """
)


def test_disable_jit_gives_the_same_numbers():
    """Under NUMBA_DISABLE_JIT=1 the same functions run as plain Python with the same results."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-c", _PROBE],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    python = json.loads(result.stdout)
    namespace: dict = {"__name__": "probe"}
    exec(compile(_PROBE, "<probe>", "exec"), namespace)
    compiled = namespace["probe"]()
    assert compiled.pop("jit") is True
    assert python.pop("jit") is False, "NUMBA_DISABLE_JIT=1 was not honoured"
    assert python == compiled
    assert len(compiled) == 3
