"""What a game provides, as one spec the commands look up (`sim.games`), so that a command never
asks which game it is.

A spec names its modules instead of importing them, so that looking a game up costs nothing
(`abyss-mc --help` stays instant) and a game's engine loads only when a command needs it.
Today the spec covers the card data (loading with `--set` overrides and expansions, describing);
the engines, strategies, result columns and report sections follow (docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from sim.core.errors import UserError


@dataclass(frozen=True)
class GameSpec:
    name: str  # as `--game` names it
    title: str  # as people read it
    cards_module: str  # has load_cards(data_dir, overrides[, expansions]) and describe(tables)
    expansions: tuple[str, ...] = ()  # the expansions its card data can add

    def check_expansions(self, expansions: Iterable[str]) -> tuple[str, ...]:
        wanted = tuple(expansions)
        if wanted and not self.expansions:
            raise UserError(f"--expansions: {self.title} has no expansions")
        unknown = [e for e in wanted if e not in self.expansions]
        if unknown:
            raise UserError(
                f"unknown expansion {unknown[0]!r} for {self.title}; known: "
                + ", ".join(self.expansions)
            )
        return wanted

    def load_cards(
        self, data_dir: Path | None = None, set_items: Iterable[str] = (), expansions=()
    ):
        """The card data of `data_dir` (default: the built-in data) with the `--set KEY=VALUE`
        items applied and the expansions added; a user error names any problem in one line."""
        from sim.core.carddata import parse_set_options

        if data_dir is not None and not Path(data_dir).exists():
            raise UserError(f"card data directory {data_dir} does not exist")
        wanted = self.check_expansions(expansions)
        module = import_module(self.cards_module)
        overrides = parse_set_options(list(set_items or []))
        if self.expansions:
            return module.load_cards(data_dir, overrides, expansions=wanted)
        return module.load_cards(data_dir, overrides)

    def load_run_cards(self, config: dict, expansions: Iterable[str] | None = None):
        """The card data a run played with, from its manifest's `config` (`cards`, `set` and,
        unless given, `expansions`)."""
        cards = config.get("cards")
        if expansions is None:
            expansions = config.get("expansions") or ()
        items = [str(s) for s in config.get("set") or []]
        return self.load_cards(Path(cards) if cards else None, items, tuple(expansions))

    def describe(self, tables) -> str:
        """The card data as text, ending with a newline."""
        text = import_module(self.cards_module).describe(tables)
        return text if text.endswith("\n") else text + "\n"
