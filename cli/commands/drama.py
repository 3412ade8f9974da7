"""`abyss-mc drama RUN_DIR`: drama and decisiveness with an oracle, for a tournament's play
strengths (`reports.runs.drama`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.commands import common as c
from reports.runs.options import DramaOptions as O

RunDir = Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A tournament directory.")]
Games = c.option(int, "--games", "Sampled games per play strength and player count.")
Rollouts = c.option(int, "--rollouts", "Rollouts per position: each seat's chance to win before "
                    "every round.")


@c.command(O, run_dir=c.Required(RunDir), games=Games, rollouts=Rollouts)
def drama(**flags) -> None:
    """Drama and decisiveness with an oracle: each seat's chance to win before every round of
    the tournament's sampled games, by rollouts (docs/metrics.md). `abyss-mc report RUN_DIR`
    then adds them to the report."""
    c.run(O, flags)
