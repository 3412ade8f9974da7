"""The distributed backend: chunks of games on a Dask cluster (`dask.distributed`).

A run is cut into chunks of a fixed number of games (a few seconds of work each); each chunk is a
task that plays its games on a worker and returns its partial results; the client merges them in
game order, by addition (the aggregates are int64 sums), so the results are identical to the
local backend's for the same seed, whatever the cluster. `--scheduler ADDRESS` uses a running
cluster; without it a local cluster of one single-threaded worker process per core is started on
the loopback address (and closed at the end).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from contextlib import contextmanager

from sim.core.errors import ClusterLost, UserError, one_line
from sim.core.interrupts import raise_if_interrupted

#: Games per task when the user gives no --chunk-size: a few seconds of work on one core.
DEFAULT_CHUNK = 50_000


@contextmanager
def client(scheduler: str | None, n_workers: int | None = None):
    """A connected `distributed.Client` (a new local cluster when `scheduler` is None)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UserError(
            "--backend dask needs dask.distributed: pip install 'abyss-mc[dask]'"
        ) from None
    _quiet_logs()
    if scheduler:
        c = _connect(Client, scheduler)
        try:
            yield c
        finally:
            _close(c)
        return
    import os

    cluster = LocalCluster(
        n_workers=n_workers or os.cpu_count() or 1,
        threads_per_worker=1,
        host="127.0.0.1",
        dashboard_address=None,
        processes=True,
    )
    c = Client(cluster)
    try:
        yield c
    finally:
        _close(c)
        cluster.close()


def _quiet_logs() -> None:
    """distributed logs a lost connection as it happens, with tracebacks; the run says it once,
    with what to do. Its loggers (each has its own level, from dask's config) say nothing."""
    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] == "distributed"]
    for name in ["distributed", *names]:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def _connect(Client, scheduler: str):
    import os

    # seconds to wait for the scheduler (the tests, which reach for a closed port, wait less)
    wait = os.environ.get("ABYSS_MC_DASK_TIMEOUT", "10")
    try:
        return Client(scheduler, timeout=f"{wait}s")
    except (OSError, ValueError, TypeError) as exc:  # unreachable, or not an address at all
        raise UserError(f"cannot reach the Dask scheduler {scheduler}: {one_line(exc)}") from None


def _close(c) -> None:
    """Close a client; one whose scheduler is gone has nothing left to close (no error, no
    wait: the run's own message says what happened)."""
    try:
        c.close(timeout=5)
    except Exception:  # noqa: BLE001 - a lost cluster's connection is already closed
        pass


def chunks(n_games: int, chunk_size: int | None, spans=None) -> list[tuple[int, int]]:
    """The chunks (first, n) of games 0 .. n_games - 1, or of each span (first, n) of `spans`."""
    size = chunk_size or DEFAULT_CHUNK
    spans = [(0, n_games)] if spans is None else spans
    return [(at, min(size, first + n - at)) for first, n in spans
            for at in range(first, first + n, size)]  # fmt: skip


def map_chunks(c, task: Callable, n_games: int, chunk_size: int | None, *args, progress=None,
               spans: list[tuple[int, int]] | None = None, on_arrival=None):  # fmt: skip
    """Run `task(first, n, *args)` for every chunk on the cluster: the chunks of games 0 ..
    n_games - 1, or of the given `spans` (first, n) only (a resumed run's missing games).

    Without `on_arrival`, returns the results in game order. With it, calls
    `on_arrival(first, n, result)` as each chunk arrives, in any order (to store it at once:
    a run never holds more than the chunks in flight in memory only), and returns None.
    A lost scheduler or connection, or workers that keep dying, raise `ClusterLost`; an error
    in a task (a bug) is raised as it is."""
    from distributed import as_completed

    spans = chunks(n_games, chunk_size, spans)
    total, done = sum(n for _, n in spans), 0
    results: dict[int, object] = {}
    with _cluster_faults(_address(c)):
        # hash=False: a fresh key each call, so data scattered again is never one being released
        shipped = [c.scatter(a, broadcast=True, hash=False) if _big(a) else a for a in args]
        futures = [c.submit(task, first, n, *shipped, pure=False) for first, n in spans]
        index = {f.key: i for i, f in enumerate(futures)}
        for future in as_completed(futures):
            i = index[future.key]
            result = future.result()
            future.release()
            futures[i] = None
            if on_arrival is None:
                results[i] = result
            else:
                first, n = spans[i]
                with _outside_cluster():
                    on_arrival(first, n, result)
            del result
            done += spans[i][1]
            if progress is not None:
                progress(done, total)
            raise_if_interrupted()
    return None if on_arrival is not None else [results[i] for i in range(len(spans))]


def map_timed(c, task: Callable, n_games: int, chunk_size: int | None, *args, progress=None,
              **kwargs):  # fmt: skip
    """`map_chunks`, and the seconds it took."""
    t0 = time.perf_counter()
    parts = map_chunks(c, task, n_games, chunk_size, *args, progress=progress, **kwargs)
    return parts, time.perf_counter() - t0


class _ClientSide(Exception):
    """Wraps an error of the client's own work (storing an arrived chunk) through
    `_cluster_faults`, which must not take it for a cluster fault."""


@contextmanager
def _outside_cluster():
    try:
        yield
    except Exception as exc:
        raise _ClientSide(exc) from exc


@contextmanager
def _cluster_faults(where: str):
    """Cluster faults become `ClusterLost` (one line); the client's own errors and a task's
    errors pass unchanged."""
    from concurrent.futures import CancelledError

    from distributed import KilledWorker

    try:
        yield
    except _ClientSide as wrapped:
        raise wrapped.__cause__ from None
    except CancelledError as exc:  # FutureCancelledError: "scheduler-connection-lost"
        reason = getattr(exc, "reason", None) or "its tasks were cancelled"
        raise ClusterLost(f"the Dask cluster{where} was lost ({reason})") from None
    except KilledWorker as exc:
        raise ClusterLost(f"Dask workers{where} kept dying on a chunk ({_cause(exc)})") from None
    except (OSError, TimeoutError) as exc:  # CommClosedError is an OSError
        raise ClusterLost(f"the connection to the Dask cluster{where} was lost ({_cause(exc)})") \
            from None


def _address(c) -> str:
    try:
        return f" at {c.scheduler.address}"
    except AttributeError:
        return ""


def _cause(exc: BaseException) -> str:
    """distributed's message without the connection's description ("in <TCP ...>: ")."""
    return re.sub(r"^in <[^>]*>: ", "", one_line(exc))


def _big(obj) -> bool:
    """Card tables go to every worker once, not with every task."""
    return type(obj).__name__.endswith("Tables")
