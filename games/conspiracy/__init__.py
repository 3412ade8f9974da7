"""Abyss: Conspiracy, as the commands see it (`sim.games`)."""

from sim.core.game import GameSpec

SPEC = GameSpec(
    name="conspiracy",
    title="Conspiracy",
    cards_module="games.conspiracy.engine.cards.loader",
    play_module="games.conspiracy.engine.play",
    report_module="games.conspiracy.report",
    default_strategies="key_hunter,pile_raider",
    default_tournament="coalition_builder,key_hunter,pearl_master,high_ip,pile_raider,random",
)
