"""The results schema, as data: column names, dtypes and meanings of the two result tables.

* ``seats``: one row per (game, seat). Written as ``seats.parquet``.
* ``games``: one row per game. Written as ``games.parquet``.

Both are long-form: aggregate with ``groupby``. `docs/results-schema.md` is generated from the
dicts below by `schema_markdown` (a test checks that the committed file is current); change the
schema here, then regenerate it with ``python -m games.abyss.engine.schema >
docs/results-schema.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

#: Bumped whenever a column is renamed, removed or changes meaning (adding columns is fine).
SCHEMA_VERSION = 3

#: Why a game ended. Rulebook (base): a player recruits a 7th Lord, or a Lord is recruited and the
#: Court cannot be refilled to 6. Leviathan adds: at the end of a turn the Leviathan deck or a
#: Monster-token deck is empty. ``turn_limit`` is the simulator's safety stop (not a rule).
END_REASONS = (
    "seventh_lord",
    "court_empty",
    "leviathan_deck_empty",
    "monster_tokens_empty",
    "turn_limit",
)
END_REASON_DTYPE = pd.CategoricalDtype(categories=list(END_REASONS), ordered=False)

#: name -> (dtype, description), in column order.
SEAT_COLUMNS: dict[str, tuple[Any, str]] = {
    "game": ("int64", "Game index within the run, 0-based (`replay --game` takes this value)."),
    "seat": ("int8", "Seat in turn order: 0 = first player."),
    "strategy": ("category", "Name of the strategy (preset) playing this seat."),
    "score": (
        "int16",
        "Final Influence Points (IP): the sum of the `score_*` columns.",
    ),
    "score_lords": ("int16", "IP of all the seat's Lords, free or under a Location."),
    "score_locations": ("int16", "IP from the seat's Locations."),
    "score_allies": ("int16", "IP of the strongest affiliated Ally of each race."),
    "score_monsters": ("int16", "IP of the seat's Monster tokens."),
    "score_wounds": ("int16", "Leviathan: -1 IP per Wound token (<= 0; 0 in the base game)."),
    "score_scourge": ("int16", "Leviathan: +5 IP for the Scourge of the Abyss holder, else 0."),
    "pearls": ("int16", "Pearls held at the end (first tie-break)."),
    "keys": ("int8", "Key tokens held at the end."),
    "n_lords": ("int8", "Lords owned at the end (free or under a Location)."),
    "n_locations": ("int8", "Locations controlled."),
    "n_affiliated": ("int8", "Affiliated Allies at the end, after the final affiliation."),
    "n_monster_tokens": ("int8", "Base-game Monster tokens held (the ones worth IP)."),
    "leviathans_killed": ("int8", "Leviathan: Leviathans this seat killed (0 in the base game)."),
    "wounds": ("int8", "Leviathan: Wound tokens held at the end (0 in the base game)."),
    "rank": (
        "int8",
        "Final place, 1 = best, by score then the rulebook tie-breaks (most Pearls, then the "
        "highest-IP Lord); seats still tied share the rank (1, 1, 3, ...).",
    ),
    "winner": ("bool", "True if rank == 1 (several seats win a game that stays tied)."),
    "lord_set": (
        "int64",
        "Lords the seat recruited (gained in any way) during the game, as a bit set: bit i = "
        "the Lord of index i in the card data (`abyss-mc cards` lists them in order).",
    ),
    "location_set": ("int64", "Locations controlled at the end, as a bit set like `lord_set`."),
}

#: name -> (dtype, description), in column order.
GAME_COLUMNS: dict[str, tuple[Any, str]] = {
    "game": ("int64", "Game index within the run, 0-based (joins `seats.game`)."),
    "n_players": ("int8", "Number of players (2-4; 5 with the Leviathan expansion)."),
    "turns": ("int32", "Player turns played in the game, summed over all players."),
    "end_reason": (END_REASON_DTYPE, "Why the game ended: " + ", ".join(END_REASONS) + "."),
    "seed": ("int64", "Seed of the run; with `game` it determines every random draw of the game."),
    "n_fights": ("int16", "Leviathan: Monsters answered by fighting a Leviathan (Sorcerer too)."),
    "n_continues": ("int16", "Leviathan: Monsters answered by continuing (adding a Leviathan)."),
    "n_leviathan_attacks": ("int16", "Leviathan: attacks suffered from a resident Leviathan."),
    "n_kills": ("int16", "Leviathan: Leviathans killed in the game."),
    "trigger_seat": ("int8", "Seat (0 = first player) whose turn triggered the end; every other "
                     "seat then took one last turn. -1: stopped by the turn limit."),
}


#: Extra columns of a tournament's tables (`abyss-mc tournament`), in front of the others.
TOURNAMENT_SEAT_COLUMNS: dict[str, tuple[Any, str]] = {
    "block": ("int64", "Tournament: the block (one deal under --crn block; `game` = block then)."),
    "table": ("int32", "Tournament: the table of the design (a line-up in one seating)."),
    "n_players": ("int8", "Tournament: players per game (a run may hold several counts)."),
    "win": ("float64", "Tournament: the seat's share of the win (1/k among k tied winners)."),
}
TOURNAMENT_GAME_COLUMNS = {k: TOURNAMENT_SEAT_COLUMNS[k] for k in ("block", "table")}


def tournament_frames(
    seats: pd.DataFrame, games: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The typed tables of a tournament: the schema's columns plus TOURNAMENT_*_COLUMNS."""
    typed = []
    for df, base, extra, name in (
        (seats, SEAT_COLUMNS, TOURNAMENT_SEAT_COLUMNS, "seats"),
        (games, GAME_COLUMNS, TOURNAMENT_GAME_COLUMNS, "games"),
    ):
        front = {
            c: df[c].astype(dtype) if dtype == "float64" else _cast(df[c], dtype, f"{name}.{c}")
            for c, (dtype, _) in extra.items()
        }
        rest = _typed_frame(df.drop(columns=[c for c in extra if c not in base]), base, name)
        typed.append(pd.concat([pd.DataFrame(front).reset_index(drop=True), rest], axis=1))
    return typed[0], typed[1]


def seats_frame(
    rows: Iterable[Mapping[str, Any]] | Mapping[str, Any] | pd.DataFrame,
) -> pd.DataFrame:
    """Build the typed ``seats`` table from rows (list of dicts), columns (dict of arrays) or a
    DataFrame. Raises ValueError on missing or unknown columns and on values the dtype can't
    hold."""
    return _typed_frame(rows, SEAT_COLUMNS, "seats")


def games_frame(
    rows: Iterable[Mapping[str, Any]] | Mapping[str, Any] | pd.DataFrame,
) -> pd.DataFrame:
    """Build the typed ``games`` table; see `seats_frame`."""
    return _typed_frame(rows, GAME_COLUMNS, "games")


def schema_markdown() -> str:
    """The text of `docs/results-schema.md`."""
    lines = [
        "# Results schema",
        "",
        "<!-- Generated from games/abyss/engine/schema.py by "
        "`python -m games.abyss.engine.schema`; edit the schema there, not this file. -->",
        "",
        f"Schema version {SCHEMA_VERSION}. Every `abyss-mc simulate` run writes a new directory "
        "(default `runs/<UTC timestamp>-seed<seed>`) holding:",
        "",
        "| file | contents |",
        "|---|---|",
        "| `seats.parquet` | one row per (game, seat), columns below (not with `--no-per-game`) |",
        "| `games.parquet` | one row per game, columns below (not with `--no-per-game`) |",
        "| `aggregates.npz` | always: counts and integer sums by strategy and seat, sums by "
        "game for intervals clustered by game, turn histogram, end reasons, Lords and Locations "
        "held, per-round trajectories of a sample of games (every 16th) and those games "
        "themselves, round by round (the tension metrics, docs/metrics.md; "
        "`games.abyss.engine.aggregate.Aggregates.load`) |",
        "| `manifest.json` | command, config, seed, card-data digest, timings, versions, platform, "
        "`schema_version`; a tournament's `timings.phases`: wall seconds of each phase in the "
        "order played (its tournaments, tables, fight rollouts, each strength's, card values, "
        "the report), and its `timings.total` includes the report's build (issue 54; before, "
        "it stopped before the report) |",
        "| `summary.txt` | the summary printed at the end of the run |",
        "",
        "The directory appears only once the run is complete (it is written under a hidden "
        "`.<name>.partial` name and renamed at the end). A run that fails or is interrupted "
        "before finishing any chunk leaves nothing behind; one that has finished chunks keeps "
        "them there for `--resume` (docs/reliability.md).",
        "",
        'Read with pandas: `pd.read_parquet(run / "seats.parquet")`. Both tables are long-form; '
        "join them on `game`.",
        "",
    ]
    for title, columns in (("seats.parquet", SEAT_COLUMNS), ("games.parquet", GAME_COLUMNS)):
        lines += [f"## `{title}`", "", "| column | dtype | meaning |", "|---|---|---|"]
        for name, (dtype, description) in columns.items():
            lines.append(f"| `{name}` | {_dtype_name(dtype)} | {description} |")
        lines.append("")
    lines += [
        "## Tournaments",
        "",
        "`abyss-mc tournament` writes the same files; its `seats.parquet` has these columns in "
        "front of the ones above, and its `games.parquet` the first two. The manifest's config "
        "records the design (`strategies`, `tables`, `blocks`, `crn`). A tournament of several "
        "player counts (`--players 3,4`) writes one `aggregates-<n>p.npz` per count instead of "
        "`aggregates.npz`.",
        "",
        "| column | dtype | meaning |",
        "|---|---|---|",
    ]
    for name, (dtype, description) in TOURNAMENT_SEAT_COLUMNS.items():
        lines.append(f"| `{name}` | {_dtype_name(dtype)} | {description} |")
    lines.append("")
    return "\n".join(lines)


# --- helpers ---------------------------------------------------------------------------------


def _dtype_name(dtype: Any) -> str:
    return "category" if isinstance(dtype, pd.CategoricalDtype) else str(dtype)


def _typed_frame(rows: Any, columns: Mapping[str, tuple[Any, str]], table: str) -> pd.DataFrame:
    if isinstance(rows, pd.DataFrame):
        df = rows
    elif isinstance(rows, Mapping):
        df = pd.DataFrame(dict(rows))
    else:
        rows = list(rows)
        df = pd.DataFrame.from_records(rows) if rows else pd.DataFrame({c: [] for c in columns})
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{table} table: missing columns {', '.join(missing)}")
    unknown = [str(c) for c in df.columns if c not in columns]
    if unknown:
        raise ValueError(
            f"{table} table: unknown columns {', '.join(unknown)} "
            "(add them to games/abyss/engine/schema.py)"
        )
    out = {name: _cast(df[name], dtype, f"{table}.{name}") for name, (dtype, _) in columns.items()}
    return pd.DataFrame(out).reset_index(drop=True)


def _cast(col: pd.Series, dtype: Any, label: str) -> pd.Series:
    if isinstance(dtype, pd.CategoricalDtype):
        if col.isna().any():
            raise ValueError(f"{label}: missing values")
        values = col.astype(str) if not isinstance(col.dtype, pd.CategoricalDtype) else col
        bad = sorted(set(values.astype(str)) - set(dtype.categories))
        if bad:
            raise ValueError(
                f"{label}: unknown values {bad}; expected one of {list(dtype.categories)}"
            )
        return values.astype(str).astype(dtype)
    if dtype == "category":
        if col.isna().any():
            raise ValueError(f"{label}: missing values")
        return col.astype(str).astype("category")
    if dtype == "bool":
        if col.dtype != bool and not set(pd.unique(col)) <= {0, 1}:
            raise ValueError(f"{label}: expected booleans")
        return col.astype(bool)
    # integers: refuse NaN, fractions and values that would wrap around
    if col.isna().any():
        raise ValueError(f"{label}: missing values")
    values = col.to_numpy()
    if values.dtype.kind == "O":
        values = pd.to_numeric(col).to_numpy()  # ValueError on non-numbers
    if values.dtype.kind == "f" and len(values) and not np.all(np.mod(values, 1) == 0):
        raise ValueError(f"{label}: expected integers")
    if values.dtype.kind not in "iufb" and len(values):
        raise ValueError(f"{label}: expected integers, got {values.dtype}")
    info = np.iinfo(np.dtype(dtype))
    if len(values) and (values.min() < info.min or values.max() > info.max):
        raise ValueError(f"{label}: values outside {dtype} range [{info.min}, {info.max}]")
    return pd.Series(values, index=col.index, name=col.name).astype(dtype)


if __name__ == "__main__":
    print(schema_markdown(), end="")
