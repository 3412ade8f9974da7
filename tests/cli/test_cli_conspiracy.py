"""`--game conspiracy` on every command: results, reports, and one-line errors for bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_cards_and_strategies_describe_conspiracy() -> None:
    result = invoke("cards", "--game", "conspiracy")
    assert result.exit_code == 0 and "Senate Chamber" in result.output
    result = invoke("strategies", "--game", "conspiracy")
    assert result.exit_code == 0
    for name in ("coalition_builder", "key_hunter", "pearl_master", "high_ip", "pile_raider"):
        assert name in result.output


def test_simulate_writes_results_and_both_engines_agree(tmp_path) -> None:
    """The reference engine plays the very same games as the fast path."""
    runs = {}
    for engine in ("fast", "reference"):
        out = tmp_path / engine
        result = invoke(
            "simulate", "--game", "conspiracy", "--players", 3, "--games", 60, "--seed", 4,
            "--strategies", "key_hunter,random,pile_raider", "--engine", engine, "--out", out,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        runs[engine] = pd.read_parquet(out / "seats.parquet")
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["config"]["game"] == "conspiracy"
    pd.testing.assert_frame_equal(runs["fast"], runs["reference"])


def test_tournament_with_report(tmp_path) -> None:
    out = tmp_path / "t"
    result = invoke(
        "tournament", "--game", "conspiracy", "--players", 4, "--blocks", 6,
        "--strategies", "key_hunter,pile_raider,coalition_builder,random", "--report", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (out / "report" / "report.html").is_file()
    seats = pd.read_parquet(out / "seats.parquet")
    assert set(seats["strategy"]) == {"key_hunter", "pile_raider", "coalition_builder", "random"}
    again = invoke("report", out, "--out", tmp_path / "r2")
    assert again.exit_code == 0, again.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "--players", 5], "--players must be 2-4 for Conspiracy"),
        (["simulate", "--strategies", "greedy"], "unknown strategy 'greedy'"),
        (["simulate", "--strategies", "heuristic:draw=-1"], "draw must be between 1 and 10"),
        (["simulate", "--expansions", "leviathan"], "Conspiracy has no expansions"),
        (["simulate", "--set", "game.coalition_ip=-1"], "coalition_ip"),
        (["tournament", "--strategies", "key_hunter"], "at least two"),
        (["simulate", "--game", "chess"], "unknown game 'chess'"),
        (["replay", "--index", -1], "--index must be >= 0"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, message) -> None:
    out = tmp_path / "run"
    extra = ["--out", out] if args[0] in ("simulate", "tournament") else []
    game = [] if "--game" in args else ["--game", "conspiracy"]
    result = invoke(*args, *game, *extra)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert not out.exists()
