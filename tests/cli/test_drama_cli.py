"""`abyss-mc drama RUN_DIR` as a user runs it: a tournament's drama and decisiveness with an
oracle, then in its report; bad input in one line."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cli.app import app


@pytest.fixture(scope="module")
def tournament(tmp_path_factory):
    out = tmp_path_factory.mktemp("drama") / "run"
    args = ["tournament", "--game", "conspiracy", "--players", "2", "--strategies",
            "key_hunter,pile_raider,random", "--blocks", "8", "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


def test_drama_measures_a_tournament_and_the_report_shows_it(tournament):
    result = CliRunner().invoke(app, ["drama", str(tournament), "--games", "12",
                                      "--rollouts", "4"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "decisiveness" in result.output and "hand-written presets" in result.output
    assert (tournament / "drama-2p.npz").is_file()
    shown = CliRunner().invoke(app, ["report", str(tournament)])
    assert shown.exit_code == 0, shown.output
    md = (tournament / "report" / "report.md").read_text()
    assert "## Drama and decisiveness with an oracle" in md and "figures/drama.png" in md


@pytest.mark.parametrize("args, message", [
    (["--games", "0"], "--games and --rollouts must be at least 1"),
    (["--rollouts", "-1"], "--games and --rollouts must be at least 1"),
])  # fmt: skip
def test_bad_counts_are_refused_in_one_line(tournament, args, message):
    result = CliRunner().invoke(app, ["drama", str(tournament), *args])
    assert result.exit_code == 2 and message in result.output
    assert "Traceback" not in result.output


def test_a_directory_that_is_no_run_is_refused(tmp_path):
    result = CliRunner().invoke(app, ["drama", str(tmp_path)])
    assert result.exit_code == 2 and "not a finished run directory" in result.output


def test_a_game_without_an_oracle_is_refused(tmp_path):
    from tiny_game import SPEC

    from sim import games

    games.register(SPEC)
    try:
        out = tmp_path / "run"
        args = ["tournament", "--game", "tiny", "--players", "2", "--strategies", "random,best",
                "--blocks", "20", "--out", str(out)]  # fmt: skip
        assert CliRunner().invoke(app, args).exit_code == 0
        result = CliRunner().invoke(app, ["drama", str(out)])
    finally:
        games._EXTRA.pop("tiny", None)
    assert result.exit_code == 2 and "tiny has no state-value oracle" in result.output
