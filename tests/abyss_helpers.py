"""Helpers for rule tests: scripted policies and moving chosen cards into place.

Every helper moves a card from wherever it is to where the test wants it, so the state stays
consistent (`games.abyss.engine.audit.audit` passes) and the engine's own logic does the rest.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from games.abyss.engine.cards.constants import MONSTER, Race
from games.abyss.engine.cards.loader import default_data_dir, load_cards
from games.abyss.engine.rules.base import Decision
from games.abyss.engine.rules.game import Game


@lru_cache(maxsize=1)
def tables():
    return load_cards()


@lru_cache(maxsize=1)
def lev_tables():
    """The card tables with the Leviathan expansion."""
    return load_cards(expansions=("leviathan",))


class Scripted:
    """A policy that answers from per-decision scripts.

    `answers[decision]` is a list consumed in order (each item an option, or a callable
    `(game, seat, options) -> option`), or a single callable used every time. Decisions without a
    script take `default(options)`: the first option. Every question asked is recorded in `asked`.
    """

    def __init__(
        self, answers: dict | None = None, default: Callable | None = None, name: str = "scripted"
    ):
        self.answers = {
            k: (list(v) if isinstance(v, list) else v) for k, v in (answers or {}).items()
        }
        self.default = default or (lambda options: options[0])
        self.name = name
        self.asked: list[tuple[Decision, list[int], int]] = []

    def choose(self, game: Game, seat: int, decision: Decision, options: list[int]) -> int:
        script = self.answers.get(decision)
        if isinstance(script, list) and script:
            answer = script.pop(0)
        elif callable(script):
            answer = script
        else:
            answer = None
        if callable(answer):
            answer = answer(game, seat, options)
        if answer is None:
            answer = self.default(options)
        self.asked.append((decision, list(options), answer))
        return answer


def new_game(n_players: int = 3, seed: int = 0, policies: list | None = None, t=None) -> Game:
    """A freshly set-up game whose players follow `policies` (default: Scripted first-option)."""
    policies = policies or [Scripted() for _ in range(n_players)]
    return Game(t or tables(), policies, seed=seed, game=0)


def _ally_places(g: Game):
    yield g.exploration_deck
    yield g.exploration_discard
    yield g.track
    yield from g.council
    for p in g.players:
        yield p.hand
        yield p.affiliated


def ally_id(
    g: Game, race: int | None, value: int, skip: set[int] | None = None, effect: int = 0
) -> int:
    """The id of an Exploration card of `race` (None = Monster), `value` and Leviathan `effect`
    (0 = none, `AllyEffect`) not in `skip`."""
    t = g.t
    want = MONSTER if race is None else int(race)
    for a in range(t.n_allies):
        if int(t.ally_race[a]) == want and (race is None or int(t.ally_value[a]) == value):
            if race is not None and int(t.ally_effect[a]) != effect:
                continue
            if not skip or a not in skip:
                return a
    raise LookupError(f"no Exploration card race={race} value={value} outside {skip}")


def take_ally(g: Game, ally: int) -> int:
    for place in _ally_places(g):
        if ally in place:
            place.remove(ally)
            return ally
    raise LookupError(f"ally {ally} is nowhere")


def give_allies(g: Game, seat: int, *cards: tuple, affiliated: bool = False) -> list[int]:
    """Move Allies given as (race, value) or (race, value, effect) into a player's hand (or
    affiliated row)."""
    ids = []
    for race, value, *effect in cards:
        # Prefer a copy that is still in the deck, then any copy not already given.
        taken = set(ids)
        a = ally_id(g, race, value, skip=taken | _held_ids(g), effect=effect[0] if effect else 0)
        take_ally(g, a)
        (g.players[seat].affiliated if affiliated else g.players[seat].hand).append(a)
        ids.append(a)
    return ids


def give_tokens(g: Game, seat: int, k: int) -> list[int]:
    """Move `k` (base game) Monster tokens from the supply to a player."""
    moved = [g.monster_tokens.pop() for _ in range(k)]
    g.players[seat].tokens.extend(moved)
    return moved


def _held_ids(g: Game) -> set[int]:
    held = set()
    for p in g.players:
        held.update(p.hand)
        held.update(p.affiliated)
    return held


def stack_deck(g: Game, *cards: tuple) -> list[int]:
    """Put Exploration cards, (race, value) or (race, value, effect), on top of the deck so they
    are revealed in the order given."""
    ids = []
    for race, value, *effect in cards:
        a = ally_id(
            g,
            race,
            value,
            skip=set(ids) | _held_ids(g) | set(g.track),
            effect=effect[0] if effect else 0,
        )
        take_ally(g, a)
        ids.append(a)
    for a in reversed(ids):
        g.exploration_deck.append(a)
    return ids


def lord_id(g: Game, name: str) -> int:
    names = [n.lower() for n in g.t.lord_name]
    key = name.lower() if name.lower().startswith("the ") else "the " + name.lower()
    return names.index(key)


def location_id(g: Game, name: str) -> int:
    names = [n.lower() for n in g.t.location_name]
    for key in (name.lower(), "the " + name.lower()):
        if key in names:
            return names.index(key)
    raise LookupError(name)


def _take_lord(g: Game, lord: int) -> None:
    for place in (g.lord_deck, g.court, g.lord_discard):
        if lord in place:
            place.remove(lord)
            return
    for p in g.players:
        if lord in p.lords:
            p.lords.remove(lord)
            p.disabled.discard(lord)
            p.under.discard(lord)
            for lords in p.location_lords.values():
                if lord in lords:
                    lords.remove(lord)
            return
    raise LookupError(lord)


def give_lord(g: Game, seat: int, name: str, free: bool = True) -> int:
    """Move a Lord to a player without applying its arrow power (free, or under no Location)."""
    lord = lord_id(g, name)
    _take_lord(g, lord)
    g.players[seat].lords.append(lord)
    return lord


def put_in_court(g: Game, *names: str, clear: bool = False) -> list[int]:
    """Put Lords into the Court (optionally returning the current Court to the deck first)."""
    if clear:
        while g.court:
            g.lord_deck.insert(0, g.court.pop())
    ids = []
    for name in names:
        lord = lord_id(g, name)
        _take_lord(g, lord)
        g.court.append(lord)
        ids.append(lord)
    return ids


def give_location(g: Game, seat: int, name: str, lords: list[int] | None = None) -> int:
    """Move a Location to a player, with `lords` (already owned) slid under it."""
    loc = location_id(g, name)
    for place in (g.location_deck, g.locations_available):
        if loc in place:
            place.remove(loc)
    p = g.players[seat]
    p.locations.append(loc)
    p.location_lords[loc] = list(lords or [])
    p.under.update(lords or [])
    return loc


def set_pearls(g: Game, seat: int, n: int) -> None:
    """Set a player's Pearls, keeping the Treasury ledger balanced."""
    p = g.players[seat]
    delta = n - p.pearls
    if delta > 0:
        g.pearls_from_treasury += delta
    else:
        g.pearls_to_treasury -= delta
    p.pearls = n


def set_keys(g: Game, seat: int, n: int) -> None:
    p = g.players[seat]
    g.key_pile += p.keys - n
    p.keys = n


def copy_data(tmp_path: Path) -> Path:
    dest = tmp_path / "cards"
    shutil.copytree(default_data_dir(), dest)
    return dest


def broken(tmp_path: Path, file: str, old: str, new: str) -> Path:
    """A copy of the default data with the first `old` of `file` replaced by `new`."""
    dest = copy_data(tmp_path)
    path = dest / file
    text = path.read_text()
    assert old in text, (file, old)
    path.write_text(text.replace(old, new, 1))
    return dest


__all__ = [
    "broken",
    "copy_data",
    "Race",
    "Scripted",
    "ally_id",
    "give_allies",
    "give_location",
    "give_lord",
    "give_tokens",
    "lord_id",
    "location_id",
    "new_game",
    "put_in_court",
    "set_keys",
    "set_pearls",
    "stack_deck",
    "lev_tables",
    "tables",
    "take_ally",
]
