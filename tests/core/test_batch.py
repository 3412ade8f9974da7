"""The game-agnostic batch driver (`sim.core.batch`): chunks cover every game once, in order;
the progress bar shows up only for long runs; thread counts are checked."""

from __future__ import annotations

import time

import pytest

from sim.core import batch
from sim.core.errors import UserError


def test_chunks_cover_every_game_once_in_order():
    seen: list[tuple[int, int]] = []
    batch.run_chunks(1000, lambda first, n: seen.append((first, n)), chunk_size=37)
    assert seen[0] == (0, 37) and sum(n for _, n in seen) == 1000
    assert all(a + n == b for (a, n), (b, _) in zip(seen, seen[1:], strict=False))


def test_adaptive_chunks_grow_to_about_a_second(monkeypatch):
    monkeypatch.setattr(batch, "CHUNK_SECONDS", 0.05)
    sizes: list[int] = []

    def play(first: int, n: int) -> None:
        sizes.append(n)
        time.sleep(n * 1e-5)  # 10 us per game: the second chunk takes the rest

    batch.run_chunks(5000, play)
    assert sizes[0] == batch.FIRST_CHUNK
    assert max(sizes) > 4 * batch.FIRST_CHUNK and sum(sizes) == 5000


def test_progress_bar_only_for_long_runs(monkeypatch, capsys):
    monkeypatch.setattr(batch, "PROGRESS_AFTER_SECONDS", 0.01)
    shown: list[int] = []

    class Bar:
        def __init__(self, total, label):
            shown.append(total)

        def update(self, done, rate):
            assert 0 < done <= 2000 and rate > 0

        def close(self):
            pass

    monkeypatch.setattr(batch, "ProgressBar", Bar)
    batch.run_chunks(2000, lambda first, n: time.sleep(0.005), chunk_size=100, progress=True)
    assert shown == [2000]
    shown.clear()
    batch.run_chunks(2000, lambda first, n: None, chunk_size=1000, progress=True)
    assert shown == []  # finished before it would have been worth a bar


@pytest.mark.parametrize("threads", [0, -1, 10_000])
def test_impossible_thread_counts_are_user_errors(threads):
    with pytest.raises(UserError, match="--threads"):
        batch.set_threads(threads)
