"""Rulebook, Control a Location: spending three Keys, taking a face-up or drawn Location, and
what each Location is worth at the end (mixed into `games.abyss.engine.rules.game.Game`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.abyss.engine.cards.constants import LocationRule, Stream
from games.abyss.engine.rules.base import (
    KEY_TOKEN,
    LOCATION_DRAW,
    MAX_LOCATION_DRAW,
    Decision,
    Player,
    lord_key_count,
)

if TYPE_CHECKING:
    from games.abyss.engine.cards.tables import CardTables


class LocationsMixin:
    """Control Locations with three Keys."""

    def control_locations(self, p: Player) -> None:
        """ "If you gain a third Key, you must immediately take control of a Location." """
        while self.n_keys(p) >= 3 and (self.location_deck or self.locations_available):
            lords = self.spend_keys(p)
            self.take_location(p, lords)

    def spend_keys(self, p: Player) -> list[int]:
        """Choose the three Keys: Key tokens go back to the pile, Lords slide under the Location."""
        need, lords, tokens = 3, [], 0
        while need > 0:
            options = [KEY_TOKEN] if p.keys - tokens > 0 else []
            unused = [lord for lord in self.key_lords(p) if lord not in lords]
            # A Lord whose Keys overshoot what is still needed is offered only when nothing fits.
            fitting = [lord for lord in unused if self.lord_keys(lord) <= need]
            options += fitting if (fitting or options) else unused
            source = self.choose(p.seat, Decision.KEY_SOURCE, options)
            if source == KEY_TOKEN:
                tokens += 1
                need -= 1
            else:
                lords.append(source)
                need -= self.lord_keys(source)
        p.keys -= tokens
        self.key_pile += tokens
        return lords

    def take_location(self, p: Player, lords: list[int]) -> None:
        """ "You may take a face-up Location or draw 1-4 Locations and choose one (placing the rest
        face up)." """
        options = list(self.locations_available)
        n_draw = min(MAX_LOCATION_DRAW, len(self.location_deck))
        options += [LOCATION_DRAW + n for n in range(1, n_draw + 1)]
        source = self.choose(p.seat, Decision.LOCATION_SOURCE, options)
        if source >= LOCATION_DRAW:
            drawn = [self.location_deck.pop() for _ in range(source - LOCATION_DRAW)]
            location = self.choose(p.seat, Decision.LOCATION_KEEP, drawn)
            drawn.remove(location)
            self.locations_available.extend(drawn)
            self.log("draw_locations", who=p.seat, drawn=[location, *drawn])
        else:
            location = source
            self.locations_available.remove(location)
        self.place_location(p, location, lords)

    def black_smokers(self, p: Player, location: int) -> int:
        """Black Smokers: "On acquisition you may immediately swap it for a Location of your
        choice from the deck": the Location the player acquires in the end (`location` itself
        unless it is Black Smokers and the player swaps it; it goes into the deck, shuffled)."""
        if self.t.location_rule[location] != LocationRule.BLACK_SMOKERS or not self.location_deck:
            return location
        swap = self.choose(p.seat, Decision.BLACK_SMOKERS, [location, *sorted(self.location_deck)])
        if swap != location:
            self.location_deck.remove(swap)
            self.location_deck.append(location)
            self.rng.shuffle(self.location_deck, Stream.LOCATION_DECK)
            self.log("black_smokers", who=p.seat, took=swap)
        return swap

    def place_location(self, p: Player, location: int, lords: list[int]) -> None:
        """Rulebook: "Any Lords used to control it are slid underneath ... no longer free." """
        location = self.black_smokers(p, location)
        p.locations.append(location)
        p.location_lords[location] = list(lords)
        p.under.update(lords)
        self.log("control_location", who=p.seat, location=location, lords=list(lords))


def location_formula(t: CardTables, p: Player, location: int) -> int:
    """Final IP of `location` for player `p` (components 1.5). `p.lords` counts every Lord owned."""
    rule = int(t.location_rule[location])
    base, mult, arg = (
        int(t.location_base[location]),
        int(t.location_mult[location]),
        int(t.location_arg[location]),
    )
    lord_ips = [int(t.lord_ip[lord]) for lord in p.lords]
    if rule == LocationRule.GUILD_LORDS:
        return base + mult * sum(1 for lord in p.lords if t.lord_guild[lord] == arg)
    if rule == LocationRule.AFFILIATED_RACE:
        return base + mult * sum(1 for a in p.affiliated if t.ally_race[a] == arg)
    if rule == LocationRule.DISTINCT_GUILDS:
        return base + mult * len({int(t.lord_guild[lord]) for lord in p.lords})
    if rule == LocationRule.WEAKEST_LORD:
        return base + mult * min(lord_ips, default=0)
    if rule == LocationRule.STRONGEST_LORD:
        return base + mult * max(lord_ips, default=0)
    if rule == LocationRule.MINUS_LORDS:
        return base - mult * len(p.lords)
    if rule == LocationRule.LORDS_WITH_KEY:
        return base + mult * sum(1 for lord in p.lords if lord_key_count(t, lord) > 0)
    if rule == LocationRule.LORDS_WITHOUT_KEY:
        return base + mult * sum(1 for lord in p.lords if lord_key_count(t, lord) == 0)
    if rule == LocationRule.WEAKEST_AFFILIATED_SUM:
        weakest = {}
        for a in p.affiliated:
            r, v = int(t.ally_race[a]), int(t.ally_value[a])
            weakest[r] = min(weakest.get(r, v), v)
        return base + sum(weakest.values())
    if rule == LocationRule.MINUS_AFFILIATED:
        return base - mult * len(p.affiliated)
    return 0  # Black Smokers; City of Mirrors is resolved by the caller
