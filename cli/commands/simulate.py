"""`abyss-mc simulate`: games of one line-up on either engine, resumable, locally or on Dask
(`reports.runs.simulate`)."""

from __future__ import annotations

from cli.commands import common as c
from reports.runs.options import SimulateOptions as O

Games = c.option(int, "--games", "Number of games (>= 1).")
Engine = c.option(str | None, "--engine", "fast: the compiled kernel on all threads; reference: "
                  "the readable engine (same games, much slower). Default: fast, except on the "
                  "very first run, before the fast path is compiled: a run that finishes sooner "
                  "on the reference engine than the compile takes plays there while the fast "
                  "path compiles in the background.", "fast|reference")
PerGame = c.option(bool, "--per-game/--no-per-game", "Write the per-game tables seats.parquet "
                   "and games.parquet (the aggregates are always written).")
ChunkSize = c.option(int | None, "--chunk-size", "Games per chunk (the unit of progress and of "
                     "--resume); default: about a second of work each.")
Resume = c.resume_option("run (Ctrl-C, a killed process) of the fast engine: its finished "
                         "chunks are kept, the rest is played with the run's own options; the "
                         "results are those of an uninterrupted run")


@c.command(O, games=Games, engine=Engine, per_game=PerGame, chunk_size=ChunkSize,
           resume=Resume)
def simulate(**flags) -> None:
    """Simulate games; write results + manifest to a new directory; print a summary."""
    c.run(O, flags)
