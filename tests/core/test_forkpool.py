"""Work on forked processes (`sim.core.forkpool.in_forks`): the results in the parts' order, a
part that fails raised at once (the others not waited for), a worker that dies in one line."""

from __future__ import annotations

import os
import time

import pytest

from sim.core.errors import UserError
from sim.core.forkpool import can_fork_workers, in_forks

pytestmark = pytest.mark.skipif(not can_fork_workers(), reason="forks its workers")


def _square_or_fail(x: int, nap: float) -> tuple[int, int]:
    time.sleep(nap)
    if x < 0:
        raise ValueError(f"part {x} failed")
    return x * x, os.getpid()


def _dies(x: int) -> int:
    if x == 1:
        os._exit(1)  # (as the out-of-memory killer would end it)
    time.sleep(0.2)
    return x


def test_the_results_come_in_the_parts_order_from_other_processes():
    out = in_forks(_square_or_fail, [(3, 0.3), (4, 0.0), (5, 0.1)], 2)
    assert [r for r, _ in out] == [9, 16, 25]
    assert os.getpid() not in {pid for _, pid in out}


def test_a_failed_part_is_raised_without_waiting_for_the_others():
    """A part that fails ends the run at once: before, `in_forks` collected the results in
    order and so waited for the earlier parts first (6 s here)."""
    t0 = time.monotonic()
    with pytest.raises(ValueError, match="part -1 failed"):
        in_forks(_square_or_fail, [(2, 6.0), (-1, 0.1)], 2)
    assert time.monotonic() - t0 < 4.0


def test_a_worker_that_dies_is_one_line():
    with pytest.raises(UserError, match="a worker process ended abruptly"):
        in_forks(_dies, [(0,), (1,), (2,)], 2)


def test_one_part_plays_in_this_process():
    assert in_forks(_square_or_fail, [(3, 0.0)], 2) == [(9, os.getpid())]
