"""`abyss-mc bench`: the speed of a game's engines, measured in one run on the same games (what
every game's benchmark shares; each game's own is `games/<game>/report/benchmark.py`).

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


def start_seconds(cache_dir: str, code: str) -> float:
    """Wall time of a new process that runs `code` (a game's program that loads its engine and
    plays one game, printing nothing else) with `cache_dir` as numba's cache."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"start-up benchmark failed: {done.stderr.strip()[-500:]}")
    return wall


def add_fast_rates(
    result: BenchResult, prefix: str, ref_rate: float, play, games: int, progress
) -> dict[int, float]:
    """The fast path on one thread and on all threads (`play(threads)` plays `games` games and
    returns games/s), its speed-up over the reference engine and its scaling with threads;
    `prefix` names the game in the rows ("" for the benchmark's own game). Returns the rate per
    thread count."""
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


def add_memory(result: BenchResult, play, games: int, progress) -> None:
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


def add_starts(result: BenchResult, code: str, progress) -> None:
    """Cold start (a new process running `code`, compiling into an empty cache), then warm
    (loading it)."""
    with tempfile.TemporaryDirectory(prefix="abyss-mc-bench-cache-") as cache:
        progress("cold start (compiling into an empty cache) ...")
        cold = start_seconds(cache, code)
        progress("warm start (loading the cache) ...")
        warm = start_seconds(cache, code)
    result.add("cold start (new process, empty cache, one game)", cold, f"{cold:,.1f} s")
    result.add("warm start (new process, cached, one game)", warm, f"{warm:,.1f} s")


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far (MiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def game_rate(game: str, *, players: int, seed: int, games: int, lineup: list[str],
              expansions: tuple[str, ...] = (), progress=print) -> float:  # fmt: skip
    """Games/s of another game's fast path on all threads (through its play API), for a ratio
    measured in the same run."""
    from sim import games as registry

    spec = registry.get(game)
    tables = spec.load_cards(expansions=expansions)
    progress(f"{spec.title} fast path ({','.join(lineup)}, {players} players): {games:,} games ...")
    same = {"engine": "fast", "n_players": players, "seed": seed, "expansions": expansions,
            "policies": spec.strategies().make_policies(lineup, players)}  # fmt: skip
    spec.play().run_games(tables, n_games=8, per_game=False, **same)  # compile
    played = spec.play().run_games(tables, n_games=games, per_game=False, **same)
    return played.timings["games_per_second"]


def run(o):
    """`abyss-mc bench` (options `o`: `reports.runs.options.BenchOptions`): check the options,
    measure; the Markdown table (also written to `o.markdown`, atomically) and its figures
    (`frames["figures"]`)."""
    import pandas as pd

    from reports.runs import setup as S
    from sim.core.errors import UserError
    from sim.core.runs import atomic_write_text

    spec = S.game_spec(o.game)
    S.check_seed(o.seed)
    S.check_at_least(o, 1, "games", "reference_games")
    if o.memory_games < 0:
        raise UserError(f"--memory-games must be >= 0; got {o.memory_games}")
    result = _measure(spec, o)
    text = result.markdown(" ".join(["abyss-mc", *sys.argv[1:]]))
    if o.markdown is not None:
        atomic_write_text(o.markdown, text)
    figures = pd.DataFrame({"figure": list(result.figures), "value": list(result.figures.values())})
    return S.Output(text, notes=("",), frames={"figures": figures})


def _measure(spec, o) -> BenchResult:
    """The game's own benchmark (an analysis game's, or its report's `bench`)."""
    from reports.runs import setup as S

    if spec.analysis_module is not None:
        return spec.analysis().bench(games=o.games, reference_games=o.reference_games,
                                     seed=o.seed, cards=o.cards, set_=o.set_)  # fmt: skip
    spec.strategies().use_presets(o.presets)
    exp = S.game_expansions(spec, o.expansions, spec.tournament_expansions)
    tables = spec.load_cards(o.cards, o.set_, exp)
    spec.check_players(tables, o.players, exp)
    report = spec.report()
    lineup, _ = S.game_lineup(spec, o.strategies or report.BENCH_STRATEGIES, o.players)
    return report.bench(
        tables, players=o.players, lineup=lineup, games=o.games,
        reference_games=o.reference_games, memory_games=o.memory_games, seed=o.seed,
        expansions=exp, starts=o.starts, progress=lambda text: print(text, file=sys.stderr),
    )  # fmt: skip
