"""Conservation checks on a game state: every card in exactly one place, nothing negative.

Used by the invariant tests after every turn of thousands of random games, and available to anyone
who edits card data or rules and wants to know the engine still holds together.
"""

from __future__ import annotations

from collections import Counter

from games.abyss.engine.rules.game import Game


def _places(places: dict[str, list[int]], n: int, what: str) -> list[str]:
    """Each id 0..n-1 must appear exactly once across all `places`."""
    seen: Counter[int] = Counter()
    where: dict[int, list[str]] = {}
    for name, ids in places.items():
        for i in ids:
            seen[i] += 1
            where.setdefault(i, []).append(name)
    problems = [f"{what} {i} is in {where[i]}" for i, k in seen.items() if k > 1]
    missing = sorted(set(range(n)) - set(seen))
    if missing:
        problems.append(f"{what}s missing from every place: {missing}")
    extra = sorted(set(seen) - set(range(n)))
    if extra:
        problems.append(f"unknown {what} ids: {extra}")
    return problems


def audit(g: Game) -> list[str]:
    """A list of broken invariants (empty when the state is consistent)."""
    t = g.t
    problems: list[str] = []
    allies = {
        "deck": g.exploration_deck,
        "discard": g.exploration_discard,
        "track": g.track,
        **{f"council{r}": stack for r, stack in enumerate(g.council)},
    }
    lords = {"deck": g.lord_deck, "court": g.court, "discard": g.lord_discard}
    locations = {"deck": g.location_deck, "available": g.locations_available}
    tokens = {"pile": g.monster_tokens}
    for p in g.players:
        allies[f"hand{p.seat}"] = p.hand
        allies[f"affiliated{p.seat}"] = p.affiliated
        lords[f"player{p.seat}"] = p.lords
        locations[f"player{p.seat}"] = p.locations
        tokens[f"player{p.seat}"] = p.tokens
        if p.pearls < 0:
            problems.append(f"seat {p.seat} has {p.pearls} Pearls")
        if p.keys < 0:
            problems.append(f"seat {p.seat} has {p.keys} Key tokens")
        if not p.under <= set(p.lords) or not p.disabled <= set(p.lords):
            problems.append(f"seat {p.seat}: Lords under Locations or disabled are not owned")
        under = [lord for lords_ in p.location_lords.values() for lord in lords_]
        if sorted(under) != sorted(p.under) or sorted(p.location_lords) != sorted(p.locations):
            problems.append(f"seat {p.seat}: Lords under Locations do not match the Locations")
    problems += _places(allies, t.n_allies, "Exploration card")
    problems += _places(lords, t.n_lords, "Lord")
    problems += _places(locations, t.n_locations, "Location")
    problems += _places(tokens, len(t.monster_token_ip), "Monster token")
    if g.key_pile + sum(p.keys for p in g.players) != t.n_keys:
        problems.append("Key tokens are not conserved")
    expected = g.n_players * t.starting_pearls + sum(t.rules.extra_pearls()[:g.n_players])
    expected += g.pearls_from_treasury - g.pearls_to_treasury
    if sum(p.pearls for p in g.players) != expected:
        problems.append("Pearls are not accounted for by the Treasury ledger")
    if g.leviathan:
        problems += _audit_leviathan(g)
    if len(g.court) > t.court_size:
        problems.append("the Court holds more Lords than it has spaces")
    if len(g.track) > t.track_length:
        problems.append("the Exploration Track holds more cards than it has spaces")
    return problems


def _audit_leviathan(g: Game) -> list[str]:
    """Leviathan cards and tokens each in one place; Wounds never negative; Border consistent."""
    t = g.t
    cards = {
        "deck": g.leviathan_deck,
        "discard": g.leviathan_discard,
        "border": [lev for lev in g.border if lev >= 0],
    }
    tokens = {"pile": g.leviathan_tokens, "discard": g.leviathan_token_discard}
    problems = []
    for p in g.players:
        cards[f"killed{p.seat}"] = p.killed
        tokens[f"held{p.seat}"] = p.held_tokens
        if p.wounds < 0:
            problems.append(f"seat {p.seat} has {p.wounds} Wounds")
    problems += _places(cards, len(t.leviathan_number), "Leviathan")
    problems += _places(tokens, len(t.leviathan_token_kind), "Leviathan token")
    for zone, lev in enumerate(g.border):
        if lev >= 0 and not 0 <= g.life[zone] < int(t.leviathan_n_spaces[lev]):
            problems.append(f"zone {zone}: Life token on space {g.life[zone]} of Leviathan {lev}")
    if not any(lev >= 0 for lev in g.border) and g.leviathan_deck:
        problems.append("the Border is empty while the Leviathan deck is not")
    if g.scourge >= 0:
        most = max(len(p.killed) for p in g.players)
        if len(g.players[g.scourge].killed) < most and most > 0:
            # The holder keeps it on a tie, so the holder may only trail nobody.
            problems.append("the Scourge is held by a player with fewer kills than another")
    return problems
