"""`abyss-mc learn` (docs/learned.md): a small run writes its weights, curve and manifest, the
weights play as `learned:weights=FILE`, and bad options are refused in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from sim.core.runs import partial_dir


def _cli(*args, timeout=900):
    return subprocess.run([sys.executable, "-m", "cli.entry", *args], capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip


def test_a_small_learn_run_writes_a_playable_player(tmp_path):
    out = tmp_path / "learn"
    result = _cli("learn", "--players", "3", "--iterations", "2", "--games", "6", "--rollouts",
                  "4", "--strength-games", "60", "--seed", "5", "--out", str(out))  # fmt: skip
    assert result.returncode == 0, result.stderr
    for name in ("learned.npz", "learned_1.npz", "learned_2.npz", "curve.csv", "summary.txt",
                 "learning_curve.png", "manifest.json"):  # fmt: skip
        assert (out / name).exists(), name
    curve = pd.read_csv(out / "curve.csv")
    assert list(curve["iteration"]) == [0, 1, 2] and (curve["records"][1:] > 0).all()
    assert json.loads((out / "manifest.json").read_text())["config"]["command"] == "learn"
    played = _cli("simulate", "--players", "3", "--games", "30", "--strategies",
                  f"learned:weights={out / 'learned.npz'},greedy", "--out", str(tmp_path / "s"))
    assert played.returncode == 0, played.stderr


def test_the_same_seed_learns_the_same_weights(tmp_path):
    """Reproducible from the seed: two runs write the same weights, byte for byte."""
    args = ("learn", "--players", "2", "--iterations", "1", "--games", "4", "--rollouts", "4",
            "--strength-games", "20", "--seed", "9")  # fmt: skip
    for name in ("a", "b"):
        assert _cli(*args, "--out", str(tmp_path / name)).returncode == 0
    a = (tmp_path / "a" / "learned.npz").read_bytes()
    assert a == (tmp_path / "b" / "learned.npz").read_bytes()


def test_bad_options_are_one_line(tmp_path):
    for args, words in ((("--iterations", "0"), "--iterations must be at least 1"),
                        (("--game", "wilds"), "no games of strategies"),
                        (("--field", "nosuch"), "nosuch")):  # fmt: skip
        result = _cli("learn", *args, "--out", str(tmp_path / "x"), timeout=120)
        assert result.returncode != 0 and words in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert not (tmp_path / "x").exists()


#: `abyss-mc learn` (its arguments after the code) held, once the second iteration's weights
#: are written and before its row, until it is killed: the file named by HOLD_FLAG says when
HELD_LEARN = """
import os, pathlib, sys, time
from reports import learn_run
written = learn_run.write_weights
def held(learn, path, *args, **kwargs):
    written(learn, path, *args, **kwargs)
    if path.name == "learned_2.npz":
        pathlib.Path(os.environ["HOLD_FLAG"]).touch()
        time.sleep(3600)
learn_run.write_weights = held
from cli.entry import main
main()
"""


def test_a_killed_learn_run_resumes_to_the_same_weights(tmp_path):
    """SIGKILL in the second iteration, its weights written but not its row (the run held
    there, so the kill never comes too late): `--resume` keeps the first (its file untouched),
    redoes the second and ends with the weights and curve of an uninterrupted run, byte for
    byte."""
    args = ("learn", "--players", "2", "--iterations", "2", "--games", "4", "--rollouts", "4",
            "--strength-games", "20", "--seed", "11")  # fmt: skip
    whole = tmp_path / "whole"
    assert _cli(*args, "--out", str(whole)).returncode == 0
    out, flag, err = tmp_path / "cut", tmp_path / "held", tmp_path / "held.err"
    with err.open("w") as stderr:
        p = subprocess.Popen([sys.executable, "-c", HELD_LEARN, *args, "--out", str(out)],
                             stdout=subprocess.DEVNULL, stderr=stderr,
                             env={**os.environ, "HOLD_FLAG": str(flag)})  # fmt: skip
    deadline = time.time() + 600
    while time.time() < deadline and p.poll() is None and not flag.exists():
        time.sleep(0.01)
    assert flag.exists() and p.poll() is None, err.read_text()  # held there, never past it
    first = partial_dir(out) / "iteration_1.json"
    assert first.exists() and not (partial_dir(out) / "iteration_2.json").exists()
    assert (partial_dir(out) / "learned_2.npz").exists()
    kept = (partial_dir(out) / "learned_1.npz").read_bytes()
    written = (partial_dir(out) / "learned_1.npz").stat().st_mtime_ns
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=60)
    assert not out.exists() and first.exists()
    resumed = _cli("learn", "--resume", str(out))
    assert resumed.returncode == 0, resumed.stderr
    assert (out / "learned_1.npz").read_bytes() == kept
    assert (out / "learned_1.npz").stat().st_mtime_ns == written  # kept, not made again
    for name in ("learned.npz", "learned_2.npz", "curve.csv", "summary.txt"):
        assert (out / name).read_bytes() == (whole / name).read_bytes(), name


def test_learning_against_every_open_field(tmp_path):
    """`--field open`: the search's games and the strength are split among the open presets'
    fields; the curve keeps the mean and the worst field's share, and the base's own field is
    its share by symmetry."""
    out = tmp_path / "open"
    result = _cli("learn", "--players", "3", "--iterations", "1", "--games", "16", "--rollouts",
                  "4", "--strength-games", "160", "--field", "open", "--base",
                  "farmer_open_3p", "--seed", "5", "--out", str(out))  # fmt: skip
    assert result.returncode == 0, result.stderr
    curve = pd.read_csv(out / "curve.csv")
    shares = [json.loads(row) for row in curve["field_shares"]]
    n_fields = len(shares[0])
    assert n_fields > 2 and all(len(s) == n_fields for s in shares)
    for row, s in zip(curve.itertuples(), shares, strict=True):
        assert row.win_share == pytest.approx(sum(s) / n_fields)
        assert row.worst_share == pytest.approx(min(s))
    assert 1 / 3 in shares[0]  # the base against its own field
    assert "worst field" in (out / "summary.txt").read_text()
