"""The Dask backend (issue 9): "results identical to the local backend for the same seed. CI
starts a local cluster on the loopback address and checks that equality."."""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from reports.cli import app
from sim.abyss.aggregate import Aggregates

distributed = pytest.importorskip("distributed")

runner = CliRunner()
ARGS = ["--games", "3000", "--seed", "8", "--expansions", "leviathan", "--players", "5",
        "--strategies", "greedy,random,leviathan_hunter"]  # fmt: skip


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as c:
        yield c


def test_dask_backend_gives_the_local_results(tmp_path, cluster) -> None:
    local = tmp_path / "local"
    assert runner.invoke(app, ["simulate", *ARGS, "--out", str(local)]).exit_code == 0
    remote = tmp_path / "dask"
    result = runner.invoke(
        app,
        ["simulate", *ARGS, "--backend", "dask", "--scheduler", cluster.scheduler_address,
         "--chunk-size", "700", "--out", str(remote)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert Aggregates.load(local / "aggregates.npz") == Aggregates.load(remote / "aggregates.npz")
    for name in ("seats.parquet", "games.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(local / name), pd.read_parquet(remote / name))
    assert (local / "summary.txt").read_text() == (remote / "summary.txt").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--backend", "spark"], "--backend must be local or dask"),
        (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler needs --backend dask"),
        (["--backend", "dask", "--engine", "reference"], "runs the fast engine"),
        (["--backend", "dask", "--scheduler", "tcp://127.0.0.1:9"], "cannot reach"),
    ],
)
def test_dask_errors_are_one_line(tmp_path, args, message) -> None:
    out = tmp_path / "run"
    result = runner.invoke(app, ["simulate", "--games", "10", *args, "--out", str(out)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith("error: ") and message in lines[-1], lines
    assert not out.exists()


def test_dask_sweep_gives_the_local_results(tmp_path, cluster) -> None:
    args = ["sweep", "--set", "leviathan_game.hand_limit=8,14", "--games", "600", "--no-report"]
    local, remote = tmp_path / "local", tmp_path / "dask"
    assert runner.invoke(app, [*args, "--out", str(local)]).exit_code == 0
    result = runner.invoke(
        app, [*args, "--backend", "dask", "--scheduler", cluster.scheduler_address,
              "--out", str(remote)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for name in ("seats.parquet", "differences.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(local / name), pd.read_parquet(remote / name))


def test_dask_conspiracy_gives_the_local_results(tmp_path, cluster) -> None:
    args = ["simulate", "--game", "conspiracy", "--games", "2000", "--seed", "4"]
    local, remote = tmp_path / "local", tmp_path / "dask"
    assert runner.invoke(app, [*args, "--out", str(local)]).exit_code == 0
    result = runner.invoke(
        app, [*args, "--backend", "dask", "--scheduler", cluster.scheduler_address,
              "--chunk-size", "300", "--out", str(remote)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for name in ("seats.parquet", "games.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(local / name), pd.read_parquet(remote / name))
