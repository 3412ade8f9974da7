"""`abyss-mc plan`: blocks, games and time a comparison needs (`reports.runs.plan`)."""

from __future__ import annotations

from typing import Annotated

import typer

from cli.commands import common as c
from reports.runs.options import PlanOptions as O

Effect = c.option(float, "--effect", "The difference to detect: in win share (0.01 = one point "
                  "of win rate) or, with --metric ip, in IP.")
Strategies = c.option(str | None, "--strategies", "The two strategies to compare (default: the "
                      "first two of the game's tournament).", "A,B")
Metric = Annotated[str, typer.Option("--metric", metavar="win|ip")]
Alpha = c.option(float, "--alpha", "Two-sided test level.")
Power = c.option(float, "--power", "Chance to detect the effect.")
PilotBlocks = c.option(int, "--pilot-blocks", "Blocks of the pilot tournament, per mode.")


@c.command(O, effect=Effect, strategies=Strategies, metric=Metric, alpha=Alpha, power=Power,
           pilot_blocks=PilotBlocks)
def plan(**flags) -> None:
    """How many games a comparison needs, with and without common random numbers, and how long
    they take on this machine (from a pilot tournament)."""
    c.run(O, flags)
