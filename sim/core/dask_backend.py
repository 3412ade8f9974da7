"""The distributed backend: chunks of games on a Dask cluster (`dask.distributed`).

A run is cut into chunks of a fixed number of games (a few seconds of work each); each chunk is a
task that plays its games on a worker and returns its partial results; the client merges them in
game order, by addition (the aggregates are int64 sums), so the results are identical to the
local backend's for the same seed, whatever the cluster. `--scheduler ADDRESS` uses a running
cluster; without it a local cluster of one single-threaded worker process per core is started on
the loopback address (and closed at the end).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import contextmanager

from sim.core.errors import UserError

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
    if scheduler:
        import os

        # seconds to wait for the scheduler (the tests, which reach for a closed port, wait less)
        wait = os.environ.get("ABYSS_MC_DASK_TIMEOUT", "10")
        try:
            c = Client(scheduler, timeout=f"{wait}s")
        except OSError as exc:
            raise UserError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
        try:
            yield c
        finally:
            c.close()
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
        c.close()
        cluster.close()


def chunks(n_games: int, chunk_size: int | None) -> list[tuple[int, int]]:
    size = chunk_size or DEFAULT_CHUNK
    return [(first, min(size, n_games - first)) for first in range(0, n_games, size)]


def map_chunks(c, task: Callable, n_games: int, chunk_size: int | None, *args, progress=None):
    """Run `task(first, n, *args)` for every chunk on the cluster; results in game order."""
    from distributed import as_completed

    spans = chunks(n_games, chunk_size)
    # hash=False: a fresh key each call, so data scattered again is never one being released
    shipped = [c.scatter(a, broadcast=True, hash=False) if _big(a) else a for a in args]
    futures = [c.submit(task, first, n, *shipped, pure=False) for first, n in spans]
    done = 0
    results: dict[int, object] = {}
    index = {f.key: i for i, f in enumerate(futures)}
    for future in as_completed(futures):
        results[index[future.key]] = future.result()
        done += spans[index[future.key]][1]
        if progress is not None:
            progress(done, n_games)
    return [results[i] for i in range(len(spans))]


def map_timed(c, task: Callable, n_games: int, chunk_size: int | None, *args, progress=None):
    """`map_chunks`, and the seconds it took."""
    t0 = time.perf_counter()
    parts = map_chunks(c, task, n_games, chunk_size, *args, progress=progress)
    return parts, time.perf_counter() - t0


def _big(obj) -> bool:
    """Card tables go to every worker once, not with every task."""
    return type(obj).__name__.endswith("Tables")
