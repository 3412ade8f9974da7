"""A Ctrl-C is never lost (issue 34): "CI once saw `test_interrupted_run_leaves_nothing[SIGINT]`
exit 0 after the Ctrl-C, as if the signal were lost; find the race (between the run's start and
its first chunk) and close it, with a test that sends the signal at many points of that window."

The race: Python raises the KeyboardInterrupt wherever the main thread is when the handler runs;
inside a finalizer (llvmlite runs thousands while numba loads or compiles the kernels, before the
first chunk) it is printed as "Exception ignored" and swallowed, and the run went on to publish
its results. `sim.core.interrupts` remembers the signal; the run stops at its next chunk boundary
and never publishes.
"""

from __future__ import annotations

import ast
import gc
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app
from sim.core import interrupts
from sim.core.runs import partial_dir

ENTRY = "import sys; from cli.entry import main; sys.argv[0] = 'abyss-mc'; main()"
SIMULATE = ["simulate", "--games", "30000", "--chunk-size", "1000", "--threads", "1", "--seed",
            "3"]  # fmt: skip


def sigint_caught(pid: int) -> bool:
    """Whether process `pid` catches SIGINT yet (``SigCgt`` of /proc/PID/status). Until the
    interpreter sets up its own handler, a SIGINT kills it silently, before any of its code ran:
    no program can answer that one (a loaded host starts it slowly)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    masks = [line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")]
    return not masks or bool(int(masks[0], 16) >> (signal.SIGINT - 1) & 1)


def before_the_entry_point(err: str) -> bool:
    """A KeyboardInterrupt raised before the console script's module ran (only ``<string>`` and
    the import machinery in its traceback): the interpreter's own handler, on a loaded host."""
    files = [line.split('"')[1] for line in err.splitlines() if line.strip().startswith('File "')]
    return "KeyboardInterrupt" in err and all(f == "<string>" or f.startswith("<frozen")
                                              for f in files)  # fmt: skip


def test_the_entry_point_imports_only_the_standard_library_before_its_handler() -> None:
    """`cli.entry` imports nothing at module level but `signal` and `sys`, so that its handler is
    in place before anything slow loads (the tests skip a signal that came even earlier)."""
    tree = ast.parse((Path(__file__).parents[2] / "cli" / "entry.py").read_text())
    names = {a.name for node in tree.body if isinstance(node, ast.Import) for a in node.names}
    names |= {node.module for node in tree.body if isinstance(node, ast.ImportFrom)}
    assert names <= {"__future__", "signal", "sys"}, names


#: a console script whose import of `sim.core.interrupts` meets Python's own Ctrl-C (a loaded CI
#: host: the signal came 50 ms in, while `threading` loaded)
_CTRL_C_WHILE_LOADING = """
import sys
class Finder:
    def find_spec(self, name, path=None, target=None):
        if name == "sim.core.interrupts":
            raise KeyboardInterrupt
sys.meta_path.insert(0, Finder())
from cli.entry import main
sys.argv[0] = "abyss-mc"
main()
"""


def test_a_ctrl_c_while_the_handler_loads_is_one_line() -> None:
    p = subprocess.run([sys.executable, "-c", _CTRL_C_WHILE_LOADING, "--help"],
                       capture_output=True, text=True, timeout=60)  # fmt: skip
    assert (p.returncode, p.stderr) == (130, "interrupted\n")


class _SignalsWhenCollected:
    """An object whose finalizer receives Ctrl-C: the KeyboardInterrupt cannot leave it."""

    def __del__(self) -> None:
        signal.raise_signal(signal.SIGINT)


def test_a_swallowed_ctrl_c_prints_no_traceback() -> None:
    """Python prints "Exception ignored ... Traceback" for the KeyboardInterrupt a finalizer
    swallows; the console script's handler keeps quiet (one line on stderr, issue 34)."""
    code = ("import gc, signal\n"
            "from sim.core import interrupts\n"
            "interrupts.install()\n"
            "class F:\n"
            "    def __del__(self):\n"
            "        signal.raise_signal(signal.SIGINT)\n"
            "F()\n"
            "gc.collect()\n"
            "print('received', interrupts.received())\n")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    assert done.stdout.strip() == "received True", done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


@pytest.fixture
def handler():
    """The console script's Ctrl-C handler, for this test only."""
    before = signal.getsignal(signal.SIGINT)
    interrupts.install()
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
        interrupts._received = False


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_ctrl_c_swallowed_by_a_finalizer_still_stops_the_run(tmp_path, handler, monkeypatch):
    from games.abyss.engine import fast

    play_into, calls = fast.play_into, {"n": 0}

    def first_chunk_swallows_a_ctrl_c(*args):
        calls["n"] += 1
        if calls["n"] == 1:
            obj = _SignalsWhenCollected()
            del obj  # the handler runs inside __del__: "Exception ignored ... KeyboardInterrupt"
            gc.collect()
        return play_into(*args)

    monkeypatch.setattr(fast, "play_into", first_chunk_swallows_a_ctrl_c)
    out = tmp_path / "run"
    result = CliRunner().invoke(app, [*SIMULATE, "--out", str(out)])
    assert interrupts.received()
    assert result.exit_code == 130, result.output
    assert not out.exists(), "an interrupted run was published"
    assert f"--resume {out}" in result.output
    assert calls["n"] == 1, "the run went on after the Ctrl-C"


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_swallowed_ctrl_c_never_publishes_a_run(tmp_path, handler) -> None:
    """Even one that came after the last chunk: `Staging.commit` checks too."""
    from sim.core.runs import create_run_dir

    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt), create_run_dir(out) as staging:
        (staging.dir / "x.txt").write_text("x")
        obj = _SignalsWhenCollected()
        del obj
        staging.commit()
    assert not out.exists()


@pytest.mark.parametrize(
    "delays",
    [[0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.5],
     pytest.param([0.1, 0.3, 0.5, 0.7, 0.9, 1.1, 1.3, 1.7, 2.0, 2.5], marks=pytest.mark.slow)],
    ids=["fast", "slow"],
)  # fmt: skip
def test_ctrl_c_anywhere_before_the_first_chunk_stops_the_run(tmp_path, delays) -> None:
    """Ctrl-C at many moments between the start and the first chunk: the run stops (exit 130),
    publishes nothing, and at most keeps its staging for --resume."""
    stopped = 0
    for k, delay in enumerate(delays):
        out = tmp_path / f"r{k}"
        p = subprocess.Popen(
            [sys.executable, "-c", ENTRY, *SIMULATE, "--out", str(out)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )  # fmt: skip
        time.sleep(delay)
        if p.poll() is not None:
            continue
        early = not sigint_caught(p.pid)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
        if out.exists():  # finished before the signal could be handled: only after its last chunk
            continue
        if early or before_the_entry_point(err):  # a loaded host: not yet the program's moment
            continue
        stopped += 1
        assert p.returncode == 130, err
        assert "Traceback" not in err, err
        kept = partial_dir(out)
        assert not kept.exists() or not any(kept.glob("*.parquet"))
    assert stopped >= len(delays) // 2, "too few signals landed inside the run to test anything"
