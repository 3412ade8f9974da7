"""numba's cache directory and optimisation level stay as `sim.core.jit` sets them, also when numba
was imported first: numba re-reads its NUMBA_* variables before a compile when they changed, and
would then cache next to the sources, where a stale caller survives an edit (numba-notes,
trap 7)."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import numba
from sim.core import jit
@numba.njit
def f(x):
    return x + 1
f(1)
print(numba.config.CACHE_DIR == jit.cache_dir(), int(numba.config.OPT))
"""


def test_numba_imported_first_keeps_the_cache_directory_and_level() -> None:
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("NUMBA_")}
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True,
                          text=True, check=True)  # fmt: skip
    assert done.stdout.split() == ["True", "1"]
