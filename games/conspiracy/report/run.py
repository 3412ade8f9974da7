"""An *Abyss: Conspiracy* run directory, read for its balance report
(`games.conspiracy.report.balance`).

A run written by ``abyss-mc simulate --game conspiracy`` or ``abyss-mc tournament --game
conspiracy``: ``manifest.json`` (``config.game == "conspiracy"``), ``seats.parquet`` and
``games.parquet`` (docs/results-schema.md); a tournament's tables also carry ``block`` and
``table``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from sim.core.errors import UserError
from sim.core.runs import read_table

__all__ = ["SOURCE_LABELS", "ConspiracyRun", "load_run"]

#: Score columns of the seats table and their labels (they sum to `score`).
SOURCE_LABELS = {
    "score_lords": "Lords",
    "score_locations": "Locations",
    "score_coalition": "Coalition",
    "score_pearl_master": "Pearl Master",
}
SEAT_COLUMNS = (
    "game",
    "seat",
    "strategy",
    "score",
    *SOURCE_LABELS,
    "coalition_size",
    "n_lords",
    "draws",
    "pile_takes",
    "pile_lords",
    "rank",
    "win",
    "location_set",
)
GAME_COLUMNS = ("game", "n_players", "turns", "end_reason")
TOURNAMENT_COLUMNS = ("block", "table")


class ConspiracyRun:
    """A Conspiracy run directory, read (`load_run`)."""

    def __init__(self, run_dir: Path, manifest: dict, seats: pd.DataFrame, games: pd.DataFrame):
        self.dir = Path(run_dir)
        self.manifest = manifest
        self.config = manifest.get("config") or {}
        self.seats = seats
        self.games = games
        self.counts = sorted(int(n) for n in games["n_players"].unique())
        self._tables: object = None
        self.tables_error: str | None = None

    @property
    def is_tournament(self) -> bool:
        return self.config.get("command") == "tournament"

    @property
    def multi(self) -> bool:
        """Whether the run holds several player counts."""
        return len(self.counts) > 1

    @property
    def strategies(self) -> list[str]:
        """The distinct strategies, in the order of the config (then any others, by name)."""
        seen = [str(s) for s in self.config.get("strategies") or []]
        present = set(self.seats["strategy"].unique())
        ordered = list(dict.fromkeys(s for s in seen if s in present))
        return ordered + sorted(present - set(ordered))

    @property
    def cluster(self) -> str | None:
        """The column whose values are the independent units of a tournament (None: seat-games
        of different games are independent)."""
        return "block" if self.is_tournament else None

    @property
    def strategy_keys(self) -> list[str]:
        """Group keys of the per-strategy tables: the strategy, and the player count if
        several."""
        return ["players", "strategy"] if self.multi else ["strategy"]

    def tables(self):
        """The card tables the run played with (Location names), or None if they no longer
        load (`tables_error` says why)."""
        if self._tables is None and self.tables_error is None:
            from sim import games

            try:
                self._tables = games.get("conspiracy").load_run_cards(self.config, ())
            except Exception as exc:  # moved or edited card files: report without names
                from sim.core.errors import one_line

                self.tables_error = one_line(exc)
        return self._tables


def load_run(run_dir: Path | str) -> ConspiracyRun:
    """Read a Conspiracy run directory; `UserError` (one line) if it is not one."""
    run_dir = Path(run_dir)
    manifest, config = _read_manifest(run_dir)
    extra = TOURNAMENT_COLUMNS if config.get("command") == "tournament" else ()
    seats = _read_table(run_dir, "seats.parquet", (*SEAT_COLUMNS, *extra))
    games = _read_table(run_dir, "games.parquet", (*GAME_COLUMNS, *extra))
    if not len(games) or not len(seats):
        raise UserError(f"{run_dir}: the run holds no games")
    return ConspiracyRun(run_dir, manifest, _prepare_seats(seats, games), games)


def _read_manifest(run_dir: Path) -> tuple[dict, dict]:
    """The manifest of a Conspiracy run and its config."""
    if not run_dir.is_dir():
        raise UserError(f"run directory {run_dir} does not exist")
    manifest_path = run_dir / "manifest.json"
    if not manifest_path.is_file():
        raise UserError(f"{run_dir} is not a run directory (no manifest.json)")
    try:
        manifest = json.loads(manifest_path.read_text())
    except (ValueError, OSError) as exc:
        raise UserError(f"{manifest_path}: unreadable manifest ({exc})") from None
    config = manifest.get("config") if isinstance(manifest, dict) else None
    game = config.get("game", "abyss") if isinstance(config, dict) else None
    if game != "conspiracy":
        raise UserError(
            f"{run_dir} is not an Abyss: Conspiracy run (its manifest says game "
            f"{game!r}, expected 'conspiracy')"
        )
    return manifest, config


def _read_table(run_dir: Path, name: str, needed: tuple[str, ...]) -> pd.DataFrame:
    """One per-game table of the run, with the columns the report reads."""
    path = run_dir / name
    if not path.is_file():
        raise UserError(f"{run_dir}: no {name}; the Conspiracy report needs the per-game tables")
    frame = read_table(path)
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise UserError(f"{path}: missing column(s) {', '.join(missing)}")
    return frame


def _prepare_seats(seats: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Seats with `players` (the game's player count), `ip` (the score, float) and `strategy`
    as str."""
    seats = seats.copy()
    seats["strategy"] = seats["strategy"].astype(str)
    if "n_players" in seats.columns:
        players = seats["n_players"].to_numpy()
    elif games["n_players"].nunique() == 1:
        players = np.full(len(seats), int(games["n_players"].iloc[0]))
    else:  # one simulate run has one player count, but be safe: join on the game
        by_game = games.drop_duplicates("game").set_index("game")["n_players"]
        players = seats["game"].map(by_game).to_numpy()
    seats["players"] = players.astype(np.int64)
    seats["ip"] = seats["score"].astype(np.float64)
    return seats
