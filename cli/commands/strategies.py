"""`abyss-mc strategies`: the policies, presets and their parameters."""

from __future__ import annotations

from typing import Annotated

import typer

from cli.commands import common as c

StrategyArgument = Annotated[
    str | None,
    typer.Argument(
        metavar="[STRATEGY]",
        help="Show one strategy in full: a policy or preset name, or a spec such as "
        "greedy:buy_min=3, with every parameter's value explained.",
        show_default=False,
    ),
]


@c.user_errors
def strategies_(
    strategy: StrategyArgument = None,
    presets: c.PresetsOption = None,
    game: c.GameOption = "abyss",
) -> None:
    """List the strategies (policies and presets), what they do and their parameter values, then
    each parameter explained: meaning, range, default and the effect of raising it."""
    import strategies
    from sim import games

    registry = strategies.for_game(games.get(game).name)
    registry.use_presets(presets)
    typer.echo(registry.text(strategy), nl=False)
