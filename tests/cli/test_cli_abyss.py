"""The CLI on the real engine: bad input is one line and exit 2; replay reproduces simulate."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from games.abyss.engine.cards.loader import default_data_dir

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


# --- the Leviathan expansion on the command line --------------------------------------------


def test_leviathan_five_players_simulate(tmp_path: Path) -> None:
    """`--expansions leviathan` makes 5 players legal ("The game can be played by two to five
    players") and fills the Leviathan columns and counters."""
    out = tmp_path / "run"
    args = ["simulate", "--games", "6", "--players", "5", "--expansions", "leviathan"]
    result = runner.invoke(app, [*args, "--strategies", "greedy,random", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "wounds" in result.output and "scourge" in result.output
    seats = pd.read_parquet(out / "seats.parquet")
    games = pd.read_parquet(out / "games.parquet")
    assert len(seats) == 30 and set(seats.seat) == set(range(5))
    assert (seats.score_wounds <= 0).all() and (seats.score_wounds == -seats.wounds).all()
    assert set(seats.score_scourge) <= {0, 5}
    assert games.n_continues.sum() + games.n_fights.sum() > 0
    parts = [c for c in seats.columns if c.startswith("score_")]
    assert (seats[parts].sum(axis=1) == seats.score).all()


def test_leviathan_replay_reproduces_the_simulated_game(tmp_path: Path) -> None:
    """Replay of a Leviathan game ends with the scores `simulate` wrote, and narrates Leviathans."""
    out = tmp_path / "run"
    args = ["--seed", "5", "--players", "4", "--strategies", "greedy,random"]
    args += ["--expansions", "leviathan"]
    assert runner.invoke(app, ["simulate", "--games", "3", *args, "--out", str(out)]).exit_code == 0
    seats = pd.read_parquet(out / "seats.parquet")
    import json

    result = runner.invoke(app, ["replay", "--game", "2", "--json", *args])
    assert result.exit_code == 0
    events = json.loads(result.output)
    replayed = {e["who"]: e["total"] for e in events if e["event"] == "score"}
    assert replayed == seats[seats.game == 2].set_index("seat")["score"].to_dict()
    text = runner.invoke(app, ["replay", "--game", "2", *args]).output
    assert "Leviathan #" in text and "+ Wounds + Scourge = IP" in text


def test_cards_lists_the_leviathan_data() -> None:
    result = runner.invoke(app, ["cards", "--expansions", "leviathan"])
    assert result.exit_code == 0, result.output
    assert "The Breeder" in result.output and "The Tamer" not in result.output
    assert "The Tamer" in runner.invoke(app, ["cards"]).output


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--players", "6", "--expansions", "leviathan"], "--players"),
        (["--players", "5"], "Leviathan"),
        (["--expansions", "kraken"], "kraken"),
        (["--expansions", "leviathan", "--set", "leviathan.hand_limit=-1"], "hand_limit"),
    ],
)
def test_leviathan_bad_input_is_one_line(args: list[str], needle: str, tmp_path: Path) -> None:
    out = tmp_path / "r"
    result = runner.invoke(app, ["simulate", "--games", "2", *args, "--out", str(out)])
    assert needle in _one_line_error(result)
    assert not out.exists()


# --- the fast engine on the command line -----------------------------------------------------


def test_fast_and_reference_engines_write_the_same_results(tmp_path: Path) -> None:
    """`--engine fast` (the default) and `--engine reference` play the very same games."""
    args = ["simulate", "--games", "12", "--players", "3", "--expansions", "leviathan"]
    fast, ref = tmp_path / "fast", tmp_path / "ref"
    assert runner.invoke(app, [*args, "--out", str(fast)]).exit_code == 0
    assert runner.invoke(app, [*args, "--engine", "reference", "--out", str(ref)]).exit_code == 0
    for table in ("seats.parquet", "games.parquet"):
        assert pd.read_parquet(fast / table).equals(pd.read_parquet(ref / table)), table
    assert (fast / "summary.txt").read_text() == (ref / "summary.txt").read_text()
    manifest = json.loads((fast / "manifest.json").read_text())
    assert manifest["config"]["engine"] == "fast"


def test_no_per_game_writes_aggregates_only(tmp_path: Path) -> None:
    """`--no-per-game`: no per-game tables, but the aggregates and the same summary."""
    out, full = tmp_path / "agg", tmp_path / "full"
    args = ["simulate", "--games", "30", "--players", "2", "--threads", "1"]
    result = runner.invoke(app, [*args, "--no-per-game", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert not (out / "seats.parquet").exists() and (out / "aggregates.npz").exists()
    assert runner.invoke(app, [*args, "--out", str(full)]).exit_code == 0
    assert (out / "summary.txt").read_text() == (full / "summary.txt").read_text()
    from games.abyss.engine.aggregate import Aggregates

    agg = Aggregates.load(out / "aggregates.npz")
    assert agg.n_games == 30 and agg.seats.sum() == 60


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--engine", "turbo"], "--engine"),
        (["--threads", "0"], "--threads"),
        (["--threads", "999"], "--threads"),
    ],
)
def test_fast_engine_bad_input_is_one_line(args: list[str], needle: str, tmp_path: Path) -> None:
    out = tmp_path / "r"
    result = runner.invoke(app, ["simulate", "--games", "2", *args, "--out", str(out)])
    assert needle in _one_line_error(result)
    assert not out.exists()


def test_replay_of_a_run_directory_takes_every_option_from_its_manifest(tmp_path: Path) -> None:
    """Issue 19: "`abyss-mc replay RUN_DIR --game N` replays a game of a run, taking every option
    from its manifest" -- the same narration as repeating the run's options; an index past the
    run's games is refused."""
    run = tmp_path / "run"
    args = ["--seed", "9", "--players", "3", "--strategies", "greedy,key_hunter",
            "--expansions", "leviathan", "--set", "leviathan_game.hand_limit=8"]  # fmt: skip
    made = runner.invoke(app, ["simulate", "--games", "12", *args, "--out", str(run)])
    assert made.exit_code == 0, made.output
    by_dir = runner.invoke(app, ["replay", str(run), "--game", "5"])
    assert by_dir.exit_code == 0, by_dir.output
    repeated = runner.invoke(app, ["replay", "--game", "5", *args])
    assert by_dir.stdout == repeated.stdout and "Seat 1 (" in by_dir.stdout
    past = runner.invoke(app, ["replay", str(run), "--game", "12"])
    assert past.exit_code == 2 and "below the run's 12 games" in past.stderr
