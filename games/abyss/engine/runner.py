"""Run many games and collect long-form results (one row per game and seat, one per game).

Seating: the rulebook says "Randomly determine the starting player". The engine's seat 0 is always
the first player, so the runner realises the random start by rotating the line-up: game g seats the
strategies shifted by g mod n. Every strategy therefore plays every seat equally often, and the deck
order of game g does not depend on the line-up (common random numbers).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from games.abyss.engine.aggregate import N_ROUNDS, TRAJECTORY_EVERY, Aggregates
from games.abyss.engine.rules.game import Game
from games.abyss.engine.rules.scoring import game_row, seat_rows
from sim.core.samples import NOT_PLAYED

SUPPORTED_EXPANSIONS: tuple[str, ...] = ("leviathan",)


def rotated(lineup: list[str], game: int, rotate: bool = True) -> list[str]:
    """The line-up of game `game`: seat s plays lineup[(s + game) % n] when rotating."""
    if not rotate:
        return list(lineup)
    n = len(lineup)
    return [lineup[(s + game) % n] for s in range(n)]


def check_expansions(expansions: tuple[str, ...]) -> None:
    from sim.core.errors import UserError

    unknown = [e for e in expansions if e not in SUPPORTED_EXPANSIONS]
    if unknown:
        raise UserError(f"expansion {unknown[0]!r} is not available in this engine yet")


def run_simulation(
    tables,
    *,
    n_players: int,
    n_games: int,
    seed: int,
    strategies: list,
    expansions: tuple[str, ...] = (),
    progress: bool = False,
    rotate: bool = True,
    first_game: int = 0,
    trajectories: list | None = None,
    played=None,
):
    """Play games `first_game .. first_game + n_games - 1` with the reference engine.

    Returns (seat rows, game rows, timings): lists of dicts in the results schema. A
    `trajectories` list receives (line-up, per-round record, game index, the finished game's
    seat rows) of every game the fast path samples (`trajectory_array`). `played`, a shared
    counter of finished games (another process's progress), or None.
    """
    check_expansions(expansions)
    seats: list[dict] = []
    games: list[dict] = []
    start = time.perf_counter()
    last_report = start
    for i in range(n_games):
        g_index = first_game + i
        policies = rotated(strategies, g_index, rotate)
        lineup = [p.name for p in policies]
        sampled = trajectories is not None and g_index % TRAJECTORY_EVERY == 0
        game = Game(tables, policies, seed, g_index, record=False, trajectory=sampled).play()
        rows = seat_rows(game, lineup)
        if sampled:
            trajectories.append((lineup, trajectory_array(game), g_index, rows))
        seats.extend(rows)
        games.append(game_row(game))
        if played is not None:
            with played.get_lock():
                played.value += 1
        now = time.perf_counter()
        if progress and now - last_report > 0.5:
            last_report = now
            rate = (i + 1) / (now - start)
            eta = (n_games - i - 1) / rate
            print(
                f"\r{i + 1}/{n_games} games  {rate:,.0f} games/s  ETA {eta:,.0f} s",
                end="",
                file=sys.stderr,
            )
    elapsed = time.perf_counter() - start
    if progress:
        print(file=sys.stderr)
    return seats, games, {"games_per_second": n_games / elapsed if elapsed else 0.0}


def trajectory_array(game: Game) -> np.ndarray:
    """A game's per-round record as the fast path's buffer: [round, seat, (IP, Pearls, Keys)],
    NOT_PLAYED where the seat had no turn, rounds past N_ROUNDS dropped."""
    out = np.full((N_ROUNDS, game.n_players, 3), NOT_PLAYED, dtype=np.int32)
    for (round_, seat), values in game.trajectory.items():
        if round_ < N_ROUNDS:
            out[round_, seat] = values
    return out


def add_trajectories(agg: Aggregates, trajectories: list) -> None:
    """Fold the reference runner's sampled games (line-up, record, index, seat rows) into `agg`,
    as the fast path does."""
    if not trajectories:
        return
    index = {name: k for k, name in enumerate(agg.strategies)}
    strategy_of = np.array([[index[name] for name in lineup] for lineup, *_ in trajectories])
    rows = [seats for *_, seats in trajectories]
    final = np.array([[r["score"] for r in seats] for seats in rows])
    rank = np.array([[r["rank"] for r in seats] for seats in rows])
    games = np.array([g for _, _, g, _ in trajectories], dtype=np.int64)
    agg.add_samples(games, np.stack([record for _, record, *_ in trajectories]), final, rank,
                    strategy_of)


#: A reference run of this many games or more plays them on every core (forked workers): the
#: first run on a fresh machine plays on the reference engine while the fast path compiles
#: (`reports.runs.setup.cold_start_engine`)
FORK_MIN_GAMES = 64


def reference_workers(n_games: int, threads: int | None = None) -> int:
    """The processes a reference run of `n_games` plays on: every usable core (or `threads`)
    from `FORK_MIN_GAMES` games where workers can be forked, else this one."""
    from sim.core.forkpool import can_fork_workers, usable_cores

    if n_games < FORK_MIN_GAMES or not can_fork_workers():
        return 1
    return max(1, min(threads or usable_cores(), n_games - 1))


def play_reference(tables, *, n_players: int, n_games: int, seed: int, strategies: list,
                   expansions: tuple[str, ...] = (), threads: int | None = None,
                   progress: bool = False, trajectories: list):  # fmt: skip
    """`run_simulation` of games 0 .. n_games - 1 on `threads` processes (default: every core),
    the same rows in the same order: a game is a pure function of the seed and its index. The
    first game is played here: its decisions compile the policies played once, before the
    fork, and the workers inherit them."""
    import multiprocessing as mp
    import os

    from sim.core.forkpool import in_forks

    workers = reference_workers(n_games, threads)
    same = {"n_players": n_players, "seed": seed, "strategies": strategies,
            "expansions": expansions}  # fmt: skip
    played = None
    if workers >= 2:
        try:
            played = mp.get_context("fork").Value("q", 1)  # (a semaphore: none in some sandboxes)
        except (OSError, ImportError):
            played = None
    if played is None:
        return run_simulation(tables, n_games=n_games, progress=progress,
                              trajectories=trajectories, **same)  # fmt: skip
    start = time.perf_counter()
    seats, games, _ = run_simulation(tables, n_games=1, trajectories=trajectories, **same)
    _FORKED[:] = [tables, same, played]  # (the workers inherit them: nothing pickled)
    bounds = np.linspace(1, n_games, workers + 1).round().astype(int)
    parts = [(int(a), int(b - a)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    shown = [start]

    def show() -> None:
        now = time.perf_counter()
        if progress and now - shown[0] > 0.5:
            shown[0] = now
            done = played.value
            rate = done / (now - start)
            print(f"\r{done}/{n_games} games  {rate:,.0f} games/s  ETA "
                  f"{(n_games - done) / rate:,.0f} s", end="", file=sys.stderr)  # fmt: skip

    try:
        done = in_forks(_reference_part, parts, workers, show)
    finally:
        _FORKED.clear()
    for part_seats, part_games, part_samples, _ in done:
        seats += part_seats
        games += part_games
        trajectories += part_samples
    elapsed = time.perf_counter() - start
    if progress:
        print(file=sys.stderr)
    timings = {"games_per_second": n_games / elapsed if elapsed else 0.0}
    forked = {pid for *_, pid in done} - {os.getpid()}  # (none where no pool could be made)
    return seats, games, {**timings, "threads": len(forked)} if forked else timings


_FORKED: list = []  # [tables, the games' options, the shared count of games played]


def _reference_part(first: int, n: int):
    """Games first .. first + n - 1 on the reference engine, in a worker (`play_reference`)."""
    import os

    tables, same, played = _FORKED
    samples: list = []
    seats, games, _ = run_simulation(tables, n_games=n, first_game=first, trajectories=samples,
                                     played=played, **same)  # fmt: skip
    return seats, games, samples, os.getpid()


def run_games(
    tables,
    *,
    engine: str,
    n_players: int,
    n_games: int,
    seed: int,
    strategies: list,
    expansions: tuple[str, ...] = (),
    threads: int | None = None,
    per_game: bool = True,
    progress: bool = False,
    store=None,
    chunk_size: int | None = None,
):
    """Play games 0 .. n_games - 1 on the `fast` or `reference` engine (the same games);
    `store`: the fast engine's chunk store of a resumable run (`games.abyss.engine.fast.run_fast`).

    Returns (seat rows, game rows, aggregates, timings); the rows are None without `per_game`.
    """
    check_expansions(expansions)
    games = {"n_players": n_players, "n_games": n_games, "seed": seed, "strategies": strategies}
    if engine == "fast":
        from games.abyss.engine.fast import run_fast

        return run_fast(
            tables, **games, threads=threads, per_game=per_game, progress=progress, store=store,
            chunk_size=chunk_size,
        )  # fmt: skip
    from games.abyss.engine.schema import games_frame, seats_frame

    trajectories: list = []
    seats, rows, timings = play_reference(tables, **games, expansions=expansions,
                                          threads=threads, progress=progress,
                                          trajectories=trajectories)  # fmt: skip
    names = [p.name for p in strategies]
    agg = Aggregates.from_frames(seats_frame(seats), games_frame(rows), names)
    add_trajectories(agg, trajectories)
    return (seats, rows, agg, timings) if per_game else (None, None, agg, timings)
