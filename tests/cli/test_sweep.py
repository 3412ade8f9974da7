"""`abyss-mc sweep`: every point of a grid on the same seeds, differences from the default."""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from reports.runs.sweep import grid, parse_sweep

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_grid_is_every_combination_first_key_slowest() -> None:
    axes = parse_sweep(["a.x=1,2", "b.y=p,q,r"])
    assert axes == [("a.x", ["1", "2"]), ("b.y", ["p", "q", "r"])]
    points = grid(axes)
    assert len(points) == 6 and points[0] == {"a.x": "1", "b.y": "p"}
    assert points[3] == {"a.x": "2", "b.y": "p"}


KEYS = {
    "abyss": "leviathan_game.hand_limit=12,8",
    "conspiracy": "game.coalition_ip=3,5",
    "wilds": "climber.ap_per_turn=4,6",
}


@pytest.mark.parametrize("game", ["abyss", "conspiracy", "wilds"])
def test_sweep_runs_every_point_on_the_same_seeds(tmp_path, game) -> None:
    """A point equal to the default plays the very same games (common random numbers): its
    differences from the default are exactly zero."""
    key = KEYS[game]
    out = tmp_path / "sweep"
    result = invoke("sweep", "--game", game, "--set", key, "--games", 200, "--out", out)
    assert result.exit_code == 0, result.output
    points = pd.read_parquet(out / "points.parquet")
    assert len(points) == 3  # the default and two values
    seats = pd.read_parquet(out / "seats.parquet")
    same = seats[seats["point"] == 0].drop(columns="point").reset_index(drop=True)
    equal = seats[seats["point"] == 1].drop(columns="point").reset_index(drop=True)
    pd.testing.assert_frame_equal(same, equal)  # the first value is the shipped default
    diffs = pd.read_parquet(out / "differences.parquet")
    at_default = diffs[diffs["point"] == 1]
    assert (at_default["diff"] == 0).all() and not at_default["significant"].any()
    assert (out / "report" / "report.html").is_file()
    assert "comparisons with the default" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give at least one --set"),
        (["--set", "game.court_size"], "expected KEY=VALUE"),
        (["--set", "game.court_size=5,,6"], "expected KEY=VALUE"),
        (["--set", "game.court_size=5,5"], "listed twice"),
        (["--set", "game.court_size=5", "--set", "game.court_size=6"], "given twice"),
        (["--set", "game.nonsense=1,2"], "unknown key"),
        (["--set", "game.court_size=5,-3"], "court_size"),
        (["--set", "game.court_size=5", "--games", 1], "--games must be at least 2"),
    ],
)
def test_malformed_sweeps_are_one_line_errors(tmp_path, args, message) -> None:
    out = tmp_path / "sweep"
    result = invoke("sweep", *args, "--out", out)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert not out.exists()
