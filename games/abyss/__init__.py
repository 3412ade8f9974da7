"""Abyss (Bombyx, 2014) and its Leviathan expansion, as the commands see it (`sim.games`)."""

from sim.core.game import GameSpec

SPEC = GameSpec(
    name="abyss",
    title="Abyss",
    cards_module="games.abyss.engine.cards.loader",
    expansions=("leviathan",),
    play_module="games.abyss.engine.play",
    report_module="games.abyss.report",
    results_module="games.abyss.engine.schema",
    default_strategies="greedy,random",
    default_tournament="greedy,lord_rusher,key_hunter,council_hoarder,auction_buyer,"
    "pearl_economist,leviathan_hunter,cautious_explorer,farmer,random",
    tournament_expansions=("leviathan",),
    commands_module="games.abyss.commands",
)
