"""`abyss-mc tune` (issue 20): "the optimiser finds a planted optimum (a test policy parameter with
a known best value), CRN is in force (the same candidate twice gives the same result), resume
gives the same trace"; the held-out check "reported honestly when the tuned one is not better"."""

from __future__ import annotations

import json
import tomllib

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from reports.tune import Problem, evaluate, held_out
from sim import games

runner = CliRunner()
#: The tiny game's `aim` keeps its best card most often at knob=13, lean=0.7, style=sharp.
TINY = ["tune", "--game", "tiny", "--strategy", "aim", "--players", "2", "--against", "best",
        "--seed", "5"]  # fmt: skip
SMALL = ["--games", "16000", "--candidates", "40", "--reeval-games", "4000",
         "--heldout-games", "4000"]  # fmt: skip


@pytest.fixture
def tiny():
    from tiny_game import SPEC

    games.register(SPEC)
    yield SPEC
    games._EXTRA.pop("tiny", None)


def _tune(args, out):
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """The tune of the tiny game's `aim` on the small budget (its run directory and output):
    the planted optimum's test reads it, the resume test compares an interrupted tune with it."""
    from tiny_game import SPEC

    games.register(SPEC)
    try:
        run = tmp_path_factory.mktemp("tune") / "run"
        return run, _tune([*TINY, *SMALL], run).output
    finally:
        games._EXTRA.pop("tiny", None)


def test_the_search_finds_the_planted_optimum_and_the_held_out_check_confirms_it(
        tiny, planted, tmp_path):  # fmt: skip
    run, output = planted
    preset = tomllib.loads((run / "tuned.toml").read_text())["aim_tuned"]
    assert preset["policy"] == "aim"
    assert abs(preset["knob"] - 13) <= 3 and abs(preset["lean"] - 0.7) <= 0.2
    assert preset["style"] == "sharp"
    manifest = json.loads((run / "manifest.json").read_text())
    held = manifest["config"]["held_out"]
    assert held["verdict"] == "better" and held["lo"] > 0 and held["games"] >= 4000
    assert "the tuned preset wins more than aim" in output
    # the preset file works with --presets
    sim = runner.invoke(app, ["simulate", "--game", "tiny", "--players", "2", "--games", "50",
                              "--strategies", "aim_tuned,best", "--presets",
                              str(run / "tuned.toml"), "--out", str(tmp_path / "sim")])  # fmt: skip
    assert sim.exit_code == 0, sim.output
    trace = pd.read_parquet(run / "trace.parquet")
    assert set(trace["stage"]) == {"search", "reeval", "heldout"}
    assert (trace["stage"] == "search").sum() == 40
    assert {"knob", "lean", "style", "win_rate", "games", "spec"} <= set(trace.columns)
    assert (run / "tune.png").read_bytes()[:4] == b"\x89PNG"


def test_a_start_at_the_optimum_is_reported_as_not_beaten(tiny, tmp_path):
    """The honest null: nothing beats the optimum, and the summary says so."""
    start = "aim:knob=13:lean=0.7:style=sharp"
    args = [a if a != "aim" else start for a in TINY]
    result = _tune([*args, *SMALL], tmp_path / "run")
    held = json.loads((tmp_path / "run" / "manifest.json").read_text())["config"]["held_out"]
    assert held["verdict"] != "better"
    assert "cannot tell" in result.output or "no candidate beat" in result.output \
        or "wins less" in result.output  # fmt: skip


def test_common_random_numbers_the_same_candidate_twice_gives_the_same_result() -> None:
    spec = games.get("abyss")
    tables = spec.load_cards(None, [], ("leviathan",))
    reg = spec.strategies()
    problem = Problem("abyss", tables, 3, "greedy", "greedy", {}, {}, ["leviathan_hunter"] * 2,
                      seed=4, registry=reg)  # fmt: skip
    specs = ["greedy:buy_min=6", "greedy", "greedy:buy_min=6"]
    shares = evaluate(problem, specs, seed=4, n_blocks=40)
    assert np.array_equal(shares[0], shares[2])
    alone = evaluate(problem, specs[:1], seed=4, first_block=10, n_blocks=30)
    assert np.array_equal(alone[0], shares[0, 10:])  # chunks and batches change nothing
    assert not np.array_equal(shares[0], shares[1])


def test_the_held_out_interval_is_a_paired_t_interval() -> None:
    rng = np.random.default_rng(0)
    start = rng.random(400)
    planted = start + 0.05 + rng.normal(0, 0.01, 400)
    held = held_out(np.vstack([planted, start]), 4)
    assert held.verdict == "better" and held.lo < 0.05 < held.hi and held.games == 1600
    same = held_out(np.vstack([start + rng.normal(0, 0.05, 400), start]), 4)
    assert same.verdict == "cannot tell"


def test_an_interrupted_tune_resumes_to_the_same_trace(tiny, planted, tmp_path, monkeypatch):
    """A tune killed after two batches of its search and resumed writes the very files of the
    same tune run whole (`planted`)."""
    from reports.runs import tune as command

    saved = command._save_json
    calls = {"n": 0}

    def killed_after_two_batches(store, batch, rows):
        saved(store, batch, rows)
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(command, "_save_json", killed_after_two_batches)
    broken = runner.invoke(app, [*TINY, *SMALL, "--out", str(tmp_path / "cut")])
    assert broken.exit_code == 130
    assert "tune --resume" in broken.output
    monkeypatch.setattr(command, "_save_json", saved)
    _tune(["tune", "--resume", str(tmp_path / "cut")], tmp_path / "ignored")
    for name in ("trace.parquet", "tuned.toml", "summary.txt"):
        whole = (planted[0] / name).read_bytes()
        assert whole == (tmp_path / "cut" / name).read_bytes(), name


@pytest.mark.parametrize(
    "args, message",
    [
        (["tune"], "--strategy is required"),
        (["tune", "--strategy", "random"], "random has no parameters to tune"),
        (["tune", "--strategy", "greedy", "--params", "buy_min,nope"], "unknown parameter nope"),
        (["tune", "--strategy", "greedy", "--sampler", "grid"], "--sampler must be one of"),
        (["tune", "--strategy", "nosuch"], "unknown strategy 'nosuch'"),
        (["tune", "--strategy", "greedy", "--games", "3"], "--games must be at least"),
        (["tune", "--strategy", "greedy", "--players", "7"], "players"),
    ],
)
def test_bad_tune_options_are_one_line(args, message, tmp_path) -> None:
    out = tmp_path / "run"
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize(
    "game, strategy, players, expansions",
    [("abyss", "leviathan_hunter", "5", "leviathan"), ("abyss", "key_hunter", "2", ""),
     ("conspiracy", "pile_raider", "3", "")],
)  # fmt: skip
def test_every_game_and_player_count_tunes(game, strategy, players, expansions, tmp_path) -> None:
    """"Works for Abyss (with and without Leviathan, 2-5 players) and Conspiracy" (a tiny
    budget: the default field is screened, every stage runs, the preset file loads)."""
    out = tmp_path / "run"
    result = _tune(["tune", "--game", game, "--strategy", strategy, "--players", players,
                    "--expansions", expansions, "--games", "1000", "--candidates", "4",
                    "--reeval-games", "100", "--heldout-games", "100"], out)  # fmt: skip
    assert f"at {players} players against" in result.output
    manifest = json.loads((out / "manifest.json").read_text())["config"]
    assert len(manifest["opponents"]) == int(players) - 1
    assert manifest["expansions"] == ([expansions] if expansions else [])
    check = runner.invoke(app, ["strategies", "--game", game, "--presets",
                                str(out / "tuned.toml"), f"{strategy}_tuned"])  # fmt: skip
    assert check.exit_code == 0, check.output
