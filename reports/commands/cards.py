"""`abyss-mc cards`: check the card data (and any overrides) and describe it."""

from __future__ import annotations

import typer

from reports.commands.common import (
    CardsOption,
    ExpansionsOption,
    GameOption,
    SetOption,
    parse_expansions,
    user_errors,
)

# --- commands --------------------------------------------------------------------------------


@user_errors
def cards(
    cards: CardsOption = None,
    set_: SetOption = None,
    expansions: ExpansionsOption = "",
    game: GameOption = "abyss",
) -> None:
    """Validate the card data and describe it (after any --set overrides)."""
    from sim import games

    spec = games.get(game)
    tables = spec.load_cards(cards, set_, parse_expansions(expansions))
    typer.echo(spec.describe(tables), nl=False)
