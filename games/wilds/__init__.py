"""Leviathan Wilds: Shattered Peak, the warped-crystal rules, as the commands see it
(`sim.games`)."""

from sim.core.game import GameSpec

SPEC = GameSpec(
    name="wilds",
    title="Leviathan Wilds",
    cards_module="games.wilds.engine.cards",
    analysis_module="games.wilds.report",
)
