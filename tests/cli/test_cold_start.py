"""A first run before the fast path is compiled (issue 19: "Cold first run (empty cache,
`simulate --games 1000`) at most 45 s on a 2-core machine"): a run that finishes sooner on the
reference engine than the compile takes plays there, with the same results byte for byte, while
the fast path compiles in a detached background process for later runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from reports.runs import setup as c
from sim import games
from sim.core import firstrun, jit
from sim.core.forkpool import can_fork_workers

runner = CliRunner()


@pytest.fixture
def cold(monkeypatch):
    """A cache that has not compiled anything, whose background compiles are recorded, not run."""
    started: list[str] = []
    monkeypatch.delenv(firstrun.COLD_START_ENV, raising=False)
    monkeypatch.setattr(firstrun, "is_compiled", lambda label: False)
    monkeypatch.setattr(firstrun, "compile_in_background", started.append)
    return started


def _simulate(out: Path, *extra: str):
    result = runner.invoke(
        app, ["simulate", "--games", "30", "--players", "3", "--seed", "7", "--out", str(out),
              *extra],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return result, json.loads((out / "manifest.json").read_text())


def test_a_small_first_run_plays_on_the_reference_engine_with_the_same_results(
    cold, tmp_path
) -> None:
    result, manifest = _simulate(tmp_path / "first")
    assert cold == ["abyss"]
    assert manifest["config"]["engine"] == "reference"
    assert "the abyss fast path is not compiled yet: these 30 games play on the reference " \
        "engine" in result.output  # fmt: skip

    _, fast = _simulate(tmp_path / "fast", "--engine", "fast")
    assert fast["config"]["engine"] == "fast" and cold == ["abyss"]  # asked for: no cold start
    for name in ("seats.parquet", "games.parquet", "aggregates.npz", "summary.txt"):
        same = (tmp_path / "first" / name).read_bytes() == (tmp_path / "fast" / name).read_bytes()
        assert same, name


def test_a_run_longer_than_the_compile_compiles_in_the_foreground(cold) -> None:
    spec = games.get("abyss")
    assert c.cold_start_engine(spec, 4, 1_000_000) == "fast"  # (24,000 s over the cores)
    assert c.cold_start_engine(spec, 4, 1_000, threads=1) == "reference"  # 24 s; the compile 30 s
    assert cold == ["abyss"]
    assert c.cold_start_engine(spec, 4, 2_400, threads=1) == "fast"  # 58 s
    if can_fork_workers():  # on two forked workers (issue 54) twice the games in that time
        assert c.cold_start_engine(spec, 4, 2_400, threads=2) == "reference"  # 29 s


def test_a_search_seat_compiles_in_the_foreground(cold) -> None:
    """The search player's decisions are the compiled search's on either engine (docs/search.md):
    the reference engine would wait for the same compile, so a short run does not go there."""
    spec = games.get("abyss")
    policies = spec.strategies().make_policies(["search", "greedy"], 2)
    assert c.cold_start_engine(spec, 2, 10, policies) == "fast"
    assert c.cold_start_engine(spec, 2, 10, spec.strategies().make_policies(["greedy"], 2)) \
        == "reference"  # fmt: skip
    assert cold == ["abyss"]


def test_the_cold_start_can_be_turned_off(cold, monkeypatch) -> None:
    monkeypatch.setenv(firstrun.COLD_START_ENV, "compile")
    assert c.cold_start_engine(games.get("conspiracy"), 2, 10) == "fast"
    assert cold == []


def test_a_compiled_fast_path_is_used_at_once(cold, monkeypatch) -> None:
    monkeypatch.setattr(firstrun, "is_compiled", lambda label: True)
    assert c.cold_start_engine(games.get("abyss"), 2, 10) == "fast"
    assert cold == []


def test_one_background_compile_per_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(jit, "cache_dir", lambda: str(tmp_path / "cache"))
    with firstrun.compile_lock("abyss") as first:
        with firstrun.compile_lock("abyss") as second:
            assert first and not second
        with firstrun.compile_lock("conspiracy") as other:
            assert other
    with firstrun.compile_lock("abyss") as again:
        assert again  # released when the first compile ended


@pytest.mark.slow
def test_a_real_cold_start_compiles_in_the_background(tmp_path) -> None:
    """In a fresh cache: the first run plays on the reference engine and returns; the background
    compile finishes; the next run of the same games is on the fast path, silent, same bytes."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop(firstrun.COLD_START_ENV)
    cmd = [sys.executable, "-m", "cli.entry", "simulate", "--game", "conspiracy",
           "--games", "200", "--seed", "3"]  # fmt: skip
    first = subprocess.run([*cmd, "--out", str(tmp_path / "a")], env=env, capture_output=True,
                           text=True, check=True)  # fmt: skip
    assert "compiles in the background" in first.stderr
    marker = tmp_path / "cache" / "conspiracy.compiled"
    deadline = time.monotonic() + 600
    while not marker.exists():
        assert time.monotonic() < deadline, "the background compile did not finish"
        time.sleep(1)
    second = subprocess.run([*cmd, "--out", str(tmp_path / "b")], env=env, capture_output=True,
                            text=True, check=True)  # fmt: skip
    assert second.stderr == ""
    manifests = [json.loads((tmp_path / d / "manifest.json").read_text()) for d in "ab"]
    assert [m["config"]["engine"] for m in manifests] == ["reference", "fast"]
    assert (tmp_path / "a" / "seats.parquet").read_bytes() == \
        (tmp_path / "b" / "seats.parquet").read_bytes()  # fmt: skip
