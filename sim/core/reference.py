"""What every game's readable reference engine shares: a game's identity and its random streams,
and asking the seats' policies.

Every choice a player makes goes through `ReferenceGame.choose(seat, decision, options)`: the
options are integers in a documented, deterministic order and the seat's policy returns one of
them. A decision with a single legal option is not asked (the fast paths skip it the same way),
and every decision asked is traced, so that the parity tests compare both engines choice by
choice.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, fields
from typing import Any, Protocol

from sim.core.rng import GameRng


class Policy(Protocol):
    """A strategy: picks one of the legal `options` of `decision` for `seat`."""

    name: str

    def choose(self, game: Any, seat: int, decision: int, options: list[int]) -> int: ...


@dataclass
class ScoreBySource:
    """A seat's final IP by source (the fields of a game's subclass); `total` is their sum."""

    @property
    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self))


class ReferenceGame(ABC):
    """Base of a reference engine's `Game`: `Game(tables, policies, seed, game)` is game `game`
    of `seed` (a pure function of them) for the seats' policies, set up by the game's `new_game`.
    `RNG`: its random streams' class; `POLICY_STREAM`: the policies' stream (tie-breaks, the
    random policy)."""

    RNG = GameRng
    POLICY_STREAM: int

    def __init__(self, tables, policies: list[Policy], seed: int, game: int = 0,
                 record: bool = True, **options) -> None:  # fmt: skip
        """`options`: the game's own (`new_game`'s keywords); `record` keeps the event log."""
        low, high = self.seats_allowed(tables)
        n = len(policies)
        if not low <= n <= high:
            raise ValueError(f"this game is for {low} to {high} players, got {n}")
        self.start(tables, policies, seed, game, record, self.RNG(seed, game))
        self.new_game(**options)

    @staticmethod
    @abstractmethod
    def seats_allowed(tables) -> tuple[int, int]:
        """The fewest and the most players of a game with these cards."""

    @abstractmethod
    def new_game(self) -> None:
        """The state before turn 1: cards dealt, counters at zero."""

    def start(self, tables, policies: list[Policy], seed: int, game: int, record: bool, rng):
        """The game's identity (`seed`, game index), its cards, seats, random streams, event log
        (kept when `record`) and decision trace, before turn 1."""
        self.t = tables
        self.policies = policies
        self.n_players = len(policies)
        self.seed, self.game_index = seed, game
        self.rng = rng
        self.record = record
        self.events: list[dict] = []
        self.trace: list[tuple[int, int, int, int]] = []  # (seat, decision, option, n_options)
        self.turn = 0

    def choose(self, seat: int, decision, options: list[int]) -> int:
        """Ask the seat's policy; a single legal option is taken without asking."""
        if len(options) == 1:
            return options[0]
        option = self.policies[seat].choose(self, seat, decision, options)
        if option not in options:
            raise RuntimeError(
                f"policy {self.policies[seat].name!r} chose {option} for {decision.name}, "
                f"legal: {options}"
            )
        self.trace.append((seat, int(decision), int(option), len(options)))
        return option

    def policy_below(self, n: int) -> int:
        """Randomness for policies (tie-breaks, the random policy): the POLICY stream."""
        return self.rng.below(self.POLICY_STREAM, n)

    @abstractmethod
    def encode(self):
        """The state as the fast path's arrays (state, stream counters): the game's `encode`."""

    def keep_turn_start(self) -> None:
        """The search player decides by replaying the turn from its start, as the fast path's
        driver does (`sim.core.driver`): with a search seat, keep that start (the
        encoded state, and where the turn's decisions begin in the trace). A hook of the play
        loop, since the state before the turn cannot be rebuilt from inside it."""
        if any(getattr(policy, "REPLAYS_TURNS", False) for policy in self.policies):
            self.turn_start = (*self.encode(), len(self.trace))
