"""`abyss-mc strategies`: the policies, presets and their parameters."""

from __future__ import annotations

import typer

from reports.commands.common import (
    GameOption,
    PresetsOption,
    check_game,
    use_presets,
    user_errors,
)


@user_errors
def strategies_(presets: PresetsOption = None, game: GameOption = "abyss") -> None:
    """List the strategies (policies and presets), what they do, and their parameters."""
    if check_game(game) == "conspiracy":
        from reports import conspiracy_cli

        conspiracy_cli.use_presets(presets)
        typer.echo(conspiracy_cli.strategies_text(), nl=False)
        return
    use_presets(presets)
    from strategies.abyss import describe, strategy_names

    for name in strategy_names():
        text, values = describe(name)
        typer.echo(f"{name}: {text}")
        if values:
            typer.echo("    " + ", ".join(f"{k}={v}" for k, v in values.items()))
