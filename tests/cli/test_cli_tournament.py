"""The CLI's `strategies`, `tournament` and `report` commands (typer's CliRunner, in process)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from games.abyss.strategies import REGISTRY

runner = CliRunner()

RUN_FILES = ("seats.parquet", "games.parquet", "aggregates.npz", "manifest.json", "summary.txt")
MARKER = "<b>hostile-marker</b>"


@pytest.fixture(autouse=True)
def builtin_presets():
    """The CLI swaps the presets in use (--presets); every test ends with the built-ins."""
    REGISTRY.use_presets(None)
    yield
    REGISTRY.use_presets(None)


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def ok(result) -> str:
    """The output of a successful command, without the first compile's announcement (on stderr,
    mixed in here; only on a cold cache)."""
    assert result.exit_code == 0, result.output
    notes = ("compiling the ", "  still compiling", "compiled in ")
    return "".join(line for line in result.output.splitlines(keepends=True)
                   if not line.startswith(notes))  # fmt: skip


def one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert "Traceback" not in text
    assert len(text.splitlines()) == 1, text
    assert text.startswith("error: "), text
    return text


def report_files(report: Path) -> None:
    assert (report / "report.html").is_file() and (report / "report.md").is_file()
    figures = sorted(p.name for p in (report / "figures").glob("*.png"))
    assert "seat_advantage.png" in figures and "strategy_win_rates.png" in figures


@pytest.fixture(scope="module")
def tournament_dir(tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("cli") / "tour"
    result = invoke(
        "tournament",
        "--blocks",
        "5",
        "--strategies",
        "greedy,random",
        "--players",
        "3",
        "--out",
        out,
        "--report",
        "--fight-points",
        "40",  # the rollouts' section and figures are written from 40 decision points as well
    )
    return out, ok(result)


@pytest.fixture(scope="module")
def simulate_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "sim"
    ok(invoke("simulate", "--games", "50", "--out", out))
    return out


# ------------------------------------------------------------------------------ strategies
def test_strategies_lists_every_preset_with_its_description() -> None:
    out = ok(invoke("strategies"))
    lines = out.splitlines()
    for name in REGISTRY.strategy_names():
        assert any(line.startswith(f"{name}: ") for line in lines), name
    words = " ".join(out.split())  # lines are wrapped at 100 columns
    for name, preset in REGISTRY.presets().items():
        assert f"{name}: {preset.description}" in words
    assert "    buy_min=3, take_min=3, take_slot=4" in out  # auction_buyer's values
    assert "random: " in out
    assert max(map(len, lines)) <= 100
    # then each policy's parameters explained: range, default, meaning, effect of raising it
    head = "  buy_min: int 0..10 (an Ally's value, 1-9); default 4"
    assert f"\nParameters of greedy:\n{head}\n" in out
    assert "Raising it: buys fewer, only stronger Allies" in words
    assert "forbid_lord, forbid_location, forbid_fight: as greedy above" in words


def test_strategies_of_one_strategy_and_a_bad_name() -> None:
    out = ok(invoke("strategies", "leviathan_hunter"))
    assert out.startswith("leviathan_hunter: Fights Leviathans")
    assert "  fight_p = 0.3: float 0..1 (probability, in steps of 0.001); default 0.5\n" in out
    message = one_line_error(invoke("strategies", "leviathan_huntr"))
    assert "unknown strategy 'leviathan_huntr' (did you mean leviathan_hunter," in message


def test_strategies_with_a_bad_preset_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[mine]\npolicy = "smart"\n')
    message = one_line_error(invoke("strategies", "--presets", path))
    assert str(path) in message and "'mine'" in message


# ------------------------------------------------------------------------------ tournament
def test_tournament_writes_the_run_and_the_report(tournament_dir) -> None:
    out, output = tournament_dir
    for name in RUN_FILES:
        assert (out / name).is_file(), name
    report_files(out / "report")
    assert "## Fight or explore?" in (out / "report" / "report.md").read_text()  # the rollouts
    assert "win rate" in output and "greedy" in output and "random" in output
    assert output.startswith("5 blocks x 3 tables = 15 games, 3 players")
    assert f"results: {out}" in output
    assert f"report: {out / 'report' / 'report.html'}" in output
    assert (out / "summary.txt").read_text() in output

    seats = pd.read_parquet(out / "seats.parquet")
    assert {"block", "table", "win"} <= set(seats.columns)
    assert len(seats) == 5 * 3 * 3
    assert len(pd.read_parquet(out / "games.parquet")) == 15
    config = json.loads((out / "manifest.json").read_text())["config"]
    assert config["command"] == "tournament"
    assert config["strategies"] == ["greedy", "random"]
    assert (config["blocks"], config["blocks_budget"], config["tables"]) == (5, 5, 3)
    assert config["n_games"] == 15 and config["n_players"] == 3
    assert not list(out.parent.glob(".*partial*"))


def test_report_of_a_tournament_dir(tournament_dir, tmp_path: Path) -> None:
    out, _ = tournament_dir
    target = tmp_path / "again"
    output = ok(invoke("report", out, "--out", target))
    report_files(target)
    assert f"report: {target / 'report.html'}" in output
    html = (target / "report.html").read_text()
    assert "Strategy comparison" in html and "tournament" in html


def test_report_of_a_simulate_dir(simulate_dir: Path) -> None:
    output = ok(invoke("report", simulate_dir))
    report_files(simulate_dir / "report")
    assert f"report: {simulate_dir / 'report' / 'report.html'}" in output
    assert "markdown:" in output
    assert "simulation" in (simulate_dir / "report" / "report.md").read_text()


def test_user_preset_in_a_tournament(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(
        f'[my_buyer]\ndescription = "{MARKER} buys from 2"\npolicy = "greedy"\nbuy_min = 2\n'
    )
    listed = ok(invoke("strategies", "--presets", path))
    assert f"my_buyer: {MARKER} buys from 2" in listed

    out = tmp_path / "run"
    output = ok(
        invoke(
            "tournament",
            "--blocks",
            "3",
            "--strategies",
            "my_buyer,random",
            "--players",
            "2",
            "--presets",
            path,
            "--out",
            out,
            "--report",
            "--fight-points",
            "0",  # the rollouts are tested with the first tournament of this file
        )
    )
    assert "my_buyer" in output
    assert set(pd.read_parquet(out / "seats.parquet")["strategy"]) == {"my_buyer", "random"}
    assert json.loads((out / "manifest.json").read_text())["config"]["presets"] == str(path)
    # descriptions are not part of the report; should one ever be, it must be escaped
    html = (out / "report" / "report.html").read_text()
    assert MARKER not in html

    # without the file the preset is unknown again
    message = one_line_error(
        invoke("tournament", "--strategies", "my_buyer,random", "--out", tmp_path / "r2")
    )
    assert "unknown strategy 'my_buyer'" in message
    assert not (tmp_path / "r2").exists()


# ------------------------------------------------------------------------------ bad input
BAD_TOURNAMENTS = {
    "unknown strategy": (["--strategies", "greddy,random"], "did you mean greedy"),
    "hostile name": (["--strategies", "<b>x</b>,random"], "unknown strategy '<b>x</b>'"),
    "unknown parameter": (["--strategies", "greedy:buy_mn=3,random"], "buy_mn"),
    "single strategy": (["--strategies", "greedy"], "at least two"),
    "duplicates": (["--strategies", "greedy,random,greedy"], "only once"),
    "blocks 0": (["--blocks", "0"], "--blocks must be at least 1; got 0"),
    "sequential 1.5": (["--sequential", "1.5"], "--sequential must be between 0 and 1"),
    "sequential 0": (["--sequential", "0"], "--sequential must be between 0 and 1"),
    "players 6": (["--players", "6"], "--players must be 2-5 for Abyss"),
    "players 5 base": (["--players", "5", "--expansions", ""], "5 players need the Leviathan"),
    "unknown design": (
        ["--design", "swiss", "--strategies", "greedy,random,farmer", "--players", "2"],
        "unknown design 'swiss'",
    ),
    "unknown expansion": (["--expansions", "kraken"], "unknown expansion 'kraken'"),
    "threads 0": (["--threads", "0", "--strategies", "greedy,random"], "--threads"),
    "missing presets": (["--presets", "nowhere.toml"], "not found"),
}


@pytest.mark.parametrize("case", BAD_TOURNAMENTS)
def test_bad_tournament_input_is_one_line_and_writes_nothing(case: str, tmp_path: Path) -> None:
    args, expected = BAD_TOURNAMENTS[case]
    out = tmp_path / "runs" / "out"
    message = one_line_error(invoke("tournament", "--blocks", "2", *args, "--out", out))
    assert expected in message
    assert not out.exists()
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_tournament_refuses_an_existing_out(tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    message = one_line_error(
        invoke("tournament", "--blocks", "2", "--strategies", "greedy,random", "--out", out)
    )
    assert str(out) in message
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_report_on_a_missing_dir(tmp_path: Path) -> None:
    missing = tmp_path / "nothing"
    assert "does not exist" in one_line_error(invoke("report", missing))
    assert not missing.exists()


def test_report_on_a_dir_without_manifest(tmp_path: Path, simulate_dir: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "aggregates.npz").write_bytes((simulate_dir / "aggregates.npz").read_bytes())
    assert "is not a run directory" in one_line_error(invoke("report", empty))
    assert not (empty / "report").exists()


def test_several_player_counts_compare_seat_advantage(tmp_path: Path) -> None:
    """`--players 2,3` plays one tournament per count; the report opens with the seat advantage
    at each count, then has every section per count."""
    out = tmp_path / "run"
    ok(
        invoke(
            "tournament",
            "--strategies",
            "greedy,random",
            "--players",
            "2,3",
            "--blocks",
            "2",
            "--out",
            str(out),
            "--report",
            "--fight-points",
            "0",
        )
    )
    assert (out / "aggregates-2p.npz").is_file() and (out / "aggregates-3p.npz").is_file()
    assert not (out / "aggregates.npz").exists()
    seats = pd.read_parquet(out / "seats.parquet")
    assert sorted(seats["n_players"].unique()) == [2, 3]
    assert json.loads((out / "manifest.json").read_text())["config"]["n_players"] == [2, 3]
    md = (out / "report" / "report.md").read_text()
    assert "## Seat advantage by player count" in md
    for n in (2, 3):
        assert f"## Strategy comparison ({n} players)" in md
        assert f"## Seat advantage ({n} players)" in md
    # the report command reads the same directory again
    ok(invoke("report", str(out), "--out", str(tmp_path / "again")))
    assert (tmp_path / "again" / "figures" / "seat_advantage_by_count.png").is_file()


@pytest.mark.parametrize(
    ("players", "message"),
    [("2,x", "--players must be a number or a list"), ("3,6", "--players must be 2-5 for Abyss")],
)
def test_bad_player_counts(tmp_path: Path, players: str, message: str) -> None:
    out = tmp_path / "run"
    result = invoke("tournament", "--players", players, "--blocks", "2", "--out", str(out))
    assert message in one_line_error(result)
    assert not out.exists()


def test_a_report_of_a_tournament_with_the_search_player(tmp_path: Path) -> None:
    """The fight-or-explore rollouts fork decisions and play on without searching: they fork the
    tournament's other strategies, and the report of a line-up with `search` is written."""
    from games.abyss.report import rollout_lineup

    assert rollout_lineup(["search", "farmer", "random"]) == ["farmer"]
    assert rollout_lineup(["search:rollouts=4", "random"]) == ["random"]
    assert rollout_lineup(["search", "search:rollouts=4"]) == []
    out = tmp_path / "run"
    ok(invoke("tournament", "--players", "2", "--blocks", "1", "--fight-points", "20",
              "--strategies", "search:rollouts=2,farmer,random", "--report", "--out", out))
    manifest = json.loads((out / "manifest.json").read_text())["config"]
    assert manifest["fight_points"] == 20 and (out / "report" / "report.html").is_file()
