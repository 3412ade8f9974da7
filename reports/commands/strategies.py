"""`abyss-mc strategies`: the policies, presets and their parameters."""

from __future__ import annotations

import typer

from reports.commands import common as c


@c.user_errors
def strategies_(presets: c.PresetsOption = None, game: c.GameOption = "abyss") -> None:
    """List the strategies (policies and presets), what they do, and their parameters."""
    import strategies
    from sim import games

    registry = strategies.for_game(games.get(game).name)
    registry.use_presets(presets)
    typer.echo(registry.text(), nl=False)
