"""A Ctrl-C that is never lost.

Python raises `KeyboardInterrupt` wherever the main thread happens to be when the signal's
handler runs. Inside a finalizer (``__del__``, a weakref callback: llvmlite runs thousands of
them while numba compiles) the exception cannot propagate: Python prints "Exception ignored" and
goes on, and the run finishes as if the user had never pressed Ctrl-C (CI saw exit code 0 after
a Ctrl-C sent while the fast path compiled). So the handler also remembers the signal, and the
run checks it at each chunk boundary and before it publishes its results (`raise_if_interrupted`):
a Ctrl-C either interrupts the run or, if it was swallowed, stops it at the next check.

Only the standard library; `install` is called by the console script before any command runs.
"""

from __future__ import annotations

import signal

_received = False


def _on_sigint(signum: int, frame: object) -> None:
    global _received
    _received = True
    raise KeyboardInterrupt


def install() -> None:
    """Handle Ctrl-C from now on (in the main thread only, as Python requires)."""
    global _received
    _received = False
    signal.signal(signal.SIGINT, _on_sigint)


def received() -> bool:
    """A Ctrl-C has arrived since `install` (whether or not its exception reached the run)."""
    return _received


def raise_if_interrupted() -> None:
    """Raise `KeyboardInterrupt` if a Ctrl-C arrived whose exception was swallowed."""
    if _received:
        raise KeyboardInterrupt
