"""`abyss-mc learn` (docs/learned.md): a small run writes its weights, curve and manifest, the
weights play as `learned:weights=FILE`, and bad options are refused in one line."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd


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
