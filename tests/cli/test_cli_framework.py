"""The CLI framework (cli/app.py): start-up cost, option validation, error reporting, run dirs.

Most tests replace the engine (`games.abyss.engine.cards.loader`, `.runner`, `.replay`) with small
fakes,
so they
test the CLI's contract whatever state the engine is in; the tests at the end run the real engine
and are skipped until it exists.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from games.abyss.engine.schema import (
    GAME_COLUMNS,
    SCHEMA_VERSION,
    SEAT_COLUMNS,
    games_frame,
    seats_frame,
)
from games.abyss.report.summary_text import summarize
from reports.stats.intervals import wilson_interval

HEAVY_MODULES = ("numpy", "pandas", "numba", "scipy", "matplotlib", "pyarrow")


def _runner() -> CliRunner:
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def invoke(*args: str):
    return _runner().invoke(app, list(args))


def assert_one_line_error(result, fragment: str = "") -> str:
    """Exit code 2, exactly one line on stderr starting with "error: ", no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert fragment in lines[0]
    assert "Traceback" not in result.output
    return lines[0]


# --- fake engine -----------------------------------------------------------------------------


def fake_results(tables, *, n_players, n_games, seed, strategies, expansions, progress):
    """Schema-conforming results of made-up games: the contract `run_simulation` must meet."""
    rng = np.random.default_rng(seed)
    seat_rows, game_rows = [], []
    for g in range(n_games):
        sources = rng.integers(0, 25, size=(n_players, 4))
        score = sources.sum(axis=1)
        pearls = rng.integers(0, 6, size=n_players)
        key = score * 100 + pearls
        for s in range(n_players):
            rank = 1 + int((key > key[s]).sum())
            seat_rows.append(
                dict(
                    game=g,
                    seat=s,
                    strategy=strategies[s],
                    score=int(score[s]),
                    score_lords=int(sources[s, 0]),
                    score_locations=int(sources[s, 1]),
                    score_allies=int(sources[s, 2]),
                    score_monsters=int(sources[s, 3]),
                    score_wounds=0,
                    score_scourge=0,
                    pearls=int(pearls[s]),
                    keys=0,
                    n_lords=7,
                    n_locations=1,
                    n_affiliated=5,
                    n_monster_tokens=2,
                    leviathans_killed=0,
                    wounds=0,
                    rank=rank,
                    winner=rank == 1,
                    lord_set=0b1111111 << s,
                    location_set=1 << s,
                )
            )
        game_rows.append(
            dict(
                game=g,
                n_players=n_players,
                turns=int(rng.integers(40, 80)),
                end_reason="seventh_lord" if g % 3 else "court_empty",
                seed=seed,
                n_fights=0,
                n_continues=0,
                n_leviathan_attacks=0,
                n_kills=0,
                trigger_seat=g % n_players,
            )
        )
    return seats_frame(seat_rows), games_frame(game_rows), {"play": 0.01}


class StrategyError(ValueError):
    """Same name as the engine's: the CLI must treat it as a user error."""


class CardDataError(ValueError):
    pass


@pytest.fixture
def fake_engine(monkeypatch: pytest.MonkeyPatch) -> types.SimpleNamespace:
    """Install fake games.abyss.engine.cards.loader/runner/replay modules; returns their call
    records."""
    calls = types.SimpleNamespace(run=[], narrate=[], load=[])
    tables = types.SimpleNamespace(digest="fake-digest")

    cards = types.ModuleType("games.abyss.engine.cards.loader")

    def load_cards(path, overrides, expansions=()):
        calls.load.append((path, overrides))
        tables.expansions = tuple(expansions)  # as the real card tables name them
        if "game.bad" in overrides:
            raise CardDataError("lords.toml: [[lord]] #3: cost must be >= 0, got -1")
        return tables

    def parse_set_options(items):
        return dict(item.split("=", 1) for item in items)

    cards.load_cards = load_cards
    cards.parse_set_options = parse_set_options
    cards.describe = lambda t: "35 Lords, 20 Locations (fake)"

    runner = types.ModuleType("games.abyss.engine.runner")

    def run_simulation(tables_, **kwargs):
        # the engines take policies; the fake records their names
        kwargs["strategies"] = [getattr(p, "name", p) for p in kwargs["strategies"]]
        calls.run.append(kwargs)
        if kwargs["strategies"][0] == "cautious_explorer":  # this fake engine's bug
            raise RuntimeError("engine bug")
        if kwargs["strategies"][0] == "nosuch":
            raise StrategyError("unknown strategy 'nosuch'; known: greedy, random")
        assert tables_ is tables
        return fake_results(tables_, **kwargs)

    runner.run_simulation = run_simulation

    def run_games(
        tables_, *, engine, per_game=True, threads=None, store=None, chunk_size=None, **kwargs
    ):
        from games.abyss.engine.aggregate import Aggregates
        from games.abyss.engine.schema import games_frame, seats_frame

        seats, games, timings = run_simulation(tables_, **kwargs)
        names = [getattr(p, "name", p) for p in kwargs["strategies"]]
        agg = Aggregates.from_frames(seats_frame(seats), games_frame(games), names)
        return seats, games, agg, timings

    runner.run_games = run_games

    replay = types.ModuleType("games.abyss.engine.rules.replay")

    def narrate_game(tables_, **kwargs):
        kwargs["strategies"] = [getattr(p, "name", p) for p in kwargs["strategies"]]
        calls.narrate.append(kwargs)
        return "turn 1: seat 0 explores\n", [{"turn": 1, "seat": np.int8(0), "action": "explore"}]

    replay.narrate_game = narrate_game
    for name, module in [("cards.loader", cards), ("runner", runner), ("rules.replay", replay)]:
        monkeypatch.setitem(sys.modules, f"games.abyss.engine.{name}", module)
    return calls


# --- help and start-up -----------------------------------------------------------------------


def test_help_lists_commands() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("cards", "simulate", "replay"):
        assert command in result.output


@pytest.mark.parametrize("command", ["cards", "simulate", "replay"])
def test_commands_share_card_options(command: str) -> None:
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert "--cards" in result.output and "--set" in result.output
    if command != "cards":
        assert "--expansions" in result.output


def test_import_and_help_do_not_load_heavy_modules() -> None:
    code = (
        "import sys\n"
        "sys.argv = ['abyss-mc', '--help']\n"
        "import cli.app\n"
        "try:\n"
        "    cli.app.main()\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('HEAVY:' + ','.join(m for m in {HEAVY_MODULES!r} if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "simulate" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1] == "HEAVY:"  # no heavy module imported


def test_version() -> None:
    result = invoke("--version")
    assert result.exit_code == 0 and "0.1.0" in result.output


def test_unknown_command_fails() -> None:
    result = invoke("frobnicate")
    assert result.exit_code != 0


# --- option validation: one-line errors, exit code 2 -----------------------------------------


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--players", "1"], "--players must be 2-4"),
        (["--players", "5"], "5 players need the Leviathan expansion (--expansions leviathan)"),
        (["--players", "6", "--expansions", "leviathan"], "--players must be 2-5 for Abyss"),
        (["--games", "0"], "--games must be at least 1"),
        (["--seed", "-1"], "--seed"),
        (["--players", "2", "--strategies", "a,b,c"], "3 strategies for 2 players"),
        (["--strategies", " , "], "--strategies is empty"),
        (["--expansions", "kraken"], "unknown expansion 'kraken'"),
    ],
)
def test_simulate_rejects_bad_options(args: list[str], fragment: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = invoke("simulate", *args, "--out", str(out))
    assert_one_line_error(result, fragment)
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_replay_rejects_bad_options() -> None:
    assert_one_line_error(invoke("replay", "--players", "5"), "Leviathan")
    assert_one_line_error(invoke("replay", "--game", "-1"), "--game")


def test_real_process_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "cli.app", "simulate", "--players", "5"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "error: 5 players need the Leviathan expansion (--expansions leviathan)"
    ]
    assert proc.stdout == ""


def test_simulate_refuses_existing_out_dir(tmp_run_root: Path) -> None:
    out = tmp_run_root / "old"
    out.mkdir()
    (out / "seats.parquet").write_bytes(b"precious")
    result = invoke("simulate", "--games", "2", "--out", str(out))
    line = assert_one_line_error(result, "already exists; choose a new --out")
    assert str(out) in line
    assert [p.name for p in tmp_run_root.iterdir()] == ["old"]
    assert [p.name for p in out.iterdir()] == ["seats.parquet"]
    assert (out / "seats.parquet").read_bytes() == b"precious"


def test_missing_cards_dir_is_a_user_error(tmp_path: Path) -> None:
    assert_one_line_error(invoke("cards", "--cards", str(tmp_path / "nope")), "does not exist")


# --- with the fake engine --------------------------------------------------------------------


def test_simulate_writes_complete_run(fake_engine, tmp_run_root: Path) -> None:
    out = tmp_run_root / "r1"
    result = invoke(
        "simulate",
        "--players",
        "3",
        "--games",
        "40",
        "--seed",
        "5",
        "--out",
        str(out),
        "--set",
        "game.court_size=5",
    )
    assert result.exit_code == 0, (result.output, result.exception)
    assert fake_engine.run == [
        dict(
            n_players=3,
            n_games=40,
            seed=5,
            strategies=["greedy", "random", "greedy"],
            expansions=(),
            progress=False,
        )
    ]
    # the --set values reach the loader parsed (sim.core.carddata.parse_set_options)
    assert fake_engine.load == [(None, {"game.court_size": 5})]
    assert sorted(p.name for p in out.iterdir()) == [
        "aggregates.npz",
        "games.parquet",
        "manifest.json",
        "seats.parquet",
        "summary.txt",
    ]
    assert [p.name for p in tmp_run_root.iterdir()] == ["r1"]
    seats = pd.read_parquet(out / "seats.parquet")
    games = pd.read_parquet(out / "games.parquet")
    assert list(seats.columns) == list(SEAT_COLUMNS) and len(seats) == 120
    assert list(games.columns) == list(GAME_COLUMNS) and len(games) == 40
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 5
    assert manifest["card_digest"] == "fake-digest"
    assert manifest["config"]["strategies"] == ["greedy", "random", "greedy"]
    assert manifest["config"]["set"] == ["game.court_size=5"]
    assert manifest["schema_version"] == SCHEMA_VERSION
    assert manifest["timings"]["runner"] == {"play": 0.01}
    assert "By strategy" in result.stdout and "By seat" in result.stdout
    assert result.stdout.rstrip().endswith(f"results: {out}")
    assert (out / "summary.txt").read_text() in result.stdout


def test_simulate_default_out_dir_is_new_each_run(fake_engine, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        assert invoke("simulate", "--games", "3", "--seed", "9").exit_code == 0
    runs = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert len(runs) == 2 and all("-seed9" in name for name in runs)


def test_leviathan_allows_five_players(fake_engine, tmp_run_root: Path) -> None:
    result = invoke(
        "simulate",
        "--players",
        "5",
        "--expansions",
        "Leviathan",
        "--games",
        "2",
        "--out",
        str(tmp_run_root / "r"),
    )
    assert result.exit_code == 0, result.output
    assert fake_engine.run[0]["expansions"] == ("leviathan",)


def test_failed_run_leaves_no_directory(fake_engine, tmp_run_root: Path) -> None:
    out = tmp_run_root / "r"
    result = invoke("simulate", "--strategies", "cautious_explorer", "--out", str(out))
    assert result.exit_code == 1 and isinstance(result.exception, RuntimeError)  # a bug: traceback
    assert list(tmp_run_root.iterdir()) == []


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--strategies", "nosuch"], "unknown strategy 'nosuch'"),
        (["--set", "game.bad=1"], "lords.toml: [[lord]] #3"),
    ],
)
def test_engine_user_errors_are_one_line(fake_engine, tmp_run_root, args, fragment) -> None:
    result = invoke("simulate", *args, "--out", str(tmp_run_root / "r"))
    assert_one_line_error(result, fragment)
    assert list(tmp_run_root.iterdir()) == []


def test_cards_command(fake_engine) -> None:
    result = invoke("cards", "--set", "a.b=1")
    assert result.exit_code == 0
    assert "35 Lords" in result.stdout
    assert fake_engine.load == [(None, {"a.b": 1})]


def test_replay_text_and_json(fake_engine) -> None:
    result = invoke("replay", "--seed", "3", "--game", "7", "--players", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout == "turn 1: seat 0 explores\n\n"
    assert fake_engine.narrate == [
        dict(seed=3, game=7, n_players=2, strategies=["greedy", "random"], expansions=())
    ]
    result = invoke("replay", "--json")
    assert json.loads(result.stdout) == [{"turn": 1, "seat": 0, "action": "explore"}]


# --- summary ---------------------------------------------------------------------------------


def test_summary_content() -> None:
    seats, games, _ = fake_results(
        None,
        n_players=2,
        n_games=200,
        seed=1,
        strategies=["greedy", "random"],
        expansions=(),
        progress=False,
    )
    text = summarize(seats, games)
    assert text.startswith("200 games, 2 players (equal-strength win rate 50.0%)")
    for word in (
        "By strategy",
        "greedy",
        "random",
        "By seat",
        "lords",
        "locations",
        "allies",
        "monsters",
        "ended: seventh_lord",
        "ended: court_empty",
        "turns",
    ):
        assert word in text
    assert "leviathan" not in text  # base game: no Leviathan column
    g = seats[seats.strategy == "greedy"]
    low, high = wilson_interval(int(g.winner.sum()), len(g))
    assert f"[{low:.1%}, {high:.1%}]" in text


def test_wilson_interval_matches_known_value() -> None:
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)


# --- with the real engine (skipped until it exists) ------------------------------------------


def test_real_cards_command() -> None:
    pytest.importorskip("games.abyss.engine.cards.loader")
    result = invoke("cards")
    assert result.exit_code == 0, (result.output, result.exception)
    assert result.stdout.strip()
    assert_one_line_error(invoke("cards", "--set", "no_such_key"), "")


def test_real_simulate_small_run(tmp_run_root: Path) -> None:
    pytest.importorskip("games.abyss.engine.runner")
    out = tmp_run_root / "r"
    result = invoke("simulate", "--players", "2", "--games", "3", "--out", str(out))
    assert result.exit_code == 0, (result.output, result.exception)
    assert len(pd.read_parquet(out / "seats.parquet")) == 6


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_run_leaves_nothing(tmp_run_root: Path, sig: signal.Signals) -> None:
    pytest.importorskip("games.abyss.engine.runner")
    out = tmp_run_root / "r"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.app", "simulate", "--games", "1000000", "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # a shell without job control starts background jobs with SIGINT ignored; undo that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while not any(tmp_run_root.iterdir()) and proc.poll() is None:
            assert time.monotonic() < deadline, "the run never started"
            time.sleep(0.05)
        time.sleep(0.5)
        assert proc.poll() is None, proc.stderr.read()
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert "Traceback" not in stderr
    # Nothing under the run's name; only the hidden staging kept for `--resume` (issue 9), which
    # holds no result file, and the message says how to finish the run.
    left = list(tmp_run_root.iterdir())
    assert [p.name for p in left] in ([], [".r.partial"])
    for staged in left:
        assert not {"seats.parquet", "summary.txt", "manifest.json"} & {
            p.name for p in staged.iterdir()
        }
        assert f"--resume {out}" in stderr


def test_real_replay() -> None:
    pytest.importorskip("games.abyss.engine.rules.replay")
    result = invoke("replay", "--players", "2", "--game", "1")
    assert result.exit_code == 0, (result.output, result.exception)
    assert result.stdout.strip()


def test_interval_formulas_match_scipy_stats() -> None:
    """The summary's light-weight quantiles agree with scipy.stats' binomtest and t."""
    from scipy import stats

    from reports.stats.intervals import mean_halfwidth

    for wins, n in ((0, 10), (3, 10), (50, 100), (999, 1000), (1000, 1000), (7, 2000)):
        ci = stats.binomtest(wins, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert wilson_interval(wins, n) == pytest.approx((ci.low, ci.high), abs=1e-12)
    values = np.array([3.0, 7.0, 1.0, 9.0, 4.0, 4.0])
    expected = stats.t.ppf(0.975, len(values) - 1) * stats.sem(values)
    assert mean_halfwidth(values) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["simulate", "--games", "abc"], "Invalid value for '--games'"),
        (["simulate", "--bogus"], "No such option: --bogus"),
        (["nosuch"], "No such command 'nosuch'"),
        (["tournament", "--blocks", "1.5"], "Invalid value for '--blocks'"),
        (["ev", "fight", "--nope"], "No such option: --nope"),
        (["simulate", "--players"], "requires an argument"),
    ],
)
def test_bad_command_lines_are_one_line_through_the_console_script(args, fragment, tmp_path):
    """Issue 19: "Every bad command-line value gives one line on stderr and exit code 2, never a
    framed box or a traceback" -- also those click rejects before a command runs."""
    code = "import sys; from cli.entry import main; sys.argv[0] = 'abyss-mc'; main()"
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], lines
    assert "╭" not in proc.stderr and proc.stdout == ""


def test_a_run_killed_before_its_plan_was_sealed_resumes(tmp_path, monkeypatch):
    """A kill between writing a run's plan and recording its digests (seen in the SIGKILL fault
    test of `sweep`) leaves a plan without digests and no chunk: `--resume` seals it and goes on.
    A plan without digests beside finished chunks (an older version's) is still refused."""
    from types import SimpleNamespace

    from reports import run_dir as R
    from sim.core.errors import UserError

    monkeypatch.setattr(R, "run_digests", lambda tables, presets: {"engine": "e1"})
    staging = SimpleNamespace(dir=tmp_path, resumable=True)
    resumed = R.Run("simulate", tmp_path, staging, {"games": 10}, resumed=True)
    R.write_plan(tmp_path, {"games": 10})
    resumed.seal(None, None)
    assert R.read_plan(tmp_path)["digests"] == {"engine": "e1"}
    R.write_plan(tmp_path, {"games": 10})  # unsealed again, now with a finished chunk
    (tmp_path / "chunks").mkdir()
    (tmp_path / "chunks" / "000000000000-5.done").write_text("{}")
    with pytest.raises(UserError, match="records no digests"):
        resumed.seal(None, None)
