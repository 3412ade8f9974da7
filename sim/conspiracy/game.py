"""Abyss: Conspiracy, as the commands see it (`sim.games`)."""

from sim.core.game import GameSpec

SPEC = GameSpec(name="conspiracy", title="Conspiracy", cards_module="sim.conspiracy.cards")
