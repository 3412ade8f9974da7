"""`abyss-mc restrict`: what each card is worth to a strategy, by restricted play
(`reports.runs.restrict`, `reports.restrict`)."""

from __future__ import annotations

from cli.commands import common as c
from reports.runs.options import RestrictOptions as O

Strategy = c.option(str | None, "--strategy", "The strategy whose cards are valued (a preset or a "
                    "policy with parameters, e.g. a tuned preset); it plays every seat.", "S")
Blocks = c.option(int, "--blocks", "Deals per card; each is played in every rotation of the "
                  "seats by the restricted and the unrestricted strategy (common random "
                  "numbers).")
Resume = c.resume_option("run: its finished batches of cards are kept")


@c.command(O, strategy=Strategy, blocks=Blocks, resume=Resume)
def restrict(**flags) -> None:
    """Value every Lord and Location: the win rate a strategy loses when forbidden each one."""
    c.run(O, flags)
