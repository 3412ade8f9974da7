"""Conspiracy's benchmark: both engines on the same games, and Abyss's fast path in the same run
for the ratio of their speeds (`reports.runs.bench` holds what every game's benchmark shares)."""

from __future__ import annotations

from reports.runs.bench import BenchResult, add_fast_rates, game_rate


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
    from games.conspiracy.engine.play import run_games
    from games.conspiracy.strategies import REGISTRY
    from sim.core.jit import numba

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
        n = min(players, 4)
        abyss_rate = game_rate("abyss", players=n, seed=seed, games=abyss_games,
                               lineup=["greedy"] * n, expansions=("leviathan",), progress=progress)
        result.add(
            f"Abyss fast path, {all_threads} thread(s), same run", abyss_rate,
            f"{abyss_rate:,.0f} games/s",
        )  # fmt: skip
        over = rates[all_threads] / abyss_rate
        result.add("Conspiracy / Abyss games per second", over, f"{over:.2f}x")
    return result
