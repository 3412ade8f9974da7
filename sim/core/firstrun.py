"""The first run after an install or an update compiles the fast path (tens of seconds, once);
`first_compile` says so on stderr from its first second, also when the output is piped, and
shows the time passing until the kernels are ready. Later runs load them from numba's cache and
say nothing.

Whether this cache has the game's kernels is remembered by a marker file in the cache directory
(`sim.core.jit`: one directory per version of the sources), written once a first call finished.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from pathlib import Path

#: Seconds between the lines that say the compile goes on, when stderr is not a terminal.
PIPED_EVERY = 10.0


def _marker(label: str) -> Path:
    from sim.core.jit import cache_dir

    return Path(cache_dir()) / f"{label}.compiled"


def is_compiled(label: str) -> bool:
    return _marker(label).exists()


@contextlib.contextmanager
def first_compile(label: str, seconds: int, stream=None):
    """Around the first call into a game's compiled kernels: if this cache has not compiled
    `label` yet, announce it ("about `seconds` s", measured on a 2-core machine) and tick until
    the block ends; then remember it. Silent when the kernels are cached."""
    if is_compiled(label):
        yield
        return
    stream = stream or sys.stderr
    if wait_for_background(label, stream) and is_compiled(label):
        yield
        return
    tty = stream.isatty()
    print(f"compiling the {label} fast path once, about {seconds} s on 2 cores; later runs "
          "start at once", file=stream, flush=True)  # fmt: skip
    done = threading.Event()
    t0 = time.perf_counter()

    def tick() -> None:
        every = 1.0 if tty else PIPED_EVERY
        while not done.wait(every):
            elapsed = time.perf_counter() - t0
            if tty:
                print(f"\r  compiling ... {elapsed:.0f} s", end="", file=stream, flush=True)
            else:
                print(f"  still compiling ({elapsed:.0f} s)", file=stream, flush=True)

    ticker = threading.Thread(target=tick, name="first-compile", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()
        if tty:
            print("\r" + " " * 40 + "\r", end="", file=stream, flush=True)
    with contextlib.suppress(OSError):  # a read-only cache only means the next run says it again
        marker = _marker(label)
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(f"{time.perf_counter() - t0:.1f}\n")
    print(f"compiled in {time.perf_counter() - t0:.0f} s", file=stream, flush=True)


# --- the cold start: a small first run plays on the reference engine --------------------------
#: ABYSS_MC_COLD_START=compile makes every fast run compile in the foreground (the tests do).
COLD_START_ENV = "ABYSS_MC_COLD_START"


def cold_start_allowed() -> bool:
    import os

    return os.environ.get(COLD_START_ENV, "reference") != "compile"


@contextlib.contextmanager
def compile_lock(label: str):
    """Yields True when this process may compile `label` in the background: no other process
    holds the lock (a non-blocking `flock` on a file in the cache directory; held until the
    block ends, released by the kernel if the process dies). Without `fcntl` (Windows) it
    always yields True: a second compile only duplicates work, numba's cache writes are atomic."""
    try:
        import fcntl
    except ImportError:
        yield True
        return
    path = _marker(label).with_suffix(".compiling")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        _HELD.add(label)
        try:
            yield True
        finally:
            _HELD.discard(label)


#: the labels this process compiles under `compile_lock` (it never waits for itself)
_HELD: set[str] = set()


def wait_for_background(label: str, stream) -> bool:
    """If another process compiles `label` (`compile_part_in_background`), say so and wait for
    it to end; True when there was one to wait for."""
    try:
        import fcntl
    except ImportError:
        return False
    path = _marker(label).with_suffix(".compiling")
    if label in _HELD or not path.exists():
        return False
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False  # nobody compiles it now
        except OSError:
            pass
        t0 = time.perf_counter()
        print(f"waiting for the {label}, compiling in the background ...", file=stream,
              flush=True)  # fmt: skip
        fcntl.flock(handle, fcntl.LOCK_EX)
        print(f"  ready after {time.perf_counter() - t0:.0f} s", file=stream, flush=True)
    return True


def compile_part_in_background(label: str, target: str) -> None:
    """Compile one of a command's parts (`target`: "module:function", which plays a little of
    it under `first_compile(label)`) in a detached process, on the core the command's own
    compile leaves free; `first_compile(label)` later waits for it (issue 33: kernels that do
    not call each other compile side by side instead of one after the other)."""
    detached([sys.executable, "-m", "reports.runs.warmup", "--part", label, target])


def compile_in_background(game: str) -> None:
    """Start `python -m reports.runs.warmup GAME` detached from this process (its own session, no
    output), so it goes on compiling after the command that started it has ended."""
    detached([sys.executable, "-m", "reports.runs.warmup", game])


def detached(args: list[str]) -> None:
    """Start `args` in its own session with no input or output, on this process's cache."""
    import os
    import subprocess

    from sim.core.jit import cache_dir

    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir())
    env[COLD_START_ENV] = "compile"
    detach = (
        {"start_new_session": True}
        if os.name == "posix"
        else {"creationflags": subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP}
    )
    subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, env=env, close_fds=True, **detach)  # fmt: skip
