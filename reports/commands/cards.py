"""`abyss-mc cards`: check the card data (and any overrides) and describe it."""

from __future__ import annotations

import typer

from reports.commands.common import (
    CardsOption,
    ExpansionsOption,
    GameOption,
    SetOption,
    game_expansions,
    game_spec,
    user_errors,
)

# --- commands --------------------------------------------------------------------------------


@user_errors
def cards(
    cards: CardsOption = None,
    set_: SetOption = None,
    expansions: ExpansionsOption = None,
    game: GameOption = "abyss",
) -> None:
    """Validate the card data and describe it (after any --set overrides)."""
    spec = game_spec(game)
    tables = spec.load_cards(cards, set_, game_expansions(spec, expansions))
    typer.echo(spec.describe(tables), nl=False)
