"""`abyss-mc cards`: check the card data (and any overrides) and describe it
(`reports.runs.describe`)."""

from __future__ import annotations

from cli.commands import common as c
from reports.runs.options import CardsOptions as O


@c.command(O)
def cards(**flags) -> None:
    """Validate the card data and describe it (after any --set overrides)."""
    c.run(O, flags)
