"""The Dask backend (issue 9): "results identical to the local backend for the same seed. CI
starts a local cluster on the loopback address and checks that equality."."""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from games.abyss.engine.aggregate import Aggregates

distributed = pytest.importorskip("distributed")

runner = CliRunner()
ARGS = ["--games", "3000", "--seed", "8", "--expansions", "leviathan", "--players", "5",
        "--strategies", "greedy,random,leviathan_hunter"]  # fmt: skip
#: Seconds to wait for a scheduler that cannot be reached (a closed port never answers: how
#: long is waited out changes nothing of the one line)
UNREACHABLE = "0.3"


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as c:
        yield c


def local_and_dask(tmp_path, cluster, args: list, *dask_args: str) -> tuple:
    """Run `args` locally and on the cluster (with `dask_args`); the two output directories."""
    local, remote = tmp_path / "local", tmp_path / "dask"
    assert runner.invoke(app, [*args, "--out", str(local)]).exit_code == 0
    result = runner.invoke(
        app, [*args, "--backend", "dask", "--scheduler", cluster.scheduler_address, *dask_args,
              "--out", str(remote)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return local, remote


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
def test_dask_errors_are_one_line(tmp_path, monkeypatch, args, message) -> None:
    monkeypatch.setenv("ABYSS_MC_DASK_TIMEOUT", UNREACHABLE)
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
    local, remote = local_and_dask(tmp_path, cluster, args, "--chunk-size", "300")
    for name in ("seats.parquet", "games.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(local / name), pd.read_parquet(remote / name))


@pytest.mark.parametrize("game", ["abyss", "conspiracy"])
def test_dask_tournament_gives_the_local_results(tmp_path, cluster, monkeypatch, game) -> None:
    """Issue 17: "`tournament` ... accept[s] --backend dask like simulate and sweep, with results
    identical to a local run (same bytes in the result tables)"."""
    from reports.play import tournament

    monkeypatch.setattr(tournament, "DASK_BLOCKS", 70)  # several tasks per player count
    args = ["tournament", "--game", game, "--players", "2,3", "--blocks", "200", "--seed", "6",
            "--fight-points", "0", "--no-report"]  # fmt: skip
    local, remote = local_and_dask(tmp_path, cluster, args)
    for name in ("seats.parquet", "games.parquet", "summary.txt"):
        assert (local / name).read_bytes() == (remote / name).read_bytes(), name
    if game == "abyss":
        for n in (2, 3):
            name = f"aggregates-{n}p.npz"
            assert Aggregates.load(local / name) == Aggregates.load(remote / name)


def test_dask_learn_gives_the_local_weights(tmp_path, cluster) -> None:
    """Issue 30: `learn` "on Dask like the other long commands": the search's games of each
    field and seat played on the cluster give the local weights and curve, byte for byte."""
    args = ["learn", "--players", "2", "--iterations", "1", "--games", "24", "--rollouts", "4",
            "--strength-games", "40", "--seed", "7"]  # fmt: skip
    local, remote = local_and_dask(tmp_path, cluster, args)
    for name in ("learned.npz", "curve.csv", "summary.txt"):
        assert (local / name).read_bytes() == (remote / name).read_bytes(), name


def test_dask_wilds_gives_the_local_results(tmp_path, cluster) -> None:
    """`simulate --game wilds --backend dask` plays on the cluster (it used to run locally
    whatever the option), with the local results."""
    args = ["simulate", "--game", "wilds", "--games", "900", "--seed", "3"]
    local, remote = local_and_dask(tmp_path, cluster, args, "--chunk-size", "250")
    pd.testing.assert_frame_equal(
        pd.read_parquet(local / "crystals.parquet"), pd.read_parquet(remote / "crystals.parquet")
    )
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "--game", "wilds", "--backend", "dask", "--scheduler",
          "tcp://127.0.0.1:9"], "cannot reach"),
        (["simulate", "--game", "wilds", "--engine", "reference"], "no --engine reference"),
        (["tournament", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9"],
         "cannot reach"),
        (["tournament", "--backend", "dask", "--sequential", "0.05"], "--sequential"),
        (["tournament", "--scheduler", "tcp://127.0.0.1:9"], "--scheduler needs --backend dask"),
    ],
)  # fmt: skip
def test_options_that_cannot_take_effect_are_refused(tmp_path, monkeypatch, args, message) -> None:
    """An option that is accepted must take effect, or be refused (one line, exit 2)."""
    monkeypatch.setenv("ABYSS_MC_DASK_TIMEOUT", UNREACHABLE)
    out = tmp_path / "run"
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith("error: ") and message in lines[-1], lines
    assert not out.exists()


def test_dask_tune_gives_the_local_results(tmp_path, cluster) -> None:
    """Issue 20: "a tune's evaluations spread over Dask workers with identical results"."""
    args = ["tune", "--strategy", "leviathan_hunter", "--against", "greedy", "--players", "3",
            "--games", "3000", "--candidates", "6", "--reeval-games", "600",
            "--heldout-games", "600", "--seed", "4"]  # fmt: skip
    local, remote = local_and_dask(tmp_path, cluster, args)
    for name in ("trace.parquet", "tuned.toml", "summary.txt"):
        assert (local / name).read_bytes() == (remote / name).read_bytes(), name
