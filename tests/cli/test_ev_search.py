"""`abyss-mc ev search`: the fight rule checked against the search player from the command line
(the statistics and the planted cases: tests/abyss/test_search_record.py)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app

SMALL = ["--players", "2", "--games", "3", "--replicates", "2",
         "--strategies", "search:rollouts=8,greedy"]  # fmt: skip


def _runner() -> CliRunner:
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def invoke(*args):
    return _runner().invoke(app, [str(a) for a in args])


def test_ev_search_reports_agreement_and_difference_and_writes_the_run(tmp_path):
    out = tmp_path / "run"
    result = invoke("ev", "search", *SMALL, "--rule", "fight_risk=5/36", "--out", out)
    assert result.exit_code == 0, (result.output, result.exception)
    assert "Rule fight_risk=5/36" in result.stdout and "Agreement: " in result.stdout
    assert "Which wins more where they differ" in result.stdout
    doc = json.loads((out / "search_check.json").read_text())
    points = pd.read_parquet(out / "search_points.parquet")
    assert doc["decisions"] == len(points) > 0
    assert doc["verdict"] in ("cannot tell", "the search's choice", "the rule's choice")
    assert json.loads((out / "manifest.json").read_text())["config"]["rule"] == "fight_risk=5/36"
    again = invoke("ev", "search", *SMALL, "--rule", "fight_risk=5/36", "--out", tmp_path / "b")
    assert again.exit_code == 0
    pd.testing.assert_frame_equal(points, pd.read_parquet(tmp_path / "b/search_points.parquet"))


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rule", "fight_risk=6"], "--rule"),
        (["--rule", "fight_risk=0/36"], "fight_risk must be K/36"),
        (["--rule", "fight_q=6/36"], "terms are"),
        (["--rule", "fight_p=40/36"], "fight_p must be K/36"),
        (["--strategies", "greedy,leviathan_hunter"], "no search seat"),
        (["--strategies", "search:rollouts=0,greedy"], "rollouts"),
        (["--replicates", "0"], "--replicates"),
        (["--games", "0"], "--games"),
        (["--players", "7"], "players"),
    ],
)
def test_ev_search_bad_input_is_one_line_and_writes_nothing(tmp_path, args, message):
    out = tmp_path / "run"
    result = invoke("ev", "search", *args, "--out", out)
    assert result.exit_code == 2, (result.output, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines
    assert "Traceback" not in result.output
    assert not out.exists()


def test_ev_search_refuses_an_existing_directory_before_playing(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    result = invoke("ev", "search", *SMALL, "--out", out)
    assert result.exit_code == 2 and "exists" in result.stderr
    assert list(out.iterdir()) == []


def test_ev_rollout_points_to_ev_search_for_the_search_player(tmp_path):
    result = invoke("ev", "rollout", "--strategies", "search,greedy", "--points", "4",
                    "--out", tmp_path / "run")  # fmt: skip
    assert result.exit_code == 2
    assert "abyss-mc ev search" in result.stderr


def test_ev_help_lists_search():
    result = invoke("ev", "--help")
    assert result.exit_code == 0 and "search" in result.stdout
    assert "fight_risk=W/36" in invoke("ev", "search", "--help").stdout
