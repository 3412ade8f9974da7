"""Abyss (Bombyx, 2014) and its Leviathan expansion, as the commands see it (`sim.games`)."""

from sim.core.game import GameSpec

SPEC = GameSpec(name="abyss", title="Abyss", cards_module="sim.abyss.cards",
                expansions=("leviathan",))  # fmt: skip
