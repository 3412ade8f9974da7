"""Run many games on the fast path (`games.abyss.engine.kernel.game.play_chunk`), in chunks, on all
cores.

The seating is the reference runner's (`games.abyss.engine.runner.rotated`): seat s of game g plays
line-up entry (s + g) mod n, so both engines play the same games for the same seed and line-up.
"""

from __future__ import annotations

import numpy as np

from games.abyss.engine import state as S
from games.abyss.engine.aggregate import TRAJECTORY_EVERY, Aggregates
from games.abyss.engine.kernel import game as KN
from games.abyss.engine.kernel.workspace import MAX_ROUNDS, N_PROBE_MARKS, cached_template
from games.abyss.engine.policy_params import N_PARAMS
from games.abyss.engine.state import END_REASONS, GAME_FIELDS, SEAT_FIELDS
from sim.core.batch import check_lineup, rotated_seatings, run_chunks, set_threads, timings
from sim.core.policy import lineup_arrays as core_lineup_arrays
from sim.core.results import (
    atomic_save,
    game_columns,
    in_game_order,
    load_parts,
    save_columns,
    seat_columns,
    win_shares,
)


def lineup_arrays(policies: list) -> tuple[np.ndarray, np.ndarray]:
    """Strategy kinds and parameter vectors of a line-up of policies (`sim.core.policy`)."""
    return core_lineup_arrays(policies, N_PARAMS)


def run_fast(
    tables,
    *,
    n_players: int,
    n_games: int,
    seed: int,
    strategies: list,
    threads: int | None = None,
    chunk_size: int | None = None,
    per_game: bool = True,
    progress: bool = False,
    rotate: bool = True,
    store=None,
):
    """Play games 0 .. n_games - 1 of `seed` on the fast path.

    `strategies`: the line-up's policies (`lineup_arrays`), named by their `name`.
    Returns (seats rows, games rows, aggregates, timings); the rows are column dicts in the
    results schema (None without `per_game`). With a `store` (`sim.core.chunks.ChunkStore`),
    each finished chunk is stored, and the chunks already in the store are not played again:
    an interrupted run resumes where it stopped, with the same results.
    """
    check_lineup(strategies, n_players)
    threads = set_threads(threads)
    base = cached_template(tables)
    kinds, params, specs, names, name_of_entry = _lineup(strategies)
    agg = Aggregates(names, n_players)
    parts: dict[int, tuple] = {}  # first game -> (seat columns, game columns)
    todo = [(0, n_games)]
    if store is not None:
        agg, parts = load_chunks(store, agg, per_game)
        todo = store.missing(n_games)

    def play(first: int, n: int) -> None:
        nonlocal agg
        games = np.arange(first, first + n, dtype=np.int64)
        seatings = rotated_seatings(games, n_players, rotate)
        part = Aggregates(names, n_players) if store is not None else agg
        out_seats, out_games = play_into(
            part, base, seed, games, seatings, kinds, params, name_of_entry[seatings]
        )
        seats = game_cols = None
        if per_game:
            seats, game_cols = chunk_columns(
                out_seats, out_games, seatings, specs, games, seed, n_players
            )
            parts[first] = (seats, game_cols)
        if store is not None:
            save_chunk(store, first, n, part, seats, game_cols)
            agg = agg.merge(part)

    elapsed = run_chunks(n_games, play, chunk_size=chunk_size, progress=progress, spans=todo)
    speed = timings(sum(n for _, n in todo), elapsed, threads=threads)
    if not per_game:
        return None, None, agg, speed
    return (*in_game_order(parts), agg, speed)


def _lineup(strategies: list):
    """The line-up's compiled kinds and parameters, its specs, the distinct names (what the
    aggregates count) and each entry's index among them."""
    kinds, params = lineup_arrays(strategies)
    specs = [p.name for p in strategies]
    names = list(dict.fromkeys(specs))
    name_of_entry = np.array([names.index(s) for s in specs], dtype=np.int64)
    return kinds, params, specs, names, name_of_entry


def save_chunk(store, first: int, n: int, part: Aggregates, seats, game_cols) -> None:
    """Store one finished chunk: its aggregates and, with per-game tables, its columns."""
    writers = {"aggregates.npz": lambda path: atomic_save(path, part.save)}
    if seats is not None:
        writers["columns.npz"] = lambda path: save_columns(path, seats, game_cols)
    store.save(first, n, writers)


def load_chunks(store, agg: Aggregates, per_game: bool):
    """The stored chunks of a resumed run: (aggregates merged, first game -> columns)."""
    for first, _ in store.completed():
        agg = agg.merge(Aggregates.load(store.path(first, "aggregates.npz")))
    return agg, (load_parts(store) if per_game else {})


def trajectory_slots(games: np.ndarray, n_players: int):
    """Slot of each game in the trajectory buffer (-1: not recorded), and the buffer."""
    sampled = games % TRAJECTORY_EVERY == 0
    slot = np.where(sampled, np.cumsum(sampled) - 1, -1).astype(np.int64)
    out = np.zeros((int(sampled.sum()), MAX_ROUNDS, n_players, 3), dtype=np.int32)
    return slot, out


def run_tables(tables, *, seed: int, games, seatings, strategies: list):
    """Play game games[i] with seat s taken by the policy strategies[seatings[i, s]], for every i,
    on the threads set by `set_threads` (one chunk, no progress bar: the caller chunks).

    Returns (seat columns, game columns, aggregates) in the results schema, the seat columns
    with a `win` column added: the seat's share of the win (1/k among k tied winners). A
    line-up with a probing seat (`probing`, restricted play) adds the game column
    `probe_marks`: int32[game, W.N_PROBE_MARKS], that seat's marks (`policies.probe`).
    """
    seatings = np.ascontiguousarray(seatings, dtype=np.int64)
    games = np.ascontiguousarray(games, dtype=np.int64)
    n_players = seatings.shape[1]
    kinds, params = lineup_arrays(strategies)
    specs = [p.name for p in strategies]
    agg = Aggregates(specs, n_players)
    base = cached_template(tables)
    marks = np.zeros((len(games), N_PROBE_MARKS), np.int32) if probing(kinds, params) else None
    out_seats, out_games = play_into(agg, base, seed, games, seatings, kinds, params, seatings,
                                     marks)  # fmt: skip
    seats, game_cols = chunk_columns(out_seats, out_games, seatings, specs, games, seed, n_players)
    seats["win"] = win_shares(out_seats[:, :, S.R_RANK]).ravel()
    if marks is not None:
        game_cols["probe_marks"] = marks
    return seats, game_cols, agg


def probing(kinds, params) -> bool:
    """Whether a line-up has a probing seat (`policies.PROBE`) and no search player (whose
    rollouts switch the seats' strategies: not probed)."""
    from games.abyss.engine.policies import PROBE
    from games.abyss.engine.policy_params import G_FORBID_LORD, SEARCH

    return bool((params[:, G_FORBID_LORD] == PROBE).any()) and not (kinds == SEARCH).any()


def play_into(agg, base, seed, games, seatings, kinds, params, strategy_of, marks=None):
    """Play the games on all threads and fold them into `agg` (strategy_of[game, seat]: the
    seat's index in agg.strategies); returns the raw out_seats and out_games arrays. With
    `marks` (a line-up with a probing seat), the probing seat's marks of each game into it."""
    n_tasks, n_players = seatings.shape
    out_seats = np.zeros((n_tasks, n_players, S.N_SEAT_FIELDS), dtype=np.int32)
    out_games = np.zeros((n_tasks, S.N_GAME_FIELDS), dtype=np.int32)
    slot, out_traj = trajectory_slots(games, n_players)
    from games.abyss.engine.policy_params import SEARCH

    args = (base, np.int64(seed), games, seatings, kinds, params, out_seats, out_games, slot,
            out_traj)  # fmt: skip
    if marks is not None:
        KN.play_tables_probed(*args, marks)
    elif (kinds == SEARCH).any():
        KN.play_tables_searched(*args)
    else:
        KN.play_tables(*args)
    agg.add(out_seats, out_games, strategy_of)
    kept = slot >= 0
    agg.add_samples(games[kept], out_traj, out_seats[kept, :, S.R_SCORE],
                    out_seats[kept, :, S.R_RANK], strategy_of[kept])  # fmt: skip
    return out_seats, out_games


def chunk_columns(out_seats, out_games, seatings, strategies, games, seed, n_players):
    """Column dicts (results schema) of one chunk's seats and games."""
    n = len(out_games)
    seats = seat_columns(out_seats, seatings, strategies, games, SEAT_FIELDS)
    lords = out_seats[:, :, S.R_LORDS_LO].astype(np.uint32).astype(np.int64)
    lords |= out_seats[:, :, S.R_LORDS_HI].astype(np.uint32).astype(np.int64) << 32
    seats["lord_set"] = lords.ravel()
    seats["location_set"] = out_seats[:, :, S.R_LOCATION_SET].astype(np.uint32).ravel()
    game_cols = game_columns(
        games, n_players, out_games[:, S.RG_TURNS], out_games[:, S.RG_END], END_REASONS
    )
    game_cols["seed"] = np.full(n, seed, dtype=np.int64)
    for column, index in GAME_FIELDS.items():
        if column != "turns":
            game_cols[column] = out_games[:, index]
    game_cols["trigger_seat"] = out_games[:, S.RG_TRIGGER]
    return seats, game_cols


def play_chunk(first: int, n: int, tables, seed: int, strategies: list, per_game: bool):
    """One chunk of a run, self-contained (the distributed backend's task): games first ..
    first + n - 1 seated as `run_fast` seats them, on one thread. Returns (aggregates, seat
    columns, game columns); the columns are None without `per_game`."""
    n_players = len(strategies)
    set_threads(1)
    base = cached_template(tables)
    kinds, params, specs, names, name_of_entry = _lineup(strategies)
    agg = Aggregates(names, n_players)
    games = np.arange(first, first + n, dtype=np.int64)
    seatings = rotated_seatings(games, n_players)
    out_seats, out_games = play_into(
        agg, base, seed, games, seatings, kinds, params, name_of_entry[seatings]
    )
    if not per_game:
        return agg, None, None
    seats, game_cols = chunk_columns(out_seats, out_games, seatings, specs, games, seed, n_players)
    return agg, seats, game_cols


def run_distributed(
    client,
    tables,
    *,
    n_players: int,
    n_games: int,
    seed: int,
    strategies: list,
    chunk_size: int | None = None,
    per_game: bool = True,
    progress=None,
    store=None,
):
    """`run_fast` on a Dask cluster (`sim.core.dask_backend`): the same results. With a `store`,
    each chunk is stored as it arrives and the stored ones are not played again."""
    from sim.core.dask_backend import map_timed

    check_lineup(strategies, n_players)
    names = list(dict.fromkeys(p.name for p in strategies))
    agg = Aggregates(names, n_players)
    parts: dict[int, tuple] = {}
    todo = None
    if store is not None:
        agg, parts = load_chunks(store, agg, per_game)
        todo = store.missing(n_games)

    def arrived(first: int, n: int, part) -> None:
        nonlocal agg
        chunk_agg, seats, game_cols = part
        if store is not None:
            save_chunk(store, first, n, chunk_agg, seats, game_cols)
        agg = agg.merge(chunk_agg)
        if per_game:
            parts[first] = (seats, game_cols)

    _, elapsed = map_timed(
        client, play_chunk, n_games, chunk_size, tables, seed, list(strategies), per_game,
        progress=progress, spans=todo, on_arrival=arrived,
    )  # fmt: skip
    speed = timings(n_games if todo is None else sum(n for _, n in todo), elapsed)
    if not per_game:
        return None, None, agg, speed
    return (*in_game_order(parts), agg, speed)
