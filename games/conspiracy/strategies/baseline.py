"""The compiled Conspiracy strategies a preset is made from: `RandomPolicy` and
`HeuristicPolicy` (their parameters documented on their fields), on
`games.conspiracy.engine.policies`."""

from __future__ import annotations

from dataclasses import dataclass

from games.conspiracy.engine import policies as P
from games.conspiracy.engine import state as S
from sim.core.workspace import PerTables
from strategies import compiled
from strategies.registry import param


class CompiledPolicy(compiled.CompiledPolicy):
    """Base of the Conspiracy strategies: `games.conspiracy.engine.policies` on a state
    workspace."""

    policies_module = "games.conspiracy.engine.policies"
    layout = S
    state = S
    workspaces = PerTables(S.template)


@dataclass
class RandomPolicy(compiled.UniformChoice, CompiledPolicy):
    """Uniformly random among the legal options."""

    kind = P.RANDOM


#: The unit of the heuristic's weights: what a Lord adds is valued x10, in integers.
PER = "x10 per {}"


@dataclass
class HeuristicPolicy(CompiledPolicy):
    """Values Lords by what they add (IP, coalition, Keys, Pearls); thresholds for piles, draws.

    `heuristic` in `games.conspiracy.engine.policies`: a Lord's worth (x10, integer weights, in the
    parameters' order `policies.H_*`) on the next Chamber spot decides which Lord it keeps or
    places and whether a discard pile is worth taking; it swaps when a swap grows its largest
    coalition, and keeps the drawn Location worth the most.
    """

    name: str = "heuristic"
    ip_weight: int = param(
        10,
        "Worth of each IP a Lord has over the seat's best Lord of that colour (only a colour's "
        "best Lord scores), in the Lords it keeps, places and takes from a discard pile.",
        "prefers the most influential Lord of each colour; 0: ignores IP.",
        low=0,
        high=999,
        search=(0, 100),
        unit=PER.format("IP"),
    )
    coalition_weight: int = param(
        15,
        "Worth of each placed Lord of the same colour next to the Chamber spot the Lord would "
        "take (the largest same-colour group scores coalition_ip per Lord).",
        "grows same-colour coalitions over other gains; 0: ignores neighbours.",
        low=0,
        high=999,
        search=(0, 100),
        unit=PER.format("neighbour"),
    )
    key_weight: int = param(
        12,
        "Worth of each Key on a Lord (silver 1, gold 2; Keys take Locations).",
        "prefers Lords with Keys; 0: ignores Keys.",
        low=0,
        high=999,
        search=(0, 100),
        unit=PER.format("Key"),
    )
    pearl_weight: int = param(
        8,
        "Worth of each Pearl on a Lord; a Location's Pearls count pearl_weight / 10 IP each in "
        "its worth (see location_min).",
        "prefers Lords (and Locations) with Pearls; 0: ignores Pearls.",
        low=0,
        high=999,
        search=(0, 100),
        unit=PER.format("Pearl"),
    )
    pile_min: int = param(
        40,
        "Take the best discard pile (all its Lords) if its Lords are worth at least this, each "
        "valued on the Chamber spot it would take; otherwise draw from the deck (a pile anyway "
        "when the deck is empty).",
        "draws from the deck more often; 0: takes a pile whenever there is one; 999: hardly "
        "ever.",
        low=0,
        high=999,
        search=(0, 200),
        unit="worth, x10",
    )
    draw: int = param(
        3,
        "Lords drawn from the deck when it does not take a pile (it keeps the best, the others "
        "go to the discard piles); at most what the rules allow (game.draw_max, 3).",
        "sees more Lords per draw and fills the discard piles faster; from draw_max up: the most "
        "allowed.",
        low=1,
        high=10,
        unit="Lords",
    )
    location_min: int = param(
        6,
        "When it takes a Location, take the best face-up one if it is worth at least this (its "
        "IP, plus 2 x its IP per counted item, plus its Pearls x pearl_weight / 10), else "
        "draw from the deck.",
        "draws more often, hoping for a better one; 0: takes a face-up Location whenever there "
        "is one.",
        low=0,
        high=99,
        search=(0, 20),
        unit="IP",
    )
    master_weight: int = param(
        20,
        "Worth added when the Lord's Pearls would take the Pearl Master (5 IP at the end) from "
        "another player or claim it.",
        "chases the Pearl Master; 0: ignores it.",
        low=0,
        high=999,
        search=(0, 100),
        unit="x10",
    )
    forbid_colour: int = param(
        -1,
        "Restricted play (`abyss-mc restrict`): never keep a drawn Lord of this colour (its "
        "index in the card data) with forbid_ip IP (any IP when -1), nor take a discard pile "
        "that would place one, nor place one from a pile larger than the Chamber's spaces left, "
        "unless the rules leave no other choice. -1: none.",
        "forbids the Lords of another colour; -1 forbids nothing.",
        low=-1,
        high=9,
        unit="colour index",
        tune=False,
    )
    forbid_ip: int = param(
        -1,
        "Restricted play: with forbid_colour, the forbidden Lords' IP (the card's value). -1: "
        "every Lord of that colour.",
        "forbids the Lords of another value.",
        low=-1,
        high=99,
        unit="IP",
        tune=False,
    )
    forbid_location: int = param(
        -1,
        "Restricted play (`abyss-mc restrict`): never take this Location (its index in the "
        "card data), face up or drawn, unless it is the only choice. -1: none.",
        "forbids another Location; -1 forbids nothing.",
        low=-1,
        high=99,
        unit="Location index",
        tune=False,
    )
    kind = P.HEURISTIC
