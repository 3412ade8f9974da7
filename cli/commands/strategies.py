"""`abyss-mc strategies`: the policies, presets and their parameters (`reports.runs.describe`)."""

from __future__ import annotations

from typing import Annotated

import typer

from cli.commands import common as c
from reports.runs.options import StrategiesOptions as O

StrategyArgument = Annotated[
    str | None,
    typer.Argument(
        metavar="[STRATEGY]",
        help="Show one strategy in full: a policy or preset name, or a spec such as "
        "greedy:buy_min=3, with every parameter's value explained.",
        show_default=False,
    ),
]


@c.command(O, strategy=StrategyArgument)
def strategies_(**flags) -> None:
    """List the strategies (policies and presets), what they do and their parameter values, then
    each parameter explained: meaning, range, default and the effect of raising it."""
    c.run(O, flags)
