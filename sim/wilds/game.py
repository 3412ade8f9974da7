"""Leviathan Wilds: Shattered Peak, the warped-crystal rules, as the commands see it
(`sim.games`)."""

from sim.core.game import GameSpec

SPEC = GameSpec(
    name="wilds",
    title="Leviathan Wilds",
    cards_module="sim.wilds.cards",
    analysis_module="reports.games.wilds",
)
