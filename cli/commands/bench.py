"""`abyss-mc bench`: the engines' speed, measured in one run (docs/benchmarks.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from cli.commands import common as c
from sim.core.errors import UserError


@c.user_errors
def bench(
    players: c.PlayersOption = 4,
    strategies: c.StrategiesOption = None,
    expansions: c.ExpansionsOption = None,
    games: c.option(int, "--games", "Games per fast-path measurement.") = 200_000,
    reference_games: c.option(int, "--reference-games", "Games for the reference engine.") = 200,
    memory_games: c.option(int, "--memory-games", "Games of the aggregates-only memory run (0: "
                           "skip it).") = 0,
    starts: c.option(bool, "--starts/--no-starts", "Measure cold and warm start in fresh "
                     "processes.") = True,
    markdown: c.option(Path | None, "--markdown", "Also write the table as Markdown.",
                       "FILE") = None,
    seed: c.SeedOption = 1,
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    presets: c.PresetsOption = None,
    game: c.GameOption = "abyss",
) -> None:
    """Measure both engines' speed in one run: games/s, threads, start-up, memory."""
    spec = c.game_spec(game)
    c.check_seed(seed)
    for name, value in (("--games", games), ("--reference-games", reference_games)):
        if value < 1:
            raise UserError(f"{name} must be at least 1; got {value}")
    if memory_games < 0:
        raise UserError(f"--memory-games must be >= 0; got {memory_games}")
    if spec.analysis_module is not None:
        result = spec.analysis().bench(games=games, reference_games=reference_games, seed=seed,
                                       cards=cards, set_=set_)  # fmt: skip
        _emit_bench(result, markdown)
        return
    spec.strategies().use_presets(presets)
    exp = c.game_expansions(spec, expansions, spec.tournament_expansions)
    tables = spec.load_cards(cards, set_, exp)
    spec.check_players(tables, players, exp)
    report = spec.report()
    lineup, _ = c.game_lineup(spec, strategies or report.BENCH_STRATEGIES, players)
    result = report.bench(
        tables, players=players, lineup=lineup, games=games, reference_games=reference_games,
        memory_games=memory_games, seed=seed, expansions=exp, starts=starts,
        progress=lambda text: typer.echo(text, err=True),
    )  # fmt: skip
    _emit_bench(result, markdown)


def _emit_bench(result, markdown: Path | None) -> None:
    """Print a benchmark's Markdown table, and write it to `--markdown FILE` (atomically)."""
    from sim.core.runs import atomic_write_text

    text = result.markdown(" ".join(["abyss-mc", *sys.argv[1:]]))
    typer.echo(text)
    if markdown is not None:
        atomic_write_text(markdown, text)
