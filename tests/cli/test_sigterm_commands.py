"""SIGTERM stops every command within seconds (issue 53).

`tests/cli/test_sigterm_phases.py` stops each phase of `tournament --report`; here the other
resumable commands, `simulate`, `sweep`, `tune`, `restrict`, `design` and `learn`, each stopped
by SIGTERM (kill, a batch scheduler) once it has stored its first chunk: a block of games, a
sweep point, a batch of candidates, a batch of cards, a search batch, an iteration. Each must
stop within seconds, with exit code 143 and one line on stderr (no traceback) that says how to
finish it, every finished chunk kept in the staging, nothing published and no process of it left
running; `sweep`, `design` and `learn` are then finished with `--resume`.

Each case starts a small run as a subprocess, waits until a finished chunk marker (`*.done`)
appears under the staging's `chunks/` (seen from outside, not by timing), sends SIGTERM and
times the exit. Each run goes on for 2-25 s past its first chunk (2-3 more chunks at least), so a
command that ignored the signal would run past the bound or finish and publish its results: both
fail the case. Checked on a
scratch copy whose subprocess replaced the SIGTERM handler by one that does nothing
(`interrupts.on_sigterm = lambda *a: None` before `cli.entry.main`): all six cases failed,
`simulate`, `tune` and `restrict` "still running 10 s later" (they ended 13-24 s after the
signal), `sweep`, `design` and `learn` with exit code 0 instead of 143.

Measured from SIGTERM to the exit, warm, on 2 cores also busy with another test run (3 runs):
simulate 0.42 s, sweep 0.37-0.47 s, tune 0.31-0.44 s, restrict 0.41-0.48 s, design 0.33-0.41 s,
learn 0.48-0.57 s; sent 0.5 s or 1 s after the first chunk instead (inside the next one),
simulate, tune, restrict and learn stopped in 0.36-0.63 s. The bound (10 s, as for the
tournament's phases) leaves room for a machine much slower. Every command stopped in one line,
with no traceback; none needed a fix.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path
from typing import NamedTuple

import pytest

from sim.core.runs import partial_dir
from tests.cli.test_sigterm_phases import (
    BOUND,
    REACH,
    Phase,
    alive,
    check_stopped,
    children,
    cli,
    markers,
    run,
    stop_in,
)

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="finds the command's child processes in /proc")  # fmt: skip


class Command(NamedTuple):
    """A command's small run (`--out` added) and whether the case finishes it with `--resume`.
    `args[0]` is the command."""

    args: list[str]
    resume: bool = False


#: Warm, each stores its first chunk in 1.5-3 s and would run several seconds more.
COMMANDS = {
    # chunks of about a second of games after a first of 256 (at 1.5 s); about 25 s in all
    "simulate": Command(["simulate", "--games", "300000", "--threads", "1", "--seed", "3"]),
    # a point a chunk, about 1 s each; 4 points
    "sweep": Command(["sweep", "--set", "leviathan_game.hand_limit=8,10,14", "--games", "4000",
                      "--threads", "1", "--no-report", "--seed", "3"], resume=True),
    # batches of candidates of about 1.5 s; 6 batches, then the finalists and the held-out check
    "tune": Command(["tune", "--strategy", "key_hunter", "--players", "3", "--expansions", "",
                     "--against", "greedy", "--games", "150000", "--candidates", "48",
                     "--reeval-games", "4000", "--heldout-games", "4000", "--threads", "1",
                     "--seed", "3"]),
    # the unrestricted baseline (1.5 s), then batches of 8 cards of about 1.5 s each
    "restrict": Command(["restrict", "--strategy", "key_hunter", "--players", "3", "--expansions",
                         "", "--blocks", "1000", "--threads", "1", "--seed", "3"]),
    # 3 search batches of about 0.8 s (the first at 2 s), the finalists, the confirmation: 5 s
    "design": Command(["design", "--players", "4", "--expansions", "", "--vary",
                       "rules.seat_4_pearls=0..6", "--vary", "rules.seat_3_pearls=0..6",
                       "--target", "seat_share:4>=0.99", "--candidates", "24", "--blocks", "400",
                       "--reeval-blocks", "600", "--retune-candidates", "8", "--threads", "1",
                       "--seed", "3"], resume=True),
    # an iteration a chunk (the base's strength first), about 1.5 s each
    "learn": Command(["learn", "--players", "2", "--iterations", "3", "--games", "4",
                      "--rollouts", "4", "--strength-games", "20", "--field", "greedy",
                      "--seed", "11"], resume=True),
}  # fmt: skip


@pytest.fixture(scope="module")
def warm(tmp_path_factory) -> None:
    """The fast path's and the search's kernels compiled into numba's cache, so that no case
    times a first compile: a few games, and one iteration of `learn`."""
    root = tmp_path_factory.mktemp("warm")
    for args in (["simulate", "--games", "20", "--threads", "1"],
                 ["learn", "--players", "2", "--iterations", "1", "--games", "2", "--rollouts",
                  "4", "--strength-games", "4", "--field", "greedy"]):  # fmt: skip
        done = run(*args, "--out", root / args[0])
        assert done.returncode == 0, done.stderr


@pytest.mark.usefixtures("warm")
@pytest.mark.parametrize("name", list(COMMANDS))
def test_sigterm_stops_the_command_within_seconds(tmp_path, name: str) -> None:
    command = COMMANDS[name]
    out = tmp_path / "run"
    staging = partial_dir(out)
    # begun once its first chunk is stored; what it writes at its end: the manifest
    stored = Phase(name, name, lambda staging, _pid: bool(markers(staging)), "manifest.json")
    stopped = stop_in(stored, out, command.args)
    print(f"{name}: stopped {stopped.seconds:.2f} s after SIGTERM")
    check_stopped(stored, out, stopped, name)
    if not command.resume:
        return
    done = run(name, "--resume", out)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert out.is_dir() and (out / "manifest.json").is_file(), "the resumed run was not published"
    assert not staging.exists(), "the staging is left after the resumed run"


def _terminated(p) -> str:
    """SIGTERM to the running command `p`; its stderr once it has exited (failed if it is
    still running `BOUND` seconds later)."""
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=BOUND)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail(f"still running {BOUND:.0f} s after SIGTERM")
    print(f"stopped {time.monotonic() - t0:.2f} s after SIGTERM")
    return err


def test_sigterm_stops_a_wilds_run_within_seconds(tmp_path) -> None:
    """A Wilds `simulate` is not resumable (its episodes take seconds per 100,000): SIGTERM in
    its episodes stops it within seconds, in one line saying nothing was kept, with nothing
    published or left behind. Its compiled loop is called in chunks of a third of a second, the
    interrupt checked between them (`games.wilds.report.crystals.local_runner`); before, one
    call per setting: `--games 1000000` exited 0.6-7.4 s after the signal, with no line. Here
    a setting's call is short (200,000 episodes, about a second), so the code before failed
    only on the line; that the runs use the chunks is the next test's."""
    warm = run("simulate", "--game", "wilds", "--games", "20", "--out", tmp_path / "warm")
    assert warm.returncode == 0  # compiled
    out = tmp_path / "run"
    p = cli("simulate", "--game", "wilds", "--games", "200000", "--threads", "1", "--out", out)
    deadline = time.monotonic() + REACH
    while not list(tmp_path.glob(".run.partial-*")):  # its staging: 15-25 s of episodes to go
        assert p.poll() is None and time.monotonic() < deadline, p.communicate()
        time.sleep(0.01)
    time.sleep(1.0)
    err = _terminated(p)
    assert p.returncode == 128 + signal.SIGTERM, err
    assert err.strip().splitlines() == [
        "interrupted: nothing was kept (this command does not resume): run it again"
    ], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["warm"]  # no run, staging or lock


def test_sigterm_stops_a_reference_run_and_its_workers(tmp_path) -> None:
    """A reference run of `FORK_MIN_GAMES` games or more plays on forked workers (the first run
    on a fresh machine plays so while the fast path compiles, issue 54). SIGTERM while they
    play stops it within seconds, in one line, with no worker left and nothing on disk. Checked
    on a scratch copy whose interrupt did not end the workers: the command was still running
    10 s after SIGTERM (its exit waited for each worker to finish its part)."""
    out = tmp_path / "run"
    p = cli("simulate", "--engine", "reference", "--games", "5000", "--threads", "2",
            "--seed", "3", "--out", out)  # (about a minute of games on two workers)
    deadline = time.monotonic() + REACH
    while len(workers := children(p.pid)) < 2:  # the workers, forked after the first game
        assert p.poll() is None and time.monotonic() < deadline, p.communicate()
        time.sleep(0.05)
    time.sleep(1.0)
    err = _terminated(p)
    assert p.returncode == 128 + signal.SIGTERM, err
    assert err.strip().splitlines()[-1] == (
        "interrupted: nothing was kept (this command does not resume): run it again"
    ), err
    deadline = time.monotonic() + 5  # (a worker's own exit after its parent's, at most 0.5 s)
    while (left := [w for w in workers if alive(w)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not left, "a worker outlived the command"
    assert list(tmp_path.iterdir()) == []


def test_the_chunked_episodes_are_the_one_call_and_stop_between_chunks(monkeypatch) -> None:
    """`local_runner` gives the arrays of one call of the compiled loop, and stops at the first
    chunk boundary once a signal was remembered (a SIGTERM Python could not raise in the loop)."""
    import numpy as np

    from games.wilds.engine.kernel import run_episodes
    from games.wilds.report import crystals
    from sim import games
    from sim.core import interrupts

    t = games.get("wilds").load_cards(None, None)
    monkeypatch.setattr(crystals, "CHUNK_EPISODES", 7)
    for strike in (0, 3):
        whole, chunked = (
            run_episodes(t, 5, np.arange(30), strike),
            crystals.local_runner(t, 5, np.arange(30), strike),
        )
        assert all(np.array_equal(a, b) for a, b in zip(whole, chunked, strict=True))
    calls = []
    monkeypatch.setattr(crystals.KN, "run_episodes", lambda *a: calls.append(a) or whole)
    monkeypatch.setattr(interrupts, "_received", signal.SIGTERM)
    with pytest.raises(SystemExit):
        crystals.local_runner(t, 5, np.arange(30), 0)
    assert calls == []


def test_a_wilds_run_plays_its_episodes_in_chunks(monkeypatch) -> None:
    """Every call of the compiled loop in a Wilds run (`run_analysis`, as `simulate` and a
    sweep's points make it) is at most `CHUNK_EPISODES` episodes: a SIGTERM waits for one chunk
    at most. Failed on a copy whose runs called the loop once per setting."""
    from games.wilds.report import crystals
    from sim import games

    real, sizes = crystals.KN.run_episodes, []

    def recorded(t, seed, episodes, strike_value=0):
        sizes.append(len(episodes))
        return real(t, seed, episodes, strike_value)

    monkeypatch.setattr(crystals, "CHUNK_EPISODES", 16)
    monkeypatch.setattr(crystals.KN, "run_episodes", recorded)
    frame = crystals.run_analysis(games.get("wilds").load_cards(None, None), 3, 40)
    assert len(sizes) == 3 * crystals.RUNS_PER_EPISODE and max(sizes) == 16
    assert frame["episode"].nunique() == 40


def test_sigterm_outside_a_run_says_interrupted(tmp_path) -> None:
    """A command that makes no run (`bench`), or one stopped before its run starts, ends a
    SIGTERM with `interrupted` on stderr (before: exit 143 without a word)."""
    p = cli("bench", "--games", "2000000", "--reference-games", "100000")
    first = p.stderr.readline()  # "reference engine: ... games": they take minutes
    assert first.startswith("reference engine"), first
    time.sleep(0.5)
    err = _terminated(p)
    assert p.returncode == 128 + signal.SIGTERM, err
    assert err.strip().splitlines()[-1] == "interrupted", err
    assert "Traceback" not in err


def test_a_wilds_sweep_point_plays_its_episodes_in_chunks(monkeypatch) -> None:
    """The same for a Wilds sweep's points (`sweep_run`), which play one setting each."""
    from games.wilds import report as wilds
    from games.wilds.report import crystals

    real, sizes = crystals.KN.run_episodes, []
    monkeypatch.setattr(crystals, "CHUNK_EPISODES", 16)
    monkeypatch.setattr(crystals.KN, "run_episodes",
                        lambda t, seed, e, v=0: sizes.append(len(e)) or real(t, seed, e, v))
    load, play_point, _ = wilds.sweep_run(games=40, seed=3, cards=None, base=[])
    seats, games_ = play_point(load({}))
    assert sizes == [16, 16, 8] and len(games_) == 40


def test_a_wilds_run_too_large_fails_before_its_first_episode(monkeypatch) -> None:
    """The episodes' arrays are made whole first: where they cannot be, the run fails before
    it plays (not after minutes of episodes)."""
    import numpy as np

    from games.wilds.report import crystals
    from sim import games

    calls = []
    monkeypatch.setattr(crystals.KN, "run_episodes", lambda *a: calls.append(a))

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(crystals.np, "empty", no_memory)
    with pytest.raises(MemoryError):
        crystals.local_runner(games.get("wilds").load_cards(None, None), 1, np.arange(10**6))
    assert calls == []


def test_another_exit_of_a_run_that_does_not_resume_says_nothing(tmp_path, capsys) -> None:
    """`interrupted: nothing was kept` is for a signal received, never for another exit of a
    run that does not resume (a `SystemExit(3)` from inside it)."""
    from reports.run_dir import Run

    with pytest.raises(SystemExit):
        with Run.start("simulate", tmp_path / "r", 1, resumable=False):
            raise SystemExit(3)
    assert "interrupted" not in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
