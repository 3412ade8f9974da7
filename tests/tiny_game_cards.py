"""The card data of a tiny test game (tests/test_games.py): a deck of numbered cards."""

from __future__ import annotations

from dataclasses import dataclass

from sim.core.carddata import CardDataError


@dataclass(frozen=True)
class TinyTables:
    deck: tuple[int, ...]


def load_cards(data_dir=None, overrides=None) -> TinyTables:
    size = (overrides or {}).get("deck.size", 5)
    if not isinstance(size, int) or not 1 <= size <= 20:
        raise CardDataError(f"--set deck.size: expected 1..20, got {size!r}")
    return TinyTables(tuple(range(1, size + 1)))


def describe(t: TinyTables) -> str:
    return f"Tiny: {len(t.deck)} cards, {', '.join(map(str, t.deck))}"
