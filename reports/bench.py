"""`abyss-mc bench`: the speed of both engines, measured in one run on the same games.

Figures: reference-engine games/s; fast-path games/s on 1 thread and on all threads; cold start
(a new process compiling the kernels into an empty cache) and warm start (a new process loading
them from the cache); peak memory of a large aggregates-only run. Ratios are computed from figures
of the same run, since the machines are shared and noisy.
"""

from __future__ import annotations

import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from functools import partial

#: The program a fresh process runs for the cold/warm start figures: load the engine, play a game.
_START_PROGRAM = """
import time
t0 = time.perf_counter()
from sim.abyss.cards import load_cards
from sim.abyss.fast import run_fast
from strategies.abyss import REGISTRY
t = load_cards(expansions={expansions!r})
policies = REGISTRY.make_policies({lineup!r}, {players})
run_fast(t, n_players={players}, n_games=1, seed=1, strategies=policies, threads=1, per_game=False)
print(time.perf_counter() - t0)
"""


@dataclass
class BenchResult:
    config: dict
    rows: list[tuple[str, str]] = field(default_factory=list)
    figures: dict = field(default_factory=dict)

    def add(self, name: str, value: float, text: str) -> None:
        self.figures[name] = value
        self.rows.append((name, text))

    def markdown(self, command: str) -> str:
        lines = [
            f"Command: `{command}`",
            "",
            f"Machine: {machine()}",
            "",
            "| figure | value |",
            "|---|---|",
        ]
        lines += [f"| {name} | {text} |" for name, text in self.rows]
        return "\n".join(lines) + "\n"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import numba

    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numba {numba.__version__}, {platform.system()} {platform.release()}"
    )


def start_seconds(cache_dir: str, expansions, players, lineup) -> float:
    """Wall time of a new process that loads the engine and plays one game."""
    code = _START_PROGRAM.format(expansions=tuple(expansions), players=players, lineup=lineup)
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"start-up benchmark failed: {done.stderr.strip()[-500:]}")
    return wall


def run_bench(
    *,
    tables,
    expansions: tuple[str, ...],
    players: int,
    lineup: list[str],
    fast_games: int,
    reference_games: int,
    memory_games: int,
    seed: int,
    starts: bool,
    progress=print,
) -> BenchResult:
    from sim.abyss.fast import run_fast
    from sim.abyss.runner import run_simulation
    from strategies.abyss import REGISTRY

    # every figure plays the same games: the same players, seed and strategies
    same = {
        "n_players": players,
        "seed": seed,
        "strategies": REGISTRY.make_policies(lineup, players),
    }
    result = BenchResult(
        {
            "players": players,
            "expansions": list(expansions),
            "strategies": lineup,
            "fast_games": fast_games,
            "reference_games": reference_games,
        }
    )
    run_fast(tables, n_games=8, per_game=False, **same)  # compile (or load) before timing

    progress(f"reference engine: {reference_games} games ...")
    t0 = time.perf_counter()
    run_simulation(tables, n_games=reference_games, expansions=expansions, **same)
    ref_rate = reference_games / (time.perf_counter() - t0)
    result.add("reference engine", ref_rate, f"{ref_rate:,.1f} games/s")

    def play(threads: int) -> float:
        timing = run_fast(tables, n_games=fast_games, threads=threads, per_game=False, **same)[3]
        return timing["games_per_second"]

    add_fast_rates(result, "", ref_rate, play, fast_games, progress)
    if memory_games:
        memory_run = partial(run_fast, tables, n_games=memory_games, per_game=False, **same)
        _add_memory(result, memory_run, memory_games, progress)
    if starts:
        _add_starts(result, expansions, players, lineup, progress)
    return result


def add_fast_rates(
    result: BenchResult, prefix: str, ref_rate: float, play, games: int, progress
) -> dict[int, float]:
    """The fast path on one thread and on all threads (`play(threads)` plays `games` games and
    returns games/s), its speed-up over the reference engine and its scaling with threads;
    `prefix` names the game in the rows ("" for Abyss). Returns the rate per thread count."""
    from sim.core.jit import numba

    all_threads = numba.config.NUMBA_NUM_THREADS
    rates = {}
    for threads in sorted({1, all_threads}):
        name = f"{prefix}fast path, {threads} thread(s)"
        progress(f"{name}: {games:,} games ...")
        rates[threads] = play(threads)
        result.add(name, rates[threads], f"{rates[threads]:,.0f} games/s")
    ratio = rates[1] / ref_rate
    result.add(f"{prefix}fast (1 thread) / reference", ratio, f"{ratio:,.0f}x")
    if all_threads > 1:
        scaling = rates[all_threads] / rates[1]
        result.add(f"{all_threads} threads / 1 thread", scaling, f"{scaling:.2f}x")
    return rates


def _add_memory(result: BenchResult, play, games: int, progress) -> None:
    """Time and peak memory of a large aggregates-only run (`play()` plays it)."""
    progress(f"memory: {games:,} games, aggregates only ...")
    before = peak_rss_mib()
    t0 = time.perf_counter()
    play()
    seconds = time.perf_counter() - t0
    peak = peak_rss_mib()
    result.add(
        f"{games:,} games, all threads, aggregates only",
        seconds,
        f"{seconds:,.1f} s, peak memory {peak:,.0f} MiB (before the run: {before:,.0f} MiB)",
    )
    result.figures["peak_rss_mib"] = peak


def _add_starts(result: BenchResult, expansions, players: int, lineup, progress) -> None:
    """Cold start (a new process compiling into an empty cache), then warm (loading it)."""
    with tempfile.TemporaryDirectory(prefix="abyss-mc-bench-cache-") as cache:
        progress("cold start (compiling into an empty cache) ...")
        cold = start_seconds(cache, expansions, players, lineup)
        progress("warm start (loading the cache) ...")
        warm = start_seconds(cache, expansions, players, lineup)
    result.add("cold start (new process, empty cache, one game)", cold, f"{cold:,.1f} s")
    result.add("warm start (new process, cached, one game)", warm, f"{warm:,.1f} s")


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far (MiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_conspiracy_bench(
    *,
    tables,
    players: int,
    lineup: list[str],
    fast_games: int,
    reference_games: int,
    seed: int,
    abyss_games: int,
    progress=print,
) -> BenchResult:
    """Conspiracy's engines on the same games, and Abyss's fast path (greedy, Leviathan, same
    player count up to 4) in the same run, for the ratio the issue asks about."""
    from sim.conspiracy.play import run_games
    from sim.core.jit import numba
    from strategies.conspiracy import REGISTRY

    same = {
        "n_players": players,
        "seed": seed,
        "policies": REGISTRY.make_policies(lineup, players),
    }
    result = BenchResult(
        {
            "game": "conspiracy",
            "players": players,
            "strategies": lineup,
            "fast_games": fast_games,
            "reference_games": reference_games,
            "abyss_games": abyss_games,
        }
    )
    run_games(tables, engine="fast", n_games=8, **same)  # compile
    progress(f"Conspiracy reference engine: {reference_games} games ...")
    ref = run_games(tables, engine="reference", n_games=reference_games, **same)
    ref_rate = ref.timings["games_per_second"]
    result.add("Conspiracy reference engine", ref_rate, f"{ref_rate:,.1f} games/s")

    def play(threads: int) -> float:
        played = run_games(tables, engine="fast", n_games=fast_games, threads=threads, **same)
        return played.timings["games_per_second"]

    rates = add_fast_rates(result, "Conspiracy ", ref_rate, play, fast_games, progress)
    if abyss_games:
        all_threads = numba.config.NUMBA_NUM_THREADS
        abyss_rate = _abyss_rate(players, seed, abyss_games, progress)
        result.add(
            f"Abyss fast path, {all_threads} thread(s), same run", abyss_rate,
            f"{abyss_rate:,.0f} games/s",
        )  # fmt: skip
        over = rates[all_threads] / abyss_rate
        result.add("Conspiracy / Abyss games per second", over, f"{over:.2f}x")
    return result


def _abyss_rate(players: int, seed: int, games: int, progress) -> float:
    """Games/s of Abyss's fast path on all threads: greedy, Leviathan, `players` up to 4."""
    from sim.abyss.cards import load_cards
    from sim.abyss.fast import run_fast
    from strategies.abyss import REGISTRY

    abyss = load_cards(expansions=("leviathan",))
    n = min(players, 4)
    progress(f"Abyss fast path (greedy, Leviathan, {n} players): {games:,} games ...")
    same = {"n_players": n, "seed": seed, "strategies": REGISTRY.make_policies(["greedy"] * n, n)}
    run_fast(abyss, n_games=8, **same)  # compile
    return run_fast(abyss, n_games=games, per_game=False, **same)[3]["games_per_second"]
