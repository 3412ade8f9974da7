"""The first run's compile is announced (issue 19): "From the first second of a cold run, a line
on stderr says what is happening ..., also when the output is piped; a progress indication while
it lasts." Later runs say nothing."""

from __future__ import annotations

import io
import time

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
