"""Shared test set-up.

Libraries must not write outside the project or the test's temporary directories: matplotlib gets
a non-interactive backend and a throw-away config directory. NUMBA_CACHE_DIR is deliberately left
alone (numba's on-disk cache is what keeps warm test runs fast). Fast runs compile in the
foreground; only the session's start sends the Abyss kernels called apart to be compiled by two
processes of their own (`compile_apart_ahead`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
# Fast runs compile in the foreground: the commands start no detached compiles of their own (the
# cold start on the reference engine has its own tests, tests/cli/test_cold_start.py).
os.environ["ABYSS_MC_COLD_START"] = "compile"
# A scheduler that cannot be reached is given up after 2 s, not 10 (tests/cli/test_dask_backend.py).
os.environ["ABYSS_MC_DASK_TIMEOUT"] = "2"
_MPL_CONFIG_DIR = None
if "MPLCONFIGDIR" not in os.environ:
    _MPL_CONFIG_DIR = tempfile.mkdtemp(prefix="abyss-mc-mplconfig-")
    os.environ["MPLCONFIGDIR"] = _MPL_CONFIG_DIR


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # once: the controller, or a run without workers
        compile_apart_ahead()


def compile_apart_ahead() -> None:
    """A cold cache: the Abyss kernels that every fast test calls apart (`sim.core.apart`: the
    rules' whole game; the decisions' entry and Leviathan's phases) start compiling in two
    processes of their own, side by side, while the first tests run; a test that needs one
    waits for its lock and loads it. Otherwise the first worker to need them compiled the
    three one after the other while the other worker waited for the same locks, idle
    (docs/benchmarks.md, 2026-12-07 (13:00)). Skipped once a fast run marked the cache; a cold
    run of a few tests starts them too, and they finish compiling (about 40 s) after it ends."""
    from sim.core.firstrun import is_compiled

    if is_compiled("abyss"):
        return
    from sim.core.apart import compile_in_background

    compile_in_background("games.abyss.engine.kernel.game", ["_whole_game"])
    compile_in_background("games.abyss.engine.kernel.base", ["choose", "leviathan"])


def pytest_unconfigure(config: pytest.Config) -> None:
    if _MPL_CONFIG_DIR is not None:
        shutil.rmtree(_MPL_CONFIG_DIR, ignore_errors=True)


@pytest.fixture
def tmp_run_root(tmp_path: Path) -> Path:
    """A fresh, empty directory to hold run directories (``<tmp>/runs``)."""
    root = tmp_path / "runs"
    root.mkdir()
    return root
