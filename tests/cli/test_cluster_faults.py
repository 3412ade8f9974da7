"""A run on a cluster never loses finished work (issue 34).

"Tests that start a real scheduler and worker processes on 127.0.0.1 (as CI can), kill the
scheduler at several moments, and check: one line, staging kept with the chunks that arrived,
`--resume` identical to a local run." A dead worker, a restarted one, and a full disk on the
client while a chunk is stored are faults too.
"""

from __future__ import annotations

import errno
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from games.abyss.engine.aggregate import Aggregates
from sim.core.runs import partial_dir

distributed = pytest.importorskip("distributed")

#: 120 chunks of 250 games (the chunks' count, not their games, makes the moments to kill at;
#: a chunk's games are a few hundredths of a second of the run's 2-4 s on the cluster)
SIMULATE = ["simulate", "--games", "30000", "--chunk-size", "250", "--seed", "13",
            "--players", "3", "--strategies", "greedy,random,farmer"]  # fmt: skip
ENTRY = "import sys; from cli.entry import main; sys.argv[0] = 'abyss-mc'; main()"


def abyss_mc(*args, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", ENTRY, *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **kw,
    )  # fmt: skip


def finish(*args) -> subprocess.CompletedProcess:
    p = abyss_mc(*args)
    out, err = p.communicate(timeout=600)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


DASK = Path(sys.executable).parent / "dask"


def dask_worker(address: str) -> subprocess.Popen:
    return subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-nanny",
                             "--no-dashboard"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip


class Cluster:
    """A scheduler and worker processes on 127.0.0.1, each its own process (so each can be
    killed as a machine would fail)."""

    def __init__(self, root: Path, workers: int = 2) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.file = root / "scheduler.json"
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        self.scheduler = subprocess.Popen(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", self.file], **quiet,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while not self.file.is_file() or not self.file.read_text().strip():
            assert time.monotonic() < deadline, "the scheduler never started"
            time.sleep(0.1)
        self.address = json.loads(self.file.read_text())["address"]
        self.workers = [dask_worker(self.address) for _ in range(workers)]
        with distributed.Client(self.address, timeout="30s") as c:
            c.wait_for_workers(workers, timeout=60)

    def close(self) -> None:
        for p in [*self.workers, self.scheduler]:
            if p.poll() is None:
                p.kill()
            p.wait()


@pytest.fixture
def cluster(tmp_path):
    """A cluster of this test's own, whose scheduler it kills."""
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def healthy(tmp_path_factory):
    """A cluster shared by the tests that never kill its scheduler (a worker killed is replaced
    before the test ends): started once, its workers' kernels loaded once."""
    c = Cluster(tmp_path_factory.mktemp("healthy"))
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("local") / "run"
    done = finish(*SIMULATE, "--out", out)
    assert done.returncode == 0, done.stderr
    return out


def chunks_kept(out: Path) -> int:
    return len(list((partial_dir(out) / "chunks").rglob("*.done")))


def wait_for_chunks(p: subprocess.Popen, out: Path, n: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while chunks_kept(out) < n:
        assert p.poll() is None, p.communicate()[1]
        assert time.monotonic() < deadline, "no chunk arrived"
        time.sleep(0.02)


def wait_for_tasks(p: subprocess.Popen, cluster: Cluster, timeout: float = 300) -> None:
    """Until the run has handed its chunks to the scheduler (before most have finished)."""
    deadline = time.monotonic() + timeout
    with distributed.Client(cluster.address, timeout="30s") as c:
        while not c.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)):
            assert p.poll() is None, p.communicate()[1]
            assert time.monotonic() < deadline, "the run never submitted its chunks"
            time.sleep(0.02)


def assert_same_run(out: Path, whole: Path) -> None:
    assert Aggregates.load(out / "aggregates.npz") == Aggregates.load(whole / "aggregates.npz")
    for name in ("seats.parquet", "games.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / name), pd.read_parquet(whole / name))
    assert (out / "summary.txt").read_text() == (whole / "summary.txt").read_text()


def told(err: str) -> list[str]:
    """What the run said on stderr, besides the first compile's announcement."""
    notes = ("compiling the ", "  still compiling", "compiled in ")
    return [line for line in err.splitlines() if line.strip() and not line.startswith(notes)]


# (the third moment repeats the second's fault with more chunks stored: the slow tier, as the
# repeated faults of test_faults.py)
@pytest.mark.parametrize("after_chunks", [0, 3, pytest.param(12, marks=pytest.mark.slow)])
def test_a_lost_scheduler_keeps_every_chunk_that_arrived(tmp_path, cluster, local_run,
                                                         after_chunks) -> None:  # fmt: skip
    out = tmp_path / "run"
    p = abyss_mc(*SIMULATE, "--backend", "dask", "--scheduler", cluster.address, "--out", out)
    if after_chunks:
        wait_for_chunks(p, out, after_chunks)
    else:  # connected, its chunks on the cluster
        wait_for_tasks(p, cluster)
    cluster.scheduler.kill()
    _, err = p.communicate(timeout=180)
    if p.returncode == 0:
        pytest.skip("the run finished before the scheduler died")
    lines = told(err)
    assert p.returncode != 0 and len(lines) == 1, err
    assert "Traceback" not in err
    assert "Dask" in lines[0] and f"--resume {out}" in lines[0], lines[0]
    assert not out.exists()
    kept = chunks_kept(out)
    assert kept >= after_chunks, "a chunk that had arrived was lost"
    assert f"the {kept} finished chunk(s) are kept" in lines[0]
    done = finish("simulate", "--resume", out)  # here, on the local backend
    assert done.returncode == 0, done.stderr
    assert_same_run(out, local_run)


TOURNAMENT = ["tournament", "--players", "3", "--blocks", "8000", "--strategies",
              "greedy,random,farmer", "--fight-points", "0", "--no-report", "--seed", "4"]


def test_a_tournament_keeps_its_chunks_when_the_scheduler_is_lost(tmp_path, cluster) -> None:
    whole = tmp_path / "whole"
    done = finish(*TOURNAMENT, "--out", whole)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "run"
    p = abyss_mc(*TOURNAMENT, "--backend", "dask", "--scheduler", cluster.address, "--out", out)
    wait_for_chunks(p, out, 3)
    cluster.scheduler.kill()
    _, err = p.communicate(timeout=180)
    if p.returncode == 0:
        pytest.skip("the run finished before the scheduler died")
    lines = told(err)
    assert len(lines) == 1 and f"abyss-mc tournament --resume {out}" in lines[0], err
    assert chunks_kept(out) >= 3
    done = finish("tournament", "--resume", out)
    assert done.returncode == 0, done.stderr
    for name in ("seats.parquet", "games.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / name), pd.read_parquet(whole / name))
    assert (out / "summary.txt").read_text() == (whole / "summary.txt").read_text()


def test_a_run_lost_on_one_cluster_finishes_on_another(tmp_path, healthy, local_run) -> None:
    out = tmp_path / "run"
    first = Cluster(tmp_path / "first")
    try:
        p = abyss_mc(*SIMULATE, "--backend", "dask", "--scheduler", first.address, "--out", out)
        wait_for_chunks(p, out, 5)
        first.scheduler.kill()
        p.communicate(timeout=180)
    finally:
        first.close()
    if out.exists():
        pytest.skip("the run finished before the scheduler died")
    done = finish("simulate", "--resume", out, "--backend", "dask", "--scheduler",
                  healthy.address)  # (another cluster: its own scheduler and workers)
    assert done.returncode == 0, done.stderr
    assert_same_run(out, local_run)


def test_a_killed_worker_and_a_restarted_one_lose_nothing(tmp_path, healthy, local_run) -> None:
    """A worker killed while the run's chunks are on it, and a new one started while the run
    goes on (the other worker is stopped until the new one has joined, so the run cannot end
    before): every chunk is played once, the results are the local run's."""
    out = tmp_path / "run"
    p = abyss_mc(*SIMULATE, "--backend", "dask", "--scheduler", healthy.address, "--out", out)
    wait_for_chunks(p, out, 3)
    other = healthy.workers[1]
    other.send_signal(signal.SIGSTOP)
    try:
        with distributed.Client(healthy.address, timeout="30s") as c:
            before = set(c.scheduler_info()["workers"])
            healthy.workers[0].send_signal(signal.SIGKILL)
            healthy.workers[0].wait()
            healthy.workers[0] = dask_worker(healthy.address)
            deadline = time.monotonic() + 60
            while len(now := set(c.scheduler_info()["workers"])) < 2 or now == before:
                assert time.monotonic() < deadline, "the restarted worker never joined"
                time.sleep(0.05)
        assert p.poll() is None, "the run ended before its worker was killed"
    finally:
        other.send_signal(signal.SIGCONT)
    _, err = p.communicate(timeout=600)
    assert p.returncode == 0, err
    assert_same_run(out, local_run)


def test_a_full_disk_while_a_chunk_is_stored_keeps_the_others(tmp_path, healthy, local_run,
                                                               monkeypatch) -> None:  # fmt: skip
    """The client's disk fills while it stores an arrived chunk: one line, the stored chunks
    kept, and the resumed run is the uninterrupted one."""
    from typer.testing import CliRunner

    from cli.app import app
    from sim.core import chunks as chunks_module

    save, calls = chunks_module.ChunkStore.save, {"n": 0}

    def failing(self, first, n, writers):
        calls["n"] += 1
        if calls["n"] > 5:
            raise OSError(errno.ENOSPC, "No space left on device", str(self.path(first, "x")))
        return save(self, first, n, writers)

    monkeypatch.setattr(chunks_module.ChunkStore, "save", failing)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, [*SIMULATE, "--backend", "dask", "--scheduler",
                                      healthy.address, "--out", str(out)])  # fmt: skip
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert "No space left on device" in lines[0] and f"--resume {out}" in lines[0]
    assert chunks_kept(out) == 5
    monkeypatch.undo()
    done = finish("simulate", "--resume", out, "--backend", "dask", "--scheduler", healthy.address)
    assert done.returncode == 0, done.stderr
    assert_same_run(out, local_run)


@pytest.mark.parametrize(
    "address", ["tcp://127.0.0.1:9", "not an address", "tcp://256.1.1.1:8786"]
)
def test_a_bad_scheduler_address_is_one_line(tmp_path, monkeypatch, address) -> None:
    monkeypatch.setenv("ABYSS_MC_DASK_TIMEOUT", "0.3")  # (a closed port: not 2 s waited out)
    out = tmp_path / "run"
    done = finish(*SIMULATE, "--backend", "dask", "--scheduler", address, "--out", out)
    assert done.returncode == 2, done.stderr
    assert told(done.stderr) == [told(done.stderr)[0]] and "Traceback" not in done.stderr
    assert told(done.stderr)[0].startswith("error: cannot reach the Dask scheduler")
    assert not out.exists() and not partial_dir(out).exists()


# ----------------------------------------------- every command that runs on Dask, in process
# A lost cluster injected at the k-th call of `map_chunks` (the one funnel of every command to
# the cluster), on a cluster of threads in this process (so that the tiny test game's module is
# there too): each command says it in one line, keeps what it finished, and `--resume` gives the
# uninterrupted local results.

@pytest.fixture(scope="module")
def threads_cluster():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as c:  # fmt: skip
        yield c


@pytest.fixture
def tiny():
    from tiny_game import SPEC

    from sim import games

    games.register(SPEC)
    yield SPEC
    games._EXTRA.pop("tiny", None)


COMMANDS = {
    "sweep": (["sweep", "--set", "leviathan_game.hand_limit=8,10,14", "--games", "600",
               "--no-report"], ["seats.parquet", "differences.parquet"]),
    "restrict": (["restrict", "--strategy", "key_hunter", "--players", "3", "--expansions", "",
                  "--blocks", "40", "--seed", "3"], ["impact.parquet"]),
    "tune": (["tune", "--game", "tiny", "--strategy", "aim", "--players", "2", "--against",
              "best", "--seed", "5", "--games", "8000", "--candidates", "20", "--reeval-games",
              "2000", "--heldout-games", "2000"], ["trace.parquet"]),
}  # fmt: skip


def lose_cluster_at_call(monkeypatch, k: int) -> dict:
    from sim.core import dask_backend
    from sim.core.errors import ClusterLost

    real, calls = dask_backend.map_chunks, {"n": 0}

    def mapped(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == k:
            raise ClusterLost("the Dask cluster at tcp://127.0.0.1:1 was lost "
                              "(scheduler-connection-lost)")  # fmt: skip
        return real(*args, **kwargs)

    monkeypatch.setattr(dask_backend, "map_chunks", mapped)
    return calls


@pytest.mark.slow
@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_dask_command_keeps_its_work_when_the_cluster_is_lost(
    tmp_path, threads_cluster, tiny, monkeypatch, command
) -> None:
    from typer.testing import CliRunner

    from cli.app import app

    args, files = COMMANDS[command]
    runner = CliRunner()
    whole = tmp_path / "whole"
    assert runner.invoke(app, [*args, "--out", str(whole)]).exit_code == 0
    dask = ["--backend", "dask", "--scheduler", threads_cluster.scheduler_address]
    calls = lose_cluster_at_call(monkeypatch, 3)
    out = tmp_path / "run"
    result = runner.invoke(app, [*args, *dask, "--out", str(out)])
    assert calls["n"] >= 3, "the command never reached the cluster three times"
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert "was lost" in lines[0] and f"abyss-mc {command} --resume {out}" in lines[0]
    assert chunks_kept(out) >= 1
    monkeypatch.undo()
    resumed = runner.invoke(app, [command, "--resume", str(out)])
    assert resumed.exit_code == 0, resumed.output
    for name in files:
        pd.testing.assert_frame_equal(pd.read_parquet(out / name), pd.read_parquet(whole / name))


@pytest.mark.slow
def test_a_wilds_run_that_loses_its_cluster_says_run_it_again(tmp_path, threads_cluster,
                                                              monkeypatch) -> None:  # fmt: skip
    from typer.testing import CliRunner

    from cli.app import app

    lose_cluster_at_call(monkeypatch, 2)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["simulate", "--game", "wilds", "--games", "900",
                                      "--backend", "dask", "--scheduler",
                                      threads_cluster.scheduler_address, "--out", str(out)])
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert "was lost" in lines[0] and "run it again" in lines[0]
    assert not out.exists() and not any(tmp_path.glob(".run.partial*"))
