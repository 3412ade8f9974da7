"""Fault injection: runs never lose, mix or misreport data (issue 17).

Each fault ends with results identical to an uninterrupted run, or with a clear one-line refusal,
and every completed chunk still on disk. docs/reliability.md lists the faults and these tests.

Faults: SIGKILL at random moments; a full disk (ENOSPC) while a chunk is written; a flipped bit, a
truncated file or a marker without checksums in a stored chunk; a crafted chunk holding pickled
objects; card data edited before ``--resume``; two runs on one ``--out``; a kill between
publishing a run and removing its scaffolding; a sequential tournament killed just after its
comparison is decided. For ``simulate``, ``tournament`` and ``sweep``.
"""

from __future__ import annotations

import errno
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_ctrl_c import before_the_entry_point, sigint_caught
from test_resume import cli, copy_staging, interrupt, run, whole_run
from typer.testing import CliRunner

from cli.app import app
from sim.core import chunks as chunks_module
from sim.core.runs import Staging, partial_dir

SIMULATE = ["simulate", "--games", "24000", "--chunk-size", "2000", "--threads", "1", "--seed",
            "7"]  # fmt: skip
TOURNAMENT = ["tournament", "--players", "3", "--blocks", "3000", "--strategies",
              "greedy,random,farmer", "--threads", "1", "--fight-points", "0",
              "--no-report"]  # fmt: skip
#: 4 points of 2,000 games, one chunk each
SWEEP = ["sweep", "--set", "leviathan_game.hand_limit=8,10,14", "--games", "2000", "--threads",
         "1", "--no-report"]  # fmt: skip
COMMANDS = {"simulate": SIMULATE, "tournament": TOURNAMENT, "sweep": SWEEP}
#: Variants that repeat a fault on another command or moment run in the slow tier (`-m slow`),
#: so that the fast tier stays under 5 minutes on 2 cores (issue 19); each fault and each
#: command keeps at least one case in the fast tier.
SLOW = pytest.mark.slow
RESULTS = {
    "simulate": ("seats.parquet", "games.parquet", "summary.txt", "aggregates.npz"),
    "tournament": ("seats.parquet", "games.parquet", "summary.txt"),
    "sweep": ("seats.parquet", "games.parquet", "differences.parquet", "summary.txt"),
}


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """Each command's uninterrupted run (in this process)."""
    root = tmp_path_factory.mktemp("whole")
    for name, args in COMMANDS.items():
        whole_run(*args, "--out", root / name)
    return root


@pytest.fixture(scope="module")
def cuts(tmp_path_factory):
    """Each command's run killed (SIGKILL) after 3 finished chunks, made once when a test first
    asks for it (`copy_staging`): the staging the tests copy and damage."""
    root, made = tmp_path_factory.mktemp("cut"), {}

    def staging(command: str) -> Path:
        if command not in made:
            interrupt(COMMANDS[command], root / command, signal.SIGKILL, 3)
            made[command] = partial_dir(root / command)
        return made[command]

    return staging


def same_results(out: Path, reference: Path, command: str) -> None:
    """The run's result files hold exactly the uninterrupted run's data."""
    for name in RESULTS[command]:
        a, b = out / name, reference / name
        if name.endswith(".parquet"):
            pd.testing.assert_frame_equal(pd.read_parquet(a), pd.read_parquet(b))
        elif name.endswith(".npz"):
            with np.load(a) as x, np.load(b) as y:
                assert sorted(x.files) == sorted(y.files)
                for k in x.files:
                    assert np.array_equal(x[k], y[k]), k
        else:
            assert a.read_text() == b.read_text(), name
    assert (out / "manifest.json").is_file()
    assert not list(out.rglob("*.tmp")), "no temporary file left in a finished run"
    assert not (out / "chunks").exists() and not (out / "plan.json").exists()


def done_markers(out: Path) -> list[Path]:
    return sorted((partial_dir(out) / "chunks").rglob("*.done"))


def finish(out: Path, command: str) -> subprocess.CompletedProcess:
    done = run(command, "--resume", out)
    assert done.returncode == 0, done.stderr
    return done


# ------------------------------------------------------------------------------ SIGKILL
@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("trial", [0, pytest.param(1, marks=SLOW)])
def test_sigkill_at_a_random_moment(tmp_path, whole, command, trial) -> None:
    """A kill at a random moment (before or after chunks were stored) loses nothing: `--resume`
    (or, if the kill came before the run had a plan, a new run) gives the uninterrupted
    results."""
    delay = random.Random(f"{command}-{trial}").uniform(0.5, 6.0)
    out = tmp_path / "run"
    p = cli(*COMMANDS[command], "--out", out)
    time.sleep(delay)
    if p.poll() is None:
        p.send_signal(signal.SIGKILL)
    p.communicate(timeout=600)
    if not out.exists():
        if (partial_dir(out) / "plan.json").is_file():
            finish(out, command)
        else:  # killed before its plan existed: nothing was done, start again
            shutil.rmtree(partial_dir(out), ignore_errors=True)
            assert run(*COMMANDS[command], "--out", out).returncode == 0
    same_results(out, whole / command, command)


# ------------------------------------------------------------------------ corrupt chunks
def flip_bit(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 3])


def forget_checksums(marker: Path) -> None:
    marker.write_text("")


@pytest.mark.parametrize(
    ("fault", "command"),
    [  # each fault and each command in the fast tier; every pair in the slow one
        ("flip", "tournament"), ("truncate", "simulate"), ("no-checksum", "tournament"),
        pytest.param("flip", "simulate", marks=SLOW),
        pytest.param("truncate", "tournament", marks=SLOW),
        pytest.param("no-checksum", "simulate", marks=SLOW),
    ],
)  # fmt: skip
def test_a_corrupt_chunk_is_never_merged(tmp_path, whole, cuts, command, fault) -> None:
    """A chunk whose file or marker was damaged is not merged: a one-line warning names it, it
    and the chunks after it are kept in quarantine/, they are played again, and the results are
    the uninterrupted run's."""
    out = copy_staging(cuts(command), tmp_path / "run")
    markers = done_markers(out)
    assert len(markers) >= 3
    victim = markers[1]
    files = sorted(p for p in victim.parent.iterdir() if p.name.startswith(victim.name[:12]))
    data = [p for p in files if not p.name.endswith(".done")]
    {"flip": lambda: flip_bit(data[0]), "truncate": lambda: truncate(data[-1]),
     "no-checksum": lambda: forget_checksums(victim)}[fault]()  # fmt: skip
    # the damaged chunk is moved, not deleted, before anything is merged
    store = chunks_module.ChunkStore(victim.parent, warn=lambda m: None)
    assert len(store.completed()) == 1
    kept = [p.name for p in (victim.parent / "quarantine").rglob("*")]
    assert victim.name in kept and all(p.name in kept for p in data)
    finish(out, command)
    same_results(out, whole / command, command)


def test_the_warning_names_the_bad_chunk(tmp_path, cuts) -> None:
    out = copy_staging(cuts("simulate"), tmp_path / "run")
    victim = done_markers(out)[1]
    first = int(victim.name[:12])
    flip_bit(next(p for p in victim.parent.glob(f"{victim.name[:12]}-*") if p.suffix == ".npz"))
    done = finish(out, "simulate")
    lines = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(lines) == 1 and f"games {first}-" in lines[0] and "checksum" in lines[0]


def test_a_crafted_pickle_chunk_is_refused_without_running_it(tmp_path, cuts) -> None:
    """No result file is ever loaded with pickle: a chunk holding a pickled object (with a marker
    whose checksum matches, as an attacker would write it) is refused in one line, and the
    object's code never runs."""
    out = copy_staging(cuts("simulate"), tmp_path / "run")
    marker = done_markers(out)[0]
    columns = marker.parent / f"{marker.name[:12]}-columns.npz"
    proof = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (Path.touch, (proof,))

    np.savez(columns.with_suffix(".tmp.npz"), s_strategy=np.array([Evil()], dtype=object))
    columns.with_suffix(".tmp.npz").replace(columns)
    sums = json.loads(marker.read_text())
    sums["sha256"]["columns.npz"] = chunks_module.file_sha256(columns)
    marker.write_text(json.dumps(sums))
    done = run("simulate", "--resume", out)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "not plain arrays" in done.stderr
    assert not proof.exists()
    assert columns.exists(), "the finished chunks stay on disk"


def test_no_result_is_loaded_with_pickle() -> None:
    root = Path(__file__).resolve().parents[2]
    sources = [p for d in ("sim", "strategies", "reports") for p in (root / d).rglob("*.py")]
    assert not [p for p in sources if "allow_pickle=True" in p.read_text()]


# -------------------------------------------------------------------------- full disk
def enospc_on_chunk(monkeypatch, after: int) -> None:
    """Every chunk save after the first `after` fails with ENOSPC while writing its first file."""
    save = chunks_module.ChunkStore.save
    calls = {"n": 0}

    def failing(self, first, n, writers):
        calls["n"] += 1
        if calls["n"] > after:
            name = next(iter(writers))
            raise OSError(errno.ENOSPC, "No space left on device", str(self.path(first, name)))
        return save(self, first, n, writers)

    monkeypatch.setattr(chunks_module.ChunkStore, "save", failing)


@pytest.mark.parametrize("command", ["simulate", "tournament", pytest.param("sweep", marks=SLOW)])
def test_a_full_disk_keeps_the_finished_chunks(tmp_path, whole, monkeypatch, command) -> None:
    """ENOSPC while a chunk is written: one line naming the problem and how to finish the run,
    the finished chunks kept; `--resume` (with room again) gives the uninterrupted results."""
    out = tmp_path / "run"
    enospc_on_chunk(monkeypatch, after=1)
    result = CliRunner().invoke(app, [*COMMANDS[command], "--out", str(out)])
    assert result.exit_code == 2, result.output
    error = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and "No space left on device" in error[0]
    assert f"--resume {out}" in error[0]
    assert len(done_markers(out)) == 1, "the finished chunk is kept"
    monkeypatch.undo()
    finish(out, command)
    same_results(out, whole / command, command)


def test_out_of_memory_keeps_the_finished_chunks(tmp_path, monkeypatch) -> None:
    """Issue 53: a run that runs out of memory once chunks are finished says so in one line,
    with how to finish it; the finished chunks are kept."""
    save = chunks_module.ChunkStore.save
    calls = {"n": 0}

    def failing(self, first, n, writers):
        calls["n"] += 1
        if calls["n"] > 1:
            raise MemoryError
        return save(self, first, n, writers)

    monkeypatch.setattr(chunks_module.ChunkStore, "save", failing)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, [*COMMANDS["simulate"], "--out", str(out)])
    assert result.exit_code == 2, result.output
    error = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and "not enough memory" in error[0] and f"--resume {out}" in error[0]
    assert len(done_markers(out)) == 1, "the finished chunk is kept"


# ------------------------------------------------------------------- mixed runs refused
@pytest.mark.parametrize(
    "command",
    ["simulate", pytest.param("tournament", marks=SLOW), pytest.param("sweep", marks=SLOW)],
)
def test_card_data_edited_before_resume_is_refused(tmp_path, command) -> None:
    """Editing the card data between an interrupt and `--resume` would mix two games: refused in
    one line naming what changed; the finished chunks stay on disk, and the original data
    resumes."""
    from games.abyss.engine.cards.loader import default_data_dir

    cards = tmp_path / "cards"
    shutil.copytree(default_data_dir(), cards)
    out = tmp_path / "run"
    interrupt([*COMMANDS[command], "--cards", cards], out, signal.SIGKILL, 1)
    before = done_markers(out)
    lords = cards / "lords.toml"
    original = lords.read_text()
    lords.write_text(original.replace("ip = 10", "ip = 11", 1))
    done = run(command, "--resume", out)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "card data and rules options changed" in done.stderr
    assert done_markers(out) == before
    lords.write_text(original)
    finish(out, command)


def test_presets_edited_before_resume_are_refused(tmp_path) -> None:
    presets = tmp_path / "mine.toml"
    presets.write_text('[mine]\npolicy = "greedy"\nfight_p = 0.6\n')
    out = tmp_path / "run"
    interrupt([*SIMULATE, "--presets", presets, "--strategies", "mine,greedy"], out,
              signal.SIGKILL, 1)  # fmt: skip
    presets.write_text('[mine]\npolicy = "greedy"\nfight_p = 0.7\n')
    done = run("simulate", "--resume", out)
    assert done.returncode == 2 and "the presets changed" in done.stderr


# ------------------------------------------------------------------------ one output
def test_a_second_run_on_the_same_out_stops_at_once(tmp_path, whole) -> None:
    """Two runs on one --out: the second stops at once, saying the output is in use by a running
    process; the first finishes unharmed."""
    out = tmp_path / "run"
    first = cli(*SIMULATE, "--out", out)
    deadline = time.time() + 120
    while not partial_dir(out).exists() and time.time() < deadline:
        time.sleep(0.01)
    if first.poll() is not None:
        pytest.skip("the first run finished before the second started")
    t0 = time.time()
    second = run(*SIMULATE, "--out", out)
    assert time.time() - t0 < 60
    assert second.returncode == 2
    assert "in use by a running process" in second.stderr and second.stderr.count("\n") == 1
    _, err = first.communicate(timeout=600)
    assert first.returncode == 0, err
    same_results(out, whole / "simulate", "simulate")


def test_a_kill_after_publishing_never_loses_the_run(tmp_path, whole, monkeypatch) -> None:
    """The run is published before its scaffolding is removed: a kill in between leaves the
    complete run (with its scaffolding), never a lost one."""

    def killed_after_publish(self, scaffolding=()):
        original_commit(self)  # published, scaffolding still there
        raise SystemExit(137)  # as a kill would stop it here

    original_commit = Staging.commit
    monkeypatch.setattr(Staging, "commit", killed_after_publish)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, [*SIMULATE, "--out", str(out)])
    assert result.exit_code != 0
    assert (out / "summary.txt").read_text() == (whole / "simulate" / "summary.txt").read_text()
    assert not partial_dir(out).exists()


# ------------------------------------------------------------- sequential tournaments
def test_sequential_tournament_killed_just_after_the_decision(tmp_path, monkeypatch) -> None:
    """A sequential tournament whose deciding chunk was stored just before a kill resumes to the
    blocks the uninterrupted run played (it does not play on)."""
    args = ["tournament", "--players", "2", "--strategies", "greedy,random", "--sequential",
            "0.05", "--blocks", "5000", "--threads", "1", "--fight-points", "0",
            "--no-report"]  # fmt: skip
    whole = tmp_path / "whole"
    assert run(*args, "--out", whole).returncode == 0
    original_commit = Staging.commit

    def killed_before_publish(self, scaffolding=()):
        raise SystemExit(137)  # as a kill would stop it here

    monkeypatch.setattr(Staging, "commit", killed_before_publish)
    out = tmp_path / "run"
    CliRunner().invoke(app, [*args, "--out", str(out)])
    assert not out.exists() and done_markers(out)
    monkeypatch.setattr(Staging, "commit", original_commit)
    finish(out, "tournament")
    for name in ("seats.parquet", "games.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / name), pd.read_parquet(whole / name))
    assert (out / "summary.txt").read_text() == (whole / "summary.txt").read_text()


# ------------------------------------------------------------------------------ Ctrl-C
@pytest.mark.parametrize("delay", [0.05, 0.15, 0.3, 1.0, 2.5])
def test_ctrl_c_at_any_moment_is_one_line(tmp_path, delay) -> None:
    """Ctrl-C at any moment, also while the modules load (the first fraction of a second),
    prints one line and no traceback, through the installed console script's entry point."""
    code = "import sys; from cli.entry import main; sys.argv[0] = 'abyss-mc'; main()"
    p = subprocess.Popen(
        [sys.executable, "-c", code, *SIMULATE, "--out", str(tmp_path / "run")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(delay)
    early = not sigint_caught(p.pid)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=300)
    if p.returncode == 0:
        pytest.skip("the run finished before the signal")
    if early or "Fatal Python error: init_import_site" in err:  # a loaded machine
        pytest.skip("the signal came while the interpreter itself started")
    if before_the_entry_point(err):  # (test_ctrl_c checks that the entry point loads nothing)
        pytest.skip("the signal came before the console script's module ran")
    assert "Traceback" not in err, err
    # besides the first compile's announcement (sim.core.firstrun), one line
    told = [line for line in err.splitlines() if line.strip() and not _compile_note(line)]
    assert len(told) == 1, err


def _compile_note(line: str) -> bool:
    return line.startswith(("compiling the ", "  still compiling", "compiled in "))


def test_ctrl_c_during_the_first_compile_is_one_line(tmp_path) -> None:
    """Ctrl-C while the fast path compiles into an empty cache: llvmlite's half-made objects
    must not print "Exception ignored ... Traceback" as the process ends."""
    code = "import sys; from cli.entry import main; sys.argv[0] = 'abyss-mc'; main()"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.Popen(
        [sys.executable, "-c", code, *SIMULATE, "--engine", "fast", "--out", str(tmp_path / "r")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    time.sleep(2.0)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
