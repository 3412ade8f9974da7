"""The CLI on the real engine: bad input is one line and exit 2; replay reproduces simulate."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from reports.cli import app
from sim.abyss.cards import default_data_dir

runner = CliRunner()


def _one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert "Traceback" not in text
    assert len(text.splitlines()) == 1, text
    return text


def test_malformed_card_toml_is_one_line(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    shutil.copytree(default_data_dir(), cards)
    (cards / "lords.toml").write_text("[[lord]\nnumber = 1\n")
    out = tmp_path / "run"
    result = runner.invoke(
        app, ["simulate", "--games", "2", "--cards", str(cards), "--out", str(out)]
    )
    assert "lords.toml" in _one_line_error(result)
    assert not out.exists()


def test_inconsistent_card_toml_is_one_line(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    shutil.copytree(default_data_dir(), cards)
    text = (cards / "lords.toml").read_text()
    (cards / "lords.toml").write_text(text.replace('guild = "soldier"', 'guild = "pirate"', 1))
    result = runner.invoke(app, ["cards", "--cards", str(cards)])
    assert "pirate" in _one_line_error(result)


def test_unknown_set_key_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = runner.invoke(
        app, ["simulate", "--games", "2", "--set", "lord.recruitr.cost=3", "--out", str(out)]
    )
    assert "recruitr" in _one_line_error(result)
    assert not out.exists()


@pytest.mark.parametrize("players", ["1", "5", "9"])
def test_impossible_player_counts(players: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", "--players", players, "--out", str(tmp_path / "r")])
    _one_line_error(result)


def test_unknown_strategy_parameter_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "simulate",
            "--games",
            "2",
            "--strategies",
            "greedy:buy_mn=3",
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert "buy_mn" in _one_line_error(result)


def test_set_override_changes_the_game(tmp_path: Path) -> None:
    """`--set game.starting_pearls=5`: "Each player takes one Pearl" becomes five."""
    base, rich = tmp_path / "base", tmp_path / "rich"
    args = ["simulate", "--games", "20", "--players", "2", "--strategies", "greedy"]
    assert runner.invoke(app, [*args, "--out", str(base)]).exit_code == 0
    assert (
        runner.invoke(app, [*args, "--set", "game.starting_pearls=5", "--out", str(rich)]).exit_code
        == 0
    )
    a = pd.read_parquet(base / "seats.parquet")
    b = pd.read_parquet(rich / "seats.parquet")
    assert not a["score"].equals(b["score"])


def test_replay_reproduces_the_simulated_game(tmp_path: Path) -> None:
    """A run's game G, replayed with the run's options, ends with the very same scores."""
    out = tmp_path / "run"
    args = ["--seed", "11", "--players", "3", "--strategies", "greedy,random"]
    assert runner.invoke(app, ["simulate", "--games", "4", *args, "--out", str(out)]).exit_code == 0
    seats = pd.read_parquet(out / "seats.parquet")
    result = runner.invoke(app, ["replay", "--game", "3", "--json", *args])
    assert result.exit_code == 0
    import json

    events = json.loads(result.output)
    replayed = {e["who"]: e["total"] for e in events if e["event"] == "score"}
    simulated = seats[seats.game == 3].set_index("seat")["score"].to_dict()
    assert replayed == simulated


def test_greedy_baseline_beats_random(tmp_path: Path) -> None:
    """The greedy baseline wins far more than its share against the random policy."""
    out = tmp_path / "run"
    args = ["simulate", "--games", "60", "--players", "2", "--strategies", "greedy,random"]
    assert runner.invoke(app, [*args, "--out", str(out)]).exit_code == 0
    seats = pd.read_parquet(out / "seats.parquet")
    win_rate = seats[seats.strategy == "greedy"]["winner"].mean()
    assert win_rate > 0.8
