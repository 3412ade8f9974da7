"""Run many Conspiracy games on either engine, in chunks, on all cores.

Seating as in Abyss (`games.abyss.engine.fast.rotated_seatings`): seat s of game g plays line-up
entry
(s + g) mod n, so both engines play the same games for the same seed and line-up. Results are the
long-form per-game columns of docs/results-schema.md ("Conspiracy").
"""

from __future__ import annotations

import numpy as np

from games.conspiracy.engine import state as S
from games.conspiracy.engine.kernel import game as KN
from games.conspiracy.engine.policies import SEARCH
from games.conspiracy.engine.state import END_REASONS
from sim.core.batch import check_lineup, rotated_seatings, set_threads, timings
from sim.core.policy import lineup_arrays as core_lineup_arrays
from sim.core.results import game_columns, seat_columns, win_shares

#: Per-seat result columns and their kernel fields.
SEAT_FIELDS = {
    "score": KN.R_SCORE,
    "score_lords": KN.R_LORDS,
    "score_locations": KN.R_LOCATIONS,
    "score_coalition": KN.R_COALITION,
    "score_pearl_master": KN.R_PEARL_MASTER,
    "pearls": KN.R_PEARLS,
    "n_locations": KN.R_N_LOCATIONS,
    "coalition_size": KN.R_COALITION_SIZE,
    "n_lords": KN.R_N_LORDS,
    "draws": KN.R_DRAWS,
    "pile_takes": KN.R_PILE_TAKES,
    "pile_lords": KN.R_PILE_LORDS,
    "rank": KN.R_RANK,
}


def lineup_arrays(policies: list) -> tuple[np.ndarray, np.ndarray]:
    """Strategy kinds and parameter vectors of a line-up of policies (`sim.core.policy`)."""
    return core_lineup_arrays(policies, S.N_PARAMS)


def play_raw(tables, seed: int, games, seatings, strategies: list):
    """Play game games[i] with seat s taken by strategies[seatings[i, s]] on the threads set by
    `set_threads`; returns the kernel's out_seats and out_games arrays."""
    seatings = np.ascontiguousarray(seatings, dtype=np.int64)
    games = np.ascontiguousarray(games, dtype=np.int64)
    kinds, params = lineup_arrays(strategies)
    n_tasks, n_players = seatings.shape
    out_seats = np.zeros((n_tasks, n_players, KN.N_SEAT_FIELDS), dtype=np.int32)
    out_games = np.zeros((n_tasks, KN.N_GAME_FIELDS), dtype=np.int32)
    play = KN.play_tables
    if (kinds == SEARCH).any():  # the search's driver compiles only when a seat searches
        from games.conspiracy.engine.kernel.search import play_tables_searched as play
    play(
        S.cached_template(tables),
        np.int64(seed),
        games,
        seatings,
        kinds,
        params,
        out_seats,
        out_games,
    )
    return out_seats, out_games


def columns(out_seats, out_games, seatings, strategies, games, seed) -> tuple[dict, dict]:
    """Column dicts (results schema) of one chunk's seats and games, with `win` (the seat's share
    of first place)."""
    n, n_players = seatings.shape
    seats = seat_columns(out_seats, seatings, [p.name for p in strategies], games, SEAT_FIELDS)
    seats["win"] = win_shares(out_seats[:, :, KN.R_RANK]).ravel()
    seats["location_set"] = out_seats[:, :, KN.R_LOCATION_SET].astype(np.uint32).ravel()
    game_cols = game_columns(
        games, n_players, out_games[:, KN.RG_TURNS], out_games[:, KN.RG_END], END_REASONS
    )
    game_cols["trigger_seat"] = out_games[:, KN.RG_TRIGGER]
    game_cols["seed"] = np.full(n, seed, dtype=np.int64)
    return seats, game_cols


def run_tables(tables, *, seed: int, games, seatings, strategies: list):
    """`play_raw` as results columns (the tournament's entry point)."""
    out_seats, out_games = play_raw(tables, seed, games, seatings, strategies)
    return columns(out_seats, out_games, np.asarray(seatings), strategies, np.asarray(games), seed)


def run_reference(tables, *, n_players: int, n_games: int, seed: int, strategies: list):
    """The same games on the reference engine (slow; for checks and small runs)."""
    import time

    from games.conspiracy.engine.rules.game import Game, largest_group

    t0 = time.perf_counter()
    games = np.arange(n_games, dtype=np.int64)
    seatings = rotated_seatings(games, n_players)
    out_seats = np.zeros((n_games, n_players, KN.N_SEAT_FIELDS), dtype=np.int32)
    out_games = np.zeros((n_games, KN.N_GAME_FIELDS), dtype=np.int32)
    for g in range(n_games):
        lineup = [strategies[j] for j in seatings[g]]
        game = Game(tables, lineup, seed, g, record=False).play()
        for seat, (p, sc) in enumerate(zip(game.players, game.scores, strict=True)):
            row = out_seats[g, seat]
            row[KN.R_SCORE], row[KN.R_LORDS] = sc.total, sc.lords
            row[KN.R_LOCATIONS], row[KN.R_COALITION] = sc.locations, sc.coalition
            row[KN.R_PEARL_MASTER], row[KN.R_PEARLS] = sc.pearl_master, p.pearls
            row[KN.R_N_LOCATIONS], row[KN.R_N_LORDS] = len(p.locations), len(p.chamber)
            row[KN.R_COALITION_SIZE] = largest_group(
                tables, p.chamber, lambda lord: tables.lord_colour[lord]
            )
            row[KN.R_RANK] = game.ranks[seat]
            row[KN.R_DRAWS], row[KN.R_PILE_TAKES] = p.draws, p.pile_takes
            row[KN.R_PILE_LORDS] = p.pile_lords
            row[KN.R_LOCATION_SET] = np.uint32(sum(1 << c for c in p.locations)).view(np.int32)
        out_games[g] = (game.turn, END_REASONS.index(game.end_reason), game.end_trigger)
    seats, game_cols = columns(out_seats, out_games, seatings, strategies, games, seed)
    return seats, game_cols, timings(n_games, time.perf_counter() - t0)


def play_chunk(first: int, n: int, tables, seed: int, strategies: list):
    """One chunk of a run on one thread (the distributed backend's task): (seat columns, game
    columns) of games first .. first + n - 1, seated as `play.run_games` seats them."""
    set_threads(1)
    games = np.arange(first, first + n, dtype=np.int64)
    return run_tables(
        tables,
        seed=seed,
        games=games,
        seatings=rotated_seatings(games, len(strategies)),
        strategies=strategies,
    )


def run_distributed(
    client, tables, *, n_players: int, n_games: int, seed: int, strategies: list,
    chunk_size: int | None = None, store=None,
):  # fmt: skip
    """`play.run_games` on a Dask cluster (`sim.core.dask_backend`): the same results. With a
    `store`, each chunk is stored as it arrives and the stored ones are not played again."""
    from sim.core.dask_backend import map_timed
    from sim.core.results import in_game_order, load_parts, save_columns

    check_lineup(strategies, n_players)
    parts = load_parts(store)
    todo = store.missing(n_games) if store is not None else None

    def arrived(first: int, n: int, part) -> None:
        seats, game_cols = part
        if store is not None:
            store.save(first, n, {"columns.npz": lambda path: save_columns(path, seats, game_cols)})
        parts[first] = part

    _, elapsed = map_timed(client, play_chunk, n_games, chunk_size, tables, seed,
                           list(strategies), spans=todo, on_arrival=arrived)  # fmt: skip
    played = n_games if todo is None else sum(n for _, n in todo)
    return (*in_game_order(parts), timings(played, elapsed))
