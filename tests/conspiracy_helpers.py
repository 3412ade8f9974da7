"""Helpers for the *Abyss: Conspiracy* rule tests: scripted policies and moving chosen cards.

Every mover takes a card from wherever it is (Lord deck, a discard pile, a Chamber; Location deck,
the face-up row, a player) and puts it where the test wants it, so every card stays in exactly
one place (`lord_places` / `location_places` check that) and the engine's own logic does the rest.

Lord ids (games/conspiracy/engine/data/lords.toml): colour-major, 12 per colour (yellow 0-11, red
12-23,
green 24-35, blue 36-47, purple 48-59); inside a colour: the 0 (swap), four silver-key 1s, two
gold-key 2s, two 3s (2 Pearls), two 4s (1 Pearl), the 6 (reveal).

Decks: the top card is the END of the list (`pop()` draws it). `stack_lord_deck(g, [a, b, c])`
makes `a` the first card drawn, then `b`, then `c`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache

from games.conspiracy.engine.cards.loader import ConspiracyTables, KeyKind, LordPower, load_cards
from games.conspiracy.engine.rules.game import Decision, Game

COLOURS = ("yellow", "red", "green", "blue", "purple")


# ---------------------------------------------------------------------------------- tables
@lru_cache(maxsize=1)
def tables() -> ConspiracyTables:
    """The shipped card data (seed key rule, no bonus Locations)."""
    return load_cards()


@lru_cache(maxsize=1)
def bga_tables() -> ConspiracyTables:
    """The shipped card data with `rules.key_rule = "bga"` (two identical keys only)."""
    return load_cards(overrides={"rules.key_rule": "bga"})


@lru_cache(maxsize=1)
def keyless_swap_tables() -> ConspiracyTables:
    """The shipped card data with `rules.zero_swap = "keyless"` (the 0 swaps key-less Lords only,
    Board Game Arena)."""
    return load_cards(overrides={"rules.zero_swap": "keyless"})


@lru_cache(maxsize=1)
def bonus_tables() -> ConspiracyTables:
    """The shipped card data with the bonus Locations #21-#25 in the deck."""
    return load_cards(overrides={"rules.bonus_locations": True})


# ---------------------------------------------------------------------------------- policies
class Scripted:
    """A policy answering from per-decision scripts.

    `answers[decision]` is either a list consumed in order (each item an option, or a callable
    `(game, seat, options) -> option`) or a single callable used every time. A decision without
    a script (or with an exhausted list) takes `default(options)`: the first option. Every
    question is recorded in `asked` as (seat, decision, options, answer).
    """

    def __init__(
        self,
        answers: dict | None = None,
        default: Callable[[list[int]], int] | None = None,
        name: str = "scripted",
    ):
        self.answers = {
            k: (list(v) if isinstance(v, list) else v) for k, v in (answers or {}).items()
        }
        self.default = default or (lambda options: options[0])
        self.name = name
        self.asked: list[tuple[int, Decision, list[int], int]] = []

    def choose(self, game: Game, seat: int, decision: Decision, options: list[int]) -> int:
        script = self.answers.get(decision)
        answer = None
        if isinstance(script, list):
            if script:
                answer = script.pop(0)
        elif callable(script):
            answer = script
        if callable(answer):
            answer = answer(game, seat, options)
        if answer is None:
            answer = self.default(options)
        self.asked.append((seat, Decision(decision), list(options), answer))
        return answer

    def unused(self) -> dict:
        """Scripted answers never consumed (a test asserts this is empty)."""
        return {k: v for k, v in self.answers.items() if isinstance(v, list) and v}

    def questions(self, decision: Decision) -> list[list[int]]:
        """The option lists of every `decision` asked so far."""
        return [options for _, d, options, _ in self.asked if d == decision]


class RandomPolicy:
    """Uniformly random legal choices, drawn from the game's own POLICY stream (so a game is a
    pure function of its seed and index)."""

    name = "random"

    def choose(self, game: Game, seat: int, decision: Decision, options: list[int]) -> int:
        return options[game.policy_below(len(options))]


def new_game(
    n_players: int = 2,
    seed: int = 0,
    policies: list | None = None,
    t: ConspiracyTables | None = None,
    game: int = 0,
    record: bool = True,
) -> Game:
    """A freshly set-up game (default policies: `Scripted()`, always the first option)."""
    policies = policies or [Scripted() for _ in range(n_players)]
    return Game(t or tables(), policies, seed=seed, game=game, record=record)


def events(g: Game, name: str) -> list[dict]:
    return [e for e in g.events if e["event"] == name]


# ---------------------------------------------------------------------------------- Lords
def colour_id(t: ConspiracyTables, colour: int | str) -> int:
    return t.colour_names.index(colour) if isinstance(colour, str) else int(colour)


def lord_ids(
    t: ConspiracyTables,
    colour: int | str | None = None,
    ip: int | None = None,
    key: KeyKind | None = None,
    power: LordPower | None = None,
    pearls: int | None = None,
) -> list[int]:
    """Every Lord id matching all the given attributes, ascending."""
    c = None if colour is None else colour_id(t, colour)
    return [
        lord
        for lord in range(t.n_lords)
        if (c is None or int(t.lord_colour[lord]) == c)
        and (ip is None or int(t.lord_ip[lord]) == ip)
        and (key is None or int(t.lord_key[lord]) == int(key))
        and (power is None or int(t.lord_power[lord]) == int(power))
        and (pearls is None or int(t.lord_pearls[lord]) == pearls)
    ]


def lord(t: ConspiracyTables, colour: int | str, ip: int, copy: int = 0) -> int:
    """The `copy`-th Lord (0-based) of `colour` with `ip` Influence Points."""
    found = lord_ids(t, colour=colour, ip=ip)
    if copy >= len(found):
        raise LookupError(f"no copy {copy} of a {colour} {ip}-IP Lord ({len(found)} exist)")
    return found[copy]


def silver(t: ConspiracyTables, colour: int | str = 0, copy: int = 0) -> int:
    return lord(t, colour, 1, copy)


def gold(t: ConspiracyTables, colour: int | str = 0, copy: int = 0) -> int:
    return lord(t, colour, 2, copy)


def lord_places(g: Game) -> Iterable[list[int]]:
    """Every list a Lord card can be in: the deck, the 5 discard piles, the Chambers."""
    yield g.lord_deck
    yield from g.piles
    for p in g.players:
        yield p.chamber


def take_lord(g: Game, card: int) -> int:
    """Remove a Lord from wherever it is."""
    for place in lord_places(g):
        if card in place:
            place.remove(card)
            return card
    raise LookupError(f"Lord {card} is nowhere")


def stack_lord_deck(g: Game, cards: Iterable[int]) -> list[int]:
    """Put `cards` on top of the Lord deck, the first of them on the very top (drawn first)."""
    cards = list(cards)
    for card in cards:
        take_lord(g, card)
    g.lord_deck.extend(reversed(cards))
    return cards


def give_lords(g: Game, seat: int, cards: Iterable[int]) -> list[int]:
    """Append Lords to a player's Chamber directly (next spots, no effect applied, no keys)."""
    cards = list(cards)
    for card in cards:
        take_lord(g, card)
        g.players[seat].chamber.append(card)
    return cards


def set_pile(g: Game, colour: int | str, cards: Iterable[int]) -> list[int]:
    """Make a discard pile exactly `cards` (bottom first); its old cards go under the deck."""
    c = colour_id(g.t, colour)
    old, g.piles[c] = g.piles[c], []
    g.lord_deck[:0] = old
    cards = list(cards)
    for card in cards:
        if int(g.t.lord_colour[card]) != c:
            raise ValueError(f"Lord {card} is not {g.t.colour_names[c]}")
        take_lord(g, card)
    g.piles[c] = list(cards)  # a copy: the engine clears piles in place
    return cards


def plain_fillers(g: Game, n: int, avoid: Iterable[int] = ()) -> list[int]:
    """`n` keyless filler Lords for `give_lords` (not in a Chamber, not in `avoid`): the 0s
    and 6s first, then the 4s and 3s. `give_lords` applies no effect, so their powers and Pearls
    do nothing; keyless Lords keep the silver/gold key counts of a Chamber unchanged."""
    t, avoid = g.t, set(avoid)
    order = [x for ip in (0, 6, 4, 3) for x in range(t.n_lords) if t.lord_ip[x] == ip]
    held = {x for p in g.players for x in p.chamber}
    out = [x for x in order if x not in avoid and x not in held][:n]
    if len(out) < n:
        raise LookupError(f"only {len(out)} filler Lords left")
    return out


# ---------------------------------------------------------------------------------- Pearls
def set_pearls(g: Game, seat: int, n: int, master: bool | None = None) -> None:
    """Set a player's Pearls directly; `master=True` hands them the Pearl Master token,
    `master=False` takes it away if they hold it."""
    g.players[seat].pearls = n
    if master:
        g.pearl_master = seat
    elif master is False and g.pearl_master == seat:
        g.pearl_master = -1


# ---------------------------------------------------------------------------------- Locations
def location_ids(t: ConspiracyTables, number: int, colour: int | str | None = None) -> list[int]:
    """Location ids with printed `number` (and `colour` for #100 / #101)."""
    c = None if colour is None else colour_id(t, colour)
    return [
        i
        for i in range(t.n_locations)
        if int(t.location_number[i]) == number and (c is None or int(t.location_colour[i]) == c)
    ]


def location(t: ConspiracyTables, number: int, colour: int | str | None = None) -> int:
    found = location_ids(t, number, colour)
    if len(found) != 1:
        raise LookupError(f"Location #{number} colour={colour}: {len(found)} cards")
    return found[0]


def location_places(g: Game) -> Iterable[list[int]]:
    yield g.location_deck
    yield g.locations_available
    for p in g.players:
        yield p.locations


def take_location_card(g: Game, card: int) -> int:
    for place in (g.location_deck, g.locations_available):
        if card in place:
            place.remove(card)
            return card
    for p in g.players:
        if card in p.locations:
            i = p.locations.index(card)
            del p.locations[i], p.location_spots[i]
            return card
    raise LookupError(f"Location {card} is nowhere")


def stack_location_deck(g: Game, cards: Iterable[int]) -> list[int]:
    """Put Locations on top of the Location deck, the first of them drawn first."""
    cards = list(cards)
    for card in cards:
        take_location_card(g, card)
    g.location_deck.extend(reversed(cards))
    return cards


def set_available(g: Game, cards: Iterable[int]) -> list[int]:
    """Make the face-up Locations exactly `cards` (the old ones go under the deck)."""
    old, g.locations_available = g.locations_available, []
    g.location_deck[:0] = old
    cards = list(cards)
    for card in cards:
        take_location_card(g, card)
    g.locations_available = list(cards)  # a copy: the engine clears it in place
    return cards


def give_location(g: Game, seat: int, card: int, spot: int = -1) -> int:
    """Hand a Location to a player (no power applied); `spot` is the Chamber spot it masks."""
    take_location_card(g, card)
    p = g.players[seat]
    p.locations.append(card)
    p.location_spots.append(spot if spot >= 0 else max(len(p.chamber) - 1, 0))
    return card


# ---------------------------------------------------------------------------------- Chambers
def chamber_of_colours(t: ConspiracyTables, colours: Iterable[int | str | None]) -> list[int]:
    """Distinct Lord ids whose colours are `colours` spot by spot (a letter per spot is fine:
    y r g b p = yellow red green blue purple)."""
    letters = {name[0]: k for k, name in enumerate(t.colour_names)}
    used: set[int] = set()
    out = []
    for want in colours:
        c = letters[want] if isinstance(want, str) and len(want) == 1 else colour_id(t, want)
        card = next(x for x in lord_ids(t, colour=c) if x not in used)
        used.add(card)
        out.append(card)
    return out


def parse_chamber(picture: str) -> list[str]:
    """The spot-ordered letters of a Chamber drawn as the inverted pyramid (rows 5-4-3-2-1);
    '.' ends the Chamber (an empty spot)."""
    letters = picture.split()
    if "." in letters:
        letters = letters[: letters.index(".")]
    return letters


__all__ = [
    "COLOURS",
    "RandomPolicy",
    "Scripted",
    "bga_tables",
    "bonus_tables",
    "chamber_of_colours",
    "colour_id",
    "events",
    "give_location",
    "give_lords",
    "gold",
    "location",
    "location_ids",
    "location_places",
    "lord",
    "lord_ids",
    "lord_places",
    "new_game",
    "parse_chamber",
    "plain_fillers",
    "set_available",
    "set_pearls",
    "set_pile",
    "silver",
    "stack_location_deck",
    "stack_lord_deck",
    "tables",
    "take_location_card",
    "take_lord",
]
