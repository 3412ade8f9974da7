"""Abyss (Bombyx, 2014) and its Leviathan expansion, as the commands see it (`sim.games`)."""

from sim.core.game import GameSpec

SPEC = GameSpec(
    name="abyss",
    title="Abyss",
    cards_module="sim.abyss.cards",
    expansions=("leviathan",),
    play_module="sim.abyss.play",
    report_module="reports.games.abyss",
    results_module="sim.abyss.schema",
    default_strategies="greedy,random",
    default_tournament="greedy,lord_rusher,key_hunter,council_hoarder,auction_buyer,"
    "pearl_economist,leviathan_hunter,cautious_explorer,farmer,random",
    tournament_expansions=("leviathan",),
)
