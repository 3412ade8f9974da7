"""A Ctrl-C that is never lost.

Python raises `KeyboardInterrupt` wherever the main thread happens to be when the signal's
handler runs. Inside a finalizer (``__del__``, a weakref callback: llvmlite runs thousands of
them while numba compiles) the exception cannot propagate: Python prints "Exception ignored" and
goes on, and the run finishes as if the user had never pressed Ctrl-C (CI saw exit code 0 after
a Ctrl-C sent while the fast path compiled). So the handler also remembers the signal, and the
run checks it at each chunk boundary and before it publishes its results (`raise_if_interrupted`):
a Ctrl-C either interrupts the run or, if it was swallowed, stops it at the next check. The
swallowed exception is not printed either ("Exception ignored ... Traceback" on stderr would break
the promise of one line): it is remembered, and raised at the next check. SIGTERM (`on_sigterm`)
is remembered the same way; numba checks before each function it compiles (`sim.core.jit`), so a
signal swallowed during a cold compile stops the run within a function's compile, not after it
(a SIGTERM lost in a finalizer once let a cold run go on past a test's 60 s). Where no exception
can unwind (a compile called from compiled code), a signal is only remembered (`deferred`).

Only the standard library; `install` is called by the console script before any command runs.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading

_received = False  # or the signal received: SIGINT or SIGTERM


def _on_sigint(signum: int, frame: object) -> None:
    global _received
    _received = signal.SIGINT
    raise KeyboardInterrupt


def on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM (kill, a batch scheduler) unwinds like Ctrl-C, with exit code 128 + 15."""
    global _received
    _received = signal.SIGTERM
    raise SystemExit(128 + signum)


def install() -> None:
    """Handle Ctrl-C from now on (in the main thread only, as Python requires)."""
    global _received
    _received = False
    signal.signal(signal.SIGINT, _on_sigint)
    if not getattr(sys.unraisablehook, "keeps_ctrl_c", False):
        sys.unraisablehook = _quiet_ctrl_c(sys.unraisablehook)


def _quiet_ctrl_c(previous):
    """An unraisable-exception hook that keeps quiet about a Ctrl-C raised in a finalizer (the
    run stops at its next check) and passes anything else to `previous`."""

    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, (KeyboardInterrupt, SystemExit)):
            return
        previous(unraisable)

    hook.keeps_ctrl_c = True
    return hook


def received() -> bool:
    """A Ctrl-C (or SIGTERM) has arrived since `install` (whether or not its exception reached
    the run)."""
    return bool(_received)


@contextlib.contextmanager
def deferred():
    """In this block a Ctrl-C or SIGTERM is remembered, not raised: for Python code called from
    compiled code (a kernel compiled at its first call, `sim.core.apart`), through which an
    exception cannot unwind; the run's next check raises it (`raise_if_interrupted`). Signals
    reach the main thread only, so another thread's block changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

    def remember(signum: int, frame: object) -> None:
        global _received
        _received = signum

    try:  # (a signal between the two swaps is remembered or raised, never leaves one swapped)
        for sig in previous:
            signal.signal(sig, remember)
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def exit_code() -> int:
    """The exit code of the signal received: 143 for a SIGTERM, 130 for a Ctrl-C."""
    return 128 + signal.SIGTERM if _received == signal.SIGTERM else 130


def raise_if_interrupted() -> None:
    """Raise `KeyboardInterrupt` if a Ctrl-C arrived whose exception was swallowed
    (`SystemExit(143)` for a SIGTERM)."""
    if _received == signal.SIGTERM:
        raise SystemExit(128 + signal.SIGTERM)
    if _received:
        raise KeyboardInterrupt
