"""Interrupted runs resume to the very results of an uninterrupted run (issue 9).

"a long run ... stores each finished chunk; after Ctrl-C or a killed process, `--resume RUN_DIR`
finishes the run and its results are identical to an uninterrupted run. Outputs are written
atomically: an interrupted run never leaves a file that looks complete but is not."
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from games.abyss.engine.aggregate import Aggregates
from sim.core.runs import partial_dir

ARGS = ["--games", "24000", "--chunk-size", "1000", "--threads", "1", "--seed", "5"]


def cli(*args: str, **kw) -> subprocess.Popen:
    code = "import sys; from cli.app import main; sys.argv[0] = 'abyss-mc'; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a shell without job control starts background jobs with SIGINT ignored; undo that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        **kw,
    )


def run(*args: str) -> subprocess.CompletedProcess:
    p = cli(*args)
    out, err = p.communicate(timeout=600)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def whole_run(*args) -> None:
    """The uninterrupted run `abyss-mc *args`, in this process (a run's results are a function of
    its options alone: the reference the resumed runs are compared with)."""
    result = CliRunner().invoke(app, [*map(str, args)])
    assert result.exit_code == 0, result.output


def copy_staging(staging: Path, out: Path) -> Path:
    """A copy of a stopped run's staging as the staging of `out`: its plan names no path, so the
    copy resumes as the original would (tests that damage or resume one share a run); `out`."""
    shutil.copytree(staging, partial_dir(out))
    assert not out.exists()
    return out


def interrupt(args: list, out: Path, sig: int, n_chunks: int = 3) -> None:
    """Start `abyss-mc *args --out out`, wait for `n_chunks` finished chunks, send `sig`; skip
    the test if the run finished first."""
    p = cli(*args, "--out", out)
    chunks = partial_dir(out) / "chunks"
    deadline = time.time() + 300
    while time.time() < deadline and p.poll() is None:
        if chunks.is_dir() and len(list(chunks.rglob("*.done"))) >= n_chunks:
            break
        time.sleep(0.01)
    if p.poll() is not None:
        pytest.skip("the run finished before the signal; nothing was interrupted")
    os.kill(p.pid, sig)
    p.communicate(timeout=120)
    assert not out.exists()
    assert partial_dir(out).is_dir(), "the interrupted run must be kept for --resume"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted run, with and without per-game tables."""
    root = tmp_path_factory.mktemp("whole")
    for name, extra in (("per-game", []), ("aggregates", ["--no-per-game"])):
        whole_run("simulate", *ARGS, *extra, "--out", root / name)
    return root


@pytest.mark.parametrize(
    ("kind", "sig"),
    [  # each kind and each signal in the fast tier; the other pairs in the slow one
        ("per-game", signal.SIGINT), ("aggregates", signal.SIGKILL),
        pytest.param("per-game", signal.SIGKILL, marks=pytest.mark.slow),
        pytest.param("aggregates", signal.SIGINT, marks=pytest.mark.slow),
    ],
    ids=["per-game-sigint", "aggregates-sigkill", "per-game-sigkill", "aggregates-sigint"],
)  # fmt: skip
def test_interrupted_run_resumes_to_identical_results(tmp_path, reference, sig, kind) -> None:
    extra = ["--no-per-game"] if kind == "aggregates" else []
    out = tmp_path / "run"
    interrupt(["simulate", *ARGS, *extra], out, sig)
    done = run("simulate", "--resume", out)
    assert done.returncode == 0, done.stderr
    assert not partial_dir(out).exists()
    whole = reference / kind
    assert Aggregates.load(out / "aggregates.npz") == Aggregates.load(whole / "aggregates.npz")
    assert (out / "summary.txt").read_text() == (whole / "summary.txt").read_text()
    if kind == "per-game":
        for name in ("seats.parquet", "games.parquet"):
            pd.testing.assert_frame_equal(
                pd.read_parquet(out / name), pd.read_parquet(whole / name)
            )
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in whole.iterdir())


def test_sigint_says_how_to_resume_and_leaves_no_complete_looking_run(tmp_path) -> None:
    out = tmp_path / "run"
    p = cli("simulate", *ARGS, "--out", out)
    chunks = partial_dir(out) / "chunks"
    while p.poll() is None and not (chunks.is_dir() and any(chunks.glob("*.done"))):
        time.sleep(0.01)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    if out.exists():
        pytest.skip("the run finished before the signal")
    assert f"--resume {out}" in err
    assert not out.exists()
    assert not any(partial_dir(out).glob("*.parquet")), "no result file before the run is done"


def test_resume_errors_are_one_line(tmp_path) -> None:
    done = run("simulate", "--resume", tmp_path / "nothing")
    assert done.returncode == 2
    assert done.stderr.strip().startswith("error: no interrupted run")
    finished = tmp_path / "done"
    assert run("simulate", "--games", "50", "--out", finished).returncode == 0
    done = run("simulate", "--resume", finished)
    assert done.returncode == 2 and "already complete" in done.stderr


def test_chunk_store_counts_every_marked_chunk_and_names_the_gaps(tmp_path) -> None:
    """Chunks stored out of order (a Dask run stores each as it arrives, issue 34) all count;
    a resumed run plays only the games no chunk holds."""
    from sim.core.chunks import ChunkStore

    store = ChunkStore(tmp_path)
    store.save(0, 10, {"x": lambda p: p.write_text("a")})
    store.save(10, 5, {"x": lambda p: p.write_text("b")})
    store.save(30, 5, {"x": lambda p: p.write_text("c")})  # after a gap: kept
    (tmp_path / "000000000015-x").write_text("unmarked")  # a chunk killed mid-write
    assert store.completed() == [(0, 10), (10, 5), (30, 5)]
    assert store.end() == 15
    assert store.missing(40) == [(15, 15), (35, 5)]
    assert store.missing(35) == [(15, 15)]
    assert ChunkStore(tmp_path / "empty").missing(7) == [(0, 7)]


@pytest.mark.parametrize("before, after", [(8, 5), (5, 8)])
def test_a_chunk_stored_again_with_another_length_keeps_one_marker(tmp_path, before,
                                                                   after) -> None:  # fmt: skip
    """A look cut to a budget is played again, to the deals that fit the resumed run, and
    stored under the same first game: the stale marker goes, so a later resume reads the new
    chunk, with no quarantine (before, it read whichever marker the directory listed last, and
    quarantined the chunk when that was the stale one)."""
    from sim.core.chunks import QUARANTINE, ChunkStore

    warnings = []
    store = ChunkStore(tmp_path, warn=warnings.append)
    store.save(0, before, {"x": lambda p: p.write_text("the cut look, first run")})
    store.save(0, after, {"x": lambda p: p.write_text("replayed to fit")})
    assert sorted(p.name for p in tmp_path.glob("*.done")) == [f"000000000000-{after}.done"]
    again = ChunkStore(tmp_path, warn=warnings.append)
    assert again.completed() == [(0, after)] and not warnings
    assert again.path(0, "x").read_text() == "replayed to fit"
    assert not (tmp_path / QUARANTINE).exists()


#: 4 points (chunks) of 3,000 games: killed after the first, 3 are left to play
SWEEP = ["sweep", "--set", "leviathan_game.hand_limit=8,10,14", "--games", "3000", "--threads",
         "1", "--no-report"]  # fmt: skip


@pytest.mark.parametrize(
    "sig", [pytest.param(signal.SIGINT, marks=pytest.mark.slow), signal.SIGKILL],
    ids=["sigint", "sigkill"],
)
def test_interrupted_sweep_resumes_to_identical_results(tmp_path, sig) -> None:
    """A sweep stores each finished point; `sweep --resume` plays only the rest."""
    whole = tmp_path / "whole"
    whole_run(*SWEEP, "--out", whole)
    out = tmp_path / "run"
    interrupt([*SWEEP], out, sig, 1)
    done = run("sweep", "--resume", out)
    assert done.returncode == 0, done.stderr
    for name in ("seats.parquet", "games.parquet", "differences.parquet", "points.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / name), pd.read_parquet(whole / name))
    assert (out / "summary.txt").read_text() == (whole / "summary.txt").read_text()


@pytest.mark.parametrize("game", ["abyss", pytest.param("conspiracy", marks=pytest.mark.slow)])
def test_interrupted_tournament_resumes_to_identical_results(tmp_path, game) -> None:
    """A tournament stores each finished chunk of blocks, per player count. Chunks are of 256
    blocks or more (a second's play): 700 blocks are 2 or 3 chunks per count, and the kill after
    2 comes while 3 players finish or 4 start."""
    lineups = {"abyss": "greedy,random,farmer,key_hunter", "conspiracy": "key_hunter,"
               "pile_raider,high_ip,random"}  # fmt: skip
    args = ["tournament", "--game", game, "--players", "3,4", "--blocks", "700", "--threads",
            "1", "--fight-points", "0", "--strategies", lineups[game]]  # fmt: skip
    whole = tmp_path / "whole"
    whole_run(*args, "--out", whole)
    out = tmp_path / "run"
    interrupt([*args], out, signal.SIGKILL, 2)
    done = run("tournament", "--resume", out)
    assert done.returncode == 0, done.stderr
    for name in ("seats.parquet", "games.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / name), pd.read_parquet(whole / name))
    assert (out / "summary.txt").read_text() == (whole / "summary.txt").read_text()
    if game == "abyss":
        for n in (3, 4):
            name = f"aggregates-{n}p.npz"
            assert Aggregates.load(out / name) == Aggregates.load(whole / name)


def test_interrupted_conspiracy_simulation_resumes(tmp_path) -> None:
    args = ["simulate", "--game", "conspiracy", "--games", "12000", "--chunk-size", "500",
            "--threads", "1", "--seed", "3"]  # fmt: skip
    whole = tmp_path / "whole"
    whole_run(*args, "--out", whole)
    out = tmp_path / "run"
    interrupt([*args], out, signal.SIGINT, 3)
    done = run("simulate", "--resume", out)
    assert done.returncode == 0, done.stderr
    for name in ("seats.parquet", "games.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / name), pd.read_parquet(whole / name))
    assert (out / "summary.txt").read_text() == (whole / "summary.txt").read_text()


def test_interrupted_sequential_tournament_resumes_to_identical_results(tmp_path) -> None:
    """Sequential tournaments check for stopping every SEQUENTIAL_CHECK blocks, whatever the
    speed, so they too resume to the uninterrupted results."""
    # the same strategy under two names: never decided, the budget is played
    args = ["tournament", "--players", "4", "--strategies", "greedy,greedy:fight_p=0.5",
            "--sequential", "0.05", "--blocks", "1000", "--threads", "1",
            "--fight-points", "0"]  # fmt: skip
    whole = tmp_path / "whole"
    whole_run(*args, "--out", whole)
    out = tmp_path / "run"
    interrupt([*args], out, signal.SIGKILL, 3)
    done = run("tournament", "--resume", out)
    assert done.returncode == 0, done.stderr
    for name in ("seats.parquet", "games.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / name), pd.read_parquet(whole / name))
    assert (out / "summary.txt").read_text() == (whole / "summary.txt").read_text()
