"""SIGTERM sent to `tournament --report` at moments into its report (docs/reliability.md, the row
"SIGTERM in any phase"): a small run is started, the signal sent once the report's chart pool is
up plus a delay (0, D, 2D, 3D, 4D in turn; given as =D, D every time), and the exit code and the
seconds to the exit printed; a run still alive 15 s after the signal is dumped (Python stacks on
stderr, gdb's of every thread) and killed. Each run's stderr is in OUT/err<i>.txt.

usage: PYTHONPATH=. python scripts/trials/sigterm_report_stops.py RUNS [D] [OUT]
e.g.   PYTHONPATH=. python scripts/trials/sigterm_report_stops.py 8 =0.7 /tmp/stops
(2026-12-06: 35 stops in all; before the fixes one hung past 600 s in CI and 4 of 8 stops at
0.7 s ended 130 with no word of --resume; after, 8 of 8 at 0.7 s ended 143 with the line.)
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from sim.core.runs import partial_dir

ENTRY = ("import faulthandler, signal, sys; faulthandler.register(signal.SIGUSR1, "
         "all_threads=True); from cli.entry import main; sys.argv[0] = 'abyss-mc'; main()")
ARGS = ["tournament", "--report", "--players", "4", "--blocks", "400", "--fight-points", "200",
        "--card-blocks", "60", "--threads", "1", "--seed", "3"]  # fmt: skip


def children(pid: int) -> set[int]:
    """The processes whose parent is `pid` (the report's chart pool), by procps' pgrep."""
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return {int(x) for x in found.split()}


def main() -> None:
    runs = int(sys.argv[1])
    spec = sys.argv[2] if len(sys.argv) > 2 else "0.7"
    delay, fixed = float(spec.lstrip("=")), spec.startswith("=")
    base = Path(sys.argv[3] if len(sys.argv) > 3 else "/tmp/sigterm_stops")
    base.mkdir(parents=True, exist_ok=True)
    for i in range(runs):
        out = base / f"out{i}"
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(partial_dir(out), ignore_errors=True)
        with open(base / f"err{i}.txt", "w") as err:
            p = subprocess.Popen([sys.executable, "-c", ENTRY, *ARGS, "--out", str(out)],
                                 stdout=subprocess.DEVNULL, stderr=err,
                                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            staging = partial_dir(out)
            while not ((staging / "manifest.json").is_file() and children(p.pid)):
                time.sleep(0.01)
            time.sleep(delay if fixed else delay * (i % 5))
            t0 = time.monotonic()
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=15)
                print(i, "exit", p.returncode, f"{time.monotonic() - t0:.2f} s", flush=True)
            except subprocess.TimeoutExpired:
                print(i, "still running 15 s after the signal: dumped, killed", flush=True)
                for pid in [p.pid, *children(p.pid)]:
                    os.kill(pid, signal.SIGUSR1)
                time.sleep(2)
                with open(base / f"gdb{i}.txt", "w") as dump:
                    subprocess.run(["gdb", "-p", str(p.pid), "-batch", "-ex",
                                    "thread apply all bt"], stdout=dump, stderr=subprocess.STDOUT)
                for pid in [*children(p.pid), p.pid]:
                    os.kill(pid, signal.SIGKILL)
                p.wait()
                break


if __name__ == "__main__":
    main()
