"""The first run's compile is announced (issue 19): "From the first second of a cold run, a line
on stderr says what is happening ..., also when the output is piped; a progress indication while
it lasts." Later runs say nothing."""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

import pytest

from sim.core import firstrun, jit


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(jit, "cache_dir", lambda: str(tmp_path / "cache"))
    monkeypatch.setattr(firstrun, "PIPED_EVERY", 0.05)
    return tmp_path / "cache"


def test_a_cold_compile_is_announced_at_once_and_ticks_when_piped(cache) -> None:
    out = io.StringIO()  # not a terminal: lines, not a carriage-return counter
    with firstrun.first_compile("abyss", 60, stream=out):
        assert out.getvalue().startswith("compiling the abyss fast path once, about 60 s")
        time.sleep(0.3)
    lines = out.getvalue().splitlines()
    assert any(line.startswith("  still compiling (") for line in lines[1:-1])
    assert lines[-1].startswith("compiled in ")
    assert firstrun.is_compiled("abyss") and not firstrun.is_compiled("conspiracy")

    again = io.StringIO()
    with firstrun.first_compile("abyss", 60, stream=again):
        pass
    assert again.getvalue() == ""


def test_a_failed_first_call_is_not_remembered(cache) -> None:
    out = io.StringIO()
    with pytest.raises(RuntimeError), firstrun.first_compile("abyss", 60, stream=out):
        raise RuntimeError("interrupted")
    assert not firstrun.is_compiled("abyss")


def slow_part() -> None:
    """A stand-in for a kernel's compile (`test_a_part_compiled_in_the_background...`)."""
    with firstrun.first_compile("slow part", 1, stream=io.StringIO()):
        time.sleep(1.5)


def test_a_part_compiled_in_the_background_is_waited_for_then_loaded(tmp_path,
                                                                      monkeypatch) -> None:
    """Issue 33: a part of a command that does not call the rest (Abyss's fight rollouts)
    compiles in a detached process while the command compiles its own; when the command reaches
    it, `first_compile` waits for that process instead of compiling it a second time."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(Path(__file__).parent), *sys.path]))
    firstrun.compile_part_in_background("slow part", "test_firstrun:slow_part")
    lock = tmp_path / "cache" / "slow part.compiling"
    deadline = time.monotonic() + 60
    while not lock.exists():  # the detached process has started and holds the lock
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.3)
    out = io.StringIO()
    t0 = time.monotonic()
    with firstrun.first_compile("slow part", 1, stream=out):
        pass
    assert time.monotonic() - t0 > 0.5  # it waited
    assert out.getvalue().startswith("waiting for the slow part, compiling in the background")
    assert "compiling the slow part" not in out.getvalue()  # and did not compile it again
    assert firstrun.is_compiled("slow part")


def test_nothing_to_wait_for_compiles_in_the_foreground(cache) -> None:
    out = io.StringIO()
    with firstrun.first_compile("other part", 1, stream=out):
        pass
    assert out.getvalue().startswith("compiling the other part")
