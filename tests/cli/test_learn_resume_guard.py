"""`abyss-mc learn --resume` uses only its own, intact iterations (issue 53): each finished
iteration (its row and weights) is a chunk of the run's store, stamped with the run's plan and
checksummed, so an iteration copied in from another run is refused in one line before anything
plays, and a damaged one is quarantined with a warning and played again; the results are those
of an uninterrupted run, byte for byte.

The helpers find an iteration's files wherever the run keeps them (a chunk, or loose in the
staging as the version before the store wrote them), so each test also runs against that
version: the copied and the damaged iteration fail there (they were used)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.core.runs import partial_dir
from tests.cli.test_resume import cli, copy_staging, whole_run

ARGS = ["learn", "--players", "2", "--iterations", "2", "--games", "4", "--rollouts", "4",
        "--strength-games", "20", "--field", "greedy"]  # fmt: skip
SEED = ["--seed", "11"]
#: every file of a finished run, compared byte for byte (the manifest names the time and path)
RESULTS = ("curve.csv", "summary.txt", "learning_curve.png", "learned.npz", "learned_1.npz",
           "learned_2.npz", "iteration_0.json", "iteration_1.json", "iteration_2.json")  # fmt: skip


#: `abyss-mc` (its arguments after the code), saying on stderr each iteration whose search games
#: it plays: what a resumed run plays again
SHOWING = """
import sys
from reports.runs import learn
recorded = learn.records
def records(setup, rollout, weights, first_game):
    print(f"plays iteration {first_game // learn.DEALS}", file=sys.stderr, flush=True)
    return recorded(setup, rollout, weights, first_game)
learn.records = records
from cli.app import main
sys.argv[0] = "abyss-mc"
main()
"""


def resume(out: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    """`abyss-mc learn --resume out`; the iterations it played."""
    p = subprocess.run([sys.executable, "-c", SHOWING, "learn", "--resume", str(out)],
                       capture_output=True, text=True, timeout=600)  # fmt: skip
    lines = p.stderr.splitlines()
    p.stderr = "".join(f"{line}\n" for line in lines if not line.startswith("plays iteration"))
    return p, [line.split()[-1] for line in lines if line.startswith("plays iteration")]


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    """The uninterrupted run (in this process)."""
    out = tmp_path_factory.mktemp("whole") / "run"
    whole_run(*ARGS, *SEED, "--out", out)
    return out


def stored(staging: Path, it: int) -> bool:
    """Iteration `it` is finished: its chunk's marker (or its row, loose in the staging)."""
    return any(staging.rglob(f"{it:012d}-1.done")) or (staging / f"iteration_{it}.json").is_file()


def iteration_files(staging: Path, it: int) -> list[Path]:
    """Iteration `it`'s files (its row, its weights, its chunk's marker), quarantine aside."""
    names = (f"iteration_{it}.json", f"learned_{it}.npz", f"{it:012d}-1.done")
    return sorted(p for p in staging.rglob("*") if p.is_file() and p.name.endswith(names)
                  and "quarantine" not in p.parts)  # fmt: skip


def interrupted(out: Path, seed: str = "11", after: int = 1) -> Path:
    """A run stopped with SIGTERM once iteration `after` is finished; its staging."""
    p = cli(*ARGS, "--seed", seed, "--out", out)
    staging, deadline = partial_dir(out), time.time() + 120
    while time.time() < deadline and p.poll() is None and not stored(staging, after):
        time.sleep(0.01)
    assert p.poll() is None, f"the run ended before iteration {after} was stored: {p.stderr}"
    os.kill(p.pid, signal.SIGTERM)
    p.communicate(timeout=120)
    assert not out.exists() and stored(staging, after)
    return staging


@pytest.fixture(scope="module")
def cut(tmp_path_factory) -> Path:
    """One run stopped with SIGTERM once iteration 1 is finished (its staging), which each test
    copies: they all start from the same interruption, made once."""
    return interrupted(tmp_path_factory.mktemp("cut") / "run")


def copied(cut: Path, out: Path) -> Path:
    """A copy of `cut`'s staging as the staging of `out` (it names no path); its staging."""
    staging = partial_dir(copy_staging(cut, out))
    assert stored(staging, 1)
    return staging


def same_results(out: Path, whole: Path) -> None:
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in whole.iterdir())
    for name in RESULTS:
        assert (out / name).read_bytes() == (whole / name).read_bytes(), name


def test_a_resumed_run_gives_the_uninterrupted_results(tmp_path, whole, cut) -> None:
    """SIGTERM once iteration 1 is stored: `--resume` plays iteration 2 from the stored weights,
    and the run folder holds exactly the uninterrupted run's files, byte for byte."""
    out = tmp_path / "run"
    copied(cut, out)
    p, played = resume(out)
    assert p.returncode == 0, p.stderr
    assert played == ["2"] and "warning" not in p.stderr  # iteration 1 kept, not played again
    same_results(out, whole)


def test_an_iteration_copied_from_another_run_is_refused(tmp_path, cut) -> None:
    """Iteration 1 of a run of another seed copied over this run's (its own valid checksums):
    refused in one line naming another run's plan, before anything plays; the staging as it
    was, no lock left."""
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    staging, other = copied(cut, mine), interrupted(theirs, seed="12")
    for p in iteration_files(staging, 1):
        p.unlink()
    for p in iteration_files(other, 1):
        shutil.copy(p, staging / p.relative_to(other))
    before = {p: p.read_bytes() for p in staging.rglob("*") if p.is_file()}
    p, played = resume(mine)
    assert p.returncode != 0 and "Traceback" not in p.stderr and not played
    assert p.stderr.strip().count("\n") == 0 and "another run's plan" in p.stderr, p.stderr
    assert {p: p.read_bytes() for p in staging.rglob("*") if p.is_file()} == before
    assert not mine.exists()
    assert not any(tmp_path.glob(f".{mine.name}.lock")), "no stale lock is left"


def test_a_truncated_stored_weights_file_is_played_again(tmp_path, whole, cut) -> None:
    """Iteration 1's stored weights cut in half: one warning line naming the file, the iteration
    played again (the truncated file is never read: the results are the uninterrupted run's)."""
    out = tmp_path / "run"
    staging = copied(cut, out)
    (weights,) = [p for p in iteration_files(staging, 1) if p.name.endswith(".npz")]
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    p, played = resume(out)
    assert p.returncode == 0, p.stderr
    assert played == ["1", "2"]
    warnings = [line for line in p.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "learned_1.npz" in warnings[0], p.stderr
    assert "iteration 1" in warnings[0] and "played again" in warnings[0]
    same_results(out, whole)


def test_loose_iteration_files_of_an_earlier_version_are_played_again(tmp_path, whole,
                                                                      cut) -> None:  # fmt: skip
    """A run interrupted by the version before the store kept its iterations loose in the
    staging, unchecked (here one edited, one cut short): `--resume` reads none of them, plays
    every iteration again and gives the uninterrupted results."""
    out = tmp_path / "run"
    staging = copied(cut, out)
    for p in (staging / "chunks").rglob("*"):
        if p.is_file() and not p.name.endswith(".done"):
            p.rename(staging / p.name.split("-", 1)[1])  # its published name, loose
    shutil.rmtree(staging / "chunks", ignore_errors=True)  # (that version made none)
    row = staging / "iteration_1.json"
    row.write_text(row.read_text().replace('"iteration": 1,', '"iteration": 1, "edited": 1,'))
    weights = staging / "learned_1.npz"
    weights.write_bytes(weights.read_bytes()[:100])
    p, played = resume(out)
    assert p.returncode == 0, p.stderr
    assert played == ["1", "2"] and "warning" not in p.stderr
    same_results(out, whole)
