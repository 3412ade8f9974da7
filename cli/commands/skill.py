"""`abyss-mc skill RUN_DIR`: skill against luck, from a tournament of a ladder of players
(`reports.runs.skill`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.commands import common as c
from reports.runs.options import SkillOptions as O

RunDir = Annotated[Path, typer.Argument(metavar="RUN_DIR", help="A tournament directory.")]
Rungs = c.option(str, "--rungs", "The ladder, weakest first: strategies of the tournament (e.g. "
                 "random,greedy,farmer_tuned_2p,learned).", "A,B,...")


@c.command(O, run_dir=c.Required(RunDir), rungs=Rungs)
def skill(**flags) -> None:
    """Skill steps between the rungs of a ladder (a step: the stronger wins 75% head to head).

    Play the ladder first, every pair of rungs meeting: `abyss-mc tournament --players 2
    --design all --strategies random,greedy,...`; docs/metrics.md. `abyss-mc report RUN_DIR`
    then shows the ladder."""
    c.run(O, flags)
