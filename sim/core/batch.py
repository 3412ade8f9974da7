"""The batch runner: many games in chunks, with a progress bar and a thread count.

A game is identified by (seed, game index) alone, so results never depend on how the games are cut
into chunks or spread over threads; each chunk's results are folded into additive aggregates
(`games.abyss.engine.aggregate`) and dropped, so memory stays flat however many games run.

This module is game-agnostic: `run_chunks` calls `play(first_game, n_games)` for consecutive
chunks and reports progress; the game supplies `play`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from sim.core.errors import UserError
from sim.core.interrupts import raise_if_interrupted

if TYPE_CHECKING:
    import numpy as np

#: The first chunk is small, to measure the speed; later chunks aim at this many seconds each.
FIRST_CHUNK = 256
CHUNK_SECONDS = 1.0
MAX_CHUNK = 1 << 20
#: Show a progress bar only for runs expected to take longer than this.
PROGRESS_AFTER_SECONDS = 2.0


def check_lineup(strategies: list, n_players: int) -> None:
    if len(strategies) != n_players:
        raise ValueError("one strategy per seat")


def rotated_seatings(games: np.ndarray, n_players: int, rotate: bool = True) -> np.ndarray:
    """Line-up entry of every seat of every game: seat s of game g plays entry (s + g) mod n
    when rotating (the rulebook's random first player, realised by rotation), else entry s."""
    import numpy as np

    seats = np.arange(n_players, dtype=np.int64)
    if not rotate:
        return np.broadcast_to(seats, (len(games), n_players)).copy()
    return (seats[None, :] + games[:, None]) % n_players


def timings(n_played: int, elapsed: float, **extra) -> dict:
    """A run's speed: games per second, seconds, and what else the runner reports."""
    return {"games_per_second": n_played / elapsed if elapsed else 0.0, "seconds": elapsed, **extra}


def concat(parts: list[dict]) -> dict:
    """The column dicts of consecutive chunks as one (empty: no chunk)."""
    import numpy as np

    if not parts:
        return {}
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def set_threads(threads: int | None) -> int:
    """Use `threads` worker threads for the compiled kernels (None: all cores); returns it."""
    from sim.core.jit import numba

    available = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        threads = available
    if not 1 <= threads <= available:
        raise UserError(f"--threads must be between 1 and {available}; got {threads}")
    numba.set_num_threads(threads)
    return threads


def run_chunks(
    n_games: int,
    play: Callable[[int, int], None],
    *,
    chunk_size: int | None = None,
    progress: bool = False,
    label: str = "games",
    first_game: int = 0,
    spans: list[tuple[int, int]] | None = None,
) -> float:
    """Call `play(first, n)` over consecutive chunks covering games first_game .. n_games - 1
    (a resumed run starts after the games already done), or covering each of `spans` (first, n),
    in order: the games a resumed run still lacks (`sim.core.chunks.ChunkStore.missing`).

    `chunk_size` fixes the chunk length; by default chunks are sized to take about a second.
    A `play` that returns True stops the run after its chunk (sequential stopping).
    With `progress`, a bar with games/s and the time left appears when the run is expected to
    last more than a couple of seconds. Returns the elapsed seconds.
    """
    if spans is None:
        spans = [(first_game, n_games - first_game)] if n_games > first_game else []
    start = time.perf_counter()
    left = sum(n for _, n in spans)
    done = n_games - left
    played = 0
    bar = None
    size = chunk_size or FIRST_CHUNK
    try:
        for first, count in spans:
            at, end = first, first + count
            while at < end:
                n = min(size, end - at)
                t0 = time.perf_counter()
                stop = play(at, n)
                at += n
                done += n
                played += n
                elapsed = time.perf_counter() - start
                rate = played / elapsed if elapsed > 0 else float("inf")
                if chunk_size is None:
                    per_game = max((time.perf_counter() - t0) / n, 1e-9)
                    size = int(min(MAX_CHUNK, max(FIRST_CHUNK, CHUNK_SECONDS / per_game)))
                if progress and bar is None and (n_games - done) / rate > PROGRESS_AFTER_SECONDS:
                    bar = ProgressBar(n_games, label)
                if bar is not None:
                    bar.update(done, rate)
                if stop is True:
                    return time.perf_counter() - start
                raise_if_interrupted()
    finally:
        if bar is not None:
            bar.close()
    return time.perf_counter() - start


class ProgressBar:
    """A one-line progress bar on stderr: done/total, games/s and the time left."""

    def __init__(self, total: int, label: str) -> None:
        from rich.progress import BarColumn, Progress, TextColumn

        self.progress = Progress(
            TextColumn("{task.completed:,}/{task.total:,} " + label),
            BarColumn(),
            TextColumn("{task.fields[rate]}"),
            TextColumn("ETA {task.fields[eta]}"),
            transient=True,
            console=_stderr_console(),
        )
        self.task = self.progress.add_task(label, total=total, rate="", eta="")
        self.total = total
        self.progress.start()

    def update(self, done: int, rate: float) -> None:
        eta = (self.total - done) / rate if rate > 0 else 0.0
        self.progress.update(
            self.task, completed=done, rate=f"{rate:,.0f} {'games'}/s", eta=f"{eta:,.0f} s"
        )

    def close(self) -> None:
        self.progress.stop()


def _stderr_console():
    from rich.console import Console

    return Console(file=sys.stderr)
