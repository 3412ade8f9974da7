"""`abyss-mc tournament`: which strategy wins, by how much, with honest intervals.

Design. A *block* is one game index g of the run's seed: every *table* of block g (a line-up of
strategies in one seating) plays the very same decks, dice and policy draws (common random
numbers, CRN), so a difference between strategies within a block is not drowned by the luck of
the deal. Each line-up is played in every rotation of its seats, so every strategy sits in every
seat equally often (seat rotation).

- k strategies, n players, k <= n: one line-up, the strategies cycled over the seats
  (A, B, A, B for two strategies at four players), in its distinct rotations.
- k > n: a balanced subset of line-ups (`design="balanced"`): line-up i holds strategies
  i, i+1, ..., i+n-1 (mod k), so each strategy plays in n line-ups, once in each position, and
  meets every other strategy; or every combination of n strategies (`design="all"`).

Without CRN (`crn=False`, for measuring what CRN buys) each table of each block gets a game
index of its own.

The results are long-form, one row per (block, table, seat), ready for `reports.stats`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from sim.core.errors import UserError

DESIGNS = ("balanced", "all")


@dataclass
class Design:
    """The tables played in every block: `seating[t, seat]` = index into `strategies`."""

    strategies: list[str]
    n_players: int
    seating: np.ndarray
    lineups: list[tuple[int, ...]] = field(default_factory=list)

    @property
    def n_tables(self) -> int:
        return len(self.seating)


def make_design(strategies: list[str], n_players: int, design: str = "balanced") -> Design:
    """Line-ups and seatings of a tournament (see the module docstring)."""
    k = len(strategies)
    if k < 2:
        raise UserError("a tournament needs at least two strategies")
    if len(set(strategies)) != k:
        raise UserError("each strategy may appear only once in a tournament")
    if design not in DESIGNS:
        raise UserError(f"unknown design {design!r}; known: {', '.join(DESIGNS)}")
    if k <= n_players:
        lineups = [tuple(i % k for i in range(n_players))]
    elif design == "all":
        lineups = list(itertools.combinations(range(k), n_players))
    else:
        lineups = [tuple((i + j) % k for j in range(n_players)) for i in range(k)]
    rows: list[tuple[int, ...]] = []
    for lineup in lineups:
        seen = set()
        for r in range(n_players):
            seating = tuple(lineup[(seat + r) % n_players] for seat in range(n_players))
            if seating not in seen:
                seen.add(seating)
                rows.append(seating)
    return Design(list(strategies), n_players, np.array(rows, dtype=np.int64), lineups)


def block_games(design: Design, first_block: int, n_blocks: int, crn: bool = True):
    """Game index and seating of every table of blocks first_block .. first_block + n_blocks - 1,
    in block-major order: (blocks, tables, games, seatings)."""
    t = design.n_tables
    blocks = np.repeat(np.arange(first_block, first_block + n_blocks, dtype=np.int64), t)
    tables = np.tile(np.arange(t, dtype=np.int64), n_blocks)
    games = blocks.copy() if crn else blocks * t + tables
    seatings = design.seating[tables]
    return blocks, tables, games, seatings


def win_shares(ranks: np.ndarray) -> np.ndarray:
    """A seat's share of the win: 1/k when k seats share the first rank, else 0 (rows = games)."""
    first = ranks == 1
    return first / first.sum(axis=1, keepdims=True)
