"""Work on forked processes: the report's chart workers (`reports.render.report`) and the
reference engine's games (`in_forks`).

A forked worker imports nothing again (a user's script is not run twice) and inherits what the
command compiled before the fork. Each worker holds no run's lock, ignores Ctrl-C (the command
answers it), ends on SIGTERM, and ends with the command that started it (`worker_start`).

Only the standard library.
"""

from __future__ import annotations

import os

from sim.core.errors import UserError
from sim.core.interrupts import deferred, raise_if_interrupted


def fork_method() -> str:
    import multiprocessing as mp

    return "fork" if "fork" in mp.get_all_start_methods() else "spawn"


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system says, else all)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def can_fork_workers() -> bool:
    """Workers can be forked here: the fork start method, and not a daemon (a Dask worker)."""
    import multiprocessing as mp

    return fork_method() == "fork" and not mp.current_process().daemon


def new_pool(workers: int):
    """A pool of `workers` processes started as `worker_start` says, or None where this process
    cannot have children of its own (a daemon, or no working semaphores)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    if mp.current_process().daemon:
        return None
    try:
        return ProcessPoolExecutor(workers, mp_context=mp.get_context(fork_method()),
                                   initializer=worker_start, initargs=(os.getpid(),))  # fmt: skip
    except (OSError, ImportError):  # no /dev/shm, no sem_open
        return None


def submit(pool, fn, *args):
    """`pool.submit(fn, *args)` with a Ctrl-C or SIGTERM held until it returns (then raised).
    The first submit forks the workers and only then starts the thread that will end them: a
    SIGTERM in between left a worker no one would end, and the exit (multiprocessing joins its
    children) waited for it forever (CI: still running 600 s after the signal)."""
    with deferred():
        future = pool.submit(fn, *args)
    raise_if_interrupted()
    return future


def worker_start(parent: int) -> None:
    """A worker holds no run's lock and ends with the command that started it: after a SIGKILL
    of the command (a batch scheduler's, the out-of-memory killer's), workers once lived on
    holding the run's lock, and `--resume` was refused until they were killed by hand. Its
    signals are set here, not inherited (it is forked while the command holds them, `submit`):
    a Ctrl-C is the command's to answer, a SIGTERM ends the worker."""
    import signal
    import threading
    import time

    from sim.core.runs import OutputLock

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    OutputLock.close_inherited()

    def end_with_parent() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=end_with_parent, daemon=True).start()


def in_forks(fn, parts: list[tuple], workers: int, on_wait=None) -> list:
    """`[fn(*part) for part in parts]`, the parts on up to `workers` forked processes, the
    results in the parts' order; in this process where there can be no workers. `on_wait()` is
    called every half second while they play (a progress line). An interrupt (Ctrl-C, SIGTERM)
    ends the workers before it is raised here; so does a part that fails."""
    from concurrent.futures import FIRST_EXCEPTION, wait

    pool = new_pool(max(1, min(workers, len(parts)))) if len(parts) > 1 else None
    if pool is None:
        return [fn(*part) for part in parts]
    from concurrent.futures.process import BrokenProcessPool

    done = False
    try:
        futures = [submit(pool, fn, *part) for part in parts]
        pending = set(futures)
        while pending:  # (a short wait: the run's interrupt is checked between them)
            _, pending = wait(pending, timeout=0.5, return_when=FIRST_EXCEPTION)
            raise_if_interrupted()
            if on_wait is not None:
                on_wait()
            failed = next((f for f in futures if f.done() and f.exception() is not None), None)
            if failed is not None:  # (raised now: the other parts are not waited for)
                raise failed.exception()
        results = [f.result() for f in futures]
        done = True
        return results
    except BrokenProcessPool:
        raise UserError("a worker process ended abruptly (out of memory, or killed?): "
                        "run the command again") from None
    finally:
        if not done:  # interrupted, or a part failed: the others are not waited for
            for process in list(getattr(pool, "_processes", {}).values()):
                process.terminate()
        pool.shutdown(wait=done, cancel_futures=True)
