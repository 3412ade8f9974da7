"""`abyss-mc bench`: the engines' speed, measured in one run (`reports.runs.bench`,
docs/benchmarks.md)."""

from __future__ import annotations

from pathlib import Path

from cli.commands import common as c
from reports.runs.options import BenchOptions as O

Games = c.option(int, "--games", "Games per fast-path measurement.")
ReferenceGames = c.option(int, "--reference-games", "Games for the reference engine.")
MemoryGames = c.option(int, "--memory-games", "Games of the aggregates-only memory run (0: skip "
                       "it).")
Starts = c.option(bool, "--starts/--no-starts", "Measure cold and warm start in fresh processes.")
Markdown = c.option(Path | None, "--markdown", "Also write the table as Markdown.", "FILE")


@c.command(O, games=Games, reference_games=ReferenceGames, memory_games=MemoryGames,
           starts=Starts, markdown=Markdown)
def bench(**flags) -> None:
    """Measure both engines' speed in one run: games/s, threads, start-up, memory."""
    c.run(O, flags)
