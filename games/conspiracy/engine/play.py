"""Conspiracy games of a line-up, as the commands ask for them (the PLAY API of
`sim.core.game`)."""

from __future__ import annotations

from sim.core.firstrun import first_compile
from sim.core.game import Played

#: The fast path's first compile on a 2-core machine (docs/benchmarks.md), to tell the user.
COMPILE_SECONDS = 35
#: The reference engine's seconds per seat and game on one core (2 players: 1 s for 300 games),
#: for a first run's choice of engine while the fast path compiles.
REFERENCE_SECONDS = 0.002
#: The fast path's CPU seconds and per-game tables' bytes per seat-game, for the estimate before
#: a long run (`reports.runs.setup.check_size`): 100,000 four-player games wrote 5.2 MB of
#: per-game tables and took 4.8 s of CPU beyond the start (`abyss-mc simulate --game conspiracy
#: --players 4 --games 100000 --threads 1`, less the same with 1,000 games; 2026-12-06).
SEAT_GAME_SECONDS, SEAT_GAME_BYTES = 1.2e-5, 15
#: A searching seat's CPU seconds per rollout and player of its table: 64 rollouts cost 0.028 s
#: a two-player game (docs/search.md, Conspiracy, 2026-12-02), for the same estimate.
ROLLOUT_SEAT_SECONDS = 0.028 / 64 / 2


def player_counts(tables, expansions: tuple[str, ...] = ()) -> tuple[int, ...]:
    """The player counts of the card data (`game.min_players` .. `game.max_players`)."""
    return tuple(range(tables.min_players, tables.max_players + 1))


def run_games(tables, *, engine: str, n_players: int, n_games: int, seed: int, policies: list,
              expansions: tuple[str, ...] = (), threads: int | None = None, per_game: bool = True,
              progress: bool = False, store=None, chunk_size: int | None = None,
              client=None) -> Played:  # fmt: skip
    """The games of one line-up on the fast path (locally or on Dask) or the reference engine:
    the seat and game frames and the timings (Conspiracy keeps no aggregates)."""
    import pandas as pd

    from games.conspiracy.engine import fast

    if client is not None:
        seats, games, timings = fast.run_distributed(
            client, tables, n_players=n_players, n_games=n_games, seed=seed,
            strategies=policies, chunk_size=chunk_size, store=store,
        )  # fmt: skip
    elif engine == "reference":
        seats, games, timings = fast.run_reference(
            tables, n_players=n_players, n_games=n_games, seed=seed, strategies=policies
        )
    else:
        with first_compile("conspiracy", COMPILE_SECONDS):
            seats, games, timings = _fast_games(tables, n_players, n_games, seed, policies,
                                                threads, progress, store, chunk_size)  # fmt: skip
    return Played(pd.DataFrame(seats), pd.DataFrame(games), None, dict(timings))


def _fast_games(tables, n_players, n_games, seed, policies, threads, progress, store, chunk_size):
    """Games 0 .. n_games - 1 of `seed` on the fast path, in chunks: (seat columns, game
    columns, timings). With a `store` (`sim.core.chunks.ChunkStore`) each finished chunk is kept
    and stored chunks are not played again."""
    import numpy as np

    from games.conspiracy.engine.fast import run_tables as play_tables
    from sim.core.batch import check_lineup, rotated_seatings, run_chunks, set_threads, timings
    from sim.core.results import in_game_order, load_parts, save_columns

    check_lineup(policies, n_players)
    threads = set_threads(threads)
    parts = load_parts(store)
    todo = store.missing(n_games) if store is not None else [(0, n_games)]

    def play(first: int, n: int) -> None:
        games = np.arange(first, first + n, dtype=np.int64)
        seats, game_cols = play_tables(tables, seed=seed, games=games,
                                       seatings=rotated_seatings(games, n_players),
                                       strategies=policies)  # fmt: skip
        parts[first] = (seats, game_cols)
        if store is not None:
            store.save(first, n, {"columns.npz": lambda path: save_columns(path, seats, game_cols)})

    elapsed = run_chunks(n_games, play, chunk_size=chunk_size, progress=progress, spans=todo)
    return (*in_game_order(parts), timings(sum(n for _, n in todo), elapsed, threads=threads))


def load_aggregates(path):
    """A tournament's aggregates: its sampled games (`sim.core.samples.GameSamples`)."""
    from sim.core.samples import GameSamples

    return GameSamples.load(path)


def run_tables(tables, *, seed: int, games, seatings, strategies: list):
    """The tables' results columns, and as aggregates every 16th game replayed with its running
    scores for the tension metrics (`games.conspiracy.engine.trajectory`)."""
    import numpy as np

    from games.conspiracy.engine import fast, trajectory

    games, seatings = np.asarray(games, dtype=np.int64), np.asarray(seatings, dtype=np.int64)
    with first_compile("conspiracy", COMPILE_SECONDS):
        out_seats, out_games = fast.play_raw(tables, seed, games, seatings, strategies)
        kept = trajectory.samples(tables, seed, games, seatings, strategies, out_seats)
    seats, games_cols = fast.columns(out_seats, out_games, seatings, strategies, games, seed)
    return seats, games_cols, kept


def tournament_frames(seats, games):
    seats = seats.copy()
    seats["strategy"] = seats["strategy"].astype(str)
    return seats, games


def replay(tables, *, seed: int, game: int, n_players: int, policies: list,
           expansions: tuple[str, ...] = ()) -> tuple[str, list[dict]]:  # fmt: skip
    """Game `game` of a run, seated as `run_games` seats it, move by move."""
    import numpy as np

    from games.conspiracy.engine.fast import rotated_seatings
    from games.conspiracy.engine.rules.game import Game

    seating = rotated_seatings(np.array([game]), n_players)[0]
    seated = [policies[j] for j in seating]
    g = Game(tables, seated, seed, game).play()
    lines = [f"Conspiracy, seed {seed}, game {game}: " + ", ".join(
        f"seat {s + 1} {p.name}" for s, p in enumerate(seated))]  # fmt: skip
    for e in g.events:  # seats as people count them (the JSON events keep the engine's 0..n-1)
        shown = {k: v + 1 if k in ("who", "seat", "target") and isinstance(v, int) else v
                 for k, v in e.items() if k not in ("event", "turn")}  # fmt: skip
        details = ", ".join(f"{k}={v}" for k, v in shown.items())
        lines.append(f"turn {e['turn']:>3}  {e['event']:<16} {details}")
    return "\n".join(lines), g.events


def oracle_values(tables, **kw):
    """Each seat's chance to win before every round of the given games (`sim.core.oracle`)."""
    from games.conspiracy.engine.oracle import oracle_values as values

    return values(tables, **kw)
