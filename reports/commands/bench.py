"""`abyss-mc bench`: the engines' speed, measured in one run (docs/benchmarks.md)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from reports.commands.common import (
    CardsOption,
    ExpansionsOption,
    GameOption,
    PlayersOption,
    PresetsOption,
    SeedOption,
    SetOption,
    StrategiesOption,
    check_game,
    check_players,
    check_seed,
    load_tables,
    parse_expansions,
    parse_lineup,
    use_presets,
    user_errors,
    wilds_tables,
)
from sim.core.errors import UserError


@user_errors
def bench(
    players: PlayersOption = 4,
    strategies: StrategiesOption = "greedy",
    expansions: ExpansionsOption = "leviathan",
    games: Annotated[
        int, typer.Option("--games", help="Games per fast-path measurement.")
    ] = 200_000,
    reference_games: Annotated[
        int, typer.Option("--reference-games", help="Games for the reference engine.")
    ] = 200,
    memory_games: Annotated[
        int,
        typer.Option(
            "--memory-games", help="Games of the aggregates-only memory run (0: skip it)."
        ),
    ] = 0,
    starts: Annotated[
        bool,
        typer.Option(
            "--starts/--no-starts", help="Measure cold and warm start in fresh processes."
        ),
    ] = True,
    markdown: Annotated[
        Path | None,
        typer.Option("--markdown", metavar="FILE", help="Also write the table as Markdown."),
    ] = None,
    seed: SeedOption = 1,
    cards: CardsOption = None,
    set_: SetOption = None,
    presets: PresetsOption = None,
    game: GameOption = "abyss",
) -> None:
    """Measure both engines' speed in one run: games/s, threads, start-up, memory."""
    if check_game(game) == "conspiracy":
        _bench_conspiracy(players, strategies, games, reference_games, seed, cards, set_, markdown)
        return
    if game == "wilds":
        _bench_wilds(games, reference_games, seed, cards, set_, markdown)
        return
    use_presets(presets)
    exp = parse_expansions(expansions)
    check_players(players, exp)
    check_seed(seed)
    for name, value in (("--games", games), ("--reference-games", reference_games)):
        if value < 1:
            raise UserError(f"{name} must be at least 1; got {value}")
    if memory_games < 0:
        raise UserError(f"--memory-games must be >= 0; got {memory_games}")
    lineup = parse_lineup(strategies, players)
    tables = load_tables(cards, set_, exp)
    from strategies.abyss import make_policies

    make_policies(lineup, players)
    from reports.bench import run_bench

    result = run_bench(
        tables=tables,
        expansions=exp,
        players=players,
        lineup=lineup,
        fast_games=games,
        reference_games=reference_games,
        memory_games=memory_games,
        seed=seed,
        starts=starts,
        progress=lambda text: typer.echo(text, err=True),
    )
    _emit_bench(result, markdown)


def _emit_bench(result, markdown: Path | None) -> None:
    """Print a benchmark's Markdown table, and write it to `--markdown FILE` (atomically)."""
    from sim.core.runs import atomic_write_text

    text = result.markdown(" ".join(["abyss-mc", *sys.argv[1:]]))
    typer.echo(text)
    if markdown is not None:
        atomic_write_text(markdown, text)


def _bench_wilds(games, reference_games, seed, cards, set_, markdown):
    """Episodes per second of both Wilds engines (same episodes), 1 thread and all threads."""
    import numpy as np

    from reports.bench import BenchResult
    from sim.core.batch import set_threads
    from sim.core.jit import numba
    from sim.wilds.kernel import run_episodes
    from sim.wilds.rules import Game as WildsGame

    check_seed(seed)
    t = wilds_tables(cards, set_)
    result = BenchResult({"game": "wilds", "episodes": games})
    run_episodes(t, seed, np.arange(8))  # compile or load
    t0 = time.perf_counter()
    for g in range(reference_games):
        WildsGame(t, seed, g, record=False).play()
    ref = reference_games / (time.perf_counter() - t0)
    result.add("Wilds reference engine", ref, f"{ref:,.0f} episodes/s")
    rates = {}
    for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        set_threads(threads)
        t0 = time.perf_counter()
        run_episodes(t, seed, np.arange(games))
        rates[threads] = games / (time.perf_counter() - t0)
        result.add(f"Wilds fast path, {threads} thread(s)", rates[threads],
                   f"{rates[threads]:,.0f} episodes/s")  # fmt: skip
    set_threads(None)
    result.add("fast (1 thread) / reference", rates[1] / ref, f"{rates[1] / ref:,.0f}x")
    _emit_bench(result, markdown)


def _bench_conspiracy(players, strategies, games, reference_games, seed, cards, set_, markdown):
    from reports import conspiracy_cli
    from reports.bench import run_conspiracy_bench

    check_seed(seed)
    tables = conspiracy_cli.load_tables(cards, set_)
    conspiracy_cli.check_players(tables, players)
    if strategies == "greedy":  # the Abyss default
        strategies = "coalition_builder,key_hunter,pearl_master,pile_raider"
    lineup = conspiracy_cli.lineup_of(strategies, players)
    result = run_conspiracy_bench(
        tables=tables,
        players=players,
        lineup=lineup,
        fast_games=games,
        reference_games=reference_games,
        seed=seed,
        abyss_games=games,
        progress=lambda text: typer.echo(text, err=True),
    )
    _emit_bench(result, markdown)
