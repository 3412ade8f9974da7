"""`abyss-mc cards`: check the card data (and any overrides) and describe it."""

from __future__ import annotations

import typer

from reports.commands.common import (
    CardsOption,
    ExpansionsOption,
    GameOption,
    SetOption,
    check_game,
    load_tables,
    parse_expansions,
    user_errors,
    wilds_tables,
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
    if check_game(game) == "conspiracy":
        from reports import conspiracy_cli

        conspiracy_cli.check_expansions(expansions)
        conspiracy_cli.cards(cards, set_)
        return
    if game == "wilds":
        from sim.wilds.cards import describe

        typer.echo(describe(wilds_tables(cards, set_)), nl=False)
        return
    from sim.abyss.cards import describe

    typer.echo(describe(load_tables(cards, set_, parse_expansions(expansions))))
