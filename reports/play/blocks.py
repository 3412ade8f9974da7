"""Blocks of a line-up, played in chunks, here or on a Dask cluster: the one chunk loop of every
analysis that plays games (tournament, tune, restrict, design, learn).

A *block* is one deal (a game index of the seed) played at every table of the block; a table is
a seating of the line-up. A game is a pure function of (seed, game index, seating, policies), so
how the blocks are cut into chunks, and where a chunk is played, never changes a number: the
chunks' parts come back in block order and the caller merges them.

What a chunk plays is a *plan* (`Plan`): the game and seed, the policies, the deal and seating of
every table of blocks first .. first + n - 1 (`deals`), and what is kept of their games (`part`,
computed where the games were played, so that a Dask worker returns a chunk's part, not its
games). `play_chunk` is the one call into a game's fast path (its play module's `run_tables`);
`in_chunks` the one loop over the chunks and the one `client` branch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

#: Games per chunk (a call into the fast path) when a plan is played whole: keeps memory flat.
CHUNK_GAMES = 40_000


class Plan(Protocol):
    """What every block of a chunk plays (picklable: a Dask task carries it)."""

    game: str
    seed: int

    @property
    def tables_per_block(self) -> int: ...

    def policies(self, spec) -> list:
        """The policies the seatings index (made here, on the worker that plays)."""

    def deals(self, first: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(game index of every table, seating of every table: int[tables, seat]) of blocks
        first .. first + n - 1."""

    def part(self, first: int, n: int, seatings: np.ndarray, seats: dict, cols: dict,
             aggregates):  # fmt: skip
        """What is kept of the chunk's games (`run_tables`' seat and game columns, aggregates
        or None), `seatings` those of `deals`."""


def chunk_blocks(tables_per_block: int) -> int:
    """Blocks per chunk: `CHUNK_GAMES` games at most (at least one block)."""
    return max(1, CHUNK_GAMES // max(1, tables_per_block))


def play(plan: Plan, tables, n_blocks: int, *, first_block: int = 0, client=None) -> list:
    """The parts of blocks first_block .. first_block + n_blocks - 1, in block order, chunk by
    chunk (`chunk_blocks`); on a Dask `client`, the same chunks on the cluster."""
    size = chunk_blocks(plan.tables_per_block)
    return in_chunks(play_chunk, n_blocks, size, tables, plan, client=client,
                     spans=[(first_block, n_blocks)])  # fmt: skip


def play_chunk(first: int, n: int, tables, plan: Plan):
    """Blocks first .. first + n - 1 of `plan` on its game's fast path: the plan's part. A pure
    function of its arguments (also a Dask task)."""
    from sim import games

    spec = games.get(plan.game)
    deals, seatings = plan.deals(first, n)
    if len(deals) == 0:  # a plan that plays only some tables (`reports.probe`), none here
        return plan.part(first, n, seatings, {}, {}, None)
    seats, cols, aggregates = spec.play().run_tables(
        tables, seed=plan.seed, games=deals, seatings=seatings, strategies=plan.policies(spec)
    )
    return plan.part(first, n, seatings, seats, cols, aggregates)


def in_chunks(task: Callable, n_blocks: int, chunk_size: int | None, *args, client=None,
              spans: list[tuple[int, int]] | None = None, on_arrival=None, progress=None,
              bar: str | None = None):  # fmt: skip
    """`task(first, n, *args)` for every chunk of blocks 0 .. n_blocks - 1 (or of each span
    (first, n) of `spans`), `chunk_size` blocks each: here (`sim.core.batch.run_chunks`; without
    a size, chunks of about a second each) or on a Dask `client` (`sim.core.dask_backend.
    map_chunks`; without a size, its default): given a size, the same chunks either way.

    Returns the parts in block order; with `on_arrival(first, n, part)`, passes each part to it
    instead and returns None (here in block order, and a True from it stops the loop; on the
    cluster as the parts arrive). `progress(done, total)` is called after each chunk; `bar`
    labels a progress bar on stderr (here only)."""
    if client is not None:
        from sim.core import dask_backend  # its attribute at call time (the fault tests patch it)

        return dask_backend.map_chunks(client, task, n_blocks, chunk_size, *args,
                                       progress=progress, spans=spans,
                                       on_arrival=on_arrival)  # fmt: skip
    from sim.core.batch import run_chunks

    spans = [(0, n_blocks)] if spans is None else spans
    total, done, parts = sum(n for _, n in spans), [0], []

    def one(first: int, n: int) -> bool | None:
        part, stop = task(first, n, *args), None
        if on_arrival is None:
            parts.append(part)
        else:
            stop = on_arrival(first, n, part)
        done[0] += n
        if progress is not None:
            progress(done[0], total)
        return stop

    run_chunks(n_blocks, one, chunk_size=chunk_size, spans=spans, progress=bar is not None,
               label=bar or "blocks")  # fmt: skip
    return None if on_arrival is not None else parts


def rotations(n: int) -> np.ndarray:
    """Every rotation of a line-up of n: row r seats entry (s + r) % n in seat s."""
    return (np.arange(n)[None, :] + np.arange(n)[:, None]) % n


@dataclass
class Rotations:
    """Each block one deal, played by the line-up in every rotation of its seats (a strategy may
    sit in several seats). Part: (win shares [block, rotation, seat], turns [block, rotation],
    aggregates or None)."""

    game: str
    lineup: list[str]
    seed: int

    @property
    def tables_per_block(self) -> int:
        return len(self.lineup)

    def policies(self, spec) -> list:
        return spec.strategies().table_policies(self.lineup, len(self.lineup))

    def deals(self, first: int, n: int):
        k = len(self.lineup)
        games = np.repeat(np.arange(first, first + n, dtype=np.int64), k)
        return games, np.tile(rotations(k), (n, 1)).astype(np.int64)

    def part(self, first: int, n: int, seatings, seats: dict, cols: dict, aggregates):
        k = len(self.lineup)
        win = np.asarray(seats["win"], dtype=float).reshape(n, k, k)
        turns = np.asarray(cols["turns"], dtype=float).reshape(n, k)
        return win, turns, aggregates
