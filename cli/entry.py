"""The ``abyss-mc`` console script: a Ctrl-C at any moment, also while the program's modules load,
ends it with one line and exit code 130, never a traceback.

Only the standard library is imported here, before the handler is in place, so even the import of
the command-line modules (typer, rich) happens inside it.
"""

from __future__ import annotations

import signal
import sys


def main() -> None:
    # Python's own Ctrl-C (KeyboardInterrupt), remembered: inside numba's compiler it can surface
    # as another error ("no compiled object yet ..."), inside a finalizer not at all. Python's
    # default handler raises it while `interrupts` loads (CI, a loaded host: 50 ms in).
    try:
        # A Ctrl-C that cuts the first compile short leaves llvmlite objects half made, whose
        # finalizers then fail ("Exception ignored in ... Traceback"): noise to a user, never news.
        sys.unraisablehook = _quiet
        from sim.core import interrupts

        interrupts.install()
    except KeyboardInterrupt:
        _interrupted()
    try:
        from cli.app import main as run

        run()
    except KeyboardInterrupt:
        # A run in progress has already said how to resume it (reports.run_dir.InterruptNote).
        _interrupted()
    except Exception:
        if not interrupts.received():
            raise
        print("interrupted", file=sys.stderr)  # what the Ctrl-C broke is not the user's news
        app = sys.modules.get("cli.app")  # (imported before any chart could be drawn)
        if app is not None:
            app.drop_queued_charts()
        sys.exit(interrupts.exit_code())
    finally:
        # The command is over; the interpreter's teardown restores the default SIGINT action, so a
        # Ctrl-C arriving now would kill the process silently with status -2. Ignore it instead.
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _interrupted() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C, or the teardown's: see `main`
    print("interrupted", file=sys.stderr)
    sys.exit(130)


def _quiet(unraisable) -> None:
    """`sys.unraisablehook` of the console script: say nothing."""


if __name__ == "__main__":
    main()
