"""Results every game's runs share: win shares, and per-game columns stored chunk by chunk.

Stored columns are plain arrays (text as fixed-width unicode), loaded without pickle: a crafted
file cannot run code (docs/reliability.md).
"""

from __future__ import annotations

import os

import numpy as np

from sim.core.errors import UserError


def win_shares(ranks: np.ndarray) -> np.ndarray:
    """A seat's share of the win: 1/k when k seats share the first rank, else 0 (rows = games)."""
    first = ranks == 1
    return first / first.sum(axis=1, keepdims=True)


def seat_columns(out_seats, seatings, names, games, fields: dict[str, int]) -> dict:
    """A chunk's per-seat columns: game, seat, strategy (names[line-up entry]), the kernel's
    fields (column -> index in out_seats[game, seat, :]) and winner."""
    n, n_players = seatings.shape
    names = np.array(names, dtype=object)
    seats = {
        "game": np.repeat(games, n_players),
        "seat": np.tile(np.arange(n_players), n),
        "strategy": names[seatings.ravel()],
    }
    for column, index in fields.items():
        seats[column] = out_seats[:, :, index].ravel()
    seats["winner"] = seats["rank"] == 1
    return seats


def game_columns(games, n_players: int, turns, end, end_reasons) -> dict:
    """A chunk's first per-game columns: game, n_players, turns and end_reason (end: the index
    of each game's reason in `end_reasons`)."""
    return {
        "game": games,
        "n_players": np.full(len(games), n_players),
        "turns": turns,
        "end_reason": np.array(end_reasons, dtype=object)[end],
    }


def save_columns(path, seats: dict, game_cols: dict) -> None:
    """A chunk's per-game columns in one file (atomic). Text columns are stored as fixed-width
    unicode, so that loading never needs pickle (a crafted pickle can run code)."""
    atomic_save(path, lambda f: np.savez(f, **_prefixed(seats, "s_"), **_prefixed(game_cols, "g_")))


def _plain(column: np.ndarray) -> np.ndarray:
    return column.astype(str) if column.dtype == object else column


def _python_text(column: np.ndarray) -> np.ndarray:
    return column.astype(object) if column.dtype.kind == "U" else column


def load_columns(store) -> tuple[list[dict], list[dict]]:
    """The per-game columns of every stored chunk, in game order."""
    seat_parts: list[dict] = []
    game_parts: list[dict] = []
    for first, _ in store.completed():
        path = store.path(first, "columns.npz")
        try:
            with np.load(path, allow_pickle=False) as f:
                seats = {k[2:]: _python_text(f[k]) for k in f.files if k.startswith("s_")}
                games = {k[2:]: _python_text(f[k]) for k in f.files if k.startswith("g_")}
        except ValueError as exc:  # object arrays: a file this program never writes
            raise UserError(f"{path} holds data that is not plain arrays ({exc})") from None
        seat_parts.append(seats)
        game_parts.append(games)
    return seat_parts, game_parts


def load_parts(store) -> dict[int, tuple[dict, dict]]:
    """The per-game columns of every stored chunk by its first game (none without a store)."""
    if store is None:
        return {}
    seats, games = load_columns(store)
    done = store.completed()
    return {first: (s, g) for (first, _), s, g in zip(done, seats, games, strict=True)}


def in_game_order(parts: dict[int, tuple[dict, dict]]) -> tuple[dict, dict]:
    """The seat and game columns of chunks stored or played in any order, in game order."""
    from sim.core.batch import concat

    ordered = [parts[first] for first in sorted(parts)]
    return concat([p[0] for p in ordered]), concat([p[1] for p in ordered])


def _prefixed(columns: dict, prefix: str) -> dict:
    return {prefix + k: _plain(np.asarray(v)) for k, v in columns.items()}


def atomic_save(path, write) -> None:
    """`write(file)` into a temporary file, then rename it to `path` (numpy adds no suffix to an
    open file, unlike to a path)."""
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
