"""The game registry (`sim.games`) and the game spec (`sim.core.game`): a command looks its game
up and calls the spec, so a new game needs no change to the commands (issue 18)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from reports.cli import app
from sim import games
from sim.core.errors import UserError

runner = CliRunner()


@pytest.mark.parametrize("name", ["abyss", "conspiracy", "wilds"])
def test_every_registered_game_loads_and_describes_its_cards(name: str) -> None:
    spec = games.get(name)
    assert spec.name == name and name in games.names()
    tables = spec.load_cards()
    assert spec.describe(tables).endswith("\n")
    assert games.get(name.upper()) is spec


def test_expansions_are_the_specs_own() -> None:
    assert games.get("abyss").load_cards(expansions=("leviathan",)).n_leviathans > 0
    with pytest.raises(UserError, match="Conspiracy has no expansions"):
        games.get("conspiracy").load_cards(expansions=("leviathan",))
    with pytest.raises(UserError, match="unknown expansion 'kraken' for Abyss"):
        games.get("abyss").load_cards(expansions=("kraken",))


def test_unknown_game_is_a_one_line_error() -> None:
    with pytest.raises(UserError, match="unknown game 'chess' for --game; known: abyss"):
        games.get("chess")


@pytest.fixture
def tiny():
    from tiny_game import SPEC

    games.register(SPEC)
    yield SPEC
    games._EXTRA.pop("tiny", None)


def test_a_registered_game_runs_through_cards_without_any_command_change(tiny) -> None:
    """A game that no command names: `cards` looks it up and calls its spec."""
    result = runner.invoke(app, ["cards", "--game", "tiny", "--set", "deck.size=3"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "Tiny: 3 cards, 1, 2, 3\n"
    bad = runner.invoke(app, ["cards", "--game", "tiny", "--set", "deck.size=99"])
    assert bad.exit_code == 2 and "expected 1..20" in bad.output


def test_strategies_of_each_game_come_from_its_package() -> None:
    """`abyss-mc strategies --game G` looks the game up and lists `strategies.<G>`; a game with
    no strategies says so in one line."""
    for game, name in (("abyss", "leviathan_hunter"), ("conspiracy", "pile_raider")):
        result = runner.invoke(app, ["strategies", "--game", game])
        assert result.exit_code == 0 and f"{name}: " in result.stdout
    result = runner.invoke(app, ["strategies", "--game", "wilds"])
    assert result.exit_code == 2 and "has no strategies" in result.output


def test_a_registered_game_runs_through_simulate_tournament_replay_and_report(tiny, tmp_path):
    """The tiny game of tests/tiny_game.py, which no command names, runs through `simulate`,
    `tournament`, `replay RUN_DIR` and `report` by its spec alone, with the generic summary and
    report (it has no report module)."""
    import pandas as pd

    run = tmp_path / "sim"
    result = runner.invoke(app, ["simulate", "--game", "tiny", "--players", "3", "--games", "3000",
                                 "--out", str(run)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "3,000 games, 3 players" in result.stdout
    seats = pd.read_parquet(run / "seats.parquet")
    rates = seats.groupby("strategy")["win"].mean()
    assert rates["best"] > rates["random"] + 0.1  # the planted stronger strategy wins more
    assert seats.groupby("game")["win"].sum().round(9).eq(1).all()
    assert (run / "manifest.json").is_file() and (run / "summary.txt").is_file()

    replayed = runner.invoke(app, ["replay", str(run), "--game", "4"])
    assert replayed.exit_code == 0, replayed.output
    assert replayed.stdout.startswith("seat 1 ")
    assert len(replayed.stdout.splitlines()) == 3

    tour = tmp_path / "tour"
    result = runner.invoke(app, ["tournament", "--game", "tiny", "--players", "2,3", "--blocks",
                                 "200", "--report", "--out", str(tour)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "== 3 players ==" in result.stdout and "best" in result.stdout
    html = (tour / "report" / "report.html").read_text()
    assert "Strategies, 2 players" in html and "Seats, 3 players" in html

    again = tmp_path / "again"
    result = runner.invoke(app, ["report", str(run), "--out", str(again)])
    assert result.exit_code == 0, result.output
    assert (again / "report.md").read_text().count("best") >= 1


def test_a_game_without_a_play_module_says_so(tiny) -> None:
    """Wilds' runs are an analysis, not games of strategies: a tournament says so in one line."""
    result = runner.invoke(app, ["tournament", "--game", "wilds"])
    assert result.exit_code == 2
    assert "Leviathan Wilds has no games of strategies to play" in result.output
