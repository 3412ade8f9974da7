"""The reference engine on forked workers (`games.abyss.engine.runner.play_reference`, issue 54:
the first run on a fresh machine plays on the reference engine while the fast path compiles).
A game is a pure function of the seed and its index, so the workers' games, joined in order,
are the one process's: the same rows, the same aggregates, the same sampled trajectories."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

from games.abyss.engine import runner
from games.abyss.engine.cards.loader import load_cards
from games.abyss.strategies import REGISTRY

pytestmark = pytest.mark.skipif(os.name != "posix", reason="forks the reference engine's workers")

EXP = ("leviathan",)


def _played(threads: int, n_games: int, lineup: list[str]):
    tables = load_cards(expansions=EXP)
    policies = REGISTRY.make_policies(lineup, len(lineup))
    return runner.run_games(tables, engine="reference", n_players=len(lineup), n_games=n_games,
                            seed=11, strategies=policies, expansions=EXP,
                            threads=threads)  # fmt: skip


def _same_aggregates(a, b) -> None:
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y, err_msg=f.name)
        else:
            assert x == y, f.name
    assert len(a.sample_game) == 5


@pytest.mark.parametrize("threads", [2, 3])
def test_the_forked_games_are_the_one_process_games(threads):
    n = runner.FORK_MIN_GAMES + 5  # (uneven parts; games 0, 16, 32, 48 and 64 sampled)
    lineup = ["greedy", "random", "heuristic"]
    one_seats, one_games, one_agg, one_times = _played(1, n, lineup)
    seats, games, agg, times = _played(threads, n, lineup)
    assert "threads" not in one_times and times["threads"] == threads  # (forked indeed)
    assert seats == one_seats
    assert games == one_games
    assert [g["game"] for g in games] == list(range(n))
    _same_aggregates(agg, one_agg)


def test_a_short_run_plays_in_this_process():
    """Fewer games than `FORK_MIN_GAMES`: no worker is worth its start."""
    *_, times = _played(2, runner.FORK_MIN_GAMES - 1, ["greedy", "random"])
    assert "threads" not in times
