"""Run directories (sim/core/runs.py) and the results schema (games/abyss/engine/schema.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from games.abyss.engine.schema import (
    GAME_COLUMNS,
    SEAT_COLUMNS,
    games_frame,
    schema_markdown,
    seats_frame,
)
from sim.core.errors import UserError, is_user_error
from sim.core.runs import (
    RunDirError,
    atomic_write_text,
    create_run_dir,
    default_run_dir,
    write_manifest,
    write_parquet,
)

REPO = Path(__file__).resolve().parents[2]


def _listing(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir())


# --- create_run_dir / Staging ----------------------------------------------------------------


@pytest.mark.parametrize("kind", ["dir_with_file", "empty_dir", "file"])
def test_create_run_dir_refuses_existing_path(tmp_run_root: Path, kind: str) -> None:
    target = tmp_run_root / "run1"
    if kind == "file":
        target.write_text("x")
    else:
        target.mkdir()
        if kind == "dir_with_file":
            (target / "seats.parquet").write_text("old results")
    before = _listing(tmp_run_root)
    with pytest.raises(RunDirError) as err:
        create_run_dir(target)
    assert str(err.value) == f"output directory {target} already exists; choose a new --out"
    assert "\n" not in str(err.value)
    assert _listing(tmp_run_root) == before
    if kind == "dir_with_file":
        assert (target / "seats.parquet").read_text() == "old results"


def test_run_dir_error_is_a_user_error() -> None:
    assert issubclass(RunDirError, UserError)
    assert is_user_error(RunDirError("x"))


def test_commit_publishes_complete_directory_atomically(tmp_run_root: Path) -> None:
    target = tmp_run_root / "run1"
    with create_run_dir(target) as staging:
        assert not target.exists()
        assert staging.dir.parent == tmp_run_root
        assert staging.dir.name.startswith(f".{target.name}.partial-{os.getpid()}")
        (staging.dir / "a.txt").write_text("a")
        assert not target.exists()  # nothing visible under the final name before commit
        assert staging.commit() == target
    assert (target / "a.txt").read_text() == "a"
    assert _listing(tmp_run_root) == ["run1"]  # no partial directory left


def test_create_run_dir_makes_missing_parents(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "er" / "run"
    with create_run_dir(target) as staging:
        staging.commit()
    assert target.is_dir()


@pytest.mark.parametrize("exc_type", [RuntimeError, KeyboardInterrupt])
def test_exception_inside_block_leaves_nothing(tmp_run_root: Path, exc_type: type) -> None:
    target = tmp_run_root / "run1"
    with pytest.raises(exc_type), create_run_dir(target) as staging:
        (staging.dir / "seats.parquet").write_text("half written")
        raise exc_type("boom")
    assert not target.exists()
    assert _listing(tmp_run_root) == []


def test_leaving_block_without_commit_leaves_nothing(tmp_run_root: Path) -> None:
    with create_run_dir(tmp_run_root / "run1") as staging:
        (staging.dir / "x").write_text("x")
    assert _listing(tmp_run_root) == []


def test_abort_removes_partial(tmp_run_root: Path) -> None:
    staging = create_run_dir(tmp_run_root / "run1")
    (staging.dir / "x").write_text("x")
    staging.abort()
    assert _listing(tmp_run_root) == []


def test_commit_refuses_directory_created_meanwhile(tmp_run_root: Path) -> None:
    target = tmp_run_root / "run1"
    with create_run_dir(target) as staging:
        (staging.dir / "x").write_text("new")
        target.mkdir()  # another process took the name while we were running
        with pytest.raises(RunDirError, match="already exists"):
            staging.commit()
    assert target.is_dir() and _listing(target) == []  # the other directory is untouched
    assert _listing(tmp_run_root) == ["run1"]


# --- default_run_dir -------------------------------------------------------------------------


def test_default_run_dir_is_new_and_names_the_seed(tmp_run_root: Path) -> None:
    first = default_run_dir(tmp_run_root, seed=7)
    assert first.parent == tmp_run_root
    assert first.name.endswith("-seed7")
    assert not first.exists()
    first.mkdir()
    second = default_run_dir(tmp_run_root, seed=7)
    assert second != first and not second.exists()


def test_default_run_dir_default_root_is_runs() -> None:
    assert default_run_dir(seed=1).parent == Path("runs")


# --- files -----------------------------------------------------------------------------------


def test_atomic_write_text_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    atomic_write_text(path, "one")
    atomic_write_text(path, "two")
    assert path.read_text() == "two"
    assert _listing(tmp_path) == ["f.txt"]


def test_write_parquet_round_trip(tmp_path: Path) -> None:
    df = games_frame([_game_row(0), _game_row(1)])
    write_parquet(df, tmp_path / "games.parquet")
    back = pd.read_parquet(tmp_path / "games.parquet")
    pd.testing.assert_frame_equal(back, df)
    assert _listing(tmp_path) == ["games.parquet"]


def test_write_manifest_fields(tmp_path: Path) -> None:
    path = write_manifest(
        tmp_path,
        command=["abyss-mc", "simulate", "--seed", "3"],
        seed=3,
        config={"n_players": np.int64(4), "cards": tmp_path, "expansions": ("leviathan",)},
        card_digest="abc123",
        timings={"total": 1.5},
        extra={"schema_version": 1},
    )
    assert path == tmp_path / "manifest.json"
    m = json.loads(path.read_text())
    assert m["command"] == ["abyss-mc", "simulate", "--seed", "3"]
    assert m["seed"] == 3
    assert m["config"] == {"n_players": 4, "cards": str(tmp_path), "expansions": ["leviathan"]}
    assert m["card_digest"] == "abc123"
    assert m["timings"] == {"total": 1.5}
    assert m["schema_version"] == 1
    assert m["abyss_mc_version"] == "0.1.0"
    assert m["created"].endswith("+00:00")
    assert set(m["versions"]) == {"python", "numpy", "numba", "pandas", "pyarrow"}
    assert m["versions"]["numpy"] == np.__version__
    assert m["versions"]["pandas"] == pd.__version__
    assert m["platform"]["system"]


# --- results schema --------------------------------------------------------------------------


def _seat_row(game: int, seat: int, **over: object) -> dict[str, object]:
    row: dict[str, object] = {
        name: 0 for name, (dtype, _) in SEAT_COLUMNS.items() if str(dtype).startswith("int")
    }
    row.update(game=game, seat=seat, strategy="random", rank=1 + seat, winner=seat == 0)
    row.update(over)
    return row


def _game_row(game: int) -> dict[str, object]:
    row: dict[str, object] = {
        name: 0 for name, (dtype, _) in GAME_COLUMNS.items() if str(dtype).startswith("int")
    }
    row.update(game=game, n_players=2, turns=50, end_reason="seventh_lord", seed=1)
    return row


def test_schema_has_required_columns() -> None:
    required = (
        "game seat strategy score score_lords score_locations score_allies score_monsters pearls "
        "keys n_lords n_locations n_affiliated n_monster_tokens rank winner"
    ).split()
    assert set(required) <= set(SEAT_COLUMNS)
    assert list(GAME_COLUMNS)[:5] == ["game", "n_players", "turns", "end_reason", "seed"]
    assert {"n_fights", "n_continues", "n_leviathan_attacks", "n_kills"} <= set(GAME_COLUMNS)
    for columns in (SEAT_COLUMNS, GAME_COLUMNS):
        for dtype, description in columns.values():
            assert dtype is not None and description.strip()


def test_seats_frame_types_and_orders_columns() -> None:
    rows = [_seat_row(0, 1, score=40), _seat_row(0, 0, score=50)]
    rows = [dict(reversed(list(r.items()))) for r in rows]  # column order must not matter
    df = seats_frame(rows)
    assert list(df.columns) == list(SEAT_COLUMNS)
    for name, (dtype, _) in SEAT_COLUMNS.items():
        assert str(df[name].dtype) == str(dtype), name
    assert df["winner"].tolist() == [False, True]


def test_frames_accept_columns_and_dataframes() -> None:
    df = games_frame([_game_row(0), _game_row(1)])
    columns = {c: df[c].to_numpy() for c in df.columns}
    pd.testing.assert_frame_equal(games_frame(columns), df)
    pd.testing.assert_frame_equal(games_frame(df), df)


def test_empty_frames_keep_schema() -> None:
    assert list(seats_frame([]).columns) == list(SEAT_COLUMNS)
    assert len(games_frame([])) == 0


def test_frames_reject_missing_and_unknown_columns() -> None:
    row = _seat_row(0, 0)
    del row["score_allies"]
    with pytest.raises(ValueError, match="missing columns score_allies"):
        seats_frame([row])
    with pytest.raises(ValueError, match="unknown columns bogus"):
        games_frame([{**_game_row(0), "bogus": 1}])


def test_frames_reject_bad_values() -> None:
    with pytest.raises(ValueError, match="outside int8"):
        seats_frame([_seat_row(0, 0, keys=300)])
    with pytest.raises(ValueError, match="unknown values"):
        games_frame([{**_game_row(0), "end_reason": "tired"}])
    with pytest.raises(ValueError, match="missing values"):
        games_frame([{**_game_row(0), "turns": None}])
    with pytest.raises(ValueError, match="expected integers"):
        games_frame([{**_game_row(0), "turns": 1.5}])


def test_results_schema_doc_is_current() -> None:
    doc = (REPO / "docs" / "results-schema.md").read_text()
    assert doc == schema_markdown(), (
        "docs/results-schema.md is stale: "
        "python -m games.abyss.engine.schema > docs/results-schema.md"
    )
