"""`abyss-mc sweep`: the default card data and every point of a grid, on the same seeds
(`reports.runs.sweep`)."""

from __future__ import annotations

from typing import Annotated

import typer

from cli.commands import common as c
from reports.runs.options import SweepOptions as O

Axes = c.option(list[str] | None, "--set", "A card-data or rules value to sweep, with its values; "
                "repeat for a grid (every combination), e.g. --set "
                "leviathan_game.hand_limit=8,10,12,14.", "KEY=V1,V2,...")
Fixed = c.option(list[str] | None, "--fixed", "An override for every point.", "KEY=VALUE")
Games = c.option(int, "--games", "Games per point (>= 2).")
Strategies = c.option(str | None, "--strategies", "Strategy per seat, cycled if shorter than "
                      "--players. Default: a different strategy in every seat (the game's "
                      "tournament strategies but random, in order; Abyss at 4 players: greedy, "
                      "lord_rusher, key_hunter, council_hoarder), so a change that favours one "
                      "style shows.", "A,B,...")
Report = Annotated[bool, typer.Option("--report/--no-report")]
Resume = c.resume_option("sweep: its finished points are kept, the rest is played with the "
                         "sweep's own options")


@c.command(O, set_=Axes, fixed=Fixed, games=Games, strategies=Strategies, report=Report,
           resume=Resume)
def sweep(**flags) -> None:
    """Play the default and every point of a grid of card-data or rules values on the same
    seeds; report what changes, with intervals and multiple-comparison correction."""
    c.run(O, flags)
