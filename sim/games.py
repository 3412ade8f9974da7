"""The registry of games: `--game NAME` is looked up here, and a new game is one line below
(and its folder, `sim/<game>/game.py` with its `SPEC`). Specs load when first asked for."""

from __future__ import annotations

from importlib import import_module

from sim.core.errors import UserError
from sim.core.game import GameSpec

#: name -> the module that holds its SPEC
GAMES = {
    "abyss": "games.abyss",
    "conspiracy": "games.conspiracy",
    "wilds": "games.wilds",
}
_EXTRA: dict[str, GameSpec] = {}


def names() -> tuple[str, ...]:
    return (*GAMES, *_EXTRA)


def get(name: str) -> GameSpec:
    """The spec of `--game name` (case-insensitive); a one-line user error names the known
    games."""
    key = name.strip().lower()
    if key in _EXTRA:
        return _EXTRA[key]
    if key not in GAMES:
        raise UserError(f"unknown game {name!r} for --game; known: {', '.join(names())}")
    return import_module(GAMES[key]).SPEC


def register(spec: GameSpec) -> None:
    """Add a game defined outside this package (a plug-in, or a test's tiny game)."""
    _EXTRA[spec.name] = spec
