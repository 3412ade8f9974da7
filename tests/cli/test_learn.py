"""`abyss-mc learn` (docs/learned.md): a small run writes its weights, curve and manifest, the
weights play as `learned:weights=FILE`, and bad options are refused in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from typer.testing import CliRunner

from cli.app import app
from reports.runs import learn as L
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
    config = json.loads((out / "manifest.json").read_text())["config"]
    assert config["command"] == "learn" and config["shipped"]["iteration"] == 2
    seeds = {k.split(" ")[0]: v["seed"] for k, v in config["seeds"].items()}
    assert seeds == {"records": 5, "strength": L.strength_seed(5)}
    summary = (out / "summary.txt").read_text()
    assert "Shipped: iteration 2, the last" in summary and "Best" not in summary
    assert (out / "learned.npz").read_bytes() == (out / "learned_2.npz").read_bytes()
    played = _cli("simulate", "--players", "3", "--games", "30", "--strategies",
                  f"learned:weights={out / 'learned.npz'},greedy", "--out", str(tmp_path / "s"))
    assert played.returncode == 0, played.stderr


#: a small run, played whole once (`seeded`) for the tests that compare another run with it
SEEDED = ("learn", "--players", "2", "--iterations", "2", "--games", "4", "--rollouts", "4",
          "--strength-games", "20", "--seed", "11")  # fmt: skip


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """`SEEDED` played whole, uninterrupted (in this process): its run folder."""
    out = tmp_path_factory.mktemp("seeded") / "whole"
    result = CliRunner().invoke(app, [*SEEDED, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_the_same_seed_learns_the_same_weights(tmp_path, seeded):
    """Reproducible from the seed: two runs write the same weights, byte for byte."""
    assert _cli(*SEEDED, "--out", str(tmp_path / "b")).returncode == 0
    for name in ("learned_1.npz", "learned.npz"):
        assert (seeded / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


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
from reports.runs import learn as learn_run
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


def test_a_killed_learn_run_resumes_to_the_same_weights(tmp_path, seeded):
    """SIGKILL in the second iteration, its weights written but not stored (the run held there,
    so the kill never comes too late): `--resume` keeps the first (its stored chunk), redoes the
    second and ends with the weights and curve of an uninterrupted run, byte for
    byte."""
    args, whole = SEEDED, seeded
    out, flag, err = tmp_path / "cut", tmp_path / "held", tmp_path / "held.err"
    with err.open("w") as stderr:
        p = subprocess.Popen([sys.executable, "-c", HELD_LEARN, *args, "--out", str(out)],
                             stdout=subprocess.DEVNULL, stderr=stderr,
                             env={**os.environ, "HOLD_FLAG": str(flag)})  # fmt: skip
    deadline = time.time() + 600
    while time.time() < deadline and p.poll() is None and not flag.exists():
        time.sleep(0.01)
    assert flag.exists() and p.poll() is None, err.read_text()  # held there, never past it
    chunks = partial_dir(out) / "chunks" / L.ITERATIONS  # chunk i: iteration i
    first = chunks / "000000000001-1.done"
    assert first.exists() and not (chunks / "000000000002-1.done").exists()
    assert (partial_dir(out) / "learned_2.npz").exists()  # written, not yet stored
    kept = (chunks / "000000000001-learned_1.npz").read_bytes()
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=60)
    assert not out.exists() and first.exists()
    resumed = _cli("learn", "--resume", str(out))
    assert resumed.returncode == 0, resumed.stderr
    assert (out / "learned_1.npz").read_bytes() == kept
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


def test_the_records_deals_and_the_strengths_deals_are_disjoint(monkeypatch, tmp_path):
    """The deals that choose the weights (the search's records) never report them (every
    strength, the paired comparison with the base): no deal of one is a deal of the other. A
    deal is its random streams' keys (`sim.core.rng.stream_keys`: a function of the seed and
    the game), so two seeds that led to the same deals would be caught too; and the strength's
    deals are the ones the manifest names."""
    from games.abyss.report import learn as abyss_learn
    from sim import games
    from sim.core.rng import N_STREAMS, stream_keys

    spec = games.get("abyss")
    play = spec.play()
    played: dict[str, set] = {"records": set(), "strength": set()}
    recorded, run_games = abyss_learn.record_tables, play.run_games

    def record_tables(tables, seed, games, seatings, policies):
        played["records"].update((seed, int(g)) for g in games)
        return recorded(tables, seed, games, seatings, policies)

    def strength_games(*args, seed, n_games, **kwargs):
        played["strength"].update((seed, g) for g in range(n_games))
        return run_games(*args, seed=seed, n_games=n_games, **kwargs)

    monkeypatch.setattr(abyss_learn, "record_tables", record_tables)
    monkeypatch.setattr(play, "run_games", strength_games)
    exp = spec.tournament_expansions
    setup = L.LearnSetup(spec, spec.load_cards(None, [], exp), exp, 2, [["greedy"], ["random"]],
                         "farmer", seed=3, iterations=2, record_games=8, rollouts=4,
                         strength_games=40, out=tmp_path)  # fmt: skip
    L.iterate(setup)
    L.gain_over_base(setup, f"learned:weights={tmp_path / 'learned_2.npz'}")

    def deals(pairs):
        keys = np.zeros(N_STREAMS, dtype=np.uint64)
        out = set()
        for seed, game in pairs:
            stream_keys(np.int64(seed), np.int64(game), keys)
            out.add(tuple(keys.tolist()))
        return out

    assert len(played["records"]) == 2 * 8 and len(played["strength"]) == 20
    assert not deals(played["records"]) & deals(played["strength"])
    named = L.seed_purposes(setup)["strength (reports; chooses nothing, the last iteration is "
                                   "shipped)"]["seed"]  # fmt: skip
    assert {seed for seed, _ in played["strength"]} == {named}


def _verdicts(gain: float, seeds: int, shared: float = 0.0, deals: int = 200,
              fields: int = 8) -> list[str]:
    """`against_base` on a learned player and its base drawn per deal and field (a win or not,
    25% for the base, 25% + `gain` for the player), over `seeds` draws. With probability
    `shared` a player's result is its deal's, the same against every field (a deal is the same
    against every field: its luck carries across them)."""

    def wins(rng, p):
        own = rng.random((fields, deals)) < p
        deal = np.broadcast_to(rng.random(deals) < p, (fields, deals))
        return np.where(rng.random((fields, deals)) < shared, deal, own).astype(float)

    out = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        g, half, n = L.paired_gain(wins(rng, 0.25 + gain) - wins(rng, 0.25))
        assert n == deals
        out.append(L.against_base(g, half))
    return out


def test_the_paired_comparison_with_the_base_finds_a_planted_gain():
    """A learned player 6 points above its base on every field (power about 0.97 at 200 deals
    against 8 fields): "stronger" in all but a few of 300 draws (the bound 4 standard errors
    below the expected count), never "weaker"."""
    seeds, gain = 300, 0.06
    said = _verdicts(gain, seeds)
    variance = (0.25 + gain) * (0.75 - gain) + 0.25 * 0.75  # of a deal's difference
    power = stats.norm.sf(1.96 - gain / np.sqrt(variance / (200 * 8)))
    expected = seeds * power
    bound = expected - 4 * np.sqrt(seeds * power * (1 - power)) - 1
    assert said.count("stronger than its base") >= bound, (said.count("stronger than its base"),
                                                           bound)  # fmt: skip
    assert "weaker than its base" not in said


def test_the_paired_comparison_with_the_base_cannot_tell_a_null():
    """A learned player as strong as its base, its luck on a deal carried across the fields
    (shared 0.7): a side in at most its 5% of 400 draws, with a binomial band of 4 standard
    errors. Fields taken as independent deals say one in about a third; a rule comparing the
    player's interval with the base's point, which ignores the base's own noise, in about a
    sixth."""
    seeds = 400
    said = _verdicts(0.0, seeds, shared=0.7)
    sided = sum(v != "cannot tell it from its base" for v in said)
    assert sided <= seeds * 0.05 + 4 * np.sqrt(seeds * 0.05 * 0.95), sided
