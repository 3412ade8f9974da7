"""`abyss-mc cards`: check the card data (and any overrides) and describe it."""

from __future__ import annotations

import typer

from cli.commands import common as c

# --- commands --------------------------------------------------------------------------------


@c.user_errors
def cards(
    cards: c.CardsOption = None,
    set_: c.SetOption = None,
    expansions: c.ExpansionsOption = None,
    game: c.GameOption = "abyss",
) -> None:
    """Validate the card data and describe it (after any --set overrides)."""
    spec = c.game_spec(game)
    tables = spec.load_cards(cards, set_, c.game_expansions(spec, expansions))
    typer.echo(spec.describe(tables), nl=False)
