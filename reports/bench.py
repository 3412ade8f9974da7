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

#: The program a fresh process runs for the cold/warm start figures: load the engine, play a game.
_START_PROGRAM = """
import time
t0 = time.perf_counter()
from sim.abyss.cards import load_cards
from sim.abyss.fast import run_fast
from strategies.abyss import make_policies
t = load_cards(expansions={expansions!r})
run_fast(t, n_players={players}, n_games=1, seed=1, strategies=make_policies({lineup!r}, {players}),
         threads=1, per_game=False)
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
    from sim.core.jit import numba
    from strategies.abyss import make_policies

    policies = make_policies(lineup, players)
    all_threads = numba.config.NUMBA_NUM_THREADS
    result = BenchResult(
        {
            "players": players,
            "expansions": list(expansions),
            "strategies": lineup,
            "fast_games": fast_games,
            "reference_games": reference_games,
        }
    )
    # Compile (or load) before timing anything.
    run_fast(tables, n_players=players, n_games=8, seed=seed, strategies=policies, per_game=False)

    progress(f"reference engine: {reference_games} games ...")
    t0 = time.perf_counter()
    run_simulation(
        tables,
        n_players=players,
        n_games=reference_games,
        seed=seed,
        strategies=policies,
        expansions=expansions,
    )
    ref_rate = reference_games / (time.perf_counter() - t0)
    result.add("reference engine", ref_rate, f"{ref_rate:,.1f} games/s")

    rates = {}
    for threads in sorted({1, all_threads}):
        progress(f"fast path, {threads} thread(s): {fast_games:,} games ...")
        _, _, _, timing = run_fast(
            tables,
            n_players=players,
            n_games=fast_games,
            seed=seed,
            strategies=policies,
            threads=threads,
            per_game=False,
        )
        rates[threads] = timing["games_per_second"]
        result.add(
            f"fast path, {threads} thread(s)", rates[threads], f"{rates[threads]:,.0f} games/s"
        )
    ratio = rates[1] / ref_rate
    result.add("fast (1 thread) / reference", ratio, f"{ratio:,.0f}x")
    if all_threads > 1:
        scaling = rates[all_threads] / rates[1]
        result.add(f"{all_threads} threads / 1 thread", scaling, f"{scaling:.2f}x")

    if memory_games:
        progress(f"memory: {memory_games:,} games, aggregates only ...")
        before = peak_rss_mib()
        t0 = time.perf_counter()
        run_fast(
            tables,
            n_players=players,
            n_games=memory_games,
            seed=seed,
            strategies=policies,
            per_game=False,
        )
        seconds = time.perf_counter() - t0
        peak = peak_rss_mib()
        result.add(
            f"{memory_games:,} games, all threads, aggregates only",
            seconds,
            f"{seconds:,.1f} s, peak memory {peak:,.0f} MiB (before the run: {before:,.0f} MiB)",
        )
        result.figures["peak_rss_mib"] = peak

    if starts:
        with tempfile.TemporaryDirectory(prefix="abyss-mc-bench-cache-") as cache:
            progress("cold start (compiling into an empty cache) ...")
            cold = start_seconds(cache, expansions, players, lineup)
            progress("warm start (loading the cache) ...")
            warm = start_seconds(cache, expansions, players, lineup)
        result.add("cold start (new process, empty cache, one game)", cold, f"{cold:,.1f} s")
        result.add("warm start (new process, cached, one game)", warm, f"{warm:,.1f} s")
    return result


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
    from sim.abyss.cards import load_cards as load_abyss
    from sim.abyss.fast import run_fast as run_abyss
    from sim.conspiracy.fast import run_fast, run_reference
    from sim.core.jit import numba
    from strategies.abyss import make_policies as abyss_policies
    from strategies.conspiracy import make_policies

    policies = make_policies(lineup, players)
    all_threads = numba.config.NUMBA_NUM_THREADS
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
    run_fast(tables, n_players=players, n_games=8, seed=seed, strategies=policies)  # compile
    progress(f"Conspiracy reference engine: {reference_games} games ...")
    _, _, timing = run_reference(
        tables, n_players=players, n_games=reference_games, seed=seed, strategies=policies
    )
    ref_rate = timing["games_per_second"]
    result.add("Conspiracy reference engine", ref_rate, f"{ref_rate:,.1f} games/s")
    rates = {}
    for threads in sorted({1, all_threads}):
        progress(f"Conspiracy fast path, {threads} thread(s): {fast_games:,} games ...")
        _, _, timing = run_fast(
            tables,
            n_players=players,
            n_games=fast_games,
            seed=seed,
            strategies=policies,
            threads=threads,
        )
        rates[threads] = timing["games_per_second"]
        result.add(
            f"Conspiracy fast path, {threads} thread(s)",
            rates[threads],
            f"{rates[threads]:,.0f} games/s",
        )
    ratio = rates[1] / ref_rate
    result.add("Conspiracy fast (1 thread) / reference", ratio, f"{ratio:,.0f}x")
    if all_threads > 1:
        scaling = rates[all_threads] / rates[1]
        result.add(f"{all_threads} threads / 1 thread", scaling, f"{scaling:.2f}x")
    if abyss_games:
        abyss = load_abyss(expansions=("leviathan",))
        n = min(players, 4)
        progress(f"Abyss fast path (greedy, Leviathan, {n} players): {abyss_games:,} games ...")
        greedy = abyss_policies(["greedy"] * n, n)
        run_abyss(abyss, n_players=n, n_games=8, seed=seed, strategies=greedy)
        _, _, _, timing = run_abyss(
            abyss,
            n_players=n,
            n_games=abyss_games,
            seed=seed,
            strategies=greedy,
            per_game=False,
        )
        abyss_rate = timing["games_per_second"]
        result.add(
            f"Abyss fast path, {all_threads} thread(s), same run", abyss_rate,
            f"{abyss_rate:,.0f} games/s",
        )  # fmt: skip
        over = rates[all_threads] / abyss_rate
        result.add("Conspiracy / Abyss games per second", over, f"{over:.2f}x")
    return result
