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


CALLED_APART = """
import numpy as np
from sim.core.apart import called_apart
from sim.core.jit import njit

@njit(cache=True)
def kernel(s, a, b, c):
    s[0] += a + 2 * b + 3 * c
    return s[0] - 1

stub = called_apart(kernel)

@njit(cache=True)
def caller(s, a):
    return stub(s, a, np.int32(2), 3) + stub(s, 0, 0, 0)

from sim.core import apart

caller.compile("(int32[::1], int64)")
entry = apart._REGISTRY[stub.apart_symbol]
before = entry.c_func is None  # the caller compiled (or loaded), not the kernel
s = np.zeros(3, np.int32)
print(caller(s, 1), stub(s, 1, 1, 1), *s, caller.stats.cache_hits and 'hit' or 'compiled',
      before, entry.c_func.cache_hits)
"""


def test_a_kernel_called_apart_is_the_kernel_and_its_callers_load_from_the_cache(tmp_path):
    """`sim.core.apart.called_apart`: the stub returns what the kernel returns and changes the
    workspace as it does; the kernel compiles at its first call, not with its caller; a second
    process loads its caller from the cache, the cell found again (a caller that linked a stale
    address would crash or differ)."""
    import os

    (tmp_path / "prog.py").write_text(CALLED_APART)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": os.getcwd()}
    runs = [subprocess.run([sys.executable, str(tmp_path / "prog.py")], env=env,
                           capture_output=True, text=True, check=True).stdout.split()
            for _ in range(2)]  # fmt: skip
    # caller: 1 + 4 + 9 = 14, returns 13, then +0: 13; total 26; stub: 14 + 6 = 20, returns 19
    assert runs[0] == ["26", "19", "20", "0", "0", "compiled", "True", "0"]
    assert runs[1] == ["26", "19", "20", "0", "0", "hit", "True", "1"]


def test_a_kernel_called_apart_compiles_ahead_in_another_process(tmp_path):
    """`python -m sim.core.apart MODULE NAME`: a second process compiles the kernel a stub calls
    apart into the cache (the registry is the imported module's); a first call then loads it."""
    import os

    (tmp_path / "stubs.py").write_text(CALLED_APART.split("caller.compile")[0])
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), os.getcwd()])}  # fmt: skip
    subprocess.run([sys.executable, "-m", "sim.core.apart", "stubs", "stub"], env=env,
                   check=True, capture_output=True)  # fmt: skip
    probe = ("import numpy as np, stubs; from sim.core import apart; "
             "stubs.stub(np.zeros(3, np.int32), 1, 0, 0); "
             "print(apart._REGISTRY[stubs.stub.apart_symbol].c_func.cache_hits)")
    loaded = subprocess.run([sys.executable, "-c", probe], env=env, check=True,
                            capture_output=True, text=True)  # fmt: skip
    assert loaded.stdout.split() == ["1"]  # the kernel came from the cache


def test_a_signal_a_finalizer_swallowed_stops_the_next_compile():
    """`sim.core.interrupts`: a Ctrl-C (or SIGTERM) remembered but swallowed stops numba before
    the next function it compiles, not a minute later at the run's next chunk."""
    import signal

    import pytest

    from sim.core import interrupts
    from sim.core.jit import njit

    for signum, raised in ((signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, SystemExit)):

        @njit
        def fresh(x):
            return x + 1

        interrupts._received = signum
        try:
            with pytest.raises(raised):
                fresh(1)
        finally:
            interrupts._received = False
        assert fresh(1) == 2  # and compiles once the signal is handled


def test_a_signal_during_a_compile_called_from_compiled_code_is_left_for_the_next_check():
    """A kernel called apart compiles inside a ctypes callback, through which an exception
    cannot unwind (before, a Ctrl-C there ended the run with "could not compile", exit 70):
    `interrupts_deferred` remembers a Ctrl-C or SIGTERM there, the run's next check raises it,
    and the handlers are the run's again after the block."""
    import os
    import signal

    import pytest

    from sim.core import interrupts
    from sim.core.jit import interrupts_deferred

    interrupts.install()
    signal.signal(signal.SIGTERM, interrupts.on_sigterm)
    try:
        for signum, raised in ((signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, SystemExit)):
            try:
                with interrupts_deferred():
                    os.kill(os.getpid(), signum)
                    for _ in range(1000):  # Python runs the handler between bytecodes
                        pass
            except (KeyboardInterrupt, SystemExit):
                pytest.fail(f"signal {signum} was raised inside the block")
            assert interrupts.received()
            with pytest.raises(raised):
                interrupts.raise_if_interrupted()
            interrupts._received = False
        assert signal.getsignal(signal.SIGINT) is interrupts._on_sigint
        assert signal.getsignal(signal.SIGTERM) is interrupts.on_sigterm
    finally:
        interrupts._received = False
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


COMPILES = """
import sys
from numba.core import event
from sim.core.jit import njit_ints

class Count(event.Listener):
    n = 0
    def on_start(self, e):
        Count.n += 1
    def on_end(self, e):
        pass

event.register("numba:compile", Count())

@njit_ints
def added(s, a):
    return s[0] + a

print(Count.n)
"""


def test_processes_compiling_at_import_at_once_compile_each_function_once(tmp_path) -> None:
    """Four processes importing a kernel at once on an empty cache (a cold run's background
    compiles, the test workers' collection): one compiles it, the others wait for its lock and
    load it from the cache, so it is compiled once, not four times (`sim.core.jit.njit_ints`)."""
    import os

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    program = tmp_path / "added.py"  # a file of its own: numba caches what a file defines
    program.write_text(COMPILES)
    runs = [subprocess.Popen([sys.executable, str(program)], env=env, stdout=subprocess.PIPE,
                             text=True) for _ in range(4)]  # fmt: skip
    compiled = [int(p.communicate(timeout=120)[0].split()[-1]) for p in runs]
    assert sum(n > 0 for n in compiled) == 1, compiled


def test_a_compile_at_import_waits_for_the_process_that_holds_its_lock(tmp_path, monkeypatch):
    """`_one_at_a_time` does not enter while another process holds the function's lock, enters
    once it is released, and goes on without a lock where none can be taken (no directory for
    it, or a file system that refuses `flock`)."""
    import fcntl
    import threading

    from sim.core import jit

    def fn():
        pass

    monkeypatch.setattr(jit, "_LOCKS", [tmp_path / "locks"])
    (tmp_path / "locks").mkdir()
    path = tmp_path / "locks" / f"{fn.__module__}.{fn.__qualname__}"
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys; "
                               f"h = open({str(path)!r}, 'a'); fcntl.flock(h, fcntl.LOCK_EX); "
                               "print('held', flush=True); sys.stdin.readline()"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert holder.stdout.readline().strip() == "held"
    entered = threading.Event()

    def compile_() -> None:
        with jit._one_at_a_time(fn):
            entered.set()

    waiting = threading.Thread(target=compile_)
    waiting.start()
    assert not entered.wait(0.5)  # the other process holds it
    holder.communicate("release\n", timeout=30)
    assert entered.wait(30)
    waiting.join(30)
    with open(path, "a") as h:  # released after the block
        fcntl.flock(h, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(h, fcntl.LOCK_UN)
    monkeypatch.setattr(jit, "_LOCKS", [tmp_path / "a file" / "locks"])
    (tmp_path / "a file").write_text("not a directory")
    with jit._one_at_a_time(fn):  # no lock to take: it compiles for itself
        pass

    def refuse(*args):
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(jit, "_LOCKS", [tmp_path / "locks"])
    monkeypatch.setattr(fcntl, "flock", refuse)
    with jit._one_at_a_time(fn):  # a file system without flock: the same
        pass
