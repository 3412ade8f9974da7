"""Shared test set-up.

Libraries must not write outside the project or the test's temporary directories: matplotlib gets
a non-interactive backend and a throw-away config directory. NUMBA_CACHE_DIR is deliberately left
alone (numba's on-disk cache is what keeps warm test runs fast), and fast runs compile in the
foreground.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
# Fast runs compile in the foreground: no detached background compiles while the suite runs (the
# cold start on the reference engine has its own tests, tests/cli/test_cold_start.py).
os.environ["ABYSS_MC_COLD_START"] = "compile"
# A scheduler that cannot be reached is given up after 2 s, not 10 (tests/cli/test_dask_backend.py).
os.environ["ABYSS_MC_DASK_TIMEOUT"] = "2"
_MPL_CONFIG_DIR = None
if "MPLCONFIGDIR" not in os.environ:
    _MPL_CONFIG_DIR = tempfile.mkdtemp(prefix="abyss-mc-mplconfig-")
    os.environ["MPLCONFIGDIR"] = _MPL_CONFIG_DIR


def pytest_unconfigure(config: pytest.Config) -> None:
    if _MPL_CONFIG_DIR is not None:
        shutil.rmtree(_MPL_CONFIG_DIR, ignore_errors=True)


@pytest.fixture
def tmp_run_root(tmp_path: Path) -> Path:
    """A fresh, empty directory to hold run directories (``<tmp>/runs``)."""
    root = tmp_path / "runs"
    root.mkdir()
    return root


#: Files whose first test compiles kernels that include the Abyss fast path's (the forked
#: rollouts): collected last, so that with `-n auto` another worker has compiled and cached the
#: shared functions before (a cold suite compiled them twice at once, measured).
LATE = ("tests/abyss/test_fork.py",)


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    items.sort(key=lambda item: any(item.nodeid.startswith(f.removeprefix("tests/"))
                                    or item.nodeid.startswith(f) for f in LATE))  # fmt: skip
