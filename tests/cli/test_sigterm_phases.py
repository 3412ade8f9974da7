"""SIGTERM stops every phase within seconds (issue 53).

`abyss-mc tournament --report` plays in phases (`reports.runs.tournament.Phases`): the
tournament of each play strength (hand-written presets, tuned, learned), the fight-or-explore
rollouts, the card values (restricted play), then the report (its charts in a pool of worker
processes). A SIGTERM (kill, a batch scheduler) in any of them must stop the command within
seconds, with one line on stderr (no traceback) that says how to finish it, every finished chunk
kept in the staging, and `--resume` must then finish the run with the uninterrupted results.

Each case starts a small run as a subprocess, waits until its phase has begun, seen from outside
(a finished chunk of the phase's own chunk store, the file the phase before writes last, or the
report's worker processes running), sends SIGTERM and times the exit. A phase that ignored the
signal would either run past the bound or finish: each case also checks that what the phase
writes at its end is not there, so the signal landed (and stopped the run) inside that phase.

What the cases found: a SIGTERM during the report could be swallowed by a finalizer
(matplotlib's, while a figure was pickled for the chart pool) and the report ran to its end, 17
and 27 s, before the run stopped (the report now checks at each section, table and figure it
adds: `reports.render.report`); and `--resume` of a run stopped after the fight rollouts failed,
"File exists (.../fight_or_explore)" (`reports.runs.tournament._clear_results`). CI later saw the
report case still running 600 s after its signal: it had landed while the chart pool forked its
workers (`tests/core/test_render.py` makes that moment certain); and a signal during matplotlib's
first import surfaced as another error, with exit 130 and no word of `--resume` (the last test).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from sim.core.runs import partial_dir

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="finds the report's worker processes in /proc")  # fmt: skip

ENTRY = "import sys; from cli.entry import main; sys.argv[0] = 'abyss-mc'; main()"
#: A small run whose phases each last a second or more (35-45 s warm on 2 cores, 15-20 of them
#: the report): a tournament plays a first chunk of 256 blocks, then chunks of about 1 s.
ARGS = ["tournament", "--report", "--players", "4", "--blocks", "400", "--fight-points", "200",
        "--card-blocks", "60", "--threads", "1", "--seed", "3"]  # fmt: skip
#: Seconds from SIGTERM to the exit. Measured on 2 cores (also busy with another test run):
#: 0.4-0.8 s in the tournaments, fight rollouts and card values (a chunk ends), 1.5-4.5 s in
#: the report (the exit waits for the charts already sent to its pool); the bound leaves room
#: for a machine twice as slow.
BOUND = 10.0
#: How long a run may take to reach a phase (a cold numba cache compiles first: minutes).
REACH = 600.0


def cli(*args) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", ENTRY, *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # a shell without job control starts background jobs with SIGINT ignored; undo that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip


def run(*args) -> subprocess.CompletedProcess:
    p = cli(*args)
    out, err = p.communicate(timeout=REACH)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


@pytest.fixture(scope="module")
def warm(tmp_path_factory) -> None:
    """Every kernel the run plays compiled into numba's cache (about 7 s warm), so that no case
    times a first compile: a small run of every phase but the report (which plays no game)."""
    done = run("tournament", "--no-report", "--strengths", "learned", "--card-blocks", "2",
               "--players", "4", "--blocks", "8", "--fight-points", "16", "--threads", "1",
               "--out", tmp_path_factory.mktemp("warm") / "run")  # fmt: skip
    assert done.returncode == 0, done.stderr


def children(pid: int) -> set[int]:
    """The processes whose parent is `pid` (the report's chart pool)."""
    found = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:  # gone meanwhile
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(d.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def markers(staging: Path, part: str = "") -> list[Path]:
    chunks = staging / "chunks" / part
    return sorted(chunks.rglob("*.done")) if chunks.is_dir() else []


class Phase(NamedTuple):
    """A phase (its name in the manifest's `timings.phases`; `id`, the test's), when it has
    begun (staging, the run's pid), what it writes at its end (a path in the staging) and its
    chunk store."""

    id: str
    name: str
    begun: Callable[[Path, int], bool]
    writes: str
    part: str = ""


def chunk_of(part: str) -> Callable[[Path, int], bool]:
    return lambda staging, pid: bool(markers(staging, part))


def report_pool(staging: Path, pid: int) -> bool:
    """The report has begun (the manifest is written just before it) and its pool is up."""
    return (staging / "manifest.json").is_file() and bool(children(pid))


PHASES = [
    Phase("tournament", "4p tournament", chunk_of("4p"), "seats.parquet", "4p"),
    Phase("fight-rollouts", "extras (fight rollouts)",
          lambda s, pid: (s / "summary.txt").is_file(), "fight_or_explore"),  # (tables written)
    Phase("tuned", "tuned: 4p tournament", chunk_of("tuned-4p"), "strengths/tuned",
          "tuned-4p"),
    Phase("learned", "learned: 4p tournament", chunk_of("learned-4p"), "strengths/learned",
          "learned-4p"),
    Phase("card-values", "hand-written: card values", chunk_of("cards-hand-written"),
          "card_values/hand-written", "cards-hand-written"),
    Phase("learned-card-values", "learned: card values", chunk_of("cards-learned"),
          "card_values/learned", "cards-learned"),
    Phase("report", "the report", report_pool, "report/report.html"),
]  # fmt: skip


class Stopped(NamedTuple):
    seconds: float  # from SIGTERM to the exit
    returncode: int
    stderr: str
    kept: list[Path]  # the chunk markers finished when the signal was sent
    left: set[int]  # the run's worker processes (when the signal was sent) alive after its exit


def stop_in(phase: Phase, out: Path, args: list = ARGS) -> Stopped:
    """Start the run, SIGTERM it once `phase` has begun, wait for the exit (at most `BOUND`)."""
    p = cli(*args, "--out", out)
    staging = partial_dir(out)
    deadline = time.monotonic() + REACH
    try:
        while not (staging.is_dir() and phase.begun(staging, p.pid)):
            if p.poll() is not None or time.monotonic() > deadline:
                p.kill()
                _, err = p.communicate()
                pytest.fail(f"the run never reached {phase.name!r} (exit {p.returncode}): {err}")
            time.sleep(0.01)
        kept, workers = markers(staging), children(p.pid)
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=BOUND)
        except subprocess.TimeoutExpired:
            p.wait(timeout=REACH)
            pytest.fail(f"SIGTERM in {phase.name!r}: still running {BOUND:.0f} s later "
                        f"(exited after {time.monotonic() - t0:.1f} s)")  # fmt: skip
        seconds = time.monotonic() - t0
        left = {w for w in workers if alive(w)}
        for w in left:  # (a worker left running would hold the pipes open)
            os.kill(w, signal.SIGKILL)
        _, err = p.communicate(timeout=REACH)
        return Stopped(seconds, p.returncode, err, kept, left)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()


def check_stopped(phase: Phase, out: Path, stopped: Stopped, command: str = "tournament") -> None:
    staging = partial_dir(out)
    assert not stopped.left, f"worker processes left running after the exit: {stopped.left}"
    assert stopped.seconds < BOUND
    assert stopped.returncode == 128 + signal.SIGTERM, stopped.stderr
    assert "Traceback" not in stopped.stderr and "Exception ignored" not in stopped.stderr, (
        stopped.stderr
    )
    assert (
        stopped.stderr.strip().splitlines()[-1]
        == f"interrupted: finish the run with `abyss-mc {command} --resume {out}`"
    ), stopped.stderr
    assert not out.exists(), "an interrupted run was published"
    assert not (staging / phase.writes).exists(), f"{phase.name!r} went on to its end"
    assert stopped.kept, "no chunk was finished before the signal: nothing kept to check"
    lost = [m for m in stopped.kept if not m.is_file()]
    assert not lost, f"finished chunks lost: {lost}"
    if phase.part:
        assert markers(staging, phase.part), "the phase's own finished chunks are kept"


#: What a case changes of `ARGS` to reach its phase sooner: the phases before it only lead up to
#: it, so they are made as small as they can be (one chunk of blocks where the phase plays none
#: of them, no fight rollouts, no play strength or card values that it does not follow). The
#: phase itself is as in `ARGS` (and in the slow tier's resumed runs).
LEAD_UP = {
    "fight-rollouts": {"--blocks": "100"},
    "tuned": {"--fight-points": "0"},
    "learned": {"--fight-points": "0"},
    "card-values": {"--blocks": "100", "--fight-points": "0", "--strengths": "none"},
    "learned-card-values": {"--blocks": "100", "--fight-points": "0"},
    "report": {"--blocks": "100", "--fight-points": "0", "--strengths": "none",
               "--card-blocks": "0"},
}  # fmt: skip


def reaching(phase_id: str) -> list[str]:
    """`ARGS` with the options of `LEAD_UP[phase_id]` instead (or added)."""
    args = list(ARGS)
    for option, value in LEAD_UP.get(phase_id, {}).items():
        if option in args:
            args[args.index(option) + 1] = value
        else:
            args += [option, value]
    return args


@pytest.mark.usefixtures("warm")
@pytest.mark.parametrize("phase", PHASES, ids=[p.id for p in PHASES])
def test_sigterm_stops_the_phase_within_seconds(tmp_path, phase: Phase) -> None:
    out = tmp_path / "run"
    stopped = stop_in(phase, out, reaching(phase.id))
    check_stopped(phase, out, stopped)
    print(f"{phase.name}: stopped {stopped.seconds:.2f} s after SIGTERM")


@pytest.mark.usefixtures("warm")
def test_sigkill_in_the_report_leaves_no_worker_holding_the_run(tmp_path) -> None:
    """SIGKILL (a batch scheduler's escalation, the out-of-memory killer) cannot be answered; but
    the report's chart workers once lived on after it, holding the run's lock, and `--resume`
    was refused ("in use by a running process") until they were killed by hand. Now they end
    with the command and hold no lock."""
    import fcntl

    out = tmp_path / "run"
    p = cli(*reaching("report"), "--out", out)
    staging, deadline = partial_dir(out), time.monotonic() + REACH
    try:
        while not (staging.is_dir() and report_pool(staging, p.pid)):
            assert p.poll() is None and time.monotonic() < deadline, "never reached the report"
            time.sleep(0.01)
        workers = children(p.pid)
        p.kill()
        p.wait()
    finally:
        if p.poll() is None:
            p.kill()
        p.stdout.close()  # (not read: a worker left running holds the pipes open)
        p.stderr.close()
    lock = staging.parent / f".{out.name}.lock"
    fd = os.open(lock, os.O_RDWR)
    try:  # free at once: no worker holds it
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)
    deadline = time.monotonic() + BOUND
    while {w for w in workers if alive(w)} and time.monotonic() < deadline:
        time.sleep(0.05)
    left = {w for w in workers if alive(w)}
    for w in left:
        os.kill(w, signal.SIGKILL)
    assert not left, "the report's workers outlived the command"


# ------------------------------------------------------------------------------ --resume
#: A run without the report and the learned tier (about 10 s): what the fight rollouts wrote is
#: in the staging when the tuned tier's tournament is stopped.
SMALL = ["tournament", "--no-report", "--strengths", "tuned", "--card-blocks", "0",
         "--players", "4", "--blocks", "400", "--fight-points", "100", "--threads", "1",
         "--seed", "3"]  # fmt: skip


@pytest.mark.usefixtures("warm")
def test_a_run_stopped_after_its_fight_rollouts_resumes(tmp_path) -> None:
    """`--resume` of a run stopped after its fight rollouts failed in one line, "File exists
    (.../fight_or_explore)": the rollouts (played again, they have no chunks) made their folder
    anew. The resumed run now writes every result again from a clean staging."""
    out = tmp_path / "run"
    tuned = next(p for p in PHASES if p.id == "tuned")
    check_stopped(tuned, out, stop_in(tuned, out, SMALL))
    assert (partial_dir(out) / "fight_or_explore").is_dir()
    done = run("tournament", "--resume", out)
    assert done.returncode == 0, done.stderr
    assert not partial_dir(out).exists()
    assert (out / "fight_or_explore").is_dir() and (out / "strengths" / "tuned").is_dir()


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    """The uninterrupted run; its phases are those of `PHASES`, in that order."""
    import json

    out = tmp_path_factory.mktemp("whole") / "run"
    done = run(*ARGS, "--out", out)
    assert done.returncode == 0, done.stderr
    played = list(json.loads((out / "manifest.json").read_text())["timings"]["phases"])
    assert [p for p in played if p in {q.name for q in PHASES}] == [q.name for q in PHASES]
    return out


def results(out: Path) -> dict[str, bytes]:
    """The results compared: every table and array, the summaries and the report's verdicts
    (not the manifests and rollout.json, which hold times, nor the report's pages, which hold
    the command line)."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and (p.suffix in (".parquet", ".npz")
                                or p.name in ("summary.txt", "verdicts.txt"))}  # fmt: skip


#: The phases a resumed run is compared after: the first (all replayed), the fight rollouts
#: (not chunked), the card values (issue 53's) and the report (its pool).
RESUMED = [p for p in PHASES if p.id in ("tournament", "fight-rollouts", "card-values", "report")]


@pytest.mark.slow  # (the whole run twice: about 90 s on 2 busy cores)
@pytest.mark.usefixtures("warm")
@pytest.mark.parametrize("phase", RESUMED, ids=[p.id for p in RESUMED])
def test_resume_after_sigterm_gives_the_uninterrupted_results(tmp_path, whole, phase) -> None:
    """The run stopped in `phase` resumes from its chunks to the very results of the
    uninterrupted run."""
    out = tmp_path / "run"
    check_stopped(phase, out, stop_in(phase, out))
    done = run("tournament", "--resume", out)
    assert done.returncode == 0, done.stderr
    assert not partial_dir(out).exists() and (out / "report" / "report.html").is_file()
    mine, reference = results(out), results(whole)
    assert sorted(mine) == sorted(reference)
    assert [name for name in mine if mine[name] != reference[name]] == []


# ------------------------------------------------------------------- the report's safe points
class _SigtermWhenCollected:
    """An object whose finalizer receives SIGTERM: the SystemExit cannot leave it."""

    def __del__(self) -> None:
        signal.raise_signal(signal.SIGTERM)


@pytest.fixture
def handlers():
    """The console script's SIGINT and SIGTERM handlers, for this test only."""
    from sim.core import interrupts

    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    hook = sys.unraisablehook
    interrupts.install()
    signal.signal(signal.SIGTERM, interrupts.on_sigterm)
    try:
        yield interrupts
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        sys.unraisablehook = hook
        interrupts._received = False


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("part", ["section", "table", "figure"])
def test_a_sigterm_swallowed_by_a_finalizer_stops_the_report(handlers, part) -> None:
    """What the report case saw in 2 runs of 6: the SIGTERM landed in a finalizer (matplotlib's,
    while a figure was pickled for the chart pool), its SystemExit was swallowed, and the report
    ran to its end (27 s) before the run stopped. The report has no chunks; each section, table
    and figure it adds is a safe point that raises the remembered signal."""
    import gc

    import pandas as pd

    from reports.render.report import Report, new_figure

    report = Report("t")
    section = report.section("s")
    obj = _SigtermWhenCollected()
    del obj
    gc.collect()
    assert handlers.received()
    add = {"section": lambda: report.section("next"),
           "table": lambda: section.table(pd.DataFrame({"x": [1]})),
           "figure": lambda: section.figure(new_figure(), "f")}[part]  # fmt: skip
    with pytest.raises(SystemExit) as stopped:
        add()
    assert stopped.value.code == 128 + signal.SIGTERM


class _SigtermWhenNamed:
    """A class attribute that receives SIGTERM as its class is made (`__set_name__`, as
    matplotlib's `_axis_method_wrapper` runs while the report's first figure imports it)."""

    def __set_name__(self, owner, name) -> None:
        signal.raise_signal(signal.SIGTERM)


@pytest.mark.parametrize("resumable", [True, False])
def test_a_sigterm_that_surfaces_as_another_error_still_stops_the_run(
    handlers, tmp_path, capsys, resumable
) -> None:
    """What the report case saw in 4 runs of 8 (signal 0.7 s into the report): Python 3.11 wraps
    the SystemExit raised in a `__set_name__` in RuntimeError, and the command ended with exit
    130, a bare "interrupted" and no word of `--resume`. A run that received the signal now takes
    any error it ends with for it: the line that says how to finish it, exit 143, the staging
    kept."""
    from reports.run_dir import Run
    from sim.core.runs import partial_dir

    out = tmp_path / "run"
    with pytest.raises(SystemExit) as stopped:
        with Run.start("tournament", out, 1, {"seed": 1}, resumable=resumable) as run:
            (run.dir / "chunks").mkdir()
            type("Axes", (), {"get_autoscalex_on": _SigtermWhenNamed()})
    assert stopped.value.code == 128 + signal.SIGTERM
    err = capsys.readouterr().err.strip().splitlines()
    if resumable:
        assert err == [f"interrupted: finish the run with `abyss-mc tournament --resume {out}`"]
        assert partial_dir(out).is_dir()
    else:
        assert err == ["interrupted: nothing was kept (this command does not resume): run it again"]
        assert not partial_dir(out).exists()
    assert not out.exists()
