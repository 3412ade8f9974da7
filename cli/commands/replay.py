"""`abyss-mc replay`: one game of a run, move by move (`reports.runs.replay`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.commands import common as c
from reports.runs.options import ReplayOptions as O

RunDir = Annotated[Path | None, typer.Argument(
    metavar="[RUN_DIR]", help="A run directory of `abyss-mc simulate`: replay its game --game N "
    "with every option from its manifest.")]  # fmt: skip
Game = Annotated[str, typer.Option(
    "--game", metavar="GAME|N", help="With RUN_DIR: the index N of the game (0-based). Without: "
    "the game (" + ", ".join(c.GAMES) + "); a number is the game index, as --index.")]  # fmt: skip
Index = c.option(int | None, "--index", "Game index in the run (0-based).")
JsonOut = c.option(bool, "--json", "Print the event log as JSON instead of text.")


@c.command(O, run_dir=RunDir, game=Game, index=Index, json_out=JsonOut)
def replay(**flags) -> None:
    """Replay one game of a run move by move: `abyss-mc replay RUN_DIR --game N`, or with the
    run's options repeated (--seed/--players/--strategies/...)."""
    c.run(O, flags)
