"""Abyss's benchmark: both engines on the same games, the cold and warm start, the memory of a
large aggregates-only run (`reports.runs.bench` holds what every game's benchmark shares)."""

from __future__ import annotations

import time
from functools import partial

from reports.runs.bench import BenchResult, add_fast_rates, add_memory, add_starts

#: The program a fresh process runs for the cold/warm start figures: load the engine, play a game.
START_PROGRAM = """
import time
t0 = time.perf_counter()
from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.fast import run_fast
from games.abyss.strategies import REGISTRY
t = load_cards(expansions={expansions!r})
policies = REGISTRY.make_policies({lineup!r}, {players})
run_fast(t, n_players={players}, n_games=1, seed=1, strategies=policies, threads=1, per_game=False)
print(time.perf_counter() - t0)
"""



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
    from games.abyss.engine.fast import run_fast
    from games.abyss.engine.runner import run_simulation
    from games.abyss.strategies import REGISTRY

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
        add_memory(result, memory_run, memory_games, progress)
    if starts:
        code = START_PROGRAM.format(expansions=tuple(expansions), players=players, lineup=lineup)
        add_starts(result, code, progress)
    return result
