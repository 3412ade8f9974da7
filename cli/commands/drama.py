"""`abyss-mc drama RUN_DIR`: drama and decisiveness with an oracle, for a tournament's play
strengths (`reports.runs.drama`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from cli.commands import common as c
from sim.core.errors import UserError


@c.user_errors
def drama(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A tournament directory.")],
    games: c.option(int, "--games", "Sampled games per play strength and player count.") = 256,
    rollouts: c.option(int, "--rollouts", "Rollouts per position: each seat's chance to win "
                       "before every round.") = 16,
) -> None:
    """Drama and decisiveness with an oracle: each seat's chance to win before every round of
    the tournament's sampled games, by rollouts (docs/metrics.md). `abyss-mc report RUN_DIR`
    then adds them to the report."""
    from reports.runs.drama import run_drama
    from reports.sections.drama import frame

    if games < 1 or rollouts < 1:
        raise UserError(f"--games and --rollouts must be at least 1; got {games} and {rollouts}")

    def say(line: str) -> None:
        print(line, file=sys.stderr)

    found = run_drama(run_dir, games, rollouts, progress=say)
    if not found:
        raise UserError(f"{run_dir}: no play strength without a search seat to measure")
    typer.echo(frame(found).to_string(index=False))
    typer.echo(f"add them to the report: abyss-mc report {run_dir}")
